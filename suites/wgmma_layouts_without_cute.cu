// The wgmma_layouts cases in a build without CuTe's headers (suites/CMakeLists.txt): the same cases
// as kernels/wgmma_layouts.cu registers (kernels/wgmma_layouts.h), with no kernel; each skips
// with the reason. So the case list, and the baseline files checked against it, are the same
// with and without CuTe.
#include <gtest/gtest.h>

#include "bankcheck/cuda/kernel_registry.h"
#include "wgmma_layouts.h"

namespace bankcheck::kernels::wgmma {
namespace {

void RegisterSkippedCases() {
  RegisterWgmmaLayoutCases(
      [](SmemLayout, TileLoader) { return [](CaseContext&) { GTEST_SKIP() << kCuteMissing; }; });
}

BANKCHECK_REGISTER_CASES(RegisterSkippedCases);

}  // namespace
}  // namespace bankcheck::kernels::wgmma
