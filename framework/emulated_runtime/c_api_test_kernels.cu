// The kernel of the C interface's test (c_api_test.cc): compiled twice from this one file, into the
// test program (an emulated program's launch, through the stand-in runtime) and into a cubin alone
// (nvcc -arch=sm_90 -cubin -lineinfo, what the C interface loads), so that the two paths emulate the
// same SASS.
#include "emulated_runtime/c_api_test_kernels.h"

namespace emucapi {

// A 32x32 tile transpose through an unpadded shared tile: its rows are written conflict-free, its
// columns read with 32-way conflicts; `out` is `in` transposed (n x n, n a multiple of 32, blocks of
// 32 x rows threads).
__global__ void TransposeTile(const int* in, int* out, int n) {
  __shared__ int tile[32][32];
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int y = threadIdx.y; y < 32; y += blockDim.y) tile[y][threadIdx.x] = in[(blockIdx.y * 32 + y) * n + x];
  __syncthreads();
  const int column = blockIdx.y * 32 + threadIdx.x;
  for (int y = threadIdx.y; y < 32; y += blockDim.y)
    out[(blockIdx.x * 32 + y) * n + column] = tile[threadIdx.x][y];
}

cudaError_t LaunchTransposeTile(dim3 grid, dim3 block, const int* in, int* out, int n) {
  TransposeTile<<<grid, block>>>(in, out, n);
  return cudaGetLastError();
}

}  // namespace emucapi
