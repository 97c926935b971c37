#include "bankcheck/core/verdict.h"

#include <utility>

#include "core/records/internal/name_table.h"

namespace bankcheck {
namespace {

constexpr std::pair<CaseVerdict, const char*> kCaseVerdictNames[] = {
    {CaseVerdict::kModelMismatch, "model_mismatch"},
    {CaseVerdict::kLineMismatch, "line_mismatch"},
    {CaseVerdict::kRegression, "regression"},
    {CaseVerdict::kImprovement, "improvement"},
    {CaseVerdict::kChanged, "changed"},
    {CaseVerdict::kMissing, "missing"},
    {CaseVerdict::kFailed, "failed"},
    {CaseVerdict::kSkipped, "skipped"},
    {CaseVerdict::kMatch, "match"},
    {CaseVerdict::kNotCompared, "not_compared"},
};

bool Is(const CaseFacts& facts, BaselineVerdict verdict) { return facts.baseline == verdict; }
// In the launches' totals or at a source line.
bool Either(const CaseFacts& facts, BaselineVerdict verdict) {
  return facts.baseline == verdict || (facts.baseline != BaselineVerdict::kMissing && facts.lines == verdict);
}

// The policy, read top to bottom: a case's verdict is the first row that applies and fails, else the
// first row that applies. Strict ("exact counts"): every difference from the baseline fails, since
// an improvement or a change kept unrecorded would hide the next regression; a missing baseline
// fails, or a new kernel would pass unchecked. README.md ("When a case fails") prints this table;
// verdict_test.cc checks that the two agree.
const std::vector<VerdictRow> kVerdictTable = {
    {CaseVerdict::kModelMismatch, [](const CaseFacts& f) { return f.model_mismatch; },
     "the CPU model predicts other counts than measured", true, true,
     "the CPU model predicts other counts than measured"},
    {CaseVerdict::kLineMismatch, [](const CaseFacts& f) { return f.line_mismatch; },
     "a source line measured other than its annotation says", true, true,
     "a source line measured other than its annotation says"},
    {CaseVerdict::kRegression, [](const CaseFacts& f) { return Either(f, BaselineVerdict::kRegression); },
     "more conflicts or wavefronts than the baseline, in a launch or at a source line", true, true,
     "more conflicts or wavefronts than its baseline"},
    {CaseVerdict::kImprovement, [](const CaseFacts& f) { return Either(f, BaselineVerdict::kImprovement); },
     "fewer conflicts or wavefronts, and more nowhere (no launch, no source line)", true, true,
     "fewer conflicts or wavefronts than its baseline: record them so that they are kept"},
    {CaseVerdict::kChanged, [](const CaseFacts& f) { return Either(f, BaselineVerdict::kChanged); },
     "same conflicts and wavefronts, other values differ (of a launch or a source line)", true, true,
     "values other than conflicts and wavefronts differ from its baseline"},
    {CaseVerdict::kMissing, [](const CaseFacts& f) { return Is(f, BaselineVerdict::kMissing); },
     "no baseline (or, for compare, nothing measured on the old side)", true, false,
     "no baseline to compare with: record one"},
    {CaseVerdict::kFailed, [](const CaseFacts& f) { return f.status == CaseStatus::kFailed; },
     "the run failed the case (its output, its annotation, any check it made)", true, true,
     "the run failed the case"},
    {CaseVerdict::kSkipped, [](const CaseFacts& f) { return f.status == CaseStatus::kSkipped; },
     "the case was skipped (no GPU, counters off, an instruction the device lacks)", false, false,
     "skipped: nothing measured to judge"},
    {CaseVerdict::kMatch, [](const CaseFacts& f) { return Is(f, BaselineVerdict::kMatch); },
     "every value equals the baseline", false, false, "matches its baseline"},
    {CaseVerdict::kNotCompared, [](const CaseFacts&) { return true; },
     "passed, with no baseline comparison asked for", false, false, "passed; not compared with a baseline"},
};

bool RowFails(const VerdictRow& row, const VerdictPolicy& policy) {
  return policy.allow_missing ? row.fails_with_allow_missing : row.fails;
}

std::string Plural(size_t count, const char* singular, const char* plural) {
  return std::to_string(count) + " " + (count == 1 ? singular : plural);
}

}  // namespace

const char* CaseVerdictName(CaseVerdict verdict) {
  return internal::NameIn(kCaseVerdictNames, verdict, "unknown");
}

const std::vector<VerdictRow>& VerdictTable() { return kVerdictTable; }

CaseDecision DecideCase(const CaseFacts& facts, const VerdictPolicy& policy) {
  const VerdictRow* first = nullptr;
  for (const VerdictRow& row : kVerdictTable) {
    if (!row.applies(facts)) continue;
    if (RowFails(row, policy)) return {row.verdict, true, row.reason};
    if (first == nullptr) first = &row;
  }
  // The last row applies to every case, so `first` is set.
  return {first->verdict, false, first->reason};
}

CaseDecision DecideVerdicts(std::optional<BaselineVerdict> launches, std::optional<BaselineVerdict> lines,
                            CaseStatus status, const VerdictPolicy& policy) {
  CaseFacts facts;
  facts.baseline = launches;
  facts.lines = lines;
  facts.status = status;
  return DecideCase(facts, policy);
}

BaselineCheck CheckBaseline(const BaselineSet& baselines, const std::string& case_name,
                            const std::vector<LaunchRecord>& measured, const VerdictPolicy& policy,
                            CaseStatus status) {
  BaselineCheck check;
  check.comparison = CompareWithBaseline(baselines, case_name, measured);
  check.decision = DecideVerdicts(check.comparison.verdict, check.comparison.lines, status, policy);
  return check;
}

bool BaselineVerdictFails(BaselineVerdict verdict, const VerdictPolicy& policy) {
  return DecideVerdicts(verdict, std::nullopt, CaseStatus::kPassed, policy).fails;
}

VerdictSummary SummarizeDecisions(const std::vector<CaseDecision>& decisions) {
  VerdictSummary summary;
  summary.cases = decisions.size();
  for (const CaseDecision& decision : decisions) {
    if (!decision.fails) continue;
    ++summary.failing;
    ++summary.failing_by_verdict[decision.verdict];
  }
  return summary;
}

std::string VerdictSummary::Line() const {
  if (failing == 0) return "No case fails.";
  std::string line = Plural(failing, "case fails", "cases fail") + ":";
  bool first = true;
  for (const auto& [verdict, count] : failing_by_verdict) {
    line += std::string(first ? " " : ", ") + std::to_string(count) + " " + CaseVerdictName(verdict);
    first = false;
  }
  return line + ".";
}

}  // namespace bankcheck
