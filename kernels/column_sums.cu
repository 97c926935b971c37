// Column sums of a rows x cols int matrix (row-major), one warp per 32-column strip, walking down
// the strip one 32x32 tile at a time through shared memory. Lane `lane` owns column c0 + lane.
//
//   textbook       The common version: the tile is stored row-wise (tile[i][c] = M[r0 + i][c0 + c])
//                  and each lane sums tile[i][lane] down its column. Textbooks call this the
//                  conflicting "column access"; it is conflict-free: for each i the warp reads 32
//                  consecutive words of one row, one per bank.
//   column_lds128  Genuinely reads columns: the tile is stored transposed (tile[c][i] =
//                  M[r0 + i][c0 + c], still a conflict-free row-wise store) and lane `lane` sums
//                  tile[lane][i]: 32 lanes, 32 rows, one bank. With an unpadded int tile[32][32]
//                  nvcc widens the unrolled loop to 8 LDS.128 per tile (rows are 16-byte aligned):
//                  8 lanes per wavefront group, 8 distinct words per bank: 8-way, 32 wavefronts
//                  per instruction, ideal 4 (research §4 measured exactly this: 128 LDS.128, 4,096
//                  wavefronts, 3,584 conflicts for 16 tiles).
//   column_scalar  The same read through a volatile pointer, which keeps 32 scalar LDS per tile:
//                  the 32-way conflict the textbook warns about.
//   column_padded  The same read from int tile[32][33]: rows are no longer 16-byte aligned, the
//                  loads stay scalar, and tile[lane][i] is in bank (lane + i) % 32: conflict-free.
//
// In the textbook version each lane stores column (lane + 1) % 32 and reads column lane, so no
// load reads back the thread's own store (which the compiler may remove, research §4). Every
// variant stores the tile row by row, 32 conflict-free STS per tile; each load line says its ways.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr int kTile = 32;

enum class ColumnRead { kTextbook, kColumnLds128, kColumnScalar, kColumnPadded };

template <ColumnRead kRead>
__global__ void __launch_bounds__(kTile)
    ColumnSumsKernel(const int* __restrict__ in, int* __restrict__ sums, int rows, int cols) {
  constexpr int kPitch = kRead == ColumnRead::kColumnPadded ? kTile + 1 : kTile;
  __shared__ int tile[kTile][kPitch];
  const int lane = threadIdx.x;
  const int c0 = blockIdx.x * kTile;
  int sum = 0;
  for (int r0 = 0; r0 < rows; r0 += kTile) {
    if constexpr (kRead == ColumnRead::kTextbook) {
      const int c = (lane + 1) % kTile;
#pragma unroll
      // bankcheck: conflict-free
      for (int i = 0; i < kTile; ++i) tile[i][c] = in[static_cast<size_t>(r0 + i) * cols + c0 + c];
    } else {
#pragma unroll
      // bankcheck: conflict-free
      for (int i = 0; i < kTile; ++i) tile[i][lane] = in[static_cast<size_t>(r0 + lane) * cols + c0 + i];
    }
    __syncthreads();
    if constexpr (kRead == ColumnRead::kTextbook) {
#pragma unroll
      for (int i = 0; i < kTile; ++i) sum += tile[i][lane];  // bankcheck: conflict-free
    } else if constexpr (kRead == ColumnRead::kColumnScalar) {
      const volatile int* row = tile[lane];
#pragma unroll
      for (int i = 0; i < kTile; ++i) sum += row[i];  // bankcheck: 32-way
    } else {
#pragma unroll
      // bankcheck: 8-way in column_sums/column_lds128/*, conflict-free
      for (int i = 0; i < kTile; ++i) sum += tile[lane][i];
    }
    __syncthreads();
  }
  sums[c0 + lane] = sum;
}

