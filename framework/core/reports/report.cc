#include "bankcheck/core/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>
#include <vector>

#include "bankcheck/core/instruction_counts.h"
#include "core/reports/internal/markdown.h"
#include "core/reports/internal/report_data.h"
#include "core/reports/internal/report_findings.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace internal {
namespace {

// The distinct reasons why passes' output checks were not evaluated that the head shows.
constexpr size_t kMaxNotEvaluatedReasons = 3;

// A baseline verdict other than a match ranks the case even when it failed (a case fails because
// of its verdict), so the summary line counts what the run's log reported. A skipped case ranks as
// skipped but for a missing baseline (the emulated program skips such a case, and the verdict
// fails it): the headline's missing baselines then agree with the verdict line.
Rank RankOf(const CaseResult& result, const std::optional<BaselineVerdict>& verdict) {
  if (result.status == CaseStatus::kSkipped)
    return verdict == BaselineVerdict::kMissing ? Rank::kMissing : Rank::kSkipped;
  switch (verdict.value_or(BaselineVerdict::kMatch)) {
    case BaselineVerdict::kRegression:
      return Rank::kRegression;
    case BaselineVerdict::kImprovement:
      return Rank::kImprovement;
    case BaselineVerdict::kChanged:
      return Rank::kChanged;
    case BaselineVerdict::kMissing:
      return Rank::kMissing;
    case BaselineVerdict::kMatch:
      break;
  }
  if (result.status == CaseStatus::kFailed) return Rank::kFailed;
  return verdict ? Rank::kUnchanged : Rank::kNotCompared;
}

}  // namespace

std::string Ways(double ways) {
  char text[32];
  if (std::fabs(ways - std::round(ways)) < 1e-9) {
    std::snprintf(text, sizeof(text), "%.0f", ways);
  } else {
    std::snprintf(text, sizeof(text), "%.2f", ways);
  }
  return text;
}

// "ld 1984 (32-way) · st 0 · ldsm 28 (8-way, max of 2 launches)" over the kinds the launches show:
// total conflicts and the worst ways; "(hardware)" where the ideal came from hardware counters,
// "n/a" where no counter gives it.
std::string Measured(const std::vector<LaunchRecord>& launches) {
  if (launches.empty()) return "—";
  std::string text;
  for (const MemoryKind kind : ShownKinds(launches)) {
    const KindCounts total = SumCounts(launches, kind);
    double worst_ways = 1.0;
    for (const LaunchRecord& launch : launches) worst_ways = std::max(worst_ways, launch.kinds[kind].ways());
    text += std::string(text.empty() ? "" : " · ") + InfoOf(kind).label + " ";
    if (!total.ideal_known()) {
      text += "n/a";
      continue;
    }
    text += std::to_string(total.conflicts());
    std::vector<std::string> notes;
    if (worst_ways != 1.0) notes.push_back(Ways(worst_ways) + "-way");
    if (worst_ways != 1.0 && launches.size() > 1)
      notes.back() += " max of " + std::to_string(launches.size()) + " launches";
    if (total.ideal_provenance == Provenance::kHardware) notes.push_back("hardware");
    for (size_t i = 0; i < notes.size(); ++i) text += (i == 0 ? " (" : ", ") + notes[i];
    if (!notes.empty()) text += ")";
  }
  return text;
}

// "ld 2 · st 1 · ldsm 8": the annotation's ways for the kinds the launches show.
std::string ExpectedWays(const CaseResult& result) {
  if (result.expected_by == ExpectedBy::kLines) return "per line";
  if (result.expected_by == ExpectedBy::kBaselineOnly) return "baseline only";
  std::string text;
  for (const MemoryKind kind : ShownKinds(result.launches))
    text +=
        std::string(text.empty() ? "" : " · ") + InfoOf(kind).label + " " + Ways(result.expected_ways[kind]);
  return text;
}

std::string VerdictCell(const std::optional<BaselineVerdict>& verdict) {
  if (!verdict) return "—";
  const std::string name = BaselineVerdictName(*verdict);
  return *verdict == BaselineVerdict::kRegression ? "**" + name + "**" : name;
}

std::string StatusCell(CaseStatus status) {
  return status == CaseStatus::kFailed ? "**failed**" : CaseStatusName(status);
}

std::string StatusText(const CaseView& view) {
  return view.output_not_evaluated ? "passed, output checks not evaluated"
                                   : CaseStatusName(view.result->status);
}

std::string Plural(size_t count, const std::string& singular, const std::string& plural) {
  return std::to_string(count) + " " + (count == 1 ? singular : plural);
}

