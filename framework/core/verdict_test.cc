#include "bankcheck/verdict.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace bankcheck {
namespace {

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

}  // namespace
}  // namespace bankcheck
