#pragma once
// Test-only results for the report's tests (report_test.cc, report_escaping_test.cc): cases with
// chosen load wavefronts and verdicts, and one run with a case of every verdict.

#include <optional>
#include <string>
#include <utility>

#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"

namespace bankcheck::testing_support {

inline CaseResult MakeCase(const std::string& name, uint64_t load_wavefronts,
                           std::optional<BaselineVerdict> verdict, CaseStatus status = CaseStatus::kPassed) {
  CaseResult result;
  result.name = name;
  result.status = status;
  result.expected_ways[MemoryKind::kSharedLoad] = static_cast<double>(load_wavefronts) / 64.0;
  result.launches = {MakeRecord(load_wavefronts)};
  result.baseline = verdict;
  return result;
}

inline RunResults MakeResults() {
  RunResults results;
  results.metadata = MakeMetadata();
  results.metadata.git_commit = "abc1234";
  const auto add = [&results](CaseResult result) { results.cases[result.name] = std::move(result); };
  add(MakeCase("reduce/a", 64, BaselineVerdict::kMatch));
  add(MakeCase("reduce/b", 64, BaselineVerdict::kMatch));
  add(MakeCase("transpose/aa_improved", 64, BaselineVerdict::kImprovement));
  add(MakeCase("transpose/bb_same", 64, BaselineVerdict::kMatch));
  add(MakeCase("transpose/cc_same", 64, BaselineVerdict::kMatch));
  CaseResult regressed =
      MakeCase("transpose/zz_regressed", 2048, BaselineVerdict::kRegression, CaseStatus::kFailed);
  regressed.baseline_table = "launch  kernel ... 64 -> 2048\n";
  regressed.messages = {"REGRESSION: case \"transpose/zz_regressed\" ..."};
  add(regressed);
  add(MakeCase("transpose/mm_missing", 64, BaselineVerdict::kMissing));
  return results;
}

}  // namespace bankcheck::testing_support
