#include "bankcheck/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "bankcheck/error.h"
#include "core/internal/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::WithInstructions;

CaseResult MakeCase(const std::string& name, uint64_t load_wavefronts, std::optional<BaselineVerdict> verdict,
                    CaseStatus status = CaseStatus::kPassed) {
  CaseResult result;
  result.name = name;
  result.status = status;
  result.expected_ways[SharedKind::kLoad] = static_cast<double>(load_wavefronts) / 64.0;
  result.launches = {MakeRecord(load_wavefronts)};
  result.baseline = verdict;
  return result;
}

RunResults MakeResults() {
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

TEST(ReportTest, HeaderSaysWhereAndWhenAndCountsEverything) {
  const std::string report = RenderMarkdownReport(MakeResults());
  EXPECT_THAT(report,
              AllOf(HasSubstr("## bankcheck: sm_90 · NVIDIA H100 80GB HBM3"), HasSubstr("driver 580.65.06"),
                    HasSubstr("commit `abc1234`"), HasSubstr("Baselines: as compared during the run")));
  EXPECT_THAT(report,
              HasSubstr("**1 regression**, 1 improvement, 0 changed, 1 missing baseline, 4 unchanged, 0 not "
                        "compared · 7 cases: 6 passed, **1 failed**, 0 skipped"));
}

TEST(ReportTest, TheSummaryCountsVerdictsOfFailedCasesAsTheLogReportedThem) {
  // A case fails because of its baseline verdict: an improvement (or a missing baseline) in the
  // log must be one in the summary line too, not only a failure.
  RunResults results;
  results.cases["t/better"] = MakeCase("t/better", 64, BaselineVerdict::kImprovement, CaseStatus::kFailed);
  results.cases["t/worse"] = MakeCase("t/worse", 2048, BaselineVerdict::kRegression, CaseStatus::kFailed);
  results.cases["t/new"] = MakeCase("t/new", 64, BaselineVerdict::kMissing, CaseStatus::kFailed);
  EXPECT_THAT(RenderMarkdownReport(results),
              HasSubstr("**1 regression**, 1 improvement, 0 changed, 1 missing baseline, 0 unchanged, 0 not "
                        "compared · 3 cases: 0 passed, **3 failed**, 0 skipped"));
}

TEST(ReportTest, RegressionsComeFirstThenImprovementsAndUnchangedCasesAreCounted) {
  const std::string report = RenderMarkdownReport(MakeResults());
  // The suite with a regression comes first, its rows ordered by urgency, not by name.
  const size_t transpose = report.find("### transpose");
  const size_t reduce = report.find("### reduce");
  const size_t regressed = report.find(
      "| `transpose/zz_regressed` | ld 32 · st 1 | ld 1984 (32-way) · st 0 | "
      "**regression** | **failed** |");
  const size_t improved = report.find("| `transpose/aa_improved` |");
  const size_t missing = report.find("| `transpose/mm_missing` |");
  ASSERT_NE(transpose, std::string::npos) << report;
  ASSERT_NE(regressed, std::string::npos) << report;
  ASSERT_NE(improved, std::string::npos) << report;
  ASSERT_NE(missing, std::string::npos) << report;
  EXPECT_LT(transpose, reduce);
  EXPECT_LT(transpose, regressed);
  EXPECT_LT(regressed, improved);
  EXPECT_LT(improved, missing);
  EXPECT_LT(missing, reduce);
  EXPECT_THAT(report, HasSubstr("And 2 cases passed unchanged."));
  EXPECT_THAT(report, HasSubstr("### reduce\n\n2 cases passed unchanged.\n"));
  EXPECT_THAT(report, Not(HasSubstr("| `transpose/bb_same`")));
  // The before -> after table and the failure's messages follow in details.
  EXPECT_THAT(report, AllOf(HasSubstr("<details><summary>`transpose/zz_regressed`: regression</summary>"),
                            HasSubstr("64 -> 2048"), HasSubstr("REGRESSION: case")));
}

TEST(ReportTest, SkippedRunSaysWhyOnce) {
  RunResults results;
  for (const char* name : {"a/x", "a/y", "b/z"}) {
    CaseResult skipped;
    skipped.name = name;
    skipped.status = CaseStatus::kSkipped;
    skipped.messages = {"no GPU: the CUDA driver is not installed"};
    results.cases[name] = skipped;
  }
  const std::string report = RenderMarkdownReport(results);
  EXPECT_THAT(report, AllOf(HasSubstr("## bankcheck: no GPU"), HasSubstr("3 skipped"),
                            HasSubstr("> Skipped: no GPU: the CUDA driver is not installed\n\n"),
                            HasSubstr("### a\n\n2 cases skipped.")));
  EXPECT_EQ(report.find("> Skipped:"), report.rfind("> Skipped:"));
}

TEST(ReportTest, FailedCaseShowsEachAttributedKernelsInstructionsOnce) {
  RunResults results = MakeResults();
  CaseResult& regressed = results.cases["transpose/zz_regressed"];
  // Two launches of one kernel hold the same table; a third kernel has its own.
  regressed.launches = {WithInstructions(MakeRecord(2048), 2), WithInstructions(MakeRecord(2048), 2),
                        MakeRecord(64, 64, "reduce")};
  // A case that passed unchanged is not detailed, attributed or not.
  results.cases["reduce/a"].launches = {WithInstructions(MakeRecord(64, 64, "reduce_attributed"))};
  ::setenv("BANKCHECK_SOURCE_ROOT", "/src/bankcheck/", 1);
  const std::string report = RenderMarkdownReport(results);
  ::unsetenv("BANKCHECK_SOURCE_ROOT");
  EXPECT_THAT(report, HasSubstr("REGRESSION: case \"transpose/zz_regressed\" ...\n```\n\n"
                                "Shared-memory instructions by excess wavefronts (kernel "
                                "`transpose(float*, float const*)`, over 2 launches):\n\n```\n"
                                "kernels/transpose.cu:31  +0x0220  LDS  64 exec  2,048 wf  64 ideal  +1,984\n"
                                "kernels/transpose.cu:40  +0x01a0  STS  64 exec     64 wf  64 ideal      +0\n"
                                "```\n\n</details>\n\n"));
  EXPECT_EQ(report.find("Shared-memory instructions"), report.rfind("Shared-memory instructions"));
  EXPECT_THAT(report, Not(HasSubstr("reduce_attributed")));
}

TEST(ReportTest, InstructionTablesShowTheTopTenAndWholePathsWithoutASourceRoot) {
  RunResults results;
  CaseResult changed = MakeCase("transpose/changed", 2048, BaselineVerdict::kChanged);
  LaunchRecord launch = WithInstructions(MakeRecord(2048));
  for (uint32_t i = 0; i < 10; ++i) launch.instructions.push_back(launch.instructions.back());
  changed.launches = {launch};
  results.cases[changed.name] = changed;
  const std::string report = RenderMarkdownReport(results);
  EXPECT_THAT(report, AllOf(HasSubstr("<details><summary>`transpose/changed`: changed</summary>\n\n"
                                      "Shared-memory instructions by excess wavefronts (kernel "
                                      "`transpose(float*, float const*)`, over 1 launch):"),
                            HasSubstr("\n/src/bankcheck/kernels/transpose.cu:31  +0x0220  LDS"),
                            HasSubstr("\n... 2 more instructions\n```\n")));
}

TEST(ReportTest, DistinctInstructionTablesAreOnePerKernelAndTable) {
  const LaunchRecord attributed = WithInstructions(MakeRecord(2048));
  LaunchRecord other_table = attributed;
  other_table.instructions.pop_back();
  const std::vector<LaunchRecord> launches = {
      MakeRecord(2048), attributed, attributed, other_table, WithInstructions(MakeRecord(2048, 64, "reduce")),
      attributed};
  EXPECT_EQ(LaunchesWithDistinctInstructions(launches), (std::vector<size_t>{1, 3, 4}));
  EXPECT_TRUE(LaunchesWithDistinctInstructions({MakeRecord(64)}).empty());
}

class ReportWithBaselinesTest : public testing_support::TempDirTest {};

TEST_F(ReportWithBaselinesTest, ComparesWithTheBaselineFilesInsteadOfTheStoredVerdicts) {
  RunResults results;
  results.metadata = MakeMetadata();
  // Stored as matching during the run, but the baselines in the folder say otherwise.
  results.cases["transpose/a"] = MakeCase("transpose/a", 2048, BaselineVerdict::kMatch);
  results.cases["transpose/b"] = MakeCase("transpose/b", 64, BaselineVerdict::kMatch);
  results.cases["transpose/c"] = MakeCase("transpose/c", 64, BaselineVerdict::kMatch);
  UpdateBaselines(dir_, "sm_90", MakeMetadata(),
                  {{"transpose/a", "", {MakeRecord(64)}}, {"transpose/b", "", {MakeRecord(128)}}});
  ReportOptions options;
  options.baselines_dir = dir_;
  const std::string report = RenderMarkdownReport(results, options);
  EXPECT_THAT(
      report,
      AllOf(HasSubstr("Baselines: compared with `" + (dir_ / "sm_90").string() + "`"),
            HasSubstr("| `transpose/a` | ld 32 · st 1 | ld 1984 (32-way) · st 0 | **regression** | passed |"),
            HasSubstr("| `transpose/b` | ld 1 · st 1 | ld 0 · st 0 | improvement | passed |"),
            HasSubstr("| `transpose/c` | ld 1 · st 1 | ld 0 · st 0 | missing | passed |")));
  EXPECT_LT(report.find("`transpose/a` |"), report.find("`transpose/b` |"));
  EXPECT_THAT(report, HasSubstr("wavefronts"));  // the freshly computed before -> after table
}

TEST_F(ReportWithBaselinesTest, NoBaselineFolderIsSaidAndNothingIsCompared) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.metadata.arch = "sm_120";
  results.cases["transpose/a"] = MakeCase("transpose/a", 2048, BaselineVerdict::kRegression);
  ReportOptions options;
  options.baselines_dir = dir_;
  const std::string report = RenderMarkdownReport(results, options);
  EXPECT_THAT(report, AllOf(HasSubstr("Baselines: no baselines for sm_120"), HasSubstr("0 regressions"),
                            HasSubstr("1 case passed with no baseline comparison")));
}

TEST_F(ReportWithBaselinesTest, MalformedBaselineIsAnError) {
  testing_support::WriteFile(dir_ / "sm_90" / "transpose.json", "[");
  RunResults results;
  results.metadata = MakeMetadata();
  ReportOptions options;
  options.baselines_dir = dir_;
  EXPECT_THROW(RenderMarkdownReport(results, options), Error);
}

}  // namespace
}  // namespace bankcheck
