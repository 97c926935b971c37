#pragma once
// The demo kernels the benchmark programs and the speed probe launch (the same shapes as the
// suite's kernels in kernels/, without their test registrations):
//   Transpose<layout>   float transpose through a 32x32 shared tile, 32x8 threads per block
//   Puzzle<two_way>     out = (in + 10) * 2 staged through a 256-float shared buffer
//   StridedStoreLoad    one warp per block stores at lane * stride and loads a neighbour's element

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bankcheck::bench {

// ---- transpose ------------------------------------------------------------------------------------
constexpr int kTile = 32;
constexpr int kTileRows = 8;  // 32x8 threads per block, four rows per thread

// unpadded: tile[32][32], the column read tile[tx][r] is 32-way.
// padded:   tile[32][33], conflict-free.
// swizzled: tile[32][32] with element (r, c) at tile[r][c ^ r], conflict-free without padding.
enum class TileLayout { kUnpadded, kPadded, kSwizzled };

template <TileLayout kLayout>
__global__ void __launch_bounds__(kTile* kTileRows)
    Transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  constexpr int kPitch = kLayout == TileLayout::kPadded ? kTile + 1 : kTile;
  constexpr bool kSwizzle = kLayout == TileLayout::kSwizzled;
  __shared__ float tile[kTile][kPitch];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  int x = blockIdx.x * kTile + tx;  // input column
  int y = blockIdx.y * kTile + ty;  // input row
#pragma unroll
  for (int j = 0; j < kTile; j += kTileRows) {
    const int r = ty + j;
    if (x < cols && y + j < rows)
      tile[r][kSwizzle ? (tx ^ r) : tx] = in[static_cast<size_t>(y + j) * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * kTile + tx;  // output column (= input row)
  y = blockIdx.x * kTile + ty;  // output row (= input column)
#pragma unroll
  for (int j = 0; j < kTile; j += kTileRows) {
    const int r = ty + j;
    if (x < rows && y + j < cols)
      out[static_cast<size_t>(y + j) * rows + x] = tile[tx][kSwizzle ? (r ^ tx) : r];
  }
}

template <TileLayout kLayout>
void LaunchTranspose(const float* in, float* out, int rows, int cols) {
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  Transpose<kLayout><<<grid, dim3(kTile, kTileRows)>>>(in, out, rows, cols);
}

// ---- the two-kernel puzzle ------------------------------------------------------------------------
constexpr unsigned kPuzzleThreads = 256;

// two_way = false: buf[tid], conflict-free. two_way = true: buf[(tid * 2) % 256], two lanes per
// bank on the store and the load. The plain (tid * 2) % 256 gives threads t and t + 128 the same
// word (a race between warps), so threads 128..255 are shifted by one word; the shift is uniform
// per warp, so every warp's bank pattern, and every count, is that of (tid * 2) % 256.
template <bool kTwoWay>
__global__ void __launch_bounds__(kPuzzleThreads)
    Puzzle(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float buf[kPuzzleThreads];
  const unsigned tid = threadIdx.x;
  const size_t i = static_cast<size_t>(blockIdx.x) * kPuzzleThreads + tid;
  const unsigned slot = kTwoWay ? (tid * 2) % kPuzzleThreads + tid / 128 : tid;
  buf[slot] = in[i];
  __syncthreads();
  out[i] = (buf[slot] + 10.0f) * 2.0f;
}

// `elements` must be a multiple of 256.
template <bool kTwoWay>
void LaunchPuzzle(const float* in, float* out, size_t elements) {
  Puzzle<kTwoWay><<<static_cast<unsigned>(elements / kPuzzleThreads), kPuzzleThreads>>>(in, out);
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
