#include "bankcheck/core/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "bankcheck/core/error.h"
#include "core/platform/test_support.h"
#include "core/reports/internal/report_test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::MakeCase;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::MakeResults;
using testing_support::WithInstructions;

TEST(ReportTest, HeaderSaysWhereAndWhenAndCountsEverything) {
  const std::string report = RenderMarkdownReport(MakeResults());
  EXPECT_THAT(report, AllOf(HasSubstr("## bankcheck: sm_90 · NVIDIA H100 80GB HBM3"),
                            HasSubstr("driver 580.65.06"), HasSubstr("commit <code>abc1234</code>"),
                            HasSubstr("Baselines: as compared during the run")));
  EXPECT_THAT(report,
              HasSubstr("**1 regression**, 1 improvement, 0 changed, 1 missing baseline, 4 unchanged, 0 not "
                        "compared · 7 cases: 6 passed, **1 failed**, 0 skipped"));
}

TEST(ReportTest, HeaderWarnsWhenTheGpuRanJitCompiledPtx) {
  RunResults results = MakeResults();
  results.metadata.cuda_compiler = "NVIDIA 13.0.88";
  results.metadata.cuda_architectures = "90";
  std::string report = RenderMarkdownReport(results);
  EXPECT_THAT(report, AllOf(HasSubstr("built with NVIDIA 13.0.88"), Not(HasSubstr("Warning"))));
  results.metadata.cuda_architectures = "80-virtual";
  report = RenderMarkdownReport(results);
  EXPECT_THAT(report, HasSubstr("> **Warning:** the kernels were built for CUDA_ARCHITECTURES"));
  ReportOptions options;
  options.format = OutputFormat::kText;
  EXPECT_THAT(
      RenderReport(results, options).output,
      HasSubstr("Warning: the kernels were built for CUDA_ARCHITECTURES \"80-virtual\", which holds no "
                "native code (SASS) for this sm_90 GPU"));
}

// An emulated case that passed while its outputs were not computed checked its counts, not its
// outputs: every format says so, with the reason, instead of a plain "passed".
TEST(ReportTest, APassWithOutputsNotComputedSaysItsOutputChecksWereNotEvaluated) {
  RunResults results;
  results.metadata = MakeMetadata();
  for (const char* name : {"sums/a", "sums/b", "sums/c"})
    results.cases[name] = MakeCase(name, 64, BaselineVerdict::kMatch);
  results.cases["sums/a"].output = "passed";
  results.cases["sums/b"].output = "not computed: over the output pass limit of 250000 warp instructions";
  results.cases["sums/c"].output = "not computed: over the output pass limit of 250000 warp instructions";
  CaseResult missing = MakeCase("sums/d", 64, BaselineVerdict::kMissing);
  missing.output = "not computed: a launch left its outputs unknown";
  results.cases["sums/d"] = missing;
  ReportOptions text;
  text.format = OutputFormat::kText;
  for (const std::string& report : {RenderMarkdownReport(results), RenderReport(results, text).output}) {
    EXPECT_THAT(report, HasSubstr("4 cases: 4 passed, 0 failed, 0 skipped · 3 passed with their output "
                                  "checks not evaluated"));
    EXPECT_THAT(report, HasSubstr("Not evaluated: over the output pass limit of 250000 warp instructions"));
    EXPECT_THAT(report, HasSubstr("Not evaluated: a launch left its outputs unknown"));
    EXPECT_THAT(report,
                HasSubstr("3 cases passed unchanged, 2 of them with their output checks not evaluated"));
    EXPECT_THAT(report, HasSubstr("passed, output checks not evaluated"));  // sums/d's row
  }
  ReportOptions json;
  json.format = OutputFormat::kJson;
  const nlohmann::json parsed = nlohmann::json::parse(RenderReport(results, json).output);
  EXPECT_EQ(parsed["totals"]["output_not_evaluated"], 3);
}

// The emulated program skips a case without a baseline, and the verdict fails it as missing: the
// headline counts it among the missing baselines, and it has a row, as the verdict line says.
TEST(ReportTest, ASkippedCaseWithoutABaselineCountsAsAMissingBaseline) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["sums/a"] = MakeCase("sums/a", 64, BaselineVerdict::kMatch);
  CaseResult skipped = MakeCase("sums/b", 64, BaselineVerdict::kMissing, CaseStatus::kSkipped);
  skipped.messages = {"MISSING: case \"sums/b\" has no baseline"};
  results.cases["sums/b"] = skipped;
  ReportOptions text;
  text.format = OutputFormat::kText;
  for (const std::string& report : {RenderMarkdownReport(results), RenderReport(results, text).output}) {
    EXPECT_THAT(report, HasSubstr("1 missing baseline, 1 unchanged, 0 not compared · 2 cases: 1 passed, 0 "
                                  "failed, 1 skipped"));
    EXPECT_THAT(report, HasSubstr("1 case fails: 1 missing."));
    EXPECT_THAT(report, HasSubstr("sums/b"));
  }
}

