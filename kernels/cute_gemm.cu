// A small CuTe GEMM for sm_80 and later, in two shared-memory layouts: C (256x384, f32, row-major)
// = A (256x256, f16, K-major) * B^T (B: 384 n-rows of 256 k, K-major; TN). The cases, their names
// and descriptions: kernels/cute_gemm.h.
//
// Built only with CuTe's headers (BANKCHECK_CUTE_INCLUDE_DIR, suites/CMakeLists.txt), for the
// suite's own architectures (sm_80, sm_90); on a device below compute capability 8.0 the cases skip
// before launching. Everything is CuTe's: one CTA (128 threads, 4 warps) per 128x128 tile of C,
// the K loop in steps of 64 (4 steps; 64 halves are one 128-byte tile row, the width that
// Swizzle<3,3,3> permutes), each step:
//   global->shared  make_tiled_copy of SM80_CP_ASYNC_CACHEGLOBAL<uint128_t> (16-byte cp.async.cg):
//                   threads 16 (rows) x 8 (k), 8 halves each, so 8 consecutive lanes copy one
//                   whole 128-byte tile row, 4 rows per warp instruction; 8 per thread and tile
//                   (128x64 halves / 128 threads / 8).
//   shared->regs    make_tiled_copy_A / _B of SM75_U32x4_LDSM_N (ldmatrix.x4) through the tiled
//                   MMA: each ldmatrix.x4 loads one 16x16 (m or n, k) block as 4 8x8 matrices,
//                   each matrix 8 consecutive tile rows at one 16-byte chunk.
//   mma             make_tiled_mma of SM80_16x8x16_F32F16F16F32_TN, 2x2 warps, permuted to a
//                   32x32x16 tile (so that a warp's B is 16 n wide, one ldmatrix.x4); each warp
//                   computes 64x64 of the 128x128 tile.
// The two cases differ only in the layout of the 128x64 shared tiles (A and B alike):
//   unswizzled  row-major, K-major: element (r, k) at r * 64 + k, 128-byte rows;
//   swizzled    composition(Swizzle<3,3,3>, the same layout): the 16-byte chunk k / 8 of row r
//               stored at chunk (k / 8) ^ (r % 8), the standard conflict-free K-major layout of
//               CuTe's sm80 GEMMs.
//
// SASS (nvcc 13.0, read with cuobjdump) per warp and K step: 16 LDGSTS.E.BYPASS.LTC128B.128 (8 for
// A, 8 for B), 32 LDSM.16.M88.4 (16 each), 128 HMMA.16816.F32, no LDS or STS but a few
// `@!PT LDS RZ, [RZ]`, executed by no lane (as in kernels/cp_async.cu). For sm_90 the K loop stays
// a loop; for sm_80 ptxas unrolls it (the same instructions, 4 times).
//
// Predictions (the annotations, since measured, agree): per launch 6 CTAs
// x 4 warps x 4 K steps, so
//   cp.async, the A and B tile copies: 768 LDGSTS each (8 per warp and step), ideal 4 wavefronts
//     each. Each 8-lane phase copies one whole 128-byte row on both sides (global rows 512 bytes
//     apart; in shared memory the row itself, or its chunks permuted by the swizzle), the pattern
//     measured conflict-free on the H100 for the 16-byte cp.async (cp_async/tile_*,
//     kernels/cp_async.cu): both layouts conflict-free, 3,072 wavefronts a line.
//   ldmatrix, the A and B shared->register copies: 1,536 LDSM each (16 per warp and step: 4
//     k-blocks of 16 x 4 blocks of 16 rows), ideal 4 wavefronts each (one per 8x8 matrix).
//     unswizzled  a matrix's 8 row addresses are 128 bytes apart, the same chunk of 8 rows: all
//                 in the same 4 banks, 8-way: 32 wavefronts per ldmatrix.x4, 49,152 a line
//                 (43,008 conflicts), as mma_gemm/row_major measured for the same rows.
//     swizzled    the 8 rows (r % 8 = 0..7) land in 8 different chunks: conflict-free, 6,144.
// No other shared-memory access: the accumulators go from registers straight to global memory.
// (A first check outside the suite, ncu on the H100 (2026-11-25) of these kernels in a scratch
// program, gave these launch totals: LDGSTS 1,536 instructions, 6,144 wavefronts, 0 conflicts in
// both; LDSM 3,072 instructions, 98,304 wavefronts and 86,016 conflicts unswizzled, 12,288 and 0
// swizzled; no LDS or STS executed.)

#include <gtest/gtest.h>

