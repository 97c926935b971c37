#pragma once
// The tiled transpose kernel: the suite checks it (kernels/transpose.cu) and the benchmarks time it
// (benchmarks/), so both see the same code. Tile layouts, for the column read tile[tx][r]:
//   unpadded  float tile[32][32]: all 32 lanes of a warp read one bank, 32-way.
//   padded    float tile[32][33]: bank (tx + r) % 32, conflict-free.
//   swizzled  tile[32][32] with element (r, c) at tile[r][c ^ r]: conflict-free without padding.
// File-local (an anonymous namespace): each includer gets its own copy, named as baselines record it.

#include <cstddef>

namespace bankcheck::kernels {
namespace {

constexpr int kTile = 32;

enum class TileLayout { kUnpadded, kPadded, kSwizzled };

template <TileLayout kLayout, int kBlockRows>
__global__ void __launch_bounds__(kTile* kBlockRows)
    TransposeKernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  constexpr int kPitch = kLayout == TileLayout::kPadded ? kTile + 1 : kTile;
  __shared__ float tile[kTile][kPitch];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;

  int x = blockIdx.x * kTile + tx;  // input column
  int y = blockIdx.y * kTile + ty;  // input row
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows) {
    const int r = ty + j;
    if (x < cols && y + j < rows)
      // bankcheck: conflict-free
      tile[r][kLayout == TileLayout::kSwizzled ? (tx ^ r) : tx] = in[static_cast<size_t>(y + j) * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * kTile + tx;  // output column (= input row)
  y = blockIdx.x * kTile + ty;  // output row (= input column)
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows) {
    const int r = ty + j;
    if (x < rows && y + j < cols)
      // bankcheck: 32-way in transpose/unpadded*/128x128 | transpose/unpadded*/96x320 | transpose/unpadded*/4096x4096, 25-way in transpose/unpadded*/100x37, conflict-free
      out[static_cast<size_t>(y + j) * rows + x] = tile[tx][kLayout == TileLayout::kSwizzled ? (r ^ tx) : r];
  }
}

}  // namespace
}  // namespace bankcheck::kernels
