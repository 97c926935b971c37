#pragma once
// When a case fails: the one rule that the kernel suite, `bankcheck run --baselines`, `report`,
// `compare`, `update-baselines` and bankcheck-ci all apply, so the same results get the same answer
// wherever they are asked. Each gives DecideCase what it knows of a case; its exit status comes from
// the decisions (SummarizeDecisions).
//
// The policy is the table kVerdictTable (verdict.cc), also printed in README.md ("When a case
// fails"). Strict by default, the suite's "exact counts": any difference from the baseline fails,
// and so does a missing baseline; VerdictPolicy::allow_missing lets a missing baseline pass.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/results.h"

namespace bankcheck {

// What is known of one case.
struct CaseFacts {
  // How the case compares with its baseline (or, for compare, with the old side); nullopt: not
  // compared (no baseline check was asked for, or the case did not measure).
  std::optional<BaselineVerdict> baseline;
  // The run's own status: kFailed when the case failed a check of its own (its output, its
  // annotation; in a results file, any check the run made, its baseline's among them).
  CaseStatus status = CaseStatus::kPassed;
  bool model_mismatch = false;  // the CPU model predicts other counts than measured
  bool line_mismatch = false;   // a source line measured other than its annotation says
  // How the case's source lines compare with its baseline's (BaselineComparison::lines); nullopt:
  // not compared line by line (a side without per-line counts).
  std::optional<BaselineVerdict> lines = std::nullopt;
};

struct VerdictPolicy {
  bool allow_missing = false;  // a case with no baseline passes (--allow-missing)
};

// A case's verdict, most serious first: the first row of the table that applies and fails names it
// (else the first that applies).
enum class CaseVerdict {
  kModelMismatch,
  kLineMismatch,
  kRegression,
  kImprovement,
  kChanged,
  kMissing,
  kFailed,
  kSkipped,
  kMatch,
  kNotCompared,
};
const char* CaseVerdictName(CaseVerdict verdict);  // "model mismatch", ..., "not compared"

struct CaseDecision {
  CaseVerdict verdict = CaseVerdict::kNotCompared;
  bool fails = false;
  std::string reason;  // one short line: "more conflicts or wavefronts than its baseline"
};

CaseDecision DecideCase(const CaseFacts& facts, const VerdictPolicy& policy = {});

// The decision on a case from what its comparison with its baseline found: the launches' verdict
// (nullopt: not compared), the lines' (nullopt: not compared line by line) and the run's own status.
// The one reading of a comparison as CaseFacts.
CaseDecision DecideVerdicts(std::optional<BaselineVerdict> launches, std::optional<BaselineVerdict> lines,
                            CaseStatus status, const VerdictPolicy& policy = {});

// A case's launches compared with its entry in `baselines` (CompareWithBaseline, baseline.h) and
// what that decides (DecideVerdicts): what the kernel suite, `bankcheck run --baselines`, `report
// --baselines` and update-baselines each ask of a case, so that they agree. `status` is the run's
// own (a case that failed a check of its own fails whatever its baseline says).
struct BaselineCheck {
  BaselineComparison comparison;
  CaseDecision decision;
};
BaselineCheck CheckBaseline(const BaselineSet& baselines, const std::string& case_name,
                            const std::vector<LaunchRecord>& measured, const VerdictPolicy& policy = {},
                            CaseStatus status = CaseStatus::kPassed);

// Whether a baseline verdict, alone, fails a case: what the suite reports as a baseline failure and
// what update-baselines records. DecideCase({verdict}, policy).fails.
bool BaselineVerdictFails(BaselineVerdict verdict, const VerdictPolicy& policy = {});

// The decisions of every case of a run: its exit status is 1 when any case fails, else 0.
struct VerdictSummary {
  size_t cases = 0;
  size_t failing = 0;
  std::map<CaseVerdict, size_t> failing_by_verdict;  // the verdicts of the failing cases
  bool fails() const { return failing > 0; }
  // "No case fails." or "3 cases fail: 2 missing, 1 regression."
  std::string Line() const;
};
VerdictSummary SummarizeDecisions(const std::vector<CaseDecision>& decisions);

// One row of the policy table: what applies, its verdict, whether it fails, and why.
struct VerdictRow {
  CaseVerdict verdict;
  bool (*applies)(const CaseFacts& facts);
  const char* when;  // for people: "the case measured more conflicts or wavefronts than its baseline"
  bool fails;
  bool fails_with_allow_missing;
  const char* reason;
};
// The table, in the order DecideCase reads it (README.md prints it).
const std::vector<VerdictRow>& VerdictTable();

}  // namespace bankcheck
