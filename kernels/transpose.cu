// Matrix transpose through a 32x32 shared tile (float, row-major). A block reads a 32x32 tile of
// the input row by row (coalesced), stores it into shared memory row by row, and writes the
// transposed tile by reading shared memory column by column: lane tx reads tile[tx][r].
//   unpadded  float tile[32][32]: the column read hits one bank with 32 distinct words: 32-way.
//   padded    float tile[32][33]: tile[tx][r] is in bank (tx + r) % 32: conflict-free.
//   swizzled  float tile[32][32], element (r, c) stored at tile[r][c ^ r]: conflict-free without
//             padding (lane tx reads tile[tx][r ^ tx], bank r ^ tx, distinct over tx).
// Block shapes: 32x32 threads (one element per thread), or 32x8 threads with four rows per thread.
// Either way a full tile costs 32 warp-level shared stores and 32 shared loads.
//
// Sizes (rows x cols of the input): 128x128 (square), 96x320 (non-square, multiples of 32),
// 100x37 (partial tiles: warps with inactive lanes, and warps with none), 4096x4096 (fills the GPU).
// At 100x37 the unpadded column read is 25-way: 148 loads from warps with an active lane, 3,700
// wavefronts; those of the last tile row have 4 active lanes, 4-way. nvcc 13 (sm_90) puts each
// load under a branch, so warps with no lane inside the matrix skip it; the stores are predicated
// (@!P STS) and every warp issues them, but the counters count the 200 of warps with an active
// lane, not the 56 without.
//
// What each access costs is said on its line in transpose_kernel.cuh (line annotations, by case
// where the layouts differ); the instruction counts are in the baselines.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"
#include "transpose_kernel.cuh"

namespace bankcheck::kernels {
namespace {

template <TileLayout kLayout, int kBlockRows>
void RegisterTransposeCase(const std::string& layout_name, int rows, int cols) {
  KernelCase c;
  c.name = "transpose/" + layout_name + "_32x" + std::to_string(kBlockRows) + "/" + std::to_string(rows) +
           "x" + std::to_string(cols);
  c.description = "transpose of a " + std::to_string(rows) + "x" + std::to_string(cols) +
                  " float matrix through a " + layout_name + " 32x32 shared tile, 32x" +
                  std::to_string(kBlockRows) + " thread blocks";
  // The model's cross-check, for full tiles at small sizes: with partial tiles the compiled guard
  // issues predicated stores from warps without an active lane, which the model does not count,
  // and 4096x4096 would take the model a second or two.
  if (rows % kTile == 0 && cols % kTile == 0 && static_cast<int64_t>(rows) * cols <= (1 << 20)) {
    c.predict = [rows, cols] {
      constexpr uint32_t kPitch = kLayout == TileLayout::kPadded ? kTile + 1 : kTile;
      constexpr bool kSwizzle = kLayout == TileLayout::kSwizzled;
      constexpr uint32_t kIterations = kTile / kBlockRows;
      const auto urows = static_cast<uint32_t>(rows), ucols = static_cast<uint32_t>(cols);
      return PredictLaunch(Dim3{CeilDiv(ucols, kTile), CeilDiv(urows, kTile)}, Dim3{kTile, kBlockRows},
                           {SharedStore(
                                "tile[r][c]", 4,
                                [=](Dim3 b, Dim3 t, uint32_t j) -> std::optional<uint64_t> {
                                  const uint32_t r = t.y + j * kBlockRows;
                                  if (b.x * kTile + t.x >= ucols || b.y * kTile + r >= urows)
                                    return std::nullopt;
                                  return 4u * (r * kPitch + (kSwizzle ? (t.x ^ r) : t.x));
                                },
                                kIterations),
                            SharedLoad(
                                "tile[tx][r]", 4,
                                [=](Dim3 b, Dim3 t, uint32_t j) -> std::optional<uint64_t> {
                                  const uint32_t r = t.y + j * kBlockRows;
                                  if (b.y * kTile + t.x >= urows || b.x * kTile + r >= ucols)
                                    return std::nullopt;
                                  return 4u * (t.x * kPitch + (kSwizzle ? (r ^ t.x) : r));
                                },
                                kIterations)});
    };
  }
  c.run = [rows, cols](CaseContext& ctx) {
    const size_t n = static_cast<size_t>(rows) * cols;
    const std::vector<float> in = RandomIntegerFloats(n, 0x7A05u + static_cast<uint32_t>(rows * 7 + cols));
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> d_out(n);
    d_out.Fill(0xFF);
    const dim3 grid(CeilDiv(static_cast<unsigned>(cols), kTile), CeilDiv(static_cast<unsigned>(rows), kTile));
    const dim3 block(kTile, kBlockRows);
    ctx.Measure(
        [&] { TransposeKernel<kLayout, kBlockRows><<<grid, block>>>(d_in.get(), d_out.get(), rows, cols); });
    ExpectVectorsEqual(d_out.ToHost(),
                       HostTranspose(in, static_cast<size_t>(rows), static_cast<size_t>(cols)),
                       "transposed matrix");
  };
  RegisterKernelCase(std::move(c));
}

template <int kBlockRows>
void RegisterTransposeBlockShape() {
  for (const auto& [rows, cols] :
       {std::pair{128, 128}, std::pair{96, 320}, std::pair{100, 37}, std::pair{4096, 4096}}) {
    RegisterTransposeCase<TileLayout::kUnpadded, kBlockRows>("unpadded", rows, cols);
    RegisterTransposeCase<TileLayout::kPadded, kBlockRows>("padded", rows, cols);
    RegisterTransposeCase<TileLayout::kSwizzled, kBlockRows>("swizzled", rows, cols);
  }
}

void RegisterTransposeCases() {
  RegisterTransposeBlockShape<32>();  // 32x32 threads: one element per thread
  RegisterTransposeBlockShape<8>();   // 32x8 threads: four rows per thread
}

BANKCHECK_REGISTER_CASES(RegisterTransposeCases);

}  // namespace
}  // namespace bankcheck::kernels
