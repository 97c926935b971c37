#include "bankcheck/core/verdict.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using testing_support::MakeLine;
using testing_support::MakeRecord;

CaseFacts Facts(std::optional<BaselineVerdict> baseline, CaseStatus status = CaseStatus::kPassed) {
  CaseFacts facts;
  facts.baseline = baseline;
  facts.status = status;
  return facts;
}

VerdictPolicy AllowMissing() {
  VerdictPolicy policy;
  policy.allow_missing = true;
  return policy;
}

// The strict policy, verdict by verdict: every difference from the baseline fails, and so does a
// missing baseline; a match, a skip and a case not compared pass.
TEST(VerdictTest, StrictPolicyFailsEveryDifferenceAndAMissingBaseline) {
  const std::vector<std::tuple<std::optional<BaselineVerdict>, CaseVerdict, bool>> expected = {
      {BaselineVerdict::kRegression, CaseVerdict::kRegression, true},
      {BaselineVerdict::kImprovement, CaseVerdict::kImprovement, true},
      {BaselineVerdict::kChanged, CaseVerdict::kChanged, true},
      {BaselineVerdict::kMissing, CaseVerdict::kMissing, true},
      {BaselineVerdict::kMatch, CaseVerdict::kMatch, false},
      {std::nullopt, CaseVerdict::kNotCompared, false},
  };
  for (const auto& [baseline, verdict, fails] : expected) {
    const CaseDecision decision = DecideCase(Facts(baseline));
    EXPECT_EQ(decision.verdict, verdict) << CaseVerdictName(verdict);
    EXPECT_EQ(decision.fails, fails) << CaseVerdictName(verdict);
    EXPECT_FALSE(decision.reason.empty());
  }
}

TEST(VerdictTest, AllowMissingLetsOnlyAMissingBaselinePass) {
  const CaseDecision missing = DecideCase(Facts(BaselineVerdict::kMissing), AllowMissing());
  EXPECT_EQ(missing.verdict, CaseVerdict::kMissing);
  EXPECT_FALSE(missing.fails);
  for (const BaselineVerdict other :
       {BaselineVerdict::kRegression, BaselineVerdict::kImprovement, BaselineVerdict::kChanged})
    EXPECT_TRUE(DecideCase(Facts(other), AllowMissing()).fails) << BaselineVerdictName(other);
  // A missing baseline does not excuse a case the run failed for another reason.
  const CaseDecision failed =
      DecideCase(Facts(BaselineVerdict::kMissing, CaseStatus::kFailed), AllowMissing());
  EXPECT_EQ(failed.verdict, CaseVerdict::kFailed);
  EXPECT_TRUE(failed.fails);
}

TEST(VerdictTest, TheRunsStatusModelAndLinesFailACaseThatMatches) {
  EXPECT_EQ(DecideCase(Facts(BaselineVerdict::kMatch, CaseStatus::kFailed)).verdict, CaseVerdict::kFailed);
  EXPECT_TRUE(DecideCase(Facts(BaselineVerdict::kMatch, CaseStatus::kFailed)).fails);
  CaseFacts model = Facts(BaselineVerdict::kMatch);
  model.model_mismatch = true;
  EXPECT_EQ(DecideCase(model).verdict, CaseVerdict::kModelMismatch);
  EXPECT_TRUE(DecideCase(model).fails);
  CaseFacts lines = Facts(std::nullopt);
  lines.line_mismatch = true;
  EXPECT_EQ(DecideCase(lines).verdict, CaseVerdict::kLineMismatch);
  EXPECT_TRUE(DecideCase(lines, AllowMissing()).fails);
}

TEST(VerdictTest, TheMostSeriousFailingVerdictNamesTheCase) {
  // A regression outranks the failed status it caused; the model outranks both.
  EXPECT_EQ(DecideCase(Facts(BaselineVerdict::kRegression, CaseStatus::kFailed)).verdict,
            CaseVerdict::kRegression);
  EXPECT_EQ(DecideCase(Facts(BaselineVerdict::kMissing, CaseStatus::kFailed)).verdict, CaseVerdict::kMissing);
  CaseFacts both = Facts(BaselineVerdict::kRegression, CaseStatus::kFailed);
  both.model_mismatch = true;
  EXPECT_EQ(DecideCase(both).verdict, CaseVerdict::kModelMismatch);
}

TEST(VerdictTest, ASkippedCasePasses) {
  const CaseDecision skipped = DecideCase(Facts(std::nullopt, CaseStatus::kSkipped));
  EXPECT_EQ(skipped.verdict, CaseVerdict::kSkipped);
  EXPECT_FALSE(skipped.fails);
}

