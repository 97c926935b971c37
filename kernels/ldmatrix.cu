// ldmatrix (LDSM) from a 32x64 b16 tile in shared memory, in the three layouts of
// ldmatrix_support.cuh. Each block (2 warps, 2 blocks) copies its tile from global memory with
// 16-byte stores (row-wise: conflict-free in every layout), then each warp loads the 16 8x8
// matrices of its own 16-row band with ldmatrix .x1, .x2, .x4 or .x4.trans and writes every
// register to global memory; the host checks each lane's registers against the fragment layout.
//
// Bank rule (one phase of 8 rows per matrix, ideal = 1 wavefront per matrix):
//   row_major  the 8 rows of a matrix are 128 B apart, in the same 4 banks: 8 wavefronts per
//              matrix, 8-way.
//   padded     pitch 144 B: conflict-free.
//   swizzled   chunk ^ (row % 8): conflict-free.
// .trans changes only where the elements go, not which rows are read: same counts. The ldmatrix
// wrappers' lines in ldmatrix_support.cuh say so per case; the fill's and the plain loads' lines
// here.
//
// Per launch (2 blocks x 2 warps), every variant loads 64 matrices: 64 ideal wavefronts, 512 when
// 8-way; the fill is 4 STS.128 per warp (16 in all, 64 wavefronts, conflict-free). LDSM is not
// counted as a plain load.
//
// mixed_row_major_x4_lds_stride2: the row-major .x4 kernel that also reads its band with 8 plain
// 4-byte loads at a stride of 2 words (lane reads word 2*lane + 64*i: lanes l and l + 16 share a
// bank with different words, 2-way) in the same launch, so that the per-kind split is tested:
// LDSM 8-way, LDS 2-way, the LDS ideal exact with LDSM in the launch.

#include <gtest/gtest.h>

#include <cstdint>
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

constexpr unsigned kWarps = 2;  // per block; warp w reads rows 16w .. 16w + 15
constexpr unsigned kThreads = kWarps * kWarpLanes;
constexpr unsigned kBlocks = 2;
constexpr uint32_t kTileRows = kWarps * kBandRows;                                     // 32
constexpr uint32_t kTileChunks = kTileRows * kChunksPerRow;                            // 256 x 16 bytes
constexpr uint32_t kFillStores = kTileChunks / kThreads;                               // 4 per thread
constexpr uint32_t kFragmentWords = kBlocks * kWarps * kMatricesPerBand * kWarpLanes;  // 2,048
constexpr uint32_t kMixedLoads = 8;  // plain loads per thread in the mixed kernel
constexpr uint32_t kMixedWordStride = 2;

// The mixed kernel's plain load: word 2*lane + 64*i of the warp's band (row-major tile only).
__host__ __device__ constexpr uint32_t MixedWord(uint32_t lane, uint32_t i) {
  return kMixedWordStride * lane + kMixedWordStride * kWarpLanes * i;
}

template <MatrixLayout kLayout, int kMatrices, bool kTrans, bool kMixed>
__global__ void __launch_bounds__(kThreads)
    LdmatrixKernel(const uint4* __restrict__ in, uint32_t* __restrict__ fragments,
                   uint32_t* __restrict__ mixed) {
  static_assert(!kMixed || kLayout == MatrixLayout::kRowMajor, "the mixed loads assume the row-major tile");
  __shared__ __align__(128) unsigned char tile[TileBytes(kLayout, kTileRows)];
  const uint32_t t = threadIdx.x;
  const uint32_t lane = t % kWarpLanes;
  const uint32_t warp = t / kWarpLanes;
  const uint4* block_in = in + blockIdx.x * kTileChunks;
#pragma unroll
  for (uint32_t i = 0; i < kFillStores; ++i) {
    const uint32_t q = i * kThreads + t;  // chunk q of the tile, row-major
    // bankcheck: conflict-free
    *reinterpret_cast<uint4*>(tile + ChunkOffset(kLayout, q / kChunksPerRow, q % kChunksPerRow)) =
        block_in[q];
  }
  __syncthreads();

  const uint32_t band = warp * kBandRows;
  uint32_t* out = fragments + (blockIdx.x * kWarps + warp) * kMatricesPerBand * kWarpLanes;
#pragma unroll
  for (uint32_t s = 0; s < kMatricesPerBand / kMatrices; ++s) {
    const uint32_t m = SuppliedMatrix(s * kMatrices, kMatrices, lane);
    uint32_t regs[kMatrices];
    LoadMatrices<kMatrices, kTrans>(
        regs, SharedAddress(tile + ChunkOffset(kLayout, band + MatrixRow(m, lane), MatrixChunk(m))));
#pragma unroll
    for (uint32_t j = 0; j < kMatrices; ++j) out[(s * kMatrices + j) * kWarpLanes + lane] = regs[j];
  }

  if constexpr (kMixed) {
    // volatile: exactly one 4-byte LDS per read, never widened or merged.
    const volatile uint32_t* words =
        reinterpret_cast<const volatile uint32_t*>(tile + band * RowPitchBytes(kLayout));
    uint32_t x = 0;
#pragma unroll
    for (uint32_t i = 0; i < kMixedLoads; ++i) x ^= words[MixedWord(lane, i)];  // bankcheck: 2-way
    mixed[(blockIdx.x * kWarps + warp) * kWarpLanes + lane] = x;
  }
}

std::string OpName(int matrices, bool trans) {
  return "x" + std::to_string(matrices) + (trans ? "_trans" : "");
}

