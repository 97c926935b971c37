// wgmma (HGMMA) on operands in each GMMA shared-memory layout, loaded by cp.async or by TMA: what
// each layout costs the copy-in, and what wgmma's operand reads count. The cases, their layouts,
// loaders and annotations: kernels/wgmma_layouts.h.
//
// Built only with CuTe's headers (BANKCHECK_CUTE_INCLUDE_DIR, suites/CMakeLists.txt) and only for
// sm_90a, the one target with wgmma: the kernels' bodies are compiled for it alone (on a device
// other than compute capability 9.0 the cases skip with the reason before launching anything).
// CuTe makes the tiles' layouts (tile_to_shape of the layout atom), the wgmma descriptors
// (SM90_64x64x16_F32F16F16_SS, K-major), and the TMA descriptors (make_tma_atom); the cp.async
// copy-in addresses come from the same layout, so the copy writes where the descriptors read.
//
// SASS (nvcc 13.0, sm_90a, read with cuobjdump) per warp: cp_async 16 LDGSTS.E.LTC128B.64 (8 for A,
// 8 for B), 4 HGMMA.64x64x16.F32 and no LDS or STS (but four `@!PT LDS RZ, [RZ]`, executed by no
// lane and so not counted, as in kernels/cp_async.cu); tma 4 HGMMA.64x64x16.F32, the mbarrier's
// SYNCS.EXCH.64 (init), SYNCS.ARRIVE.TRANS64 and SYNCS.PHASECHK.TRANS64.TRYWAIT, and UTMALDG.2D
// (thread 0: 1, 2, 4 or 8 per tile for sw128, sw64, sw32, interleaved: one per atom column).

#include <gtest/gtest.h>

// CuTe: tensors first, then the atoms (copy_atom.hpp brings the SM80 cp.async, SM90 TMA and
// GMMA atoms and the mbarrier helpers).
#include <cute/tensor.hpp>
// clang-format off
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_atom.hpp>
// clang-format on

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"
#include "wgmma_layouts.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define BANKCHECK_WGMMA_DEVICE 1  // wgmma and TMA are compiled in (sm_90a device code)
#else
#define BANKCHECK_WGMMA_DEVICE 0
#endif

