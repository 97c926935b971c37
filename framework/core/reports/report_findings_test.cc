// `report --format github` and `--format sarif`: golden outputs, hostile names, the SARIF structure
// GitHub code scanning requires.
#include "core/reports/internal/report_findings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "bankcheck/core/line_annotations.h"
#include "bankcheck/core/report.h"
#include "core/platform/test_support.h"
#include "core/reports/internal/report_data.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::MakeInstruction;
using testing_support::MakeLine;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::WithInstructions;

constexpr char kTranspose[] = "/src/bankcheck/kernels/transpose.cu";
constexpr char kReduce[] = "/src/bankcheck/kernels/re,duce:1.cu";  // ',' and ':' in a path
constexpr char kHostile[] = "evil/x\n::error title=x::owned%,:";

// `lines` lines "x;", line 31 annotated conflict-free (the LDS of WithInstructions is there).
std::string TransposeSource(const std::string& annotation = "bankcheck: conflict-free") {
  std::string text;
  for (int line = 1; line <= 40; ++line) text += line == 31 ? "x;  // " + annotation + "\n" : "x;\n";
  return text;
}

// The sources as a caller finds them: transpose.cu annotated, the reduce kernel's file in the
// repository without annotations, anything else outside it.
class Sources {
 public:
  explicit Sources(const std::string& annotation = "bankcheck: conflict-free")
      : transpose_(ScanLineAnnotations(TransposeSource(annotation), kTranspose)) {}
  std::function<SourceFile(const std::string&)> Lookup() const {
    return [this](const std::string& file) {
      if (file == kTranspose) return SourceFile{"kernels/transpose.cu", &transpose_};
      if (file == kReduce) return SourceFile{"kernels/re,duce:1.cu", nullptr};
      return SourceFile{};
    };
  }

 private:
  LineAnnotationScan transpose_;
};

CaseResult MakeCase(const std::string& name, std::vector<LaunchRecord> launches,
                    std::optional<BaselineVerdict> verdict, CaseStatus status) {
  CaseResult result;
  result.name = name;
  result.status = status;
  result.launches = std::move(launches);
  result.baseline = verdict;
  return result;
}

// A line that measures 2-way against its conflict-free annotation (its case's baseline matches), a
// regression in a file without annotations, a missing baseline of a hostile name without
// per-instruction counts, and cases that pass or skip.
RunResults MakeResults() {
  RunResults results;
  results.metadata = MakeMetadata();
  const auto add = [&results](CaseResult result) { results.cases[result.name] = std::move(result); };
  CaseResult mismatch = MakeCase("transpose/naive", {WithInstructions(MakeRecord(128))},
                                 BaselineVerdict::kMatch, CaseStatus::kFailed);
  mismatch.expected_by = ExpectedBy::kLines;
  mismatch.messages = {"/src/bankcheck/kernels/transpose.cu:31: annotated conflict-free, measured 2-way"};
  add(mismatch);
  LaunchRecord reduce = MakeRecord(2048, 64, "reduce");
  reduce.instructions = {MakeInstruction(0x100, "LDS", MemoryKind::kSharedLoad, 12, 64, 64, 64, kReduce),
                         MakeInstruction(0x220, "LDS", MemoryKind::kSharedLoad, 17, 64, 1984, 64, kReduce)};
  reduce.attributed_launches = 1;
  CaseResult regressed = MakeCase("reduce/tree", {reduce}, BaselineVerdict::kRegression, CaseStatus::kFailed);
  regressed.baseline_table = "launch  kernel  ld wavefronts\n0       reduce  64 -> 2048\n";
  regressed.messages = {"REGRESSION: case \"reduce/tree\""};
  add(regressed);
  add(MakeCase(kHostile, {MakeRecord(64)}, BaselineVerdict::kMissing, CaseStatus::kFailed));
  add(MakeCase("reduce/fine", {WithInstructions(MakeRecord(64), 1)}, BaselineVerdict::kMatch,
               CaseStatus::kPassed));
  add(MakeCase("skip/me", {}, std::nullopt, CaseStatus::kSkipped));
  return results;
}

std::string Render(const RunResults& results, OutputFormat format, const Sources* sources) {
  ReportOptions options;
  options.format = format;
  if (sources != nullptr) options.source_file = sources->Lookup();
  return RenderReport(results, options).output;
}

