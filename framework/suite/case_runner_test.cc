// The suite's baseline check on the CPU: its decision is DecideCase's (verdict.h), the one rule
// report, compare and run apply, not a rule of its own.
#include "suite/internal/case_runner.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "bankcheck/verdict.h"
#include "core/internal/test_support.h"

namespace bankcheck::suites {
namespace {

using testing_support::MakeRecord;

BaselineSet Baselines() {
  BaselineEntry entry;
  entry.launches = {MakeRecord(128)};
  return BaselineSet::FromEntries("/nonexistent/sm_90", "sm_90", {{"transpose/a", entry}});
}

TEST(CaseRunnerTest, TheBaselineCheckFailsExactlyWhereTheVerdictTableDoes) {
  const BaselineSet baselines = Baselines();
  // Measured against the entry: the same counts, more, fewer; and a case with no entry.
  const std::map<std::string, std::pair<std::string, uint64_t>> cases = {
      {"match", {"transpose/a", 128}},
      {"regression", {"transpose/a", 2048}},
      {"improvement", {"transpose/a", 64}},
      {"missing", {"transpose/new", 128}},
  };
  for (const VerdictPolicy& policy : {VerdictPolicy{}, VerdictPolicy{true}}) {
    for (const auto& [expected, measured] : cases) {
      const BaselineCheck check =
          CheckBaseline(baselines, measured.first, {MakeRecord(measured.second)}, policy);
      EXPECT_EQ(BaselineVerdictName(check.comparison.verdict), expected);
      CaseFacts facts;
      facts.baseline = check.comparison.verdict;
      EXPECT_EQ(check.fails, DecideCase(facts, policy).fails) << expected;
    }
  }
  // Strict by default: an improvement and a missing baseline fail the suite's case too.
  EXPECT_TRUE(CheckBaseline(baselines, "transpose/a", {MakeRecord(64)}).fails);
  EXPECT_TRUE(CheckBaseline(baselines, "transpose/new", {MakeRecord(128)}).fails);
  EXPECT_FALSE(CheckBaseline(baselines, "transpose/a", {MakeRecord(128)}).fails);
  VerdictPolicy allow_missing;
  allow_missing.allow_missing = true;
  EXPECT_FALSE(CheckBaseline(baselines, "transpose/new", {MakeRecord(128)}, allow_missing).fails);
}

}  // namespace
}  // namespace bankcheck::suites
