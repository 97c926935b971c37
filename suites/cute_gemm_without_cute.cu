// The cute_gemm cases in a build without CuTe's headers (suites/CMakeLists.txt): the same cases as
// kernels/cute_gemm.cu registers (kernels/cute_gemm.h), with no kernel; each skips with the
// reason. So the case list, and the baseline files checked against it, are the same with and
// without CuTe.
#include <gtest/gtest.h>

#include "bankcheck/cuda/kernel_registry.h"
#include "cute_gemm.h"

namespace bankcheck::kernels::cute_gemm {
namespace {

void RegisterSkippedCases() {
  RegisterCuteGemmCases([](SmemLayout) { return [](CaseContext&) { GTEST_SKIP() << kCuteMissing; }; });
}

BANKCHECK_REGISTER_CASES(RegisterSkippedCases);

}  // namespace
}  // namespace bankcheck::kernels::cute_gemm
