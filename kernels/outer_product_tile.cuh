#pragma once
// An 8x8 tile of accumulators, as an SGEMM thread's: 64 live values (plus the operands). Under
// __launch_bounds__(256, 8) a thread may have 32 registers, and the compiler spills; under (256, 1)
// the tile stays in registers. kernels/global_memory.cu's local_memory cases and
// benchmarks/memory_traffic_program.cu run it. `a` and `b` hold 64 x 2,048 floats, `out` 256 x 64
// per block of 256 threads.

namespace bankcheck::kernels {
namespace {

template <int kMinBlocks>
__global__ void __launch_bounds__(256, kMinBlocks)
    OuterProductTile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out) {
  float acc[8][8] = {};
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 64; ++k) {
    float ra[8], rb[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      ra[i] = a[k * 2048 + t * 8 + i];
      rb[i] = b[k * 2048 + t * 8 + i];
    }
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) out[(t * 8 + i) * 8 + j] = acc[i][j];
}

}  // namespace
}  // namespace bankcheck::kernels
