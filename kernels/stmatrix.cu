// stmatrix (STSM, sm_90) into a 32x64 b16 tile in shared memory, in the layouts of
// ldmatrix_support.cuh. Each warp (2 blocks x 2 warps) takes the fragments of the 16 8x8 matrices
// of its own 16-row band from global memory (register j of lane l: row l / 4, columns 2*(l % 4) and
// +1 of matrix j, as ldmatrix leaves them) and stores them with stmatrix .x1 or .x4; after a
// barrier the block reads the tile back row-wise with 16-byte loads (conflict-free in every layout)
// and writes it to global memory, where the host checks every element.
//
// Bank rule (one phase of 8 rows per matrix, ideal = 1 wavefront per matrix):
//   row_major  the 8 rows of a matrix are 128 B apart, in the same 4 banks: 8-way.
//   swizzled   chunk ^ (row % 8): conflict-free.
// The stmatrix wrappers' lines in ldmatrix_support.cuh say so per case; the plain accesses' lines
// here. STSM is not counted as a plain store.
// Per launch every variant stores 64 matrices: 64 ideal wavefronts, 512 when 8-way; the read-back is
// 4 LDS.128 per warp (16 in all, 64 wavefronts, conflict-free).
//
// mixed_row_major_x4_sts_stride2: the row-major .x4 kernel that also stores 64 words per warp with
// plain 4-byte stores at a stride of 2 words (word 2*lane, then word 2*lane + 1: lanes l and l + 16
// share a bank with different words, 2-way) in the same launch, and reads them back with two
// conflict-free 4-byte loads (words lane and lane + 32): STSM 8-way, STS 2-way.
//
// Below sm_90 the kernels compile to an empty body, and the cases skip.

#include <cuda_runtime_api.h>
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

constexpr unsigned kWarps = 2;  // per block; warp w stores rows 16w .. 16w + 15
constexpr unsigned kThreads = kWarps * kWarpLanes;
constexpr unsigned kBlocks = 2;
constexpr uint32_t kTileRows = kWarps * kBandRows;                                     // 32
constexpr uint32_t kTileChunks = kTileRows * kChunksPerRow;                            // 256 x 16 bytes
constexpr uint32_t kReadBackLoads = kTileChunks / kThreads;                            // 4 LDS.128 per thread
constexpr uint32_t kFragmentWords = kBlocks * kWarps * kMatricesPerBand * kWarpLanes;  // 2,048
constexpr uint32_t kMixedWordsPerWarp = 2 * kWarpLanes;  // 64 words, stored at stride 2
constexpr uint32_t kMixedWords = kBlocks * kWarps * kMixedWordsPerWarp;

// Byte offset of word `k` of warp `warp`'s mixed words: after the tile (row-major tiles only).
__host__ __device__ constexpr uint32_t MixedWordOffset(MatrixLayout layout, uint32_t warp, uint32_t k) {
  return TileBytes(layout, kTileRows) + 4 * (warp * kMixedWordsPerWarp + k);
}