TEST(ReportGithubTest, LinesAreCheckedByTheTermsThatSelectEachCase) {
  // transpose/naive measures line 31 2-way: a term for it holds, another case's term does not.
  const Sources by_case("bankcheck: conflict-free, 2-way in transpose/naive | transpose/other");
  EXPECT_THAT(Render(MakeResults(), OutputFormat::kGithub, &by_case), Not(HasSubstr("line mismatch")));
  // Another case's term: the default holds for this one, or with none, conflict-free.
  const Sources by_default("bankcheck: conflict-free, 2-way in transpose/other");
  EXPECT_THAT(
      Render(MakeResults(), OutputFormat::kGithub, &by_default),
      HasSubstr("(transpose/naive)::annotated conflict-free, measured 2-way (LDS: 128 wavefronts, 64 "
                "ideal); give this case terms such as `2-way in transpose/naive` if that is intended"));
  const Sources other("bankcheck: 2-way in transpose/other");
  EXPECT_THAT(
      Render(MakeResults(), OutputFormat::kGithub, &other),
      HasSubstr("::error file=kernels/transpose.cu,line=31,title=bankcheck%3A line mismatch "
                "(transpose/naive)::annotated for other cases only (so conflict-free), measured 2-way"));
  // Two terms that select the case: an annotation error at its line.
  const Sources overlap("bankcheck: 2-way in transpose/*, 4-way in */naive");
  EXPECT_THAT(Render(MakeResults(), OutputFormat::kGithub, &overlap),
              HasSubstr("::error file=kernels/transpose.cu,line=31,title=bankcheck%3A malformed annotation "
                        "(transpose/naive)::the case 'transpose/naive' is selected by two terms, '2-way in "
                        "transpose/*' and '4-way in */naive'"));
}

TEST(ReportGithubTest, GoldenOutput) {
  const Sources sources;
  EXPECT_EQ(
      Render(MakeResults(), OutputFormat::kGithub, &sources),
      "bankcheck: 1 regression, 0 improvements, 0 changed, 1 missing baseline, 1 unchanged, 0 not compared · "
      "5 "
      "cases: 1 passed, 3 failed, 1 skipped\n"
      "::error file=kernels/transpose.cu,line=31,title=bankcheck%3A line mismatch "
      "(transpose/naive)::annotated "
      "conflict-free, measured 2-way (LDS: 128 wavefronts, 64 ideal); write `// bankcheck: 2-way` if that is "
      "intended%0ACase: transpose/naive\n"
      "::error file=kernels/re%2Cduce%3A1.cu,line=17,title=bankcheck%3A regression "
      "(reduce/tree)::reduce/tree: "
      "more bank conflicts, wavefronts or sectors than its baseline.%0AMeasured: ld 1984 (32-way) · st 0%0A"
      "launch  kernel  ld wavefronts%0A0       reduce  64 -> 2048%0AREGRESSION: case \"reduce/tree\"\n"
      "::error file=kernels/transpose.cu,line=31,title=bankcheck%3A failed "
      "(transpose/naive)::transpose/naive: "
      "failed its checks.%0AMeasured: ld 64 (2-way) · st 0%0A/src/bankcheck/kernels/transpose.cu:31: "
      "annotated "
      "conflict-free, measured 2-way\n"
      "::error title=bankcheck%3A missing baseline (evil/x %3A%3Aerror title=x%3A%3Aowned%25%2C%3A)::evil/x "
      "::error title=x::owned%25,:: no baseline is recorded for it; record one (bankcheck update-baselines) "
      "if these counts are meant.%0AMeasured: ld 0 · st 0\n");
}

// Counts the emulator derived are not measurements: the finding says so, and that its numbers are
// conflicts, in both formats.
TEST(ReportFindingsTest, DerivedCountsAreNamedDerivedConflicts) {
  RunResults results = MakeResults();
  for (LaunchRecord& launch : results.cases.at("reduce/tree").launches)
    launch.counted_by = CountedBy::kEmulated;
  const Sources sources;
  const std::string github = Render(results, OutputFormat::kGithub, &sources);
  EXPECT_THAT(github,
              HasSubstr("than its baseline.%0ADerived by the emulator (no GPU ran it), conflicts: ld 1984 "
                        "(32-way) · st 0%0A"));
  EXPECT_THAT(github, HasSubstr("failed its checks.%0AMeasured: ld 64 (2-way)"));  // a measured case's
  const std::string sarif = Render(results, OutputFormat::kSarif, &sources);
  EXPECT_THAT(sarif, HasSubstr("Derived by the emulator (no GPU ran it), conflicts: ld 1984 (32-way)"));
  EXPECT_THAT(sarif, Not(HasSubstr("Measured: ld 1984")));
}