// "3 cases passed unchanged, 1 case skipped." for the cases a section only counts.
std::string CountsLine(const TopicSection& section, bool after_rows) {
  std::vector<std::string> counted;
  const auto count = [&](Rank rank) {
    const auto found = section.collapsed.find(rank);
    return found == section.collapsed.end() ? size_t{0} : found->second;
  };
  if (count(Rank::kUnchanged) > 0)
    counted.push_back(Plural(count(Rank::kUnchanged), "case", "cases") + " passed unchanged");
  if (section.collapsed_not_evaluated > 0)
    counted.back() += ", " + std::to_string(section.collapsed_not_evaluated) +
                      " of them with their output checks not evaluated";
  if (count(Rank::kNotCompared) > 0) {
    counted.push_back(Plural(count(Rank::kNotCompared), "case", "cases") +
                      " passed with no baseline comparison");
  }
  if (count(Rank::kSkipped) > 0)
    counted.push_back(Plural(count(Rank::kSkipped), "case", "cases") + " skipped");
  std::string line;
  for (size_t i = 0; i < counted.size(); ++i)
    line += (i == 0 ? (after_rows ? "And " : "") : ", ") + counted[i];
  return line.empty() ? line : line + ".\n\n";
}

ReportData ComputeReport(const RunResults& results, const ReportOptions& options) {
  ReportData data;
  data.results = &results;
  // The baselines each case is compared with; nullptr: the comparison stored in the results.
  const BaselineSet* baselines = nullptr;
  if (results.metadata.arch.empty() &&
      (options.baselines != nullptr || options.baselines_requested_without_arch)) {
    data.baselines = ReportData::Baselines::kNoArch;
  } else if (options.baselines != nullptr) {
    baselines = options.baselines;
    if (baselines->has_folder()) {
      data.baselines = ReportData::Baselines::kFolder;
      data.baselines_folder = baselines->folder().string();
    } else {
      data.baselines = ReportData::Baselines::kNoFolder;
      data.baselines_reason = baselines->no_folder_reason();
    }
  }
  data.policy = options.policy;
  std::vector<CaseDecision> decisions;
  for (const auto& [name, result] : results.cases) {
    CaseView view;
    view.result = &result;
    // The launches' verdict and the lines' (DecideCase reads both); the view shows their headline.
    std::optional<BaselineVerdict> launches = result.baseline;
    std::optional<BaselineVerdict> lines = result.baseline_lines;
    view.table = result.baseline_table;
    std::optional<BaselineCheck> check;
    if (baselines != nullptr) {
      launches.reset();
      lines.reset();
      view.table.clear();
      // With no folder for the architecture, every case measured is missing, as in the suite; a
      // case skipped for want of a baseline kept its counts, which the given baselines now judge.
      if (result.status != CaseStatus::kSkipped || SkippedForWantOfABaseline(result)) {
        check = CheckBaseline(*baselines, name, result.launches, options.policy, result.status);
        launches = check->comparison.verdict;
        lines = check->comparison.lines;
        view.table = std::move(check->comparison.table);
        view.differences = std::move(check->comparison.differences);
        view.line_differences = std::move(check->comparison.line_differences);
      }
    }
    if (launches) view.verdict = HeadlineVerdict(*launches, lines);
    view.rank = RankOf(result, view.verdict);
    view.decision = check ? check->decision : DecideVerdicts(launches, lines, result.status, options.policy);
    view.output_not_evaluated =
        result.status == CaseStatus::kPassed && result.output.rfind(kOutputNotComputed, 0) == 0;
    if (view.output_not_evaluated) {
      ++data.output_not_evaluated;
      const std::string why = result.output.substr(std::string(kOutputNotComputed).size());
      if (data.not_evaluated_reasons.size() < kMaxNotEvaluatedReasons &&
          std::find(data.not_evaluated_reasons.begin(), data.not_evaluated_reasons.end(), why) ==
              data.not_evaluated_reasons.end())
        data.not_evaluated_reasons.push_back(why);
    }
    decisions.push_back(view.decision);
    ++data.totals[view.rank];
    ++data.statuses[result.status];
    data.by_topic[TopicOfCase(name)].push_back(std::move(view));
  }
  data.verdicts = SummarizeDecisions(decisions);
  // Skips usually share one reason (no GPU, no permission); say it once. Only the first few
  // distinct reasons are shown, so only those are collected: no search through thousands.
  constexpr size_t kMaxSkipReasons = 3;
  for (const auto& [name, result] : results.cases) {
    if (data.skip_reasons.size() == kMaxSkipReasons) break;
    if (result.status != CaseStatus::kSkipped || result.messages.empty()) continue;
    if (std::find(data.skip_reasons.begin(), data.skip_reasons.end(), result.messages.front()) ==
        data.skip_reasons.end()) {
      data.skip_reasons.push_back(result.messages.front());
    }
  }
  for (auto& [topic, views] : data.by_topic) {
    std::sort(views.begin(), views.end(), [](const CaseView& a, const CaseView& b) {
      return a.rank != b.rank ? a.rank < b.rank : a.result->name < b.result->name;
    });
    data.topic_order.emplace_back(views.front().rank, topic);
  }
  std::sort(data.topic_order.begin(), data.topic_order.end());
  return data;
}