namespace bankcheck::kernels::wgmma {
namespace {

using Half = cute::half_t;
using TileShape = cute::Shape<cute::Int<kM>, cute::Int<kK>>;  // (m or n, k); kN == kM
static_assert(kN == kM, "A and B tiles share one shape and layout");

template <SmemLayout kLayout>
struct AtomOf;
template <>
struct AtomOf<SmemLayout::kSw128> {
  using type = cute::GMMA::Layout_K_SW128_Atom<Half>;
};
template <>
struct AtomOf<SmemLayout::kSw64> {
  using type = cute::GMMA::Layout_K_SW64_Atom<Half>;
};
template <>
struct AtomOf<SmemLayout::kSw32> {
  using type = cute::GMMA::Layout_K_SW32_Atom<Half>;
};
template <>
struct AtomOf<SmemLayout::kInterleaved> {
  using type = cute::GMMA::Layout_K_INTER_Atom<Half>;
};

// The (m or n, k) tile of one operand: the layout atom repeated over the tile, m (n) first.
template <SmemLayout kLayout>
using TileLayout = decltype(cute::tile_to_shape(typename AtomOf<kLayout>::type{}, TileShape{}));

using TiledMma = decltype(cute::make_tiled_mma(
    cute::SM90_64x64x16_F32F16F16_SS<cute::GMMA::Major::K, cute::GMMA::Major::K>{}));
static_assert(cute::size(TiledMma{}) == kThreads, "one warpgroup");

// The swizzles act on address bits up to 1 KiB: the tiles start 1 KiB-aligned.
template <SmemLayout kLayout>
struct alignas(1024) SharedTiles {
  Half a[cute::cosize_v<TileLayout<kLayout>>];
  alignas(1024) Half b[cute::cosize_v<TileLayout<kLayout>>];
  uint64_t tma_barrier;
};

// Element offset of (row, k) in a tile whose start is 1 KiB-aligned, the swizzle included.
template <SmemLayout kLayout>
__host__ __device__ uint32_t TileOffset(uint32_t row, uint32_t k) {
  return static_cast<uint32_t>(cute::as_position_independent_swizzle_layout(TileLayout<kLayout>{})(row, k));
}

// C (row-major, kM x kN) = sA * sB^T on the warpgroup's tensor cores, the operands read from
// shared memory by 4 wgmma.mma_async.
template <SmemLayout kLayout>
__device__ void MultiplyTiles(Half* smem_a, Half* smem_b, float* c) {
#if BANKCHECK_WGMMA_DEVICE
  using namespace cute;
  Tensor sA = make_tensor(make_smem_ptr(smem_a), TileLayout<kLayout>{});  // (m, k)
  Tensor sB = make_tensor(make_smem_ptr(smem_b), TileLayout<kLayout>{});  // (n, k)
  Tensor gC = make_tensor(make_gmem_ptr(c), make_layout(Shape<Int<kM>, Int<kN>>{}, LayoutRight{}));
  TiledMma mma;
  ThrMMA thr_mma = mma.get_thread_slice(threadIdx.x);
  Tensor tCgC = thr_mma.partition_C(gC);
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);
  Tensor tCrA = thr_mma.make_fragment_A(thr_mma.partition_A(sA));  // wgmma descriptors
  Tensor tCrB = thr_mma.make_fragment_B(thr_mma.partition_B(sB));
  clear(tCrC);
  warpgroup_fence_operand(tCrC);
  warpgroup_arrive();
  gemm(mma, tCrA, tCrB, tCrC);
  warpgroup_commit_batch();
  warpgroup_wait<0>();
  warpgroup_fence_operand(tCrC);
  copy(tCrC, tCgC);
#else
  (void)smem_a;
  (void)smem_b;
  (void)c;
#endif
}

// Thread t copies halves 4 (t % 16) .. +3 of row 8 i + t / 16 of the tile, for i = 0..7.
constexpr uint32_t kHalvesPerCopy = kCopyBytes / 2;
constexpr uint32_t kThreadsPerRow = kK / kHalvesPerCopy;      // 16
constexpr uint32_t kRowsPerStep = kThreads / kThreadsPerRow;  // 8
constexpr uint32_t kCopySteps = kM / kRowsPerStep;            // 8 per tile
static_assert(2 * kCopySteps == kCopiesPerThread, "the copy count of the header's comment");

template <SmemLayout kLayout>
__device__ void CopyTileAsync(Half* tile, const Half* global) {
#if BANKCHECK_WGMMA_DEVICE
  const uint32_t k = kHalvesPerCopy * (threadIdx.x % kThreadsPerRow);
#pragma unroll
  for (uint32_t i = 0; i < kCopySteps; ++i) {
    const uint32_t row = kRowsPerStep * i + threadIdx.x / kThreadsPerRow;
    // bankcheck: 8-way in wgmma_layouts/interleaved_cp_async, 4-way in wgmma_layouts/sw32_cp_async, 2-way in wgmma_layouts/sw64_cp_async, conflict-free
    cute::SM80_CP_ASYNC_CACHEALWAYS<uint64_t>::copy(
        *reinterpret_cast<const uint64_t*>(global + row * kK + k),
        *reinterpret_cast<uint64_t*>(tile + TileOffset<kLayout>(row, k)));
  }
#else
  (void)tile;
  (void)global;
#endif
}

template <SmemLayout kLayout>
__global__ void __launch_bounds__(kThreads)
    WgmmaCpAsync(const Half* __restrict__ a, const Half* __restrict__ b, float* __restrict__ c) {
#if BANKCHECK_WGMMA_DEVICE
  __shared__ SharedTiles<kLayout> smem;
  CopyTileAsync<kLayout>(smem.a, a);
  CopyTileAsync<kLayout>(smem.b, b);
  cute::cp_async_fence();
  cute::cp_async_wait<0>();
  // cp.async wrote through the generic proxy; wgmma reads through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  MultiplyTiles<kLayout>(smem.a, smem.b, c);
#else
  (void)a;
  (void)b;
  (void)c;
#endif
}

// The TMA load of one operand's tile (global 64x64, K-major) into the layout.
template <SmemLayout kLayout>
auto MakeTmaLoad(const Half* global) {
  using namespace cute;
  Tensor g = make_tensor(make_gmem_ptr(global), make_layout(TileShape{}, LayoutRight{}));
  return make_tma_atom(SM90_TMA_LOAD{}, g, TileLayout<kLayout>{}, TileShape{});
}
template <SmemLayout kLayout>
using TmaLoad = decltype(MakeTmaLoad<kLayout>(nullptr));

template <SmemLayout kLayout>
__global__ void __launch_bounds__(kThreads)
    WgmmaTma(const __grid_constant__ TmaLoad<kLayout> tma_a, const __grid_constant__ TmaLoad<kLayout> tma_b,
             float* __restrict__ c) {
#if BANKCHECK_WGMMA_DEVICE
  using namespace cute;
  __shared__ SharedTiles<kLayout> smem;
  Tensor sA = make_tensor(make_smem_ptr(smem.a), TileLayout<kLayout>{});
  Tensor sB = make_tensor(make_smem_ptr(smem.b), TileLayout<kLayout>{});
  Tensor mA = tma_a.get_tma_tensor(shape(TileShape{}));
  Tensor mB = tma_b.get_tma_tensor(shape(TileShape{}));
  // No multicast: the CTA's TMA loads cover the whole tile (mode 0 after grouping).
  auto [tAgA, tAsA] =
      tma_partition(tma_a, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sA), group_modes<0, 2>(mA));
  auto [tBgB, tBsB] =
      tma_partition(tma_b, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sB), group_modes<0, 2>(mB));
  constexpr uint32_t kTileBytes = sizeof(Half) * kM * kK;
  if (threadIdx.x == 0) initialize_barrier(smem.tma_barrier, 1);
  __syncthreads();  // the barrier is initialized before anyone waits on it
  if (threadIdx.x == 0) {
    set_barrier_transaction_bytes(smem.tma_barrier, 2 * kTileBytes);
    copy(tma_a.with(smem.tma_barrier), tAgA, tAsA);
    copy(tma_b.with(smem.tma_barrier), tBgB, tBsB);
  }
  wait_barrier(smem.tma_barrier, 0);
  MultiplyTiles<kLayout>(smem.a, smem.b, c);
