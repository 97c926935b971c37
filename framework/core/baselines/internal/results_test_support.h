#pragma once
// Test-only results for the results file's tests (results_test.cc, result_fragments_test.cc).

#include <string>

#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"

namespace bankcheck::testing_support {

// A case checked against 32-way loads and conflict-free stores, matching its baseline, with a
// message; a launch of 2048 load wavefronts unless skipped.
inline CaseResult MakeCheckedCase(const std::string& name, CaseStatus status = CaseStatus::kPassed) {
  CaseResult result;
  result.name = name;
  result.description = "what " + name + " shows";
  result.status = status;
  result.expected_ways[MemoryKind::kSharedLoad] = 32;
  result.expected_ways[MemoryKind::kSharedStore] = 1;
  if (status != CaseStatus::kSkipped) result.launches = {MakeRecord(2048)};
  result.baseline = BaselineVerdict::kMatch;
  result.messages = {"a message"};
  return result;
}

}  // namespace bankcheck::testing_support
