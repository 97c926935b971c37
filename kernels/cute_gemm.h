#pragma once
// The cute_gemm cases (kernels/cute_gemm.cu): their names and descriptions, without their kernels.
// Shared by kernels/cute_gemm.cu (built with CuTe's headers) and suites/cute_gemm_without_cute.cu
// (built without them: the same cases, each skipping with the reason), so that both builds
// register the same cases and the baseline files check against either. Needs no CUDA or CuTe
// header. What the kernel does and what each layout predicts: kernels/cute_gemm.cu.

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "bankcheck/cuda/kernel_registry.h"

namespace bankcheck::kernels::cute_gemm {

// The problem: C (kM x kN, f32, row-major) = A (kM x kK, f16, K-major) * B^T, B given as kN (n)
// rows of kK (k), K-major (TN). Different M and N, so that a CTA index used for the wrong mode
// shows in the result.
constexpr uint32_t kM = 256, kN = 384, kK = 256;
// The CTA tile (kBlockM x kBlockN, kBlockK of k per step of the K loop) and the CTA's threads.
constexpr uint32_t kBlockM = 128, kBlockN = 128, kBlockK = 64;
constexpr uint32_t kThreads = 128;  // 4 warps, 2x2 over the tile
static_assert(kM % kBlockM == 0 && kN % kBlockN == 0 && kK % kBlockK == 0, "whole tiles only");

enum class SmemLayout { kUnswizzled, kSwizzled };

struct LayoutInfo {
  SmemLayout layout;
  const char* name;  // in the case name
  const char* what;  // in the description
};
inline constexpr std::array<LayoutInfo, 2> kLayouts = {{
    {SmemLayout::kUnswizzled, "unswizzled", "plain K-major (row-major, 128-byte rows)"},
    {SmemLayout::kSwizzled, "swizzled", "Swizzle<3,3,3>-composed K-major"},
}};

// The case's name and description; the caller adds `run`. No annotation yet: the cases are
// checked against their baselines until measured on the GPU.
inline KernelCase CuteGemmCase(const LayoutInfo& layout) {
  KernelCase c;
  c.name = std::string("cute_gemm/") + layout.name;
  c.description = std::string(
                      "CuTe 256x384x256 f16 GEMM (f32 accumulate), 128x128x64 CTA tiles: cp.async "
                      "global->shared, ldmatrix.x4 shared->registers, mma.sync m16n8k16, ") +
                  layout.what + " shared tiles";
  return c;
}

// Registers every case; `run_of(SmemLayout)` gives each its run.
template <typename RunOf>
void RegisterCuteGemmCases(RunOf&& run_of) {
  for (const LayoutInfo& layout : kLayouts) {
    KernelCase c = CuteGemmCase(layout);
    c.run = run_of(layout.layout);
    RegisterKernelCase(std::move(c));
  }
}

// The reason a case skips where its kernels are not built.
inline constexpr const char* kCuteMissing = "CuTe headers not found (pip install nvidia-cutlass; see README)";

}  // namespace bankcheck::kernels::cute_gemm