// "0 regressions, 1 improvement, ... · 5 cases: 4 passed, 1 failed, 0 skipped"; `strong` marks
// regressions and failures (Markdown's bold).
std::string Headline(const ReportData& data, const std::string& strong) {
  const size_t regressions = data.total(Rank::kRegression);
  const size_t failed = data.status(CaseStatus::kFailed);
  const std::string mark = regressions > 0 ? strong : "";
  const std::string failed_mark = failed > 0 ? strong : "";
  return mark + Plural(regressions, "regression", "regressions") + mark + ", " +
         Plural(data.total(Rank::kImprovement), "improvement", "improvements") + ", " +
         std::to_string(data.total(Rank::kChanged)) + " changed, " +
         Plural(data.total(Rank::kMissing), "missing baseline", "missing baselines") + ", " +
         std::to_string(data.total(Rank::kUnchanged)) + " unchanged, " +
         std::to_string(data.total(Rank::kNotCompared)) + " not compared · " +
         Plural(data.results->cases.size(), "case", "cases") + ": " +
         std::to_string(data.status(CaseStatus::kPassed)) + " passed, " + failed_mark +
         std::to_string(failed) + " failed" + failed_mark + ", " +
         std::to_string(data.status(CaseStatus::kSkipped)) + " skipped" +
         (data.output_not_evaluated == 0 ? ""
                                         : " · " + std::to_string(data.output_not_evaluated) +
                                               " passed with their output checks not evaluated");
}

std::string VerdictLine(const ReportData& data, const std::string& strong) {
  const std::string line = data.verdicts.Line();
  return data.verdicts.fails() ? strong + line + strong : line;
}

std::string LineDifferencesText(const std::vector<std::string>& line_differences) {
  std::string text = "Source lines that differ from the baseline:\n";
  for (const std::string& difference : line_differences) text += "  " + difference + "\n";
  return text + "\n";
}

// The preformatted part of a case's details: its before -> after table, then its failure messages.
std::string DetailsBody(const CaseView& view) {
  const CaseResult& result = *view.result;
  std::string body;
  if (!view.line_differences.empty()) body += LineDifferencesText(view.line_differences);
  if (!view.table.empty() && view.verdict != BaselineVerdict::kMatch) body += view.table;
  if (result.status == CaseStatus::kFailed) {
    for (const std::string& message : result.messages)
      body += (body.empty() ? "" : "\n") + markdown::Truncate(message, kMaxMessage) + "\n";
  }
  return body;
}

std::string DetailsWhat(const CaseView& view) {
  return view.verdict && view.verdict != BaselineVerdict::kMatch ? BaselineVerdictName(*view.verdict)
                                                                 : CaseStatusName(view.result->status);
}

}  // namespace internal

std::vector<size_t> LaunchesWithDistinctInstructions(const std::vector<LaunchRecord>& launches) {
  // The tables shown so far, ordered by kernel and table: a lookup, not a scan of every earlier
  // launch, so that many launches cost n log n (limits.h allows a million).
  const auto instruction_less = [](const InstructionCounts& a, const InstructionCounts& b) {
    return std::tie(a.pc_offset, a.opcode, a.kind, a.file, a.line, a.executions, a.wavefronts,
                    a.ideal_wavefronts) < std::tie(b.pc_offset, b.opcode, b.kind, b.file, b.line,
                                                   b.executions, b.wavefronts, b.ideal_wavefronts);
  };
  const auto launch_less = [&](const LaunchRecord* a, const LaunchRecord* b) {
    if (a->kernel != b->kernel) return a->kernel < b->kernel;
    return std::lexicographical_compare(a->instructions.begin(), a->instructions.end(),
                                        b->instructions.begin(), b->instructions.end(), instruction_less);
  };
  std::set<const LaunchRecord*, decltype(launch_less)> shown(launch_less);
  std::vector<size_t> distinct;
  for (size_t i = 0; i < launches.size(); ++i) {
    if (launches[i].instructions.empty()) continue;
    if (shown.insert(&launches[i]).second) distinct.push_back(i);
  }
  return distinct;
}

ReportOutcome RenderReport(const RunResults& results, const ReportOptions& options) {
  const internal::ReportData data = internal::ComputeReport(results, options);
  ReportOutcome outcome;
  outcome.regressions = data.total(internal::Rank::kRegression);
  outcome.verdicts = data.verdicts;
  switch (options.format) {
    case OutputFormat::kMarkdown:
      outcome.output = internal::RenderMarkdown(data, options);
      break;
    case OutputFormat::kText:
      outcome.output = internal::RenderText(data);
      break;
    case OutputFormat::kJson:
      outcome.output = internal::RenderJson(data);
      break;
    case OutputFormat::kGithub:
      outcome.output = internal::RenderGithub(data, options);
      break;
    case OutputFormat::kSarif:
      outcome.output = internal::RenderSarif(data, options);
      break;
  }
  return outcome;
}

std::string RenderMarkdownReport(const RunResults& results, const ReportOptions& options) {
  ReportOptions markdown_options = options;
  markdown_options.format = OutputFormat::kMarkdown;
  return RenderReport(results, markdown_options).output;
}

}  // namespace bankcheck
