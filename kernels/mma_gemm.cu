// A small tensor-core GEMM: C (64x64, f32) = A (64x64, f16, row-major) * B (64x64, f16, row-major,
// K rows by N columns), with mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32. Two blocks, each
// one independent GEMM; 4 warps per block in a 2x2 arrangement, each computing a 32x32 block of C.
// The block copies A and B into shared memory with 16-byte stores (row-wise: conflict-free), then
// for each of the 4 k-steps of 16 every warp loads its A fragments with 2 ldmatrix.x4 (a 16x16
// block each: lane l supplies row l % 16, chunk l / 16) and its B fragments with 2
// ldmatrix.x4.trans (two 16x8 k-by-n blocks each: B is stored k-major, and .trans hands each lane
// the column-major fragment mma's .col operand wants), then issues 8 mma. The inputs are small
// integers, so the f32 result is exact and is compared with == to a host GEMM.
//
// Tiles (ldmatrix_support.cuh): 128-byte rows, either
//   row_major  the 8 rows of every matrix are 128 B apart, in the same 4 banks: 8-way, for A's
//              row-block loads and for B's k-row loads alike;
//   swizzled   chunk ^ (row % 8): conflict-free.
// Per launch: 2 blocks x 4 warps x 4 k-steps x 4 = 128 ldmatrix.x4 (512 matrices: 512 ideal
// wavefronts, 4,096 when 8-way) and 64 STS.128 (256 wavefronts, conflict-free); no LDS. The
// ldmatrix wrappers' lines in ldmatrix_support.cuh say which case is 8-way; the fills' lines here.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"
#include "ldmatrix_support.cuh"

