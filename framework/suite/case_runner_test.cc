// The suite's baseline check on the CPU: its decision is DecideCase's (verdict.h), the one rule
// report, compare and run apply, not a rule of its own.
#include "suite/internal/case_runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/verdict.h"
#include "core/internal/launch_emulation.h"
#include "core/internal/test_support.h"

namespace bankcheck::suites {
namespace {

using testing_support::MakeLine;
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

class LineGlobsOfThisRun : public testing_support::TempDirTest {};

TEST_F(LineGlobsOfThisRun, AGlobIsReportedOnlyWhenNoCaseThatRanOrMightHaveRunTheLineMatchesIt) {
  const std::string file = (dir_ / "k.cu").string();
  testing_support::WriteFile(file, "x;  // bankcheck: 2-way in t/a | t/typo | t/other, conflict-free\n");
  LineCounts line;
  line.file = file;
  line.line = 1;
  line.wavefronts = 64;
  line.ideal_wavefronts = 32;
  RecordCaseLines("t/a", {line});
  KernelCase a, other;
  a.name = "t/a";
  other.name = "t/other";  // registered, not run here: its glob might be right
  const std::vector<LineFailure> failures = NeverMatchingGlobsOfThisRun({&a, &other});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].file, file);
  EXPECT_EQ(failures[0].line, 1u);
  EXPECT_NE(
      failures[0].message.find("case glob 't/typo' of '2-way in t/a | t/typo | t/other' selects none of "
                               "the cases that ran line 1 (t/a)"),
      std::string::npos)
      << failures[0].message;
}

// The suite's check reads the lines too (CheckBaseline, in the suite's CaseTest): a measured line
// that differs from the baseline's fails the case although its launch totals match, and the message
// names the line before -> after.
TEST(CaseRunnerTest, ALineDifferenceFailsTheSuitesBaselineCheck) {
  LaunchRecord recorded = MakeRecord(128);
  const LineRecord line = MakeLine("kernels/a.cu", 7, "x = tile[i];", SharedKind::kLoad, 64, 128, 64);
  recorded.lines = std::vector<LineRecord>{line};
  LaunchRecord measured = recorded;
  measured.lines->at(0).line = 9;  // moved: not a difference
  BaselineEntry entry;
  entry.launches = {recorded};
  const BaselineSet baselines =
      BaselineSet::FromEntries("/nonexistent/sm_90", "sm_90", {{"transpose/a", entry}});
  EXPECT_FALSE(CheckBaseline(baselines, "transpose/a", {measured}).fails);
  measured.lines->at(0).executions = 32;
  measured.lines->at(0).ideal_wavefronts = 32;
  const BaselineCheck check = CheckBaseline(baselines, "transpose/a", {measured});
  EXPECT_TRUE(check.fails);
  EXPECT_EQ(check.comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_EQ(check.comparison.lines, BaselineVerdict::kRegression);
  EXPECT_NE(check.comparison.message.find("kernels/a.cu:9 (line 7 before) x = tile[i];: ld 2-way -> 4-way "
                                          "(executions 64 -> 32, ideal 64 -> 32)"),
            std::string::npos)
      << check.comparison.message;
}

// Stands in for the emulated program's runtime: only its presence matters here.
class PresentEmulation final : public internal::LaunchEmulation {
 public:
  void Start() override {}
  std::vector<LaunchRecord> Finish() override { return {}; }
  void Abandon() override {}
  std::string TakeNotEmulated() override { return ""; }
  void BeginCase() override {}
  void ObserveOutputReadBack(std::function<void()>) override {}
  void SetProjectSources(const std::string&, const std::string&) override {}
};

TEST(CaseRunnerTest, TheEmulatedProgramsResultsGoBesideTheMeasuredOnesNeverIntoThem) {
  ::setenv("BANKCHECK_RESULTS_DIR", "/tmp/bankcheck-results", 1);
  const std::filesystem::path measured = ResultsDir();
  PresentEmulation emulation;
  internal::InstallLaunchEmulation(&emulation);
  const std::filesystem::path emulated = ResultsDir();
  internal::InstallLaunchEmulation(nullptr);
  ::unsetenv("BANKCHECK_RESULTS_DIR");
  EXPECT_EQ(measured, "/tmp/bankcheck-results");
  EXPECT_EQ(emulated, "/tmp/bankcheck-results-emulated");
}

}  // namespace
}  // namespace bankcheck::suites