template <MatrixLayout kLayout, int kMatrices, bool kTrans, bool kMixed>
void RegisterLdmatrixCase() {
  constexpr uint32_t kInstructionsPerWarp = kMatricesPerBand / kMatrices;
  KernelCase c;
  c.name = std::string("ldmatrix/") + (kMixed ? "mixed_" : "") + LayoutName(kLayout) + "_" +
           OpName(kMatrices, kTrans) + (kMixed ? "_lds_stride2" : "");
  c.description = "ldmatrix." + OpName(kMatrices, kTrans) + " of all 8x8 matrices of a " +
                  LayoutName(kLayout) + " 32x64 b16 tile (2 blocks x 2 warps)" +
                  (kMixed ? ", plus 8 stride-2 4-byte LDS per thread in the same launch" : "");
  c.predict = [] {
    std::vector<SharedAccess> accesses = {
        SharedStore(
            "tile chunk (STS.128)", 16,
            [](Dim3, Dim3 t, uint32_t i) {
              const uint32_t q = i * kThreads + t.x;
              return ChunkOffset(kLayout, q / kChunksPerRow, q % kChunksPerRow);
            },
            kFillStores),
        Ldmatrix(
            "ldmatrix." + OpName(kMatrices, kTrans) + " [band row]",
            [](Dim3, Dim3 t, uint32_t s) -> std::optional<uint64_t> {
              const uint32_t lane = t.x % kWarpLanes;
              if (lane >= 8u * kMatrices) return std::nullopt;
              const uint32_t m = SuppliedMatrix(s * kMatrices, kMatrices, lane);
              return ChunkOffset(kLayout, (t.x / kWarpLanes) * kBandRows + MatrixRow(m, lane),
                                 MatrixChunk(m));
            },
            kInstructionsPerWarp)};
    if (kMixed) {
      accesses.push_back(SharedLoad(
          "band word[2 * lane + 64 * i]", 4,
          [](Dim3, Dim3 t, uint32_t i) {
            return (t.x / kWarpLanes) * kBandRows * RowPitchBytes(kLayout) +
                   4 * MixedWord(t.x % kWarpLanes, i);
          },
          kMixedLoads));
    }
    return PredictLaunch(Dim3{kBlocks}, Dim3{kThreads}, accesses);
  };
  c.run = [](CaseContext& ctx) {
    const std::vector<uint16_t> in = RandomBits<uint16_t>(size_t{kBlocks} * kTileRows * kTileCols,
                                                          0x1D5Au + kMatrices * 2 + (kTrans ? 1 : 0));
    DeviceBuffer<uint16_t> d_in(in);
    DeviceBuffer<uint32_t> d_fragments(kFragmentWords);
    DeviceBuffer<uint32_t> d_mixed(size_t{kBlocks} * kWarps * kWarpLanes);
    d_fragments.Fill(0xFF);
    d_mixed.Fill(0xFF);
    ctx.Measure([&] {
      LdmatrixKernel<kLayout, kMatrices, kTrans, kMixed><<<kBlocks, kThreads>>>(
          reinterpret_cast<const uint4*>(d_in.get()), d_fragments.get(), d_mixed.get());
    });

    // Lane l's register for matrix m of warp w's band in block b.
    std::vector<uint32_t> expected(kFragmentWords);
    for (uint32_t b = 0; b < kBlocks; ++b) {
      for (uint32_t w = 0; w < kWarps; ++w) {
        for (uint32_t m = 0; m < kMatricesPerBand; ++m) {
          const auto at = [&](uint32_t i, uint32_t j) {
            const uint32_t row = w * kBandRows + 8 * (m % 2) + i;
            return in[(size_t{b} * kTileRows + row) * kTileCols + 8 * MatrixChunk(m) + j];
          };
          for (uint32_t lane = 0; lane < kWarpLanes; ++lane)
            expected[((b * kWarps + w) * kMatricesPerBand + m) * kWarpLanes + lane] =
                FragmentWord(at, lane, kTrans);
        }
      }
    }
    ExpectVectorsEqual(d_fragments.ToHost(), expected, "ldmatrix fragments");

    if constexpr (kMixed) {
      std::vector<uint32_t> expected_mixed(size_t{kBlocks} * kWarps * kWarpLanes, 0);
      for (uint32_t b = 0; b < kBlocks; ++b) {
        for (uint32_t w = 0; w < kWarps; ++w) {
          for (uint32_t lane = 0; lane < kWarpLanes; ++lane) {
            uint32_t x = 0;
            for (uint32_t i = 0; i < kMixedLoads; ++i) {
              // Word k of the band: row k / 32, columns 2*(k % 32) and +1.
              const uint32_t k = MixedWord(lane, i);
              const size_t first =
                  (size_t{b} * kTileRows + w * kBandRows + k / 32) * kTileCols + 2 * (k % 32);
              x ^= uint32_t{in[first]} | (uint32_t{in[first + 1]} << 16);
            }
            expected_mixed[(b * kWarps + w) * kWarpLanes + lane] = x;
          }
        }
      }
      ExpectVectorsEqual(d_mixed.ToHost(), expected_mixed, "stride-2 plain loads");
    }
  };
  RegisterKernelCase(std::move(c));
}

template <MatrixLayout kLayout>
void RegisterLayout() {
  RegisterLdmatrixCase<kLayout, 1, false, false>();
  RegisterLdmatrixCase<kLayout, 2, false, false>();
  RegisterLdmatrixCase<kLayout, 4, false, false>();
  RegisterLdmatrixCase<kLayout, 4, true, false>();
}

void RegisterLdmatrixCases() {
  RegisterLayout<MatrixLayout::kRowMajor>();
  RegisterLayout<MatrixLayout::kPadded>();
  RegisterLayout<MatrixLayout::kSwizzled>();
  RegisterLdmatrixCase<MatrixLayout::kRowMajor, 4, false, true>();
}

BANKCHECK_REGISTER_CASES(RegisterLdmatrixCases);

}  // namespace
}  // namespace bankcheck::kernels
