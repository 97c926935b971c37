#pragma once
// The wgmma_layouts cases (kernels/wgmma_layouts.cu): their names, descriptions and annotations,
// without their kernels. Shared by kernels/wgmma_layouts.cu (built with CuTe's headers, sm_90a)
// and suites/wgmma_layouts_without_cute.cu (built without them: the same cases, each skipping
// with the reason), so that both builds register the same cases and the baseline files check
// against either. Needs no CUDA or CuTe header.
//
// Each case: one CTA of one warpgroup (128 threads) computes C (64x64, f32) = A (64x64, f16) *
// B^T, B given as 64 (n) rows of 64 (k): both operands K-major (what wgmma takes for any type). A
// and B are loaded into shared memory in one GMMA layout (CuTe's GMMA::Layout_K_<layout>_Atom,
// tiled over the 64x64 tile, M (N) first), by one loader, then 4 wgmma.mma_async m64n64k16
// (SS: both operands from shared memory) run over K.
//
// Layouts: a 128-byte tile row (the 64 halves of one m or n) lies in shared memory as 128 /
// segment pieces of `segment` contiguous bytes (the atom's row: 128, 64, 32 or 16), its 16-byte
// chunks permuted within the piece by the swizzle; the pieces of one row lie 4 KiB (sw64), 2 KiB
// (sw32) or 1 KiB (interleaved) apart, a multiple of 128 bytes: in the same banks.
//
// Loaders:
//   cp_async  8-byte cp.async (LDGSTS.E.64), row by row: thread t copies halves 4 (t % 16) .. +3
//             of row 8 i + t / 16 (i = 0..7) of A, then of B. So each 16-lane phase of a copy
//             writes one whole tile row: 128 / segment pieces in the same banks, one word per bank
//             each: 128 / segment wavefronts per phase where 1 is ideal. By the bank rule for
//             8-byte accesses, which 8-byte cp.async follows (measured on the H100 in
//             cp_async/u64_*, docs/model.md): sw128 conflict-free, sw64 2-way, sw32 4-way,
//             interleaved 8-way. (8-byte copies, not CuTe's usual 16-byte ones, because the
//             16-byte cp.async follows another rule, not known for these patterns yet:
//             docs/counters.md.) Then cp.async.wait_group, fence.proxy.async (cp.async writes
//             through the generic proxy, wgmma reads through the async one) and __syncthreads.
//   tma       one thread issues CuTe's TMA loads of both tiles (SM90_TMA_LOAD, the layout's swizzle
//             mode, on an mbarrier); the copy engine writes shared memory outside the LSU pipe, so
//             no shared-memory counter sees the copy (docs/counters.md). The mbarrier's init,
//             arrive.expect_tx and try_wait are SYNCS instructions.
//
// What each case costs is stated on kernels/wgmma_layouts.cu's lines, which are checked in every
// case (the cases state nothing per launch; their instruction counts are in the baselines): the
// cp.async copy-in as above (64 LDGSTS per launch: 8 per tile and thread, 4 warps; the CPU model,
// given the kernel's own addresses (TileOffset), agreed: 128, 256, 512 and 1,024 wavefronts, ideal
// 128, and every tile element written once) on the line of its copy, qualified by case; the wgmma
// operands, 16 HGMMA per launch (4 per warp: K / 16, one m64n64k16 each, executed by each of the
// warpgroup's 4 warps; inst_executed counts warp instructions), on lines nvcc picks among
// MultiplyTiles', which as unannotated lines of an annotated file must be conflict-free. Their
// ideal is the SASS per-instruction ideal, which equalled ncu's Source page on every HGMMA of
// these cases (32 wavefronts, ideal 32 each: docs/counters.md). No `predict`: the model has no
// HGMMA rule, and a prediction is compared with every kind measured.

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "bankcheck/cuda/kernel_registry.h"

namespace bankcheck::kernels::wgmma {

constexpr uint32_t kM = 64, kN = 64, kK = 64;  // one m64n64 wgmma tile, 4 k-steps of 16
constexpr uint32_t kThreads = 128;             // one warpgroup
constexpr uint32_t kRowBytes = kK * 2;         // a K-major f16 row: 128 bytes
constexpr uint32_t kCopyBytes = 8;             // per cp.async
constexpr uint32_t kCopiesPerThread = (kM + kN) * kRowBytes / kCopyBytes / kThreads;  // 16

enum class SmemLayout { kSw128, kSw64, kSw32, kInterleaved };
enum class TileLoader { kCpAsync, kTma };

struct LayoutInfo {
  SmemLayout layout;
  const char* name;        // in the case name
  const char* atom;        // CuTe's atom
  uint32_t segment_bytes;  // contiguous bytes of a tile row in shared memory (the atom's row)
};
inline constexpr std::array<LayoutInfo, 4> kLayouts = {{
    {SmemLayout::kSw128, "sw128", "GMMA::Layout_K_SW128_Atom (128-byte swizzle)", 128},
    {SmemLayout::kSw64, "sw64", "GMMA::Layout_K_SW64_Atom (64-byte swizzle)", 64},
    {SmemLayout::kSw32, "sw32", "GMMA::Layout_K_SW32_Atom (32-byte swizzle)", 32},
    {SmemLayout::kInterleaved, "interleaved", "GMMA::Layout_K_INTER_Atom (no swizzle)", 16},
}};

struct LoaderInfo {
  TileLoader loader;
  const char* name;
  const char* how;
};
inline constexpr std::array<LoaderInfo, 2> kLoaders = {{
    {TileLoader::kCpAsync, "cp_async", "8-byte cp.async, row by row"},
    {TileLoader::kTma, "tma", "TMA"},
}};

// The case's name and description; the caller adds `run`.
inline KernelCase WgmmaLayoutCase(const LayoutInfo& layout, const LoaderInfo& loader) {
  KernelCase c;
  c.name = std::string("wgmma_layouts/") + layout.name + "_" + loader.name;
  c.description = std::string(
                      "64x64x64 f16 GEMM (f32 accumulate), one warpgroup: 4 wgmma m64n64k16 on A and B "
                      "loaded by ") +
                  loader.how + " into " + layout.atom + " tiles";
  return c;
}

// Registers every case, layout by loader; `run_of(SmemLayout, TileLoader)` gives each its run.
template <typename RunOf>
void RegisterWgmmaLayoutCases(RunOf&& run_of) {
  for (const LayoutInfo& layout : kLayouts) {
    for (const LoaderInfo& loader : kLoaders) {
      KernelCase c = WgmmaLayoutCase(layout, loader);
      c.run = run_of(layout.layout, loader.loader);
      RegisterKernelCase(std::move(c));
    }
  }
}

// The reason a case skips where its kernels are not built.
inline constexpr const char* kCuteMissing = "CuTe headers not found (pip install nvidia-cutlass; see README)";

}  // namespace bankcheck::kernels::wgmma