#else
  (void)tma_a;
  (void)tma_b;
  (void)c;
#endif
}

template <SmemLayout kLayout>
void RunCase(CaseContext& ctx, TileLoader loader) {
  const int major = ProbeGpu().compute_major;
  const int minor = ProbeGpu().compute_minor;
  if (major != 9 || minor != 0) {
    GTEST_SKIP() << "wgmma needs compute capability 9.0 (sm_90a code); this device has " << major << "."
                 << minor;
  }
  // Small integers: every product and partial sum is exact in f32, in any order (|sum| <= 64 * 16).
  const std::vector<int32_t> a_values =
      RandomInts(size_t{kM} * kK, 0x6A1Au + static_cast<uint32_t>(kLayout), -4, 4);
  const std::vector<int32_t> b_values =
      RandomInts(size_t{kN} * kK, 0x6B1Bu + static_cast<uint32_t>(kLayout), -4, 4);
  DeviceBuffer<Half> d_a(ConvertedThroughFloat<Half>(a_values)), d_b(ConvertedThroughFloat<Half>(b_values));
  DeviceBuffer<float> d_c(size_t{kM} * kN);
  d_c.Fill(0xFF);  // poison: an element the kernel does not write shows as NaN
  if (loader == TileLoader::kCpAsync) {
    ctx.Measure([&] { WgmmaCpAsync<kLayout><<<1, kThreads>>>(d_a.get(), d_b.get(), d_c.get()); });
  } else {
    const TmaLoad<kLayout> tma_a = MakeTmaLoad<kLayout>(d_a.get());
    const TmaLoad<kLayout> tma_b = MakeTmaLoad<kLayout>(d_b.get());
    ctx.Measure([&] { WgmmaTma<kLayout><<<1, kThreads>>>(tma_a, tma_b, d_c.get()); });
  }
  ExpectVectorsEqual(d_c.ToHost(), HostGemmNT(a_values, b_values, kM, kN, kK), "C = A * B^T");
}

template <SmemLayout kLayout>
std::function<void(CaseContext&)> RunOf(TileLoader loader) {
  return [loader](CaseContext& ctx) { RunCase<kLayout>(ctx, loader); };
}

void RegisterCases() {
  RegisterWgmmaLayoutCases([](SmemLayout layout, TileLoader loader) {
    switch (layout) {
      case SmemLayout::kSw128:
        return RunOf<SmemLayout::kSw128>(loader);
      case SmemLayout::kSw64:
        return RunOf<SmemLayout::kSw64>(loader);
      case SmemLayout::kSw32:
        return RunOf<SmemLayout::kSw32>(loader);
      case SmemLayout::kInterleaved:
        break;
    }
    return RunOf<SmemLayout::kInterleaved>(loader);
  });
}

BANKCHECK_REGISTER_CASES(RegisterCases);

}  // namespace
}  // namespace bankcheck::kernels::wgmma
