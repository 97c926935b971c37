// The failures `report --format github` and `--format sarif` place at source lines.
#include "core/reports/internal/report_findings.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "bankcheck/core/memory_kind.h"
#include "core/annotations/line_counts.h"
#include "core/reports/internal/markdown.h"
#include "core/reports/text_table.h"

namespace bankcheck::internal {
namespace {

// The place of a file named by line info, asked of the caller once per file.
class Sources {
 public:
  explicit Sources(const ReportOptions& options) : lookup_(options.source_file) {}

  bool known() const { return static_cast<bool>(lookup_); }
  const SourceFile& Of(const std::string& file) {
    auto found = files_.find(file);
    if (found == files_.end()) found = files_.emplace(file, lookup_ ? lookup_(file) : SourceFile()).first;
    return found->second;
  }

 private:
  const std::function<SourceFile(const std::string&)>& lookup_;
  std::map<std::string, SourceFile> files_;
};

FindingKind KindOfCase(const CaseView& view) {
  switch (view.verdict.value_or(BaselineVerdict::kMatch)) {
    case BaselineVerdict::kRegression:
      return FindingKind::kRegression;
    case BaselineVerdict::kImprovement:
      return FindingKind::kImprovement;
    case BaselineVerdict::kChanged:
      return FindingKind::kChanged;
    case BaselineVerdict::kMissing:
      return FindingKind::kMissing;
    case BaselineVerdict::kMatch:
      break;
  }
  return FindingKind::kFailed;
}

// What a failing case's message says first, after its name.
const char* CaseSentence(FindingKind kind) {
  switch (kind) {
    case FindingKind::kRegression:
      return "more bank conflicts, wavefronts or sectors than its baseline";
    case FindingKind::kImprovement:
      return "fewer bank conflicts, wavefronts or sectors than its baseline; record the new counts "
             "(bankcheck update-baselines) if the change was meant";
    case FindingKind::kChanged:
      return "its counts differ from its baseline; record the new counts (bankcheck update-baselines) if "
             "the change was meant";
    case FindingKind::kMissing:
      return "no baseline is recorded for it; record one (bankcheck update-baselines) if these counts are "
             "meant";
    default:
      return "failed its checks";
  }
}

void AddCase(Finding& finding, const std::string& name) {
  if (finding.cases.size() < kCasesNamed) finding.cases.push_back(PlainLine(name));
  ++finding.case_count;
}

// Of the lines of `lines` in the repository, the one with the most excess shared wavefronts (bank
// conflicts, what a case's finding is about first), then the most excess global and local sectors,
// then the most executions, then the first by file and line; nullptr when none is. Each memory
// space's excess is its own: a line heavy in global sectors is not the place of a shared excess.
const LineCounts* KernelPlace(const std::vector<LineCounts>& lines, Sources& sources) {
  const LineCounts* best = nullptr;
  std::tuple<uint64_t, uint64_t, uint64_t> best_key{0, 0, 0};
  for (size_t i = 0; i < lines.size();) {
    uint64_t shared_excess = 0, sector_excess = 0, executions = 0;
    size_t end = i;
    for (; end < lines.size() && lines[end].file == lines[i].file && lines[end].line == lines[i].line;
         ++end) {
      const LineCounts& kind = lines[end];
      const uint64_t excess =
          kind.wavefronts > kind.ideal_wavefronts ? kind.wavefronts - kind.ideal_wavefronts : 0;
      (InfoOf(kind.kind).space == MemorySpace::kShared ? shared_excess : sector_excess) += excess;
      executions += kind.executions;
    }
    const std::tuple<uint64_t, uint64_t, uint64_t> key{shared_excess, sector_excess, executions};
    if (!sources.Of(lines[i].file).repository_path.empty() && (best == nullptr || key > best_key)) {
      best = &lines[i];
      best_key = key;
    }
    i = end;
  }
  return best;
}

// "name: sentence", what was measured, the differences and the before -> after table, and a failed
// case's messages: plain text, cut to kMaxFindingBytes.
std::string CaseMessage(const CaseView& view, FindingKind kind) {
  const CaseResult& result = *view.result;
  // Counts the emulator derived are no measurement; Measured() gives the conflicts.
  const bool derived = !result.launches.empty() &&
                       std::all_of(result.launches.begin(), result.launches.end(),
                                   [](const auto& l) { return l.counted_by == CountedBy::kEmulated; });
  std::string text = PlainLine(result.name) + ": " + CaseSentence(kind) + "." +
                     (derived ? "\nDerived by the emulator (no GPU ran it), conflicts: " : "\nMeasured: ") +
                     Measured(result.launches) + "\n";
  for (const std::string& difference : view.differences)
    text += PlainLine(difference, kMaxReasonBytes) + "\n";
  if (!view.table.empty() && kind != FindingKind::kFailed) text += PlainBlock(view.table, kMaxFindingBytes);
  if (result.status == CaseStatus::kFailed) {
    for (const std::string& message : result.messages)
      text += (text.back() == '\n' ? "" : "\n") + PlainBlock(message, kMaxMessage);
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return PlainBlock(text, kMaxFindingBytes);
}

}  // namespace

const FindingRule& RuleOf(FindingKind kind) {
  static const FindingRule kRules[] = {
      {"line-mismatch", "LineMismatch", "line mismatch",
       "A source line's memory accesses do not cost what its line annotation says (an unannotated "
       "line of an annotated file must be conflict-free).",
       "Fix the access, or write the annotation the message suggests if the cost is meant "
       "(docs/annotations.md; `bankcheck annotate RESULTS --apply` writes them)."},
      {"malformed-annotation", "MalformedAnnotation", "malformed annotation",
       "A `// bankcheck:` line annotation does not follow the grammar.",
       "Correct it as the message says (docs/annotations.md has the grammar)."},
      {"regression", "Regression", "regression",
       "A case has more bank conflicts, wavefronts or sectors than its baseline.",
       "Find the access that got worse (`bankcheck lines RESULTS --case NAME`) and fix it; if the cost is "
       "meant, record the new baseline (`bankcheck update-baselines RESULTS`)."},
      {"improvement", "Improvement", "improvement",
       "A case has fewer bank conflicts, wavefronts or sectors than its baseline.",
       "Record the new counts (`bankcheck update-baselines RESULTS`) so that the baseline keeps the gain."},
      {"changed", "Changed", "changed counts",
       "A case's memory counts differ from its baseline (neither more nor fewer conflicts overall).",
       "Check the change, and record the new counts (`bankcheck update-baselines RESULTS`) if it was meant."},
      {"missing-baseline", "MissingBaseline", "missing baseline", "A case has no recorded baseline.",
       "Record one (`bankcheck update-baselines RESULTS`) and commit it if these counts are meant."},
      {"failed", "Failed", "failed",
       "A case failed its checks: its annotation (c.expect), the CPU model, its lines or its result.",
       "Read the case's messages in the job's log."},
  };
  return kRules[static_cast<size_t>(kind)];
}

bool CaseFails(const CaseView& view) { return view.decision.fails; }

std::vector<Finding> FindFailures(const ReportData& data, const ReportOptions& options) {
  Sources sources(options);
  const AnnotationsOfFile annotations_of = [&](const std::string& file) {
    return sources.Of(file).annotations;
  };
  // Each line's failures by where and what: the cases that measured the same thing at one line give one.
  std::map<std::tuple<std::string, uint32_t, std::string, std::string>, Finding> by_line;
  std::vector<Finding> cases;
  for (const auto& [first_rank, topic] : data.topic_order) {
    for (const CaseView& view : data.by_topic.at(topic)) {
      const CaseResult& result = *view.result;
      if (result.status == CaseStatus::kSkipped) continue;
      const std::vector<LineCounts> lines =
          sources.known() ? CountsByLine(result.launches) : std::vector<LineCounts>();
      for (const LineFailure& failure : CheckLines(lines, annotations_of, result.name).failures) {
        const std::string& path = sources.Of(failure.file).repository_path;
        Finding& finding = by_line[{path, failure.line, path.empty() ? failure.file : "", failure.detail}];
        if (finding.case_count == 0) {
          finding.kind =
              failure.measured.empty() ? FindingKind::kMalformedAnnotation : FindingKind::kLineMismatch;
          finding.file = path;
          finding.line = path.empty() ? 0 : failure.line;
          const std::string where = path.empty() ? PlainLine(failure.file, markdown::kMaxPathBytes) + ":" +
                                                       std::to_string(failure.line) + ": "
                                                 : "";
          finding.message = PlainBlock(where + failure.detail, kMaxFindingBytes);
        }
        AddCase(finding, result.name);
      }
      if (!CaseFails(view)) continue;
      Finding finding;
      finding.kind = KindOfCase(view);
      if (const LineCounts* place = KernelPlace(lines, sources)) {
        finding.file = sources.Of(place->file).repository_path;
        finding.line = place->line;
      }
      finding.message = CaseMessage(view, finding.kind);
      AddCase(finding, result.name);
      cases.push_back(std::move(finding));
    }
  }
  std::vector<Finding> findings;
  for (auto& [where, finding] : by_line) {
    std::string named;
    for (const std::string& name : finding.cases) named += (named.empty() ? "" : ", ") + name;
    if (finding.case_count > finding.cases.size())
      named += " and " + std::to_string(finding.case_count - finding.cases.size()) + " more";
    finding.message += std::string(finding.case_count == 1 ? "\nCase: " : "\nCases: ") + named;
    findings.push_back(std::move(finding));
  }
  for (Finding& finding : cases) findings.push_back(std::move(finding));
  return findings;
}

std::string FindingTitle(const Finding& finding) {
  std::string title = std::string("bankcheck: ") + RuleOf(finding.kind).title;
  if (finding.cases.empty()) return title;
  title += " (" + finding.cases.front();
  if (finding.case_count > 1) title += " and " + std::to_string(finding.case_count - 1) + " more";
  return title + ")";
}

}  // namespace bankcheck::internal