namespace bankcheck::kernels {
namespace {

constexpr uint32_t kM = 64, kN = 64, kK = 64;  // kM = kK = kN = kTileCols: 128-byte tile rows
constexpr unsigned kWarps = 4;                 // 2x2, each a 32x32 block of C
constexpr unsigned kThreads = kWarps * kWarpLanes;
constexpr unsigned kBlocks = 2;  // two independent GEMMs
constexpr uint32_t kKSteps = kK / 16;
constexpr uint32_t kTileChunks = kM * kChunksPerRow;      // A and B: 512 chunks of 16 bytes each
constexpr uint32_t kFillStores = kTileChunks / kThreads;  // per tile per thread: 4
constexpr uint32_t kLoadsPerStep = 2;                     // ldmatrix.x4 per operand per k-step
static_assert(kM == kTileCols && kN == kTileCols && kK == kTileCols, "tiles of 64 b16 columns");

// Where a lane's row is for one ldmatrix.x4 of a 16x16 block: rows `first_row` .. +15, chunks
// `first_chunk`, +1, in the A order of ldmatrix_support.cuh (A: rows are m, chunks k; B: rows are
// k, chunks n).
__host__ __device__ constexpr uint32_t BlockRowOffset(MatrixLayout layout, uint32_t first_row,
                                                      uint32_t first_chunk, uint32_t lane) {
  return ChunkOffset(layout, first_row + MatrixRow(lane / 8, lane), first_chunk + MatrixChunk(lane / 8));
}
// A: warp (wm, wn), k-step ks, m-block mi: rows 32*wm + 16*mi, chunks 2*ks (k = 16*ks).
__host__ __device__ constexpr uint32_t AOffset(MatrixLayout layout, uint32_t warp, uint32_t ks, uint32_t mi,
                                               uint32_t lane) {
  return BlockRowOffset(layout, 32 * (warp / 2) + 16 * mi, 2 * ks, lane);
}
// B: k rows 16*ks, n chunks 4*wn + 2*nj (n = 32*wn + 16*nj); after A's tile.
__host__ __device__ constexpr uint32_t BOffset(MatrixLayout layout, uint32_t warp, uint32_t ks, uint32_t nj,
                                               uint32_t lane) {
  return TileBytes(layout, kM) + BlockRowOffset(layout, 16 * ks, 4 * (warp % 2) + 2 * nj, lane);
}

// d += a * b for one m16n8k16 tile (f16 inputs, f32 accumulators).
__device__ __forceinline__ void Mma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <MatrixLayout kLayout>
__global__ void __launch_bounds__(kThreads)
    MmaGemmKernel(const uint4* __restrict__ a, const uint4* __restrict__ b, float* __restrict__ c) {
  static_assert(kLayout != MatrixLayout::kPadded, "BOffset assumes A's tile is kM rows of RowPitchBytes");
  __shared__ __align__(128) unsigned char smem[TileBytes(kLayout, kM) + TileBytes(kLayout, kK)];
  const uint32_t t = threadIdx.x;
  const uint32_t lane = t % kWarpLanes;
  const uint32_t warp = t / kWarpLanes;
  const uint4* block_a = a + blockIdx.x * kTileChunks;
  const uint4* block_b = b + blockIdx.x * kTileChunks;
#pragma unroll
  for (uint32_t i = 0; i < kFillStores; ++i) {
    const uint32_t q = i * kThreads + t;  // chunk q, row-major
    // bankcheck: conflict-free
    *reinterpret_cast<uint4*>(smem + ChunkOffset(kLayout, q / kChunksPerRow, q % kChunksPerRow)) = block_a[q];
  }
#pragma unroll
  for (uint32_t i = 0; i < kFillStores; ++i) {
    const uint32_t q = i * kThreads + t;
    *reinterpret_cast<uint4*>(smem + TileBytes(kLayout, kM) +
                              // bankcheck: conflict-free
                              ChunkOffset(kLayout, q / kChunksPerRow, q % kChunksPerRow)) = block_b[q];
  }
  __syncthreads();

  float acc[2][4][4] = {};  // [m-block of 16][n-tile of 8][accumulator]
#pragma unroll
  for (uint32_t ks = 0; ks < kKSteps; ++ks) {
    uint32_t af[2][4];  // af[mi]: the A fragment of rows 32*wm + 16*mi, k = 16*ks
    uint32_t bf[2][4];  // bf[nj][0..1], [2..3]: the B fragments of n-tiles 4*wn + 2*nj and +1
#pragma unroll
    for (uint32_t mi = 0; mi < kLoadsPerStep; ++mi)
      LoadMatrices<4, false>(af[mi], SharedAddress(smem + AOffset(kLayout, warp, ks, mi, lane)));
#pragma unroll
    for (uint32_t nj = 0; nj < kLoadsPerStep; ++nj)
      LoadMatrices<4, true>(bf[nj], SharedAddress(smem + BOffset(kLayout, warp, ks, nj, lane)));
#pragma unroll
    for (uint32_t mi = 0; mi < 2; ++mi) {
#pragma unroll
      for (uint32_t ni = 0; ni < 4; ++ni)
        Mma16816(acc[mi][ni], af[mi], bf[ni / 2][2 * (ni % 2)], bf[ni / 2][2 * (ni % 2) + 1]);
    }
  }

  // Accumulator e of n-tile ni: row g (+8 for e >= 2), column 2*(lane % 4) + e % 2.
  float* block_c = c + blockIdx.x * kM * kN;
#pragma unroll
  for (uint32_t mi = 0; mi < 2; ++mi) {
#pragma unroll
    for (uint32_t ni = 0; ni < 4; ++ni) {
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) {
        const uint32_t row = 32 * (warp / 2) + 16 * mi + lane / 4 + 8 * (e / 2);
        const uint32_t col = 32 * (warp % 2) + 8 * ni + 2 * (lane % 4) + e % 2;
        block_c[row * kN + col] = acc[mi][ni][e];
      }
    }
  }
}

// The f16 encoding of an integer of magnitude at most 2048 (exact).
uint16_t HalfOfInt(int32_t v) {
  if (v == 0) return 0;
  const uint32_t magnitude = static_cast<uint32_t>(std::abs(v));
  uint32_t exponent = 0;
  while ((magnitude >> (exponent + 1)) != 0) ++exponent;
  const uint32_t mantissa = (magnitude << (10 - exponent)) & 0x3FFu;
  return static_cast<uint16_t>((v < 0 ? 0x8000u : 0u) | ((exponent + 15) << 10) | mantissa);
}

template <MatrixLayout kLayout>
void RegisterMmaGemmCase() {
  KernelCase c;
  c.name = std::string("mma_gemm/") + LayoutName(kLayout) + "/64x64x64";
  c.description =
      std::string("two 64x64x64 f16 GEMMs (f32 accumulate) with mma.sync m16n8k16, A and B from ") +
      LayoutName(kLayout) + " shared tiles through ldmatrix.x4 (B: .trans)";
  c.predict = [] {
    const auto fill = [](uint32_t base) {
      return [base](Dim3, Dim3 t, uint32_t i) {
        const uint32_t q = i * kThreads + t.x;
        return base + ChunkOffset(kLayout, q / kChunksPerRow, q % kChunksPerRow);
      };
    };
    // Iteration 2*ks + mi (A) or 2*ks + nj (B).
    return PredictLaunch(Dim3{kBlocks}, Dim3{kThreads},
                         {SharedStore("A chunk (STS.128)", 16, fill(0), kFillStores),
                          SharedStore("B chunk (STS.128)", 16, fill(TileBytes(kLayout, kM)), kFillStores),
                          Ldmatrix(
                              "ldmatrix.x4 A[16x16]",
                              [](Dim3, Dim3 t, uint32_t i) {
                                return AOffset(kLayout, t.x / kWarpLanes, i / kLoadsPerStep,
                                               i % kLoadsPerStep, t.x % kWarpLanes);
                              },
                              kKSteps * kLoadsPerStep),
                          Ldmatrix(
                              "ldmatrix.x4.trans B[16x16]",
                              [](Dim3, Dim3 t, uint32_t i) {
                                return BOffset(kLayout, t.x / kWarpLanes, i / kLoadsPerStep,
                                               i % kLoadsPerStep, t.x % kWarpLanes);
                              },
                              kKSteps * kLoadsPerStep)});
  };
  c.run = [](CaseContext& ctx) {
    const size_t elements = size_t{kBlocks} * kM * kK;  // A and B alike
    const std::vector<int32_t> a_values = RandomInts(elements, 0x3A1Au, -4, 4);
    const std::vector<int32_t> b_values = RandomInts(elements, 0x3B1Bu, -4, 4);
    std::vector<uint16_t> a_half(elements), b_half(elements);
    for (size_t i = 0; i < elements; ++i) {
      a_half[i] = HalfOfInt(a_values[i]);
      b_half[i] = HalfOfInt(b_values[i]);
    }
    DeviceBuffer<uint16_t> d_a(a_half), d_b(b_half);
    DeviceBuffer<float> d_c(size_t{kBlocks} * kM * kN);
    d_c.Fill(0xFF);
    ctx.Measure([&] {
      MmaGemmKernel<kLayout><<<kBlocks, kThreads>>>(reinterpret_cast<const uint4*>(d_a.get()),
                                                    reinterpret_cast<const uint4*>(d_b.get()), d_c.get());
    });

    // |sum| <= 64 * 16: every product and partial sum is an integer exact in f32, in any order.
    std::vector<float> expected(size_t{kBlocks} * kM * kN);
    for (size_t g = 0; g < kBlocks; ++g) {
      for (size_t m = 0; m < kM; ++m) {
        for (size_t n = 0; n < kN; ++n) {
          int32_t sum = 0;
          for (size_t k = 0; k < kK; ++k)
            sum += a_values[(g * kM + m) * kK + k] * b_values[(g * kK + k) * kN + n];
          expected[(g * kM + m) * kN + n] = static_cast<float>(sum);
        }
      }
    }
    ExpectVectorsEqual(d_c.ToHost(), expected, "C = A * B");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterMmaGemmCases() {
  RegisterMmaGemmCase<MatrixLayout::kRowMajor>();
  RegisterMmaGemmCase<MatrixLayout::kSwizzled>();
}

BANKCHECK_REGISTER_CASES(RegisterMmaGemmCases);

}  // namespace
}  // namespace bankcheck::kernels
