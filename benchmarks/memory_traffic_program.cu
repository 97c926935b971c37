// A plain CUDA program (no bankcheck library) with one coalesced copy and one 8x8 accumulator tile
// (kernels/outer_product_tile.cuh), for memory_traffic_doctor.sh: built as is, and "doctored"
// (-DBANKCHECK_DOCTORED): the copy reads every other float (its load no longer coalesced) and the
// tile is compiled under __launch_bounds__(256, 8), which leaves 32 registers (it spills).
// `bankcheck run` records the first and gates the second, which must fail at those two lines.
#include <cuda_runtime.h>

#include <cstdio>

#include "outer_product_tile.cuh"

#ifdef BANKCHECK_DOCTORED
constexpr int kStride = 2;
constexpr int kMinBlocks = 8;
#else
constexpr int kStride = 1;
constexpr int kMinBlocks = 1;
#endif

__global__ void Copy(const float* __restrict__ in, float* __restrict__ out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[kStride * i];
}

int main() {
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 64 << 20) != cudaSuccess || cudaMalloc(&out, 16 << 20) != cudaSuccess) {
    std::fprintf(stderr, "memory_traffic_program: no usable CUDA device\n");
    return 1;
  }
  cudaMemset(in, 0, 64 << 20);
  Copy<<<64, 256>>>(in, out);
  bankcheck::kernels::OuterProductTile<kMinBlocks><<<1, 256>>>(in, in + (1 << 20), out);
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("memory_traffic_program: %s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
