#pragma once
// The integer division recogniser's tests' helpers (division_test.cc, division_paths_test.cc).

#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal::test_support {

// The pcs of the MUFU.RCP instructions of `listing` that MarkDivisionReciprocals marks. The listings
// are cuobjdump -sass of kernels compiled by nvcc 13.0 -arch=sm_90 -O3 (the kernel's source above
// each), cut where the division ends.
inline std::vector<uint32_t> Marked(const std::string& listing) {
  const auto kernels = ReadKernels(".text._Z4testPi:\n" + listing, "");
  std::vector<uint32_t> pcs;
  for (const Instruction& in : kernels.at("_Z4testPi").code)
    if (in.division_reciprocal) pcs.push_back(in.pc);
  return pcs;
}

// Replaces the first occurrence of `from` in `text` (each must occur).
inline std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace bankcheck::emulate::internal::test_support