// The JSON and the text are rendered from the data the Markdown is: their counts agree.
TEST(ReportTest, JsonAndTextAgreeWithTheMarkdownHeadline) {
  const RunResults results = MakeResults();
  const std::string markdown = RenderMarkdownReport(results);
  ReportOptions options;
  options.format = OutputFormat::kJson;
  const ReportOutcome outcome = RenderReport(results, options);
  EXPECT_EQ(outcome.regressions, 1u);
  const nlohmann::json json = nlohmann::json::parse(outcome.output);
  EXPECT_EQ(json["format"], "bankcheck-report");
  EXPECT_EQ(json["version"], 1);
  const nlohmann::json& totals = json["totals"];
  const auto count = [&](const char* key) { return std::to_string(totals[key].get<size_t>()); };
  EXPECT_THAT(markdown,
              HasSubstr("**" + count("regressions") + " regression**, " + count("improvements") +
                        " improvement, " + count("changed") + " changed, " + count("missing") +
                        " missing baseline, " + count("unchanged") + " unchanged, " + count("not_compared") +
                        " not compared · " + count("cases") + " cases: " + count("passed") + " passed, **" +
                        count("failed") + " failed**, " + count("skipped") + " skipped"));
  EXPECT_EQ(json["regressions"].size(), totals["regressions"].get<size_t>());
  EXPECT_EQ(json["improvements"].size(), totals["improvements"].get<size_t>());
  EXPECT_EQ(json["changed"].size(), totals["changed"].get<size_t>());
  EXPECT_EQ(json["missing"].size(), totals["missing"].get<size_t>());
  EXPECT_EQ(json["failed"].size(), totals["failed"].get<size_t>());
  EXPECT_EQ(json["cases"].size(), results.cases.size());
  const nlohmann::json& regressed = json["regressions"][0];
  EXPECT_EQ(regressed["name"], "transpose/zz_regressed");
  EXPECT_EQ(regressed["verdict"], "regression");
  EXPECT_EQ(regressed["status"], "failed");
  EXPECT_EQ(regressed["table"], "launch  kernel ... 64 -> 2048\n");
  EXPECT_EQ(json["cases"][0]["name"], "transpose/zz_regressed");  // the Markdown's order: most urgent first
  // Which cases fail, and why: DecideCase's answer (verdict.h), as the exit status.
  EXPECT_EQ(regressed["case_verdict"], "regression");
  EXPECT_EQ(regressed["fails"], true);
  EXPECT_EQ(json["gate"]["fails"], outcome.fails());
  EXPECT_EQ(json["gate"]["failing"], outcome.verdicts.failing);
  EXPECT_EQ(json["gate"]["summary"], outcome.verdicts.Line());
  EXPECT_THAT(markdown, HasSubstr("**" + outcome.verdicts.Line() + "**"));

  options.format = OutputFormat::kText;
  const std::string text = RenderReport(results, options).output;
  EXPECT_THAT(text, AllOf(HasSubstr("bankcheck: sm_90 · NVIDIA H100 80GB HBM3"),
                          HasSubstr("1 regression, 1 improvement, 0 changed, 1 missing baseline"),
                          HasSubstr("== transpose"), HasSubstr("transpose/zz_regressed  ld 32"),
                          HasSubstr("-- transpose/zz_regressed: regression\nlaunch  kernel ... 64 -> 2048"),
                          Not(HasSubstr("**")), Not(HasSubstr("<code>")), Not(HasSubstr("<details>"))));
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
      "| <code>transpose/zz_regressed</code> | ld 32 · st 1 | ld 1984 (32-way) · st 0 | "
      "**regression** | **failed** |");
  const size_t improved = report.find("| <code>transpose/aa_improved</code> |");
  const size_t missing = report.find("| <code>transpose/mm_missing</code> |");
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
  EXPECT_THAT(report, Not(HasSubstr("| <code>transpose/bb_same</code>")));
  // The before -> after table and the failure's messages follow in details.
  EXPECT_THAT(report,
              AllOf(HasSubstr("<details><summary><code>transpose/zz_regressed</code>: regression</summary>"),
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
  EXPECT_THAT(report,
              HasSubstr("REGRESSION: case \"transpose/zz_regressed\" ...\n```\n\n"
                        "Memory instructions by excess wavefronts or sectors (kernel "
                        "<code>transpose(float&#42;, float const&#42;)</code>, over 2 launches):\n\n```\n"
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
  EXPECT_THAT(report,
              AllOf(HasSubstr("<details><summary><code>transpose/changed</code>: changed</summary>\n\n"
                              "Memory instructions by excess wavefronts or sectors (kernel "
                              "<code>transpose(float&#42;, float const&#42;)</code>, over 1 launch):"),
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

// Issue 26: results files can come from a pull request; nothing in them may forge the summary.

// Many cases with long messages: far more than GitHub's 1 MiB job summary without the bound.
RunResults HugeResults() {
  RunResults results;
  results.metadata = MakeMetadata();
  for (int i = 0; i < 3000; ++i) {
    const std::string name = "bulk/case_" + std::to_string(10000 + i) + std::string(150, 'n');
    CaseResult changed = MakeCase(name, 128, BaselineVerdict::kChanged, CaseStatus::kFailed);
    changed.messages = {std::string(1500, 'm')};
    results.cases[name] = changed;
    const std::string same = "bulk/same_" + std::to_string(i);
    results.cases[same] = MakeCase(same, 64, BaselineVerdict::kMatch);
  }
  // Last by name, first by urgency.
  CaseResult regressed = MakeCase("zz/regressed", 2048, BaselineVerdict::kRegression, CaseStatus::kFailed);
  regressed.baseline_table = "launch  kernel ... 64 -> 2048\n";
  results.cases[regressed.name] = regressed;
  return results;
}

TEST(ReportTest, HugeResultsStayWithinTheBudgetAndShowTheRegressionFirst) {
  const RunResults results = HugeResults();
  ReportOptions unbounded;
  unbounded.max_bytes = 0;
  EXPECT_GT(RenderMarkdownReport(results, unbounded).size(), kMaxReportBytes);

  ReportOptions options;
  options.results_path = "out/results.json";
  const std::string report = RenderMarkdownReport(results, options);
  EXPECT_LE(report.size(), kMaxReportBytes);
  EXPECT_GT(report.size(), kMaxReportBytes - 10000);  // the budget is used, not thrown away
  const size_t headline = report.find("**1 regression**, 0 improvements, 3000 changed");
  const size_t note = report.find("> **Not shown:** ");
  const size_t regressed = report.find("| <code>zz/regressed</code> |");
  const size_t first_bulk = report.find("| <code>bulk/case_");
  ASSERT_NE(headline, std::string::npos);
  ASSERT_NE(note, std::string::npos);
  ASSERT_NE(regressed, std::string::npos);
  ASSERT_NE(first_bulk, std::string::npos);
  EXPECT_LT(headline, note);
  EXPECT_LT(note, regressed);
  EXPECT_LT(regressed, first_bulk);
  EXPECT_THAT(report,
              AllOf(HasSubstr("<details><summary><code>zz/regressed</code>: regression</summary>"),
                    HasSubstr("run `bankcheck report` on the results file <code>out/results.json</code> with "
                              "`--max-bytes 0 -o report.md`"),
                    Not(HasSubstr("3000 cases passed unchanged"))));
  // A path of any length and content is cut, escaped and counted in the budget.
  options.results_path = std::string(5000, '|') + "<x>";
  const std::string with_long_path = RenderMarkdownReport(results, options);
  EXPECT_LE(with_long_path.size(), kMaxReportBytes);
  EXPECT_THAT(with_long_path, AllOf(HasSubstr("&#124;…</code> with `--max-bytes 0"), Not(HasSubstr("<x>"))));
}

TEST(ReportTest, ASmallBudgetKeepsTheHeadlineAndCountsWhatIsNotShown) {
  const RunResults results = MakeResults();
  ReportOptions options;
  options.max_bytes = 1;  // nothing but the headline fits
  const std::string report = RenderMarkdownReport(results, options);
  EXPECT_THAT(report, AllOf(HasSubstr("**1 regression**"),
                            HasSubstr("> **Not shown:** 7 more cases, to keep this report under 1 bytes"),
                            Not(HasSubstr("###")), Not(HasSubstr("<details>"))));
  // Unbounded, everything is shown and nothing is said about it.
  options.max_bytes = 0;
  EXPECT_THAT(RenderMarkdownReport(results, options), Not(HasSubstr("Not shown")));
  EXPECT_THAT(RenderMarkdownReport(results), Not(HasSubstr("Not shown")));
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
  const BaselineSet baselines = BaselineSet::Load(dir_, "sm_90");
  ReportOptions options;
  options.baselines = &baselines;
  const std::string report = RenderMarkdownReport(results, options);
  EXPECT_THAT(
      report,
      AllOf(HasSubstr("Baselines: compared with <code>" + (dir_ / "sm_90").string() + "</code>"),
            HasSubstr("| <code>transpose/a</code> | ld 32 · st 1 | ld 1984 (32-way) · st 0 | **regression** "
                      "| passed |"),
            HasSubstr("| <code>transpose/b</code> | ld 1 · st 1 | ld 0 · st 0 | improvement | passed |"),
            HasSubstr("| <code>transpose/c</code> | ld 1 · st 1 | ld 0 · st 0 | missing | passed |")));
  EXPECT_LT(report.find("<code>transpose/a</code> |"), report.find("<code>transpose/b</code> |"));
  EXPECT_THAT(report, HasSubstr("wavefronts"));  // the freshly computed before -> after table
}

// As in the suite and `run --baselines`: no folder for the architecture means no baseline for any case.
TEST_F(ReportWithBaselinesTest, NoBaselineFolderIsSaidAndEveryCaseIsMissing) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.metadata.arch = "sm_120";
  results.cases["transpose/a"] = MakeCase("transpose/a", 2048, BaselineVerdict::kRegression);
  const BaselineSet baselines = BaselineSet::Load(dir_, "sm_120");  // no such folder: not an error
  ASSERT_FALSE(baselines.has_folder());
  ReportOptions options;
  options.baselines = &baselines;
  const std::string report = RenderMarkdownReport(results, options);
  EXPECT_THAT(report, AllOf(HasSubstr("Baselines: no baselines for sm_120"), HasSubstr("0 regressions"),
                            HasSubstr("1 missing baseline"), HasSubstr("**1 case fails: 1 missing.**")));
  EXPECT_TRUE(RenderReport(results, options).fails());
  options.policy.allow_missing = true;
  EXPECT_FALSE(RenderReport(results, options).fails());
}

// The emulated program's case skipped for want of a baseline kept its counts: compared with the
// given baselines it is missing (and fails) where they hold none, and matches where they do; a skip
// that measured nothing stays skipped.
TEST_F(ReportWithBaselinesTest, ACaseSkippedForWantOfABaselineIsComparedWithTheGivenBaselines) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["transpose/a"] = MakeCase("transpose/a", 64, BaselineVerdict::kMissing, CaseStatus::kSkipped);
  CaseResult undecided = MakeCase("transpose/b", 64, BaselineVerdict::kMissing, CaseStatus::kSkipped);
  undecided.launches.clear();
  undecided.baseline.reset();
  results.cases["transpose/b"] = undecided;
  ReportOptions options;
  const BaselineSet none = BaselineSet::Load(dir_, "sm_90");
  options.baselines = &none;
  EXPECT_THAT(RenderMarkdownReport(results, options),
              AllOf(HasSubstr("1 missing baseline"), HasSubstr("**1 case fails: 1 missing.**")));
  EXPECT_TRUE(RenderReport(results, options).fails());
  UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/a", "", {MakeRecord(64)}}});
  const BaselineSet recorded = BaselineSet::Load(dir_, "sm_90");
  options.baselines = &recorded;
  EXPECT_FALSE(RenderReport(results, options).fails());
}

TEST_F(ReportWithBaselinesTest, TheRendererComparesWithTheGivenSetAndReadsNoFile) {
  // A set made in memory whose folder does not exist: the report compares with its entries alone.
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["transpose/a"] = MakeCase("transpose/a", 2048, BaselineVerdict::kMatch);
  BaselineEntry entry;
  entry.launches = {MakeRecord(64)};
  const BaselineSet baselines =
      BaselineSet::FromEntries(dir_ / "absent" / "sm_90", "sm_90", {{"transpose/a", entry}});
  ReportOptions options;
  options.baselines = &baselines;
  const std::string report = RenderMarkdownReport(results, options);
  EXPECT_THAT(report, AllOf(HasSubstr("compared with <code>" + (dir_ / "absent" / "sm_90").string()),
                            HasSubstr("**1 regression**")));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "absent"));
}

TEST_F(ReportWithBaselinesTest, ResultsWithoutAnArchitectureAreNotCompared) {
  // A run that skipped names no architecture: there is nothing to load baselines for, and given
  // baselines are not used either; the stored comparison is shown.
  RunResults results;
  results.metadata = MakeMetadata();
  results.metadata.arch.clear();
  results.cases["transpose/a"] = MakeCase("transpose/a", 2048, BaselineVerdict::kRegression);
  const BaselineSet baselines = BaselineSet::FromEntries(dir_ / "sm_90", "sm_90", {});
  ReportOptions requested;
  requested.baselines_requested_without_arch = true;
  ReportOptions given;
  given.baselines = &baselines;
  for (const ReportOptions& options : {requested, given}) {
    EXPECT_THAT(RenderMarkdownReport(results, options),
                AllOf(HasSubstr("Baselines: not compared (the results name no GPU architecture; did the run "
                                "skip?)"),
                      HasSubstr("**1 regression**")));
  }
  EXPECT_THAT(RenderMarkdownReport(results), HasSubstr("Baselines: as compared during the run"));
}

}  // namespace
}  // namespace bankcheck