// Each command is one line, and the runner reads back only our commands: a name's "::error" and
// line break stay inside the data or a value.
TEST(ReportGithubTest, NothingFromANameStartsACommandOfItsOwn) {
  const Sources sources;
  const std::string out = Render(MakeResults(), OutputFormat::kGithub, &sources);
  size_t commands = 0;
  for (size_t start = 0; start < out.size();) {
    const size_t end = out.find('\n', start);
    const std::string line = out.substr(start, end - start);
    if (line.rfind("::", 0) == 0) {
      ++commands;
      EXPECT_EQ(line.rfind("::error ", 0), 0u) << line;
    }
    start = end + 1;
  }
  EXPECT_EQ(commands, 4u);
  EXPECT_EQ(out.find('\r'), std::string::npos);
}

TEST(ReportGithubTest, WithoutSourcesNoLineIsCheckedOrPlaced) {
  const std::string out = Render(MakeResults(), OutputFormat::kGithub, nullptr);
  EXPECT_THAT(out,
              AllOf(Not(HasSubstr("file=")), Not(HasSubstr("line mismatch")),
                    HasSubstr("::error title=bankcheck%3A failed (transpose/naive)::transpose/naive: failed "
                              "its checks.%0AMeasured: ld 64 (2-way) · st 0%0A/src/bankcheck/kernels/"
                              "transpose.cu:31: annotated conflict-free, measured 2-way\n"),
                    HasSubstr("::error title=bankcheck%3A regression (reduce/tree)::")));
}

TEST(ReportGithubTest, OneLineMeasuredAlikeByManyCasesIsOneAnnotation) {
  RunResults results;
  for (int i = 0; i < 7; ++i) {
    const std::string name = "transpose/case" + std::to_string(i);
    results.cases[name] =
        MakeCase(name, {WithInstructions(MakeRecord(128))}, BaselineVerdict::kMatch, CaseStatus::kFailed);
  }
  const Sources sources;
  const std::vector<internal::Finding> findings = [&] {
    ReportOptions options;
    options.source_file = sources.Lookup();
    return internal::FindFailures(internal::ComputeReport(results, options), options);
  }();
  ASSERT_EQ(findings.size(), 8u);  // the line once, then each failed case
  EXPECT_EQ(findings[0].kind, internal::FindingKind::kLineMismatch);
  EXPECT_EQ(findings[0].case_count, 7u);
  EXPECT_EQ(internal::FindingTitle(findings[0]), "bankcheck: line mismatch (transpose/case0 and 6 more)");
  EXPECT_THAT(findings[0].message,
              HasSubstr("\nCases: transpose/case0, transpose/case1, transpose/case2, transpose/case3, "
                        "transpose/case4 and 2 more"));
  for (size_t i = 1; i < findings.size(); ++i) {
    EXPECT_EQ(findings[i].kind, internal::FindingKind::kFailed);
    EXPECT_EQ(findings[i].file, "kernels/transpose.cu");  // the line of most excess
    EXPECT_EQ(findings[i].line, 31u);
  }
}

// A failing case is placed at its line of most excess shared wavefronts (bank conflicts): a line
// heavy in global sectors (STG) beside it is another memory space's excess, not the conflicts' place.
TEST(ReportFindingsTest, ACaseIsPlacedByItsSharedExcessNotByGlobalSectors) {
  LaunchRecord reduce = MakeRecord(128, 64, "reduce");
  reduce.instructions = {MakeInstruction(0x100, "LDS", MemoryKind::kSharedLoad, 12, 64, 128, 64, kReduce),
                         MakeInstruction(0x300, "STG", MemoryKind::kGlobalStore, 20, 64, 4096, 256, kReduce)};
  reduce.attributed_launches = 1;
  RunResults results;
  results.cases["reduce/tree"] =
      MakeCase("reduce/tree", {reduce}, BaselineVerdict::kRegression, CaseStatus::kFailed);
  const Sources sources;
  ReportOptions options;
  options.source_file = sources.Lookup();
  const std::vector<internal::Finding> findings =
      internal::FindFailures(internal::ComputeReport(results, options), options);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].file, "kernels/re,duce:1.cu");
  EXPECT_EQ(findings[0].line, 12u);  // the LDS's 64 excess wavefronts, not the STG's 3840 sectors
}