template <MatrixLayout kLayout, int kMatrices, bool kMixed>
__global__ void __launch_bounds__(kThreads)
    StmatrixKernel(const uint32_t* __restrict__ fragments, uint4* __restrict__ tile_out,
                   const uint32_t* __restrict__ mixed_in, uint32_t* __restrict__ mixed_out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  static_assert(!kMixed || kLayout == MatrixLayout::kRowMajor, "the mixed stores assume the row-major tile");
  constexpr uint32_t kSmemBytes =
      TileBytes(kLayout, kTileRows) + (kMixed ? 4 * kWarps * kMixedWordsPerWarp : 0);
  __shared__ __align__(128) unsigned char smem[kSmemBytes];
  const uint32_t t = threadIdx.x;
  const uint32_t lane = t % kWarpLanes;
  const uint32_t warp = t / kWarpLanes;
  const uint32_t band = warp * kBandRows;
  const uint32_t* in = fragments + (blockIdx.x * kWarps + warp) * kMatricesPerBand * kWarpLanes;
#pragma unroll
  for (uint32_t s = 0; s < kMatricesPerBand / kMatrices; ++s) {
    uint32_t regs[kMatrices];
#pragma unroll
    for (uint32_t j = 0; j < kMatrices; ++j) regs[j] = in[(s * kMatrices + j) * kWarpLanes + lane];
    const uint32_t m = SuppliedMatrix(s * kMatrices, kMatrices, lane);
    StoreMatrices<kMatrices>(
        SharedAddress(smem + ChunkOffset(kLayout, band + MatrixRow(m, lane), MatrixChunk(m))), regs);
  }
  [[maybe_unused]] const uint32_t mixed_base = (blockIdx.x * kWarps + warp) * kMixedWordsPerWarp;
  if constexpr (kMixed) {
    // volatile: exactly one 4-byte STS per store, never merged into an STS.64.
    volatile uint32_t* words = reinterpret_cast<volatile uint32_t*>(smem + MixedWordOffset(kLayout, warp, 0));
    words[2 * lane] = mixed_in[mixed_base + 2 * lane];          // bankcheck: 2-way
    words[2 * lane + 1] = mixed_in[mixed_base + 2 * lane + 1];  // bankcheck: 2-way
  }
  __syncthreads();

#pragma unroll
  for (uint32_t i = 0; i < kReadBackLoads; ++i) {
    const uint32_t q = i * kThreads + t;  // chunk q of the tile, row-major
    // bankcheck: conflict-free
    tile_out[blockIdx.x * kTileChunks + q] =
        *reinterpret_cast<const uint4*>(smem + ChunkOffset(kLayout, q / kChunksPerRow, q % kChunksPerRow));
  }
  if constexpr (kMixed) {
    const volatile uint32_t* words =
        reinterpret_cast<const volatile uint32_t*>(smem + MixedWordOffset(kLayout, warp, 0));
    mixed_out[mixed_base + lane] = words[lane];                            // bankcheck: conflict-free
    mixed_out[mixed_base + kWarpLanes + lane] = words[kWarpLanes + lane];  // bankcheck: conflict-free
  }
#else
  (void)fragments;
  (void)tile_out;
  (void)mixed_in;
  (void)mixed_out;
#endif
}

