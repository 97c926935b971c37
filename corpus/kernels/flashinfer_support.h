#pragma once
// What the FlashInfer corpus files share (corpus/kernels/flashinfer_*.cu): whether FlashInfer's
// headers were found (the pinned flashinfer-python wheel's include tree, ci/jobs/install-deps.sh and
// cmake/BankcheckFlashInfer.cmake), the reason their cases skip when not, and the host-side
// conversions and inputs of their references. FlashInfer is Apache-2.0 (THIRD-PARTY-NOTICES); the
// kernels are the headers' as installed, never copied here.

#if __has_include(<flashinfer/vec_dtypes.cuh>)
#define BANKCHECK_CORPUS_HAS_FLASHINFER 1
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#else
#define BANKCHECK_CORPUS_HAS_FLASHINFER 0
#endif

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "corpus_support.h"

// FlashInfer's page.cuh and pos_enc.cuh include fastdiv.cuh, which needs CCCL's cuda::fast_mod_div;
// corpus/CMakeLists.txt defines BANKCHECK_CCCL_HAS_FAST_MOD_DIV where the CCCL these files are
// compiled with has it (cmake/BankcheckFlashInfer.cmake decides). Their cases skip with kFastModDivMissing
// elsewhere.
#if BANKCHECK_CORPUS_HAS_FLASHINFER && defined(BANKCHECK_CCCL_HAS_FAST_MOD_DIV)
#define BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE 1
#else
#define BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE 0
#endif

namespace bankcheck::corpus::flashinfer_cases {

inline const char* const kFlashInferMissing =
    "FlashInfer's headers were not found when this suite was built (ci/jobs/install-deps.sh extracts them "
    "from the pinned flashinfer-python wheel, ci/requirements/flashinfer-requirements.txt, into "
    "<build>/flashinfer-headers; or -DBANKCHECK_FLASHINFER_INCLUDE_DIR=...): the FlashInfer corpus "
    "cases are not built";

// Why the page and RoPE cases skip (BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE is 0).
inline const char* PageHeadersMissing() {
  return BANKCHECK_CORPUS_HAS_FLASHINFER
             ? "FlashInfer's page.cuh and pos_enc.cuh need cuda::fast_mod_div (<cuda/cmath>, CCCL 3.1), "
               "which the CCCL they were compiled with lacks (CUDA 13.0's is CCCL 3.0; "
               "ci/jobs/install-deps.sh extracts CCCL 3.1 from the pinned nvidia-cuda-cccl wheel into "
               "<build>/flashinfer-headers/cccl): "
               "these FlashInfer cases are not built"
             : kFlashInferMissing;
}

// The 16-bit element types the cases are instantiated with. Without FlashInfer's headers (no
// cuda_fp16.h, cuda_bf16.h) they stand for two distinct integer types, so that the same cases, with
// the same names, register and skip.
#if BANKCHECK_CORPUS_HAS_FLASHINFER
using Half = __half;
using BFloat16 = __nv_bfloat16;
#else
using Half = uint16_t;
using BFloat16 = int16_t;
#endif

// The element types' names in case names: the same with or without FlashInfer's headers, so that
// the cases that skip are the cases that run elsewhere.
template <typename T>
const char* TypeName() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  if constexpr (std::is_same_v<T, Half>) return "f16";
  return "bf16";
}

// `n` multiples of 1/16 in [lo, hi]: exact in half and bfloat16 for |value| <= 8 (7 significant
// bits at most), and their products with other such values exact in float, so that references of
// copies and of products and sums compare exactly.
inline std::vector<float> SixteenthsIn(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> dist(static_cast<int32_t>(lo * 16), static_cast<int32_t>(hi * 16));
  std::vector<float> values(n);
  for (auto& v : values) v = static_cast<float>(dist(rng)) / 16.0f;
  return values;
}

#if BANKCHECK_CORPUS_HAS_FLASHINFER
// `values` converted one by one to T (float, half, bfloat16: round to nearest even, as the GPU's
// conversions of the kernels' outputs do).
template <typename T>
std::vector<T> FromFloats(const std::vector<float>& values) {
  std::vector<T> out;
  out.reserve(values.size());
  for (const float v : values) out.push_back(static_cast<T>(v));
  return out;
}

template <typename T>
std::vector<float> ToFloats(const std::vector<T>& values) {
  std::vector<float> out;
  out.reserve(values.size());
  for (const T& v : values) out.push_back(static_cast<float>(v));
  return out;
}

// Half a unit in the last place of T, relative: the rounding of a kernel's output to T.
template <typename T>
constexpr double HalfUlp() {
  if constexpr (std::is_same_v<T, float>) return 0x1p-24;
  if constexpr (std::is_same_v<T, __half>) return 0x1p-11;
  return 0x1p-8;
}
#endif

// Expects |actual[i] - expected[i]| <= abs_tol + rel_tol * |expected[i]| for every element, with ONE
// failure giving the count and the worst element (as ExpectVectorsEqual). For kernels whose float
// arithmetic (an approximate rsqrt, exp2 or tanh, a different order of a sum) differs from a CPU
// reference by more than rounding; each case says why its tolerances are what they are. Checks
// nothing where the output was not computed (SkipOutputCheck, as ExpectVectorsEqual).
inline void ExpectVectorsNear(const std::vector<float>& actual, const std::vector<double>& expected,
                              double abs_tol, double rel_tol, const std::string& what) {
  if (::bankcheck::gtest::SkipOutputCheck(what)) return;
  ASSERT_EQ(actual.size(), expected.size()) << what << ": sizes differ";
  size_t mismatches = 0;
  size_t worst = 0;
  double worst_excess = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double error = std::fabs(static_cast<double>(actual[i]) - expected[i]);
    const double bound = abs_tol + rel_tol * std::fabs(expected[i]);
    // NaN fails (!(error <= bound)).
    if (!(error <= bound)) {
      const double excess = std::isnan(error) ? INFINITY : error - bound;
      if (mismatches++ == 0 || excess > worst_excess) {
        worst = i;
        worst_excess = excess;
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of " << actual.size() << " elements outside "
                            << abs_tol << " + " << rel_tol << " * |expected|; the worst at index " << worst
                            << ": got " << (mismatches ? actual[worst] : 0.0f) << ", expected "
                            << (mismatches ? expected[worst] : 0.0);
}

}  // namespace bankcheck::corpus::flashinfer_cases