TEST(ReportGithubTest, AMalformedAnnotationIsAFailureAtItsComment) {
  RunResults results;
  results.cases["t/a"] =
      MakeCase("t/a", {WithInstructions(MakeRecord(64))}, BaselineVerdict::kMatch, CaseStatus::kPassed);
  const LineAnnotationScan scan = ScanLineAnnotations("x;\n// bankcheck: 2-ways\ny;\n", kTranspose);
  ReportOptions options;
  options.format = OutputFormat::kGithub;
  options.source_file = [&](const std::string&) { return SourceFile{"k.cu", &scan}; };
  EXPECT_THAT(
      RenderReport(results, options).output,
      HasSubstr("::error file=k.cu,line=2,title=bankcheck%3A malformed annotation (t/a)::'2-ways': write "
                "'2-way' (singular)%0ACase: t/a\n"));
}

TEST(ReportFindingsTest, ACaseFailsOnAFailedCheckAndOnAnyDifferenceFromItsBaseline) {
  const auto fails = [](std::optional<BaselineVerdict> verdict, CaseStatus status) {
    const CaseResult result = MakeCase("t/x", {}, verdict, status);
    internal::CaseView view;
    view.result = &result;
    view.verdict = verdict;
    view.decision = DecideCase({verdict, status});
    return internal::CaseFails(view);
  };
  EXPECT_FALSE(fails(BaselineVerdict::kMatch, CaseStatus::kPassed));
  EXPECT_FALSE(fails(std::nullopt, CaseStatus::kPassed));
  EXPECT_FALSE(fails(std::nullopt, CaseStatus::kSkipped));
  EXPECT_TRUE(fails(BaselineVerdict::kMatch, CaseStatus::kFailed));
  for (const BaselineVerdict verdict : {BaselineVerdict::kRegression, BaselineVerdict::kImprovement,
                                        BaselineVerdict::kChanged, BaselineVerdict::kMissing})
    EXPECT_TRUE(fails(verdict, CaseStatus::kPassed)) << BaselineVerdictName(verdict);
}

// The SARIF properties GitHub code scanning requires, and each rule a result names.
void ExpectValidSarif(const nlohmann::json& sarif) {
  ASSERT_TRUE(sarif.is_object());
  EXPECT_EQ(sarif.at("version"), "2.1.0");
  EXPECT_THAT(sarif.at("$schema").get<std::string>(), HasSubstr("sarif-schema-2.1.0.json"));
  ASSERT_EQ(sarif.at("runs").size(), 1u);
  const nlohmann::json& run = sarif.at("runs")[0];
  EXPECT_EQ(run.at("tool").at("driver").at("name"), "bankcheck");
  const nlohmann::json& rules = run.at("tool").at("driver").at("rules");
  ASSERT_TRUE(rules.is_array());
  std::map<std::string, size_t> rule_index;
  for (size_t i = 0; i < rules.size(); ++i) {
    EXPECT_TRUE(rule_index.emplace(rules[i].at("id").get<std::string>(), i).second) << "duplicate rule";
    EXPECT_FALSE(rules[i].at("shortDescription").at("text").get<std::string>().empty());
    EXPECT_EQ(rules[i].at("defaultConfiguration").at("level"), "error");
  }
  EXPECT_EQ(run.at("automationDetails").at("id").get<std::string>().back(), '/');
  for (const nlohmann::json& result : run.at("results")) {
    const std::string rule = result.at("ruleId").get<std::string>();
    ASSERT_EQ(rule_index.count(rule), 1u) << rule;
    EXPECT_EQ(result.at("ruleIndex").get<size_t>(), rule_index[rule]);
    EXPECT_EQ(result.at("level"), "error");
    EXPECT_FALSE(result.at("message").at("text").get<std::string>().empty());
    ASSERT_EQ(result.at("locations").size(), 1u);
    const nlohmann::json& physical = result.at("locations")[0].at("physicalLocation");
    const std::string uri = physical.at("artifactLocation").at("uri").get<std::string>();
    EXPECT_FALSE(uri.empty());
    EXPECT_NE(uri.front(), '/');  // relative to the repository's root
    EXPECT_EQ(uri.find("://"), std::string::npos);
    EXPECT_GE(physical.at("region").at("startLine").get<int64_t>(), 1);
  }
  const nlohmann::json& invocation = run.at("invocations")[0];
  EXPECT_TRUE(invocation.at("executionSuccessful").is_boolean());
  for (const nlohmann::json& notification : invocation.at("toolExecutionNotifications")) {
    EXPECT_EQ(notification.at("level"), "error");
    EXPECT_EQ(rule_index.count(notification.at("descriptor").at("id").get<std::string>()), 1u);
  }
}