#include <cute/tensor.hpp>
// clang-format off
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_atom.hpp>
// clang-format on

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "cute_gemm.h"
#include "kernel_support.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define BANKCHECK_CUTE_GEMM_DEVICE 1  // cp.async, ldmatrix and mma.sync m16n8k16 are compiled in
#else
#define BANKCHECK_CUTE_GEMM_DEVICE 0
#endif

namespace bankcheck::kernels::cute_gemm {
namespace {

using Half = cute::half_t;
using BlockM = cute::Int<kBlockM>;
using BlockN = cute::Int<kBlockN>;
using BlockK = cute::Int<kBlockK>;
static_assert(kBlockM == kBlockN, "A and B tiles share one shape and layout");

// The shared tile of one operand, (m or n, k).
using RowMajorTile = cute::Layout<cute::Shape<BlockM, BlockK>, cute::Stride<BlockK, cute::_1>>;
template <SmemLayout kLayout>
struct TileLayoutOf {
  using type = RowMajorTile;
};
template <>
struct TileLayoutOf<SmemLayout::kSwizzled> {
  using type = decltype(cute::composition(cute::Swizzle<3, 3, 3>{}, RowMajorTile{}));
};
template <SmemLayout kLayout>
using TileLayout = typename TileLayoutOf<kLayout>::type;

// The swizzle acts on element-offset bits up to 512 halves (1 KiB): the tiles start 1 KiB-aligned.
template <SmemLayout kLayout>
struct alignas(1024) SharedTiles {
  Half a[cute::cosize_v<TileLayout<kLayout>>];
  alignas(1024) Half b[cute::cosize_v<TileLayout<kLayout>>];
};

using TiledMma = decltype(cute::make_tiled_mma(cute::SM80_16x8x16_F32F16F16F32_TN{},
                                               cute::Layout<cute::Shape<cute::_2, cute::_2>>{},
                                               cute::Tile<cute::_32, cute::_32, cute::_16>{}));
static_assert(cute::size(TiledMma{}) == kThreads, "4 warps");

// 16-byte cp.async: 16 rows x 8 threads (K-major), 8 halves (one 16-byte chunk) each.
using GlobalToShared = decltype(cute::make_tiled_copy(
    cute::Copy_Atom<cute::SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, Half>{},
    cute::Layout<cute::Shape<cute::_16, cute::_8>, cute::Stride<cute::_8, cute::_1>>{},
    cute::Layout<cute::Shape<cute::_1, cute::_8>>{}));
static_assert(cute::size(GlobalToShared{}) == kThreads, "every thread copies");
using SharedToRegisters = cute::Copy_Atom<cute::SM75_U32x4_LDSM_N, Half>;

template <SmemLayout kLayout>
__global__ void __launch_bounds__(kThreads)
    CuteGemmKernel(const Half* __restrict__ a, const Half* __restrict__ b, float* __restrict__ c) {
#if BANKCHECK_CUTE_GEMM_DEVICE
  using namespace cute;
  __shared__ SharedTiles<kLayout> smem;
  Tensor mA = make_tensor(make_gmem_ptr(a), make_layout(Shape<Int<kM>, Int<kK>>{}, LayoutRight{}));
  Tensor mB = make_tensor(make_gmem_ptr(b), make_layout(Shape<Int<kN>, Int<kK>>{}, LayoutRight{}));
  Tensor mC = make_tensor(make_gmem_ptr(c), make_layout(Shape<Int<kM>, Int<kN>>{}, LayoutRight{}));
  const auto cta_tiler = Shape<BlockM, BlockN, BlockK>{};
  const auto cta_coord = make_coord(blockIdx.x, blockIdx.y, _);
  Tensor gA = local_tile(mA, cta_tiler, cta_coord, Step<_1, X, _1>{});    // (BLK_M, BLK_K, k)
  Tensor gB = local_tile(mB, cta_tiler, cta_coord, Step<X, _1, _1>{});    // (BLK_N, BLK_K, k)
  Tensor gC = local_tile(mC, cta_tiler, cta_coord, Step<_1, _1, X>{});    // (BLK_M, BLK_N)
  Tensor sA = make_tensor(make_smem_ptr(smem.a), TileLayout<kLayout>{});  // (BLK_M, BLK_K)
  Tensor sB = make_tensor(make_smem_ptr(smem.b), TileLayout<kLayout>{});  // (BLK_N, BLK_K)

  GlobalToShared global_to_shared;
  ThrCopy thr_g2s = global_to_shared.get_slice(threadIdx.x);
  Tensor tAgA = thr_g2s.partition_S(gA);  // (CPY, CPY_M, CPY_K, k)
  Tensor tAsA = thr_g2s.partition_D(sA);  // (CPY, CPY_M, CPY_K)
  Tensor tBgB = thr_g2s.partition_S(gB);
  Tensor tBsB = thr_g2s.partition_D(sB);

  TiledMma mma;
  ThrMMA thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCgC = thr_mma.partition_C(gC);           // (MMA, MMA_M, MMA_N)
  Tensor tCrA = thr_mma.partition_fragment_A(sA);  // (MMA, MMA_M, MMA_K)
  Tensor tCrB = thr_mma.partition_fragment_B(sB);  // (MMA, MMA_N, MMA_K)
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);
  clear(tCrC);

