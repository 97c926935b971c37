#pragma once
// Internal: the failures that `report --format github` and `--format sarif` place at source lines,
// found once from the report's data (report_findings.cc); report_github.cc and report_sarif.cc only
// write them, so the two formats cannot disagree.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/report.h"
#include "core/reports/internal/report_data.h"

namespace bankcheck::internal {

// What a failure is: a line that does not do what its annotation says, a malformed annotation, or
// a failing case by its verdict (kFailed: a failed check with its baseline matched or not compared).
enum class FindingKind {
  kLineMismatch,
  kMalformedAnnotation,
  kRegression,
  kImprovement,
  kChanged,
  kMissing,
  kFailed,
};
inline constexpr FindingKind kFindingKinds[] = {
    FindingKind::kLineMismatch, FindingKind::kMalformedAnnotation,
    FindingKind::kRegression,   FindingKind::kImprovement,
    FindingKind::kChanged,      FindingKind::kMissing,
    FindingKind::kFailed,
};

// A kind of failure as GitHub shows it: SARIF's rule, an annotation's title.
struct FindingRule {
  const char* id;           // "line-mismatch": SARIF's ruleId
  const char* name;         // "LineMismatch": SARIF's rule name
  const char* title;        // "line mismatch": in a GitHub annotation's title
  const char* description;  // one sentence
  const char* help;         // what to do about it
};
const FindingRule& RuleOf(FindingKind kind);

// The cases a finding names; more are counted.
inline constexpr size_t kCasesNamed = 5;
// The most bytes of a finding's message (failure messages and tables are cut to fit).
inline constexpr size_t kMaxFindingBytes = 4000;

struct Finding {
  FindingKind kind = FindingKind::kFailed;
  // Relative to the repository's root (SourceFile::repository_path) and a line from 1; empty and 0
  // where no place in the repository is known.
  std::string file;
  uint32_t line = 0;
  // One or more lines of plain text (control characters shown as "?"), at most kMaxFindingBytes.
  std::string message;
  std::vector<std::string> cases;  // the first kCasesNamed cases' names, one plain line each
  size_t case_count = 0;           // every case it is about
};

// Whether a case fails: what DecideCase (verdict.h) decided for it, under the report's policy;
// these formats decide nothing of their own.
bool CaseFails(const CaseView& view);

// Every failure, in this order: the lines (by file and line), each line and measurement once with
// the cases that measured it; then the failing cases in the report's order, each at the line of its
// kernel (in the repository) with the most excess wavefronts. Lines are checked only with
// options.source_file, and only against the annotations it gives.
std::vector<Finding> FindFailures(const ReportData& data, const ReportOptions& options);

// "bankcheck: line mismatch (transpose/naive and 2 more)"
std::string FindingTitle(const Finding& finding);

std::string RenderGithub(const ReportData& data, const ReportOptions& options);  // report_github.cc
std::string RenderSarif(const ReportData& data, const ReportOptions& options);   // report_sarif.cc

}  // namespace bankcheck::internal