template <MatrixLayout kLayout, int kMatrices, bool kMixed>
void RegisterStmatrixCase() {
  constexpr uint32_t kInstructionsPerWarp = kMatricesPerBand / kMatrices;
  const std::string op = "x" + std::to_string(kMatrices);
  KernelCase c;
  c.name = std::string("stmatrix/") + (kMixed ? "mixed_" : "") + LayoutName(kLayout) + "_" + op +
           (kMixed ? "_sts_stride2" : "");
  c.description = "stmatrix." + op + " of all 8x8 matrices of a " + LayoutName(kLayout) +
                  " 32x64 b16 tile (2 blocks x 2 warps), read back with LDS.128" +
                  (kMixed ? ", plus 2 stride-2 4-byte STS per thread in the same launch" : "");
  c.predict = [op] {
    std::vector<SharedAccess> accesses = {Stmatrix(
        "stmatrix." + op + " [band row]",
        [](Dim3, Dim3 t, uint32_t s) -> std::optional<uint64_t> {
          const uint32_t lane = t.x % kWarpLanes;
          if (lane >= 8u * kMatrices) return std::nullopt;
          const uint32_t m = SuppliedMatrix(s * kMatrices, kMatrices, lane);
          return ChunkOffset(kLayout, (t.x / kWarpLanes) * kBandRows + MatrixRow(m, lane), MatrixChunk(m));
        },
        kInstructionsPerWarp)};
    if (kMixed) {
      accesses.push_back(SharedStore(
          "words[2 * lane + e]", 4,
          [](Dim3, Dim3 t, uint32_t e) {
            return MixedWordOffset(kLayout, t.x / kWarpLanes, 2 * (t.x % kWarpLanes) + e);
          },
          2));
    }
    accesses.push_back(SharedLoad(
        "tile chunk (LDS.128)", 16,
        [](Dim3, Dim3 t, uint32_t i) {
          const uint32_t q = i * kThreads + t.x;
          return ChunkOffset(kLayout, q / kChunksPerRow, q % kChunksPerRow);
        },
        kReadBackLoads));
    if (kMixed) {
      accesses.push_back(SharedLoad(
          "words[lane + 32 * e]", 4,
          [](Dim3, Dim3 t, uint32_t e) {
            return MixedWordOffset(kLayout, t.x / kWarpLanes, t.x % kWarpLanes + kWarpLanes * e);
          },
          2));
    }
    return PredictLaunch(Dim3{kBlocks}, Dim3{kThreads}, accesses);
  };
  c.run = [](CaseContext& ctx) {
    int device = 0;
    BANKCHECK_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    BANKCHECK_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    if (prop.major < 9) {
      GTEST_SKIP() << "stmatrix needs compute capability 9.0 or later; " << prop.name << " is " << prop.major
                   << "." << prop.minor;
    }
    const std::vector<uint32_t> fragments = RandomBits<uint32_t>(kFragmentWords, 0x57A7u + kMatrices);
    const std::vector<uint32_t> mixed_in = RandomBits<uint32_t>(kMixedWords, 0x57A8u);
    DeviceBuffer<uint32_t> d_fragments(fragments);
    DeviceBuffer<uint16_t> d_tile(size_t{kBlocks} * kTileRows * kTileCols);
    DeviceBuffer<uint32_t> d_mixed_in(mixed_in);
    DeviceBuffer<uint32_t> d_mixed_out(kMixedWords);
    d_tile.Fill(0xFF);
    d_mixed_out.Fill(0xFF);
    ctx.Measure([&] {
      StmatrixKernel<kLayout, kMatrices, kMixed><<<kBlocks, kThreads>>>(
          d_fragments.get(), reinterpret_cast<uint4*>(d_tile.get()), d_mixed_in.get(), d_mixed_out.get());
    });

    // Where each lane's register puts its two elements: matrix m of warp w's band, row lane / 4,
    // columns 2*(lane % 4) and +1 (low half first).
    std::vector<uint16_t> expected(size_t{kBlocks} * kTileRows * kTileCols);
    for (uint32_t b = 0; b < kBlocks; ++b) {
      for (uint32_t w = 0; w < kWarps; ++w) {
        for (uint32_t m = 0; m < kMatricesPerBand; ++m) {
          for (uint32_t lane = 0; lane < kWarpLanes; ++lane) {
            const uint32_t word = fragments[((b * kWarps + w) * kMatricesPerBand + m) * kWarpLanes + lane];
            const uint32_t row = w * kBandRows + 8 * (m % 2) + lane / 4;
            const size_t first =
                (size_t{b} * kTileRows + row) * kTileCols + 8 * MatrixChunk(m) + 2 * (lane % 4);
            expected[first] = static_cast<uint16_t>(word & 0xFFFFu);
            expected[first + 1] = static_cast<uint16_t>(word >> 16);
          }
        }
      }
    }
    ExpectVectorsEqual(d_tile.ToHost(), expected, "tile stored by stmatrix");
    if (kMixed) ExpectVectorsEqual(d_mixed_out.ToHost(), mixed_in, "words stored at stride 2");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterStmatrixCases() {
  RegisterStmatrixCase<MatrixLayout::kRowMajor, 1, false>();
  RegisterStmatrixCase<MatrixLayout::kRowMajor, 4, false>();
  RegisterStmatrixCase<MatrixLayout::kSwizzled, 1, false>();
  RegisterStmatrixCase<MatrixLayout::kSwizzled, 4, false>();
  RegisterStmatrixCase<MatrixLayout::kRowMajor, 4, true>();
}

BANKCHECK_REGISTER_CASES(RegisterStmatrixCases);

}  // namespace
}  // namespace bankcheck::kernels