  TiledCopy shared_to_a = make_tiled_copy_A(SharedToRegisters{}, mma);
  ThrCopy thr_s2r_a = shared_to_a.get_slice(threadIdx.x);
  Tensor tXsA = thr_s2r_a.partition_S(sA);  // (CPY, MMA_M, MMA_K)
  Tensor tXrA = thr_s2r_a.retile_D(tCrA);
  TiledCopy shared_to_b = make_tiled_copy_B(SharedToRegisters{}, mma);
  ThrCopy thr_s2r_b = shared_to_b.get_slice(threadIdx.x);
  Tensor tXsB = thr_s2r_b.partition_S(sB);  // (CPY, MMA_N, MMA_K)
  Tensor tXrB = thr_s2r_b.retile_D(tCrB);

  constexpr int kKBlocks = size<2>(decltype(tCrA){});  // 4 k-blocks of 16 per K step
  const int k_tiles = size<2>(gA);
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    copy(global_to_shared, tAgA(_, _, _, k_tile), tAsA);  // bankcheck: conflict-free
    copy(global_to_shared, tBgB(_, _, _, k_tile), tBsB);  // bankcheck: conflict-free
    cp_async_fence();
    cp_async_wait<0>();
    __syncthreads();
    CUTE_UNROLL
    for (int k_block = 0; k_block < kKBlocks; ++k_block) {
      // One line per operand for both layouts; each line's annotation says what each layout costs.
      // bankcheck: 8-way in cute_gemm/unswizzled, conflict-free; unswizzled, a matrix's 8 rows are in 4 banks
      copy(shared_to_a, tXsA(_, _, k_block), tXrA(_, _, k_block));
      // bankcheck: 8-way in cute_gemm/unswizzled, conflict-free
      copy(shared_to_b, tXsB(_, _, k_block), tXrB(_, _, k_block));
      gemm(mma, tCrA(_, _, k_block), tCrB(_, _, k_block), tCrC);
    }
    __syncthreads();  // every warp has read the tiles before the next step overwrites them
  }
  copy(tCrC, tCgC);
#else
  (void)a;
  (void)b;
  (void)c;
#endif
}

template <SmemLayout kLayout>
void RunCase(CaseContext& ctx) {
  const int major = ProbeGpu().compute_major;
  const int minor = ProbeGpu().compute_minor;
  if (major < 8) {
    GTEST_SKIP() << "cp.async and mma.sync m16n8k16 need compute capability 8.0 or later; this device has "
                 << major << "." << minor;
  }
  // Small integers: every product and partial sum is exact in f32, in any order (|sum| <= 256 * 16).
  const std::vector<int32_t> a_values =
      RandomInts(size_t{kM} * kK, 0xC6A1u + static_cast<uint32_t>(kLayout), -4, 4);
  const std::vector<int32_t> b_values =
      RandomInts(size_t{kN} * kK, 0xC6B1u + static_cast<uint32_t>(kLayout), -4, 4);
  DeviceBuffer<Half> d_a(ConvertedThroughFloat<Half>(a_values)), d_b(ConvertedThroughFloat<Half>(b_values));
  DeviceBuffer<float> d_c(size_t{kM} * kN);
  d_c.Fill(0xFF);  // poison: an element the kernel does not write shows as NaN
  const dim3 grid(kM / kBlockM, kN / kBlockN);
  ctx.Measure([&] { CuteGemmKernel<kLayout><<<grid, kThreads>>>(d_a.get(), d_b.get(), d_c.get()); });
  ExpectVectorsEqual(d_c.ToHost(), HostGemmNT(a_values, b_values, kM, kN, kK), "C = A * B^T");
}

void RegisterCases() {
  RegisterCuteGemmCases([](SmemLayout layout) -> std::function<void(CaseContext&)> {
    if (layout == SmemLayout::kSwizzled) return RunCase<SmemLayout::kSwizzled>;
    return RunCase<SmemLayout::kUnswizzled>;
  });
}

BANKCHECK_REGISTER_CASES(RegisterCases);

}  // namespace
}  // namespace bankcheck::kernels::cute_gemm
