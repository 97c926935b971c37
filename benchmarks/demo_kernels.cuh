#pragma once
// The kernels the benchmark programs and the speed probe launch. The transpose and the puzzle are
// the suite's own (kernels/*_kernel.cuh), so what is timed is what is checked:
//   LaunchTranspose<layout>  float transpose through a 32x32 shared tile, 32x8 threads per block
//   LaunchPuzzle<two_way>    out = (in + 10) * 2 staged through a 256-float shared buffer
//   StridedStoreLoad         one warp per block stores at lane * stride and loads a neighbour's element

#include <cstddef>
#include <cstdint>
#include <vector>

#include "puzzle_kernel.cuh"
#include "transpose_kernel.cuh"

namespace bankcheck::bench {

// ---- transpose and the puzzle: the suite's own kernels ------------------------------------------
using kernels::kPuzzleThreads;
using kernels::kTile;
using kernels::TileLayout;
constexpr int kTileRows = 8;  // 32x8 threads per block, four rows per thread

template <TileLayout kLayout>
void LaunchTranspose(const float* in, float* out, int rows, int cols) {
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  kernels::TransposeKernel<kLayout, kTileRows><<<grid, dim3(kTile, kTileRows)>>>(in, out, rows, cols);
}

// `elements` must be a multiple of 256.
template <bool kTwoWay>
void LaunchPuzzle(const float* in, float* out, size_t elements) {
  kernels::PuzzleKernel<kTwoWay>
      <<<static_cast<unsigned>(elements / kPuzzleThreads), kPuzzleThreads>>>(in, out);
}

// ---- strided store and load, one warp per block ---------------------------------------------------
constexpr int kWarp = 32;
constexpr int kMaxDemoStride = 32;

// Lane l stores at l * stride and, after __syncthreads, loads lane (l + 1) % 32's element: both
// accesses are gcd(stride, 32)-way. Reading another lane's element keeps the load in the code.
__global__ void __launch_bounds__(kWarp)
    StridedStoreLoad(const float* __restrict__ in, float* __restrict__ out, int stride) {
  __shared__ float buf[kWarp * kMaxDemoStride];
  const unsigned lane = threadIdx.x;
  const size_t base = static_cast<size_t>(blockIdx.x) * kWarp;
  buf[lane * stride] = in[base + lane];
  __syncthreads();
  out[base + lane] = buf[((lane + 1) % kWarp) * stride];
}

// `elements` must be a multiple of 32; `stride` at most 32.
inline void LaunchStridedStoreLoad(const float* in, float* out, size_t elements, int stride) {
  StridedStoreLoad<<<static_cast<unsigned>(elements / kWarp), kWarp>>>(in, out, stride);
}

// ---- inputs ---------------------------------------------------------------------------------------
// `n` integer-valued floats in [-1000, 1000], a cheap hash of the index (64M of them take well under a
// second). Not all zeros: no kernel's time may depend on zero data taking a shortcut anywhere.
inline std::vector<float> PatternFloats(size_t n, uint32_t seed) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t h = (static_cast<uint32_t>(i) ^ seed) * 2654435761u;
    values[i] = static_cast<float>(static_cast<int>((h >> 8) % 2001u) - 1000);
  }
  return values;
}

}  // namespace bankcheck::bench
