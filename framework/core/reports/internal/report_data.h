#pragma once
// Internal: what `report`'s three renderers share (report.cc computes it once; report_markdown.cc,
// report_text.cc and report_json.cc only format it, so the formats cannot disagree).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/report.h"
#include "core/reports/text_table.h"

namespace bankcheck::internal {

// The longest reason (skip reason, why no baselines were found) shown, in bytes.
constexpr size_t kMaxReasonBytes = 500;

// The failure messages shown in a case's details, each at most this many bytes.
constexpr size_t kMaxMessage = 2000;

// Where a case goes in its suite's table; lower first. kUnchanged cases are only counted.
enum class Rank {
  kRegression,
  kFailed,
  kImprovement,
  kChanged,
  kMissing,
  kUnchanged,    // passed, matching its baseline
  kNotCompared,  // passed, with no baseline comparison
  kSkipped,
};

struct CaseView {
  const CaseResult* result = nullptr;
  std::optional<BaselineVerdict> verdict;  // HeadlineVerdict of its launches and its lines
  std::string table;                       // before -> after
  std::vector<std::string> differences;    // one line each (a comparison made here; none stored in results)
  std::vector<std::string> line_differences;  // the source lines' part of `differences`
  Rank rank = Rank::kUnchanged;
  CaseDecision decision;  // DecideCase(verdict, status)
  // Passed in the emulated program while its outputs were not computed (`output` "not computed:
  // ..."): its counts were checked, its output checks not evaluated.
  bool output_not_evaluated = false;
};

// A row of a suite's table, and what its details say.
struct Row {
  Rank rank = Rank::kUnchanged;
  TableRow cells;
  std::string details;  // empty: none
  bool shown = false;
  bool details_shown = false;
};

// One suite's section: its table rows and the cases it only counts.
struct TopicSection {
  std::string heading;  // "### <topic>\n\n"
  std::vector<Row> rows;
  std::map<Rank, size_t> collapsed;
  size_t collapsed_cases = 0;
  size_t collapsed_not_evaluated = 0;  // of the collapsed passes, those with CaseView::output_not_evaluated
  bool opened = false;                 // the heading is shown
  bool counts_shown = false;           // the line counting the collapsed cases is shown

  // Counts a case the section only counts (passed unchanged, not compared, skipped) and says so;
  // false for a case that gets a row.
  bool Collapse(const CaseView& view) {
    if (view.rank < Rank::kUnchanged) return false;
    ++collapsed[view.rank];
    ++collapsed_cases;
    collapsed_not_evaluated += view.output_not_evaluated;
    return true;
  }
};

// The instructions of an attributed kernel a case's details show, the most excessive first.
inline constexpr size_t kInstructionsShown = 10;

// What every format shows, computed once: the verdict of each case, its rank, the totals. The
// renderers below only format it, so the Markdown, the text and the JSON cannot disagree.
struct ReportData {
  const RunResults* results = nullptr;
  enum class Baselines { kRun, kNoArch, kFolder, kNoFolder } baselines = Baselines::kRun;
  std::string baselines_folder;                           // kFolder
  std::string baselines_reason;                           // kNoFolder
  std::map<std::string, std::vector<CaseView>> by_topic;  // each sorted, most urgent first
  std::vector<std::pair<Rank, std::string>> topic_order;  // suites with the most urgent case first
  std::map<Rank, size_t> totals;
  std::map<CaseStatus, size_t> statuses;
  std::vector<std::string> skip_reasons;           // the first few distinct ones
  size_t output_not_evaluated = 0;                 // passed cases with CaseView::output_not_evaluated
  std::vector<std::string> not_evaluated_reasons;  // the first few distinct ones
  VerdictPolicy policy;
  VerdictSummary verdicts;  // over every case

  size_t total(Rank rank) const {
    const auto found = totals.find(rank);
    return found == totals.end() ? 0 : found->second;
  }
  size_t status(CaseStatus status) const {
    const auto found = statuses.find(status);
    return found == statuses.end() ? 0 : found->second;
  }
};

ReportData ComputeReport(const RunResults& results, const ReportOptions& options);

// Cells and lines every format shows alike (report.cc).
std::string Ways(double ways);                                    // "2", "1.5"
std::string Measured(const std::vector<LaunchRecord>& launches);  // "ld 8 (2-way), st 0"
std::string ExpectedWays(const CaseResult& result);
std::string VerdictCell(const std::optional<BaselineVerdict>& verdict);
std::string StatusCell(CaseStatus status);
// "passed", or "passed, output checks not evaluated" (CaseView::output_not_evaluated).
std::string StatusText(const CaseView& view);
std::string Plural(size_t count, const std::string& singular, const std::string& plural);
std::string CountsLine(const TopicSection& section, bool after_rows);
std::string Headline(const ReportData& data, const std::string& strong);
// "6 cases fail: 6 missing." (with `strong` around it) or "No case fails.": the exit status's reason.
std::string VerdictLine(const ReportData& data, const std::string& strong);
// "Source lines that differ from the baseline:" and one indented line each, then an empty line.
std::string LineDifferencesText(const std::vector<std::string>& line_differences);
std::string DetailsBody(const CaseView& view);
std::string DetailsWhat(const CaseView& view);

std::string RenderMarkdown(const ReportData& data, const ReportOptions& options);  // report_markdown.cc
std::string RenderText(const ReportData& data);                                    // report_text.cc
std::string RenderJson(const ReportData& data);                                    // report_json.cc

}  // namespace bankcheck::internal