TEST(VerdictTest, BaselineVerdictFailsIsTheTablesAnswerForTheBaselineAlone) {
  for (const BaselineVerdict verdict :
       {BaselineVerdict::kMatch, BaselineVerdict::kRegression, BaselineVerdict::kImprovement,
        BaselineVerdict::kChanged, BaselineVerdict::kMissing}) {
    for (const VerdictPolicy& policy : {VerdictPolicy{}, AllowMissing()})
      EXPECT_EQ(BaselineVerdictFails(verdict, policy), DecideCase(Facts(verdict), policy).fails)
          << BaselineVerdictName(verdict);
  }
  EXPECT_TRUE(BaselineVerdictFails(BaselineVerdict::kMissing));
  EXPECT_FALSE(BaselineVerdictFails(BaselineVerdict::kMissing, AllowMissing()));
  EXPECT_FALSE(BaselineVerdictFails(BaselineVerdict::kMatch));
}

// The table holds each verdict once, in the enum's order, and its last row applies to every case.
// A source line's difference from its baseline is one more input to the same rows: a case whose
// launch totals match but whose lines differ fails as the line difference says, and the more
// serious of the two names the case.
TEST(VerdictTest, ALineDifferenceFailsACaseWhoseLaunchTotalsMatch) {
  const auto decide = [](std::optional<BaselineVerdict> launches, std::optional<BaselineVerdict> lines,
                         const VerdictPolicy& policy = {}) {
    CaseFacts facts = Facts(launches);
    facts.lines = lines;
    return DecideCase(facts, policy);
  };
  const std::vector<
      std::tuple<std::optional<BaselineVerdict>, std::optional<BaselineVerdict>, CaseVerdict, bool>>
      expected = {
          {BaselineVerdict::kMatch, BaselineVerdict::kMatch, CaseVerdict::kMatch, false},
          {BaselineVerdict::kMatch, std::nullopt, CaseVerdict::kMatch, false},
          {BaselineVerdict::kMatch, BaselineVerdict::kRegression, CaseVerdict::kRegression, true},
          {BaselineVerdict::kMatch, BaselineVerdict::kImprovement, CaseVerdict::kImprovement, true},
          {BaselineVerdict::kMatch, BaselineVerdict::kChanged, CaseVerdict::kChanged, true},
          // Conflicts moved from one line to another: fewer in total, more at a line.
          {BaselineVerdict::kImprovement, BaselineVerdict::kRegression, CaseVerdict::kRegression, true},
          {BaselineVerdict::kRegression, BaselineVerdict::kImprovement, CaseVerdict::kRegression, true},
          {BaselineVerdict::kChanged, BaselineVerdict::kMatch, CaseVerdict::kChanged, true},
          // No baseline: nothing to compare lines with (lines are never compared then).
          {BaselineVerdict::kMissing, BaselineVerdict::kRegression, CaseVerdict::kMissing, true},
          {std::nullopt, std::nullopt, CaseVerdict::kNotCompared, false},
      };
  for (const auto& [launches, lines, verdict, fails] : expected) {
    const CaseDecision decision = decide(launches, lines);
    EXPECT_EQ(decision.verdict, verdict) << CaseVerdictName(verdict);
    EXPECT_EQ(decision.fails, fails) << CaseVerdictName(verdict);
  }
  // --allow-missing excuses a missing baseline only, never a line's difference.
  EXPECT_TRUE(decide(BaselineVerdict::kMatch, BaselineVerdict::kChanged, AllowMissing()).fails);
  // The headline a message and a report name the case by is the same precedence.
  EXPECT_EQ(HeadlineVerdict(BaselineVerdict::kImprovement, BaselineVerdict::kRegression),
            BaselineVerdict::kRegression);
  EXPECT_EQ(HeadlineVerdict(BaselineVerdict::kMatch, BaselineVerdict::kChanged), BaselineVerdict::kChanged);
  EXPECT_EQ(HeadlineVerdict(BaselineVerdict::kMatch, std::nullopt), BaselineVerdict::kMatch);
  EXPECT_EQ(HeadlineVerdict(BaselineVerdict::kMissing, BaselineVerdict::kMatch), BaselineVerdict::kMissing);
}

TEST(VerdictTest, TheTableHasOneRowPerVerdictInOrder) {
  const std::vector<VerdictRow>& table = VerdictTable();
  ASSERT_EQ(table.size(), static_cast<size_t>(CaseVerdict::kNotCompared) + 1);
  std::set<std::string> names;
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(table[i].verdict), i);
    EXPECT_TRUE(names.insert(CaseVerdictName(table[i].verdict)).second);
    EXPECT_STRNE(CaseVerdictName(table[i].verdict), "unknown");
  }
  EXPECT_TRUE(table.back().applies(CaseFacts{}));
}