template <ColumnRead kRead>
void RegisterColumnSumsCase(const std::string& variant, int rows, int cols) {
  KernelCase c;
  c.name = "column_sums/" + variant + "/" + std::to_string(rows) + "x" + std::to_string(cols);
  c.description = "column sums of a " + std::to_string(rows) + "x" + std::to_string(cols) +
                  " int matrix through a 32x32 shared tile, " + variant + " read";
  c.predict = [rows, cols] {
    constexpr uint32_t kPitch = kRead == ColumnRead::kColumnPadded ? kTile + 1 : kTile;
    const auto tiles_per_warp = static_cast<uint32_t>(rows / kTile);
    const Dim3 grid{static_cast<uint32_t>(cols / kTile)};
    // Iteration i is row i % 32 of tile i / 32 (every tile uses the same addresses).
    SharedAccess store =
        kRead == ColumnRead::kTextbook
            ? SharedStore(
                  "tile[i][(lane + 1) % 32]", 4,
                  [](Dim3, Dim3 t, uint32_t i) { return 4u * ((i % kTile) * kPitch + (t.x + 1) % kTile); },
                  tiles_per_warp * kTile)
            : SharedStore(
                  "tile[i][lane]", 4,
                  [](Dim3, Dim3 t, uint32_t i) { return 4u * ((i % kTile) * kPitch + t.x); },
                  tiles_per_warp * kTile);
    SharedAccess load = kRead == ColumnRead::kTextbook
                            ? SharedLoad(
                                  "tile[i][lane]", 4,
                                  [](Dim3, Dim3 t, uint32_t i) { return 4u * ((i % kTile) * kPitch + t.x); },
                                  tiles_per_warp * kTile)
                        : kRead == ColumnRead::kColumnLds128
                            // As compiled: 8 LDS.128 per tile, lane reads tile[lane][4k .. 4k + 3].
                            ? SharedLoad(
                                  "tile[lane][4k..4k+3] (LDS.128)", 16,
                                  [](Dim3, Dim3 t, uint32_t k) { return 4u * (t.x * kPitch + 4 * (k % 8)); },
                                  tiles_per_warp * 8)
                            : SharedLoad(
                                  "tile[lane][i]", 4,
                                  [](Dim3, Dim3 t, uint32_t i) { return 4u * (t.x * kPitch + i % kTile); },
                                  tiles_per_warp * kTile);
    return PredictLaunch(grid, Dim3{kTile}, {store, load});
  };
  c.run = [rows, cols](CaseContext& ctx) {
    ASSERT_EQ(rows % kTile, 0);
    ASSERT_EQ(cols % kTile, 0);
    const size_t n = static_cast<size_t>(rows) * cols;
    const std::vector<int32_t> in = RandomInts(n, 0xC0150u + static_cast<uint32_t>(rows + cols));
    std::vector<int32_t> expected(static_cast<size_t>(cols), 0);
    for (size_t r = 0; r < static_cast<size_t>(rows); ++r)
      for (size_t col = 0; col < static_cast<size_t>(cols); ++col) expected[col] += in[r * cols + col];

    const unsigned blocks = static_cast<unsigned>(cols / kTile);
    DeviceBuffer<int32_t> d_in(in);
    DeviceBuffer<int32_t> d_sums(static_cast<size_t>(cols));
    d_sums.Fill(0xFF);
    ctx.Measure([&] { ColumnSumsKernel<kRead><<<blocks, kTile>>>(d_in.get(), d_sums.get(), rows, cols); });
    ExpectVectorsEqual(d_sums.ToHost(), expected, "column sums of random data");

    // An all-ones matrix (not measured): every column sums to the number of rows.
    DeviceBuffer<int32_t> d_ones(std::vector<int32_t>(n, 1));
    d_sums.Fill(0xFF);
    ColumnSumsKernel<kRead><<<blocks, kTile>>>(d_ones.get(), d_sums.get(), rows, cols);
    BANKCHECK_CUDA_CHECK(cudaGetLastError());
    ExpectVectorsEqual(d_sums.ToHost(), std::vector<int32_t>(static_cast<size_t>(cols), rows),
                       "column sums of an all-ones matrix");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterColumnSumsSize(int rows, int cols) {
  RegisterColumnSumsCase<ColumnRead::kTextbook>("textbook", rows, cols);
  RegisterColumnSumsCase<ColumnRead::kColumnLds128>("column_lds128", rows, cols);
  RegisterColumnSumsCase<ColumnRead::kColumnScalar>("column_scalar", rows, cols);
  RegisterColumnSumsCase<ColumnRead::kColumnPadded>("column_padded", rows, cols);
}

void RegisterColumnSumsCases() {
  RegisterColumnSumsSize(128, 128);    // 4 warps x 4 tiles
  RegisterColumnSumsSize(1024, 2048);  // 64 warps x 32 tiles
}

BANKCHECK_REGISTER_CASES(RegisterColumnSumsCases);

}  // namespace
}  // namespace bankcheck::kernels