TEST(ReportSarifTest, GoldenResultsInAValidLog) {
  const Sources sources;
  const nlohmann::json sarif = nlohmann::json::parse(Render(MakeResults(), OutputFormat::kSarif, &sources));
  ExpectValidSarif(sarif);
  const nlohmann::json& run = sarif["runs"][0];
  std::vector<std::string> rules;
  for (const nlohmann::json& rule : run["tool"]["driver"]["rules"])
    rules.push_back(rule["id"].get<std::string>());
  EXPECT_EQ(rules, (std::vector<std::string>{"line-mismatch", "malformed-annotation", "regression",
                                             "improvement", "changed", "missing-baseline", "failed"}));
  EXPECT_EQ(run["automationDetails"]["id"], "bankcheck/");
  EXPECT_EQ(run["results"], nlohmann::json::parse(R"json([
    {"ruleId": "line-mismatch", "ruleIndex": 0, "level": "error", "kind": "fail",
     "message": {"text": "annotated conflict-free, measured 2-way (LDS: 128 wavefronts, 64 ideal); write `// bankcheck: 2-way` if that is intended\nCase: transpose/naive"},
     "locations": [{"physicalLocation": {"artifactLocation": {"uri": "kernels/transpose.cu", "uriBaseId": "%SRCROOT%"},
                                         "region": {"startLine": 31}}}],
     "properties": {"cases": ["transpose/naive"], "case_count": 1}},
    {"ruleId": "regression", "ruleIndex": 2, "level": "error", "kind": "fail",
     "message": {"text": "reduce/tree: more bank conflicts, wavefronts or sectors than its baseline.\nMeasured: ld 1984 (32-way) · st 0\nlaunch  kernel  ld wavefronts\n0       reduce  64 -> 2048\nREGRESSION: case \"reduce/tree\""},
     "locations": [{"physicalLocation": {"artifactLocation": {"uri": "kernels/re%2Cduce%3A1.cu", "uriBaseId": "%SRCROOT%"},
                                         "region": {"startLine": 17}}}],
     "properties": {"cases": ["reduce/tree"], "case_count": 1}},
    {"ruleId": "failed", "ruleIndex": 6, "level": "error", "kind": "fail",
     "message": {"text": "transpose/naive: failed its checks.\nMeasured: ld 64 (2-way) · st 0\n/src/bankcheck/kernels/transpose.cu:31: annotated conflict-free, measured 2-way"},
     "locations": [{"physicalLocation": {"artifactLocation": {"uri": "kernels/transpose.cu", "uriBaseId": "%SRCROOT%"},
                                         "region": {"startLine": 31}}}],
     "properties": {"cases": ["transpose/naive"], "case_count": 1}}
  ])json"));
  // The hostile case has no place in the repository: it is an error notification, its name intact
  // as JSON text (one line, as every name is shown).
  EXPECT_EQ(run["invocations"][0]["toolExecutionNotifications"], nlohmann::json::parse(R"json([
    {"level": "error", "descriptor": {"id": "missing-baseline"},
     "message": {"text": "evil/x ::error title=x::owned%,:: no baseline is recorded for it; record one (bankcheck update-baselines) if these counts are meant.\nMeasured: ld 0 · st 0"},
     "properties": {"cases": ["evil/x ::error title=x::owned%,:"], "case_count": 1}}
  ])json"));
}