TEST(VerdictTest, TheSummaryCountsTheFailingCasesByVerdict) {
  std::vector<CaseDecision> decisions;
  for (int i = 0; i < 6; ++i) decisions.push_back(DecideCase(Facts(BaselineVerdict::kMissing)));
  decisions.push_back(DecideCase(Facts(BaselineVerdict::kMatch)));
  const VerdictSummary summary = SummarizeDecisions(decisions);
  EXPECT_EQ(summary.cases, 7u);
  EXPECT_EQ(summary.failing, 6u);
  EXPECT_TRUE(summary.fails());
  EXPECT_EQ(summary.Line(), "6 cases fail: 6 missing.");
  EXPECT_EQ(SummarizeDecisions({decisions.back()}).Line(), "No case fails.");
  EXPECT_FALSE(SummarizeDecisions({}).fails());
}

BaselineSet Baselines() {
  BaselineEntry entry;
  entry.launches = {MakeRecord(128)};
  return BaselineSet::FromEntries("/nonexistent/sm_90", "sm_90", {{"transpose/a", entry}});
}

TEST(CheckBaselineTest, FailsExactlyWhereTheVerdictTableDoes) {
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
      EXPECT_EQ(check.decision.fails, DecideCase(Facts(check.comparison.verdict), policy).fails) << expected;
    }
  }
  // Strict by default: an improvement and a missing baseline fail too.
  EXPECT_TRUE(CheckBaseline(baselines, "transpose/a", {MakeRecord(64)}).decision.fails);
  EXPECT_TRUE(CheckBaseline(baselines, "transpose/new", {MakeRecord(128)}).decision.fails);
  EXPECT_FALSE(CheckBaseline(baselines, "transpose/a", {MakeRecord(128)}).decision.fails);
  VerdictPolicy allow_missing;
  allow_missing.allow_missing = true;
  EXPECT_FALSE(CheckBaseline(baselines, "transpose/new", {MakeRecord(128)}, allow_missing).decision.fails);
}

// The run's own status is decided with the comparison: a case that failed a check of its own fails
// although its counts match, and a skipped one passes.
TEST(CheckBaselineTest, ACaseThatFailedItsOwnChecksFailsAlthoughItsCountsMatch) {
  const BaselineSet baselines = Baselines();
  const BaselineCheck failed =
      CheckBaseline(baselines, "transpose/a", {MakeRecord(128)}, {}, CaseStatus::kFailed);
  EXPECT_EQ(failed.comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_TRUE(failed.decision.fails);
  EXPECT_EQ(failed.decision.verdict, CaseVerdict::kFailed);
  EXPECT_EQ(CheckBaseline(baselines, "transpose/a", {MakeRecord(128)}).decision.verdict, CaseVerdict::kMatch);
}

// With no folder for the architecture every case is missing, and fails unless missing is allowed.
TEST(CheckBaselineTest, WithNoFolderEveryCaseIsMissing) {
  const BaselineSet none;
  const BaselineCheck check = CheckBaseline(none, "transpose/a", {MakeRecord(128)});
  EXPECT_EQ(check.comparison.verdict, BaselineVerdict::kMissing);
  EXPECT_TRUE(check.decision.fails);
  EXPECT_FALSE(CheckBaseline(none, "transpose/a", {MakeRecord(128)}, AllowMissing()).decision.fails);
}

// The check reads the lines too: a measured line
// that differs from the baseline's fails the case although its launch totals match, and the message
// names the line before -> after.
TEST(CheckBaselineTest, ALineDifferenceFailsAlthoughTheLaunchTotalsMatch) {
  LaunchRecord recorded = MakeRecord(128);
  const LineRecord line = MakeLine("kernels/a.cu", 7, "x = tile[i];", MemoryKind::kSharedLoad, 64, 128, 64);
  recorded.lines = std::vector<LineRecord>{line};
  LaunchRecord measured = recorded;
  measured.lines->at(0).line = 9;  // moved: not a difference
  BaselineEntry entry;
  entry.launches = {recorded};
  const BaselineSet baselines =
      BaselineSet::FromEntries("/nonexistent/sm_90", "sm_90", {{"transpose/a", entry}});
  EXPECT_FALSE(CheckBaseline(baselines, "transpose/a", {measured}).decision.fails);
  measured.lines->at(0).executions = 32;
  measured.lines->at(0).ideal_wavefronts = 32;
  const BaselineCheck check = CheckBaseline(baselines, "transpose/a", {measured});
  EXPECT_TRUE(check.decision.fails);
  EXPECT_EQ(check.comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_EQ(check.comparison.lines, BaselineVerdict::kRegression);
  EXPECT_NE(check.comparison.message.find("kernels/a.cu:9 (line 7 before) x = tile[i];: ld 2-way -> 4-way "
                                          "(executions 64 -> 32, ideal 64 -> 32)"),
            std::string::npos)
      << check.comparison.message;
}

}  // namespace
}  // namespace bankcheck