TEST(ReportSarifTest, ARunWithoutFailuresIsAValidEmptyAnalysis) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["t/a"] = MakeCase("t/a", {MakeRecord(64)}, BaselineVerdict::kMatch, CaseStatus::kPassed);
  ReportOptions options;
  options.format = OutputFormat::kSarif;
  options.category = "bankcheck/my_suite";
  const nlohmann::json sarif = nlohmann::json::parse(RenderReport(results, options).output);
  ExpectValidSarif(sarif);
  EXPECT_EQ(sarif["runs"][0]["results"], nlohmann::json::array());
  EXPECT_EQ(sarif["runs"][0]["automationDetails"]["id"], "bankcheck/my_suite/");
}

TEST(ReportSarifTest, InvalidUtf8InANameIsReplacedNotThrown) {
  RunResults results;
  results.cases["t/\xff"] =
      MakeCase("t/\xff", {MakeRecord(2048)}, BaselineVerdict::kRegression, CaseStatus::kFailed);
  ReportOptions options;
  options.format = OutputFormat::kSarif;
  const nlohmann::json sarif = nlohmann::json::parse(RenderReport(results, options).output);
  ExpectValidSarif(sarif);
  EXPECT_THAT(sarif.dump(), HasSubstr("t/\xEF\xBF\xBD"));
}

// Per-line baselines: a case whose launch totals match its baseline but whose line got worse fails
// as a regression, and every format names the line before -> after.
TEST(ReportLinesTest, ALineThatGotWorseIsNamedInEveryFormat) {
  LaunchRecord measured = MakeRecord(2048);
  LineRecord line = MakeLine("kernels/transpose.cu", 31, "out[i] = tile[x][y];", MemoryKind::kSharedLoad, 64,
                             2048, 64, {"LDS"});
  measured.lines = std::vector<LineRecord>{line};
  LaunchRecord recorded = measured;
  recorded.lines->at(0).wavefronts = 64;
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["transpose/naive"] =
      MakeCase("transpose/naive", {measured}, BaselineVerdict::kMatch, CaseStatus::kPassed);
  const BaselineSet baselines =
      BaselineSet::FromEntries("baselines/sm_90", "sm_90", {{"transpose/naive", {"naive", {recorded}}}});
  ReportOptions options;
  options.baselines = &baselines;
  const std::string difference =
      "launch 0 (transpose(float*, float const*)) kernels/transpose.cu:31 out[i] = tile[x][y];: ld "
      "conflict-free -> 32-way (wavefronts 64 -> 2048)";
  for (const OutputFormat format : {OutputFormat::kMarkdown, OutputFormat::kText, OutputFormat::kJson,
                                    OutputFormat::kGithub, OutputFormat::kSarif}) {
    options.format = format;
    const ReportOutcome outcome = RenderReport(results, options);
    EXPECT_TRUE(outcome.fails()) << static_cast<int>(format);
    EXPECT_EQ(outcome.regressions, 1u) << static_cast<int>(format);
    EXPECT_THAT(outcome.output, HasSubstr(difference)) << outcome.output;
  }
  options.format = OutputFormat::kGithub;
  EXPECT_EQ(
      RenderReport(results, options).output,
      "bankcheck: 1 regression, 0 improvements, 0 changed, 0 missing baselines, 0 unchanged, 0 not compared "
      "\xC2\xB7 1 case: 1 passed, 0 failed, 0 skipped\n"
      "::error title=bankcheck%3A regression (transpose/naive)::transpose/naive: more bank "
      "conflicts, wavefronts or sectors than its baseline.%0AMeasured: ld 1984 (32-way) \xC2\xB7 st "
      "0%0Alaunch 0 "
      "(transpose(float*, float const*)) kernels/transpose.cu:31 out[i] = tile[x][y];: ld conflict-free -> "
      "32-way (wavefronts 64 -> 2048)%0Alaunch  kernel                           grid     block       "
      "instructions  wavefronts  ideal  conflicts%0A------  -------------------------------  -------  ------ "
      " --  ------------  ----------  -----  ---------%0A0       transpose(float*, float const*)  32x32x1  "
      "32x8x1  ld  64            2048        64     1984%0A                                                  "
      "        st  64            64          64     0\n");
}

}  // namespace
}  // namespace bankcheck
