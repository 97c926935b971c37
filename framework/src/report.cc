#include "bankcheck/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "bankcheck/instruction_counts.h"
#include "bankcheck/text_table.h"

namespace bankcheck {
namespace {

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
  std::optional<BaselineVerdict> verdict;
  std::string table;  // before -> after
  Rank rank = Rank::kUnchanged;
};

// A baseline verdict other than a match ranks the case even when it failed (a case fails because
// of its verdict), so the summary line counts what the run's log reported.
Rank RankOf(const CaseResult& result, const std::optional<BaselineVerdict>& verdict) {
  if (result.status == CaseStatus::kSkipped) return Rank::kSkipped;
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
  for (const SharedKind kind : ShownKinds(launches)) {
    const SharedCounts total = SumCounts(launches, kind);
    double worst_ways = 1.0;
    for (const LaunchRecord& launch : launches) worst_ways = std::max(worst_ways, launch.shared[kind].ways());
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
  std::string text;
  for (const SharedKind kind : ShownKinds(result.launches))
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

std::string Plural(size_t count, const std::string& singular, const std::string& plural) {
  return std::to_string(count) + " " + (count == 1 ? singular : plural);
}

std::string CodeSpan(const std::string& text) {
  std::string clean = text;
  std::replace(clean.begin(), clean.end(), '`', '\'');
  return "`" + clean + "`";
}

// A collapsed section: `body` as preformatted text, then `markdown` as it is.
std::string Details(const std::string& summary, const std::string& body, const std::string& markdown) {
  std::string out = "<details><summary>" + summary + "</summary>\n\n";
  if (!body.empty()) out += "```\n" + body + (body.back() == '\n' ? "" : "\n") + "```\n";
  if (!markdown.empty()) out += (body.empty() ? "" : "\n") + markdown;
  return out + "</details>\n\n";
}

// Which instructions cost the case its wavefronts: a table per attributed kernel.
std::string InstructionSections(const std::vector<LaunchRecord>& launches) {
  constexpr size_t kInstructionsShown = 10;
  const std::string source_root = SourceRootFromEnvironment();
  std::string out;
  for (const size_t i : LaunchesWithDistinctInstructions(launches)) {
    const LaunchRecord& launch = launches[i];
    out += "Shared-memory instructions by excess wavefronts (kernel " + CodeSpan(launch.kernel) + ", over " +
           Plural(launch.attributed_launches, "launch", "launches") + "):\n\n```\n" +
           FormatInstructionTable(launch.instructions, kInstructionsShown, source_root) + "```\n\n";
  }
  return out;
}

}  // namespace

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

std::string RenderMarkdownReport(const RunResults& results, const ReportOptions& options) {
  const RunMetadata& meta = results.metadata;
  std::string baselines_line;
  std::optional<BaselineSet> baselines;
  if (options.baselines_dir) {
    if (meta.arch.empty()) {
      baselines_line = "Baselines: not compared (the results name no GPU architecture; did the run skip?)";
    } else {
      baselines = BaselineSet::Load(*options.baselines_dir, meta.arch);
      baselines_line = baselines->has_folder()
                           ? "Baselines: compared with `" + baselines->folder().string() + "`"
                           : "Baselines: " + baselines->no_folder_reason();
    }
  } else {
    baselines_line = "Baselines: as compared during the run";
  }

  std::map<std::string, std::vector<CaseView>> by_topic;
  std::map<Rank, size_t> totals;
  std::map<CaseStatus, size_t> statuses;
  for (const auto& [name, result] : results.cases) {
    CaseView view;
    view.result = &result;
    view.verdict = result.baseline;
    view.table = result.baseline_table;
    if (baselines) {
      view.verdict.reset();
      view.table.clear();
      if (baselines->has_folder() && result.status != CaseStatus::kSkipped) {
        const BaselineComparison comparison = CompareWithBaseline(*baselines, name, result.launches);
        view.verdict = comparison.verdict;
        view.table = comparison.table;
      }
    }
    view.rank = RankOf(result, view.verdict);
    ++totals[view.rank];
    ++statuses[result.status];
    by_topic[TopicOfCase(name)].push_back(view);
  }

  std::string out = "## bankcheck: " + (meta.arch.empty() ? std::string("no GPU") : meta.arch) +
                    (meta.device.empty() ? "" : " · " + meta.device) + "\n\n";
  std::vector<std::string> facts;
  if (!meta.driver.empty()) facts.push_back("driver " + meta.driver);
  if (!meta.cuda_runtime.empty()) facts.push_back("CUDA runtime " + meta.cuda_runtime);
  if (!meta.cuda_driver.empty()) facts.push_back("CUDA driver " + meta.cuda_driver);
  if (!meta.date.empty()) facts.push_back(meta.date);
  if (!meta.git_commit.empty()) facts.push_back("commit " + CodeSpan(meta.git_commit));
  for (size_t i = 0; i < facts.size(); ++i) out += (i == 0 ? "" : " · ") + facts[i];
  if (!facts.empty()) out += "  \n";
  out += baselines_line + "\n\n";

  const size_t regressions = totals[Rank::kRegression];
  out += (regressions > 0 ? "**" + Plural(regressions, "regression", "regressions") + "**"
                          : Plural(0, "regression", "regressions")) +
         ", " + Plural(totals[Rank::kImprovement], "improvement", "improvements") + ", " +
         std::to_string(totals[Rank::kChanged]) + " changed, " +
         Plural(totals[Rank::kMissing], "missing baseline", "missing baselines") + ", " +
         std::to_string(totals[Rank::kUnchanged]) + " unchanged, " +
         std::to_string(totals[Rank::kNotCompared]) + " not compared · " +
         Plural(results.cases.size(), "case", "cases") + ": " +
         std::to_string(statuses[CaseStatus::kPassed]) + " passed, " +
         (statuses[CaseStatus::kFailed] > 0 ? "**" : "") + std::to_string(statuses[CaseStatus::kFailed]) +
         " failed" + (statuses[CaseStatus::kFailed] > 0 ? "**" : "") + ", " +
         std::to_string(statuses[CaseStatus::kSkipped]) + " skipped\n\n";
  // Skips usually share one reason (no GPU, no permission); say it once. Only the first few
  // distinct reasons are shown, so only those are collected: no search through thousands.
  constexpr size_t kMaxSkipReasons = 3;
  std::vector<std::string> skip_reasons;
  for (const auto& [name, result] : results.cases) {
    if (skip_reasons.size() == kMaxSkipReasons) break;
    if (result.status != CaseStatus::kSkipped || result.messages.empty()) continue;
    if (std::find(skip_reasons.begin(), skip_reasons.end(), result.messages.front()) == skip_reasons.end()) {
      skip_reasons.push_back(result.messages.front());
    }
  }
  for (size_t i = 0; i < skip_reasons.size(); ++i) {
    std::string reason = skip_reasons[i];
    std::replace(reason.begin(), reason.end(), '\n', ' ');  // one quoted line
    out += "> Skipped: " + reason + "\n";
  }
  if (!skip_reasons.empty()) out += "\n";

  // Suites with the most urgent case first, then by name.
  std::vector<std::pair<Rank, std::string>> topic_order;
  for (auto& [topic, views] : by_topic) {
    std::sort(views.begin(), views.end(), [](const CaseView& a, const CaseView& b) {
      return a.rank != b.rank ? a.rank < b.rank : a.result->name < b.result->name;
    });
    topic_order.emplace_back(views.front().rank, topic);
  }
  std::sort(topic_order.begin(), topic_order.end());

  std::string details;
  for (const auto& [first_rank, topic] : topic_order) {
    out += "### " + EscapeMarkdown(topic) + "\n\n";
    std::vector<TableRow> rows;
    std::map<Rank, size_t> collapsed;
    for (const CaseView& view : by_topic[topic]) {
      const CaseResult& result = *view.result;
      if (view.rank >= Rank::kUnchanged) {
        ++collapsed[view.rank];
        continue;
      }
      rows.push_back({CodeSpan(result.name), ExpectedWays(result), Measured(result.launches),
                      VerdictCell(view.verdict), StatusCell(result.status)});
      std::string body;
      if (!view.table.empty() && view.verdict != BaselineVerdict::kMatch) body += view.table;
      if (result.status == CaseStatus::kFailed) {
        for (const std::string& message : result.messages) {
          constexpr size_t kMaxMessage = 2000;
          body += (body.empty() ? "" : "\n") +
                  (message.size() > kMaxMessage ? message.substr(0, kMaxMessage) + "\n[...]" : message) +
                  "\n";
        }
      }
      const std::string instructions = InstructionSections(result.launches);
      if (!body.empty() || !instructions.empty()) {
        const std::string what = view.verdict && view.verdict != BaselineVerdict::kMatch
                                     ? BaselineVerdictName(*view.verdict)
                                     : CaseStatusName(result.status);
        details += Details(CodeSpan(result.name) + ": " + what, body, instructions);
      }
    }
    if (!rows.empty()) {
      out +=
          FormatMarkdownTable({"case", "expected ways", "measured conflicts", "baseline", "status"}, rows) +
          "\n";
    }
    std::vector<std::string> counted;
    if (collapsed[Rank::kUnchanged] > 0) {
      counted.push_back(Plural(collapsed[Rank::kUnchanged], "case", "cases") + " passed unchanged");
    }
    if (collapsed[Rank::kNotCompared] > 0) {
      counted.push_back(Plural(collapsed[Rank::kNotCompared], "case", "cases") +
                        " passed with no baseline comparison");
    }
    if (collapsed[Rank::kSkipped] > 0) {
      counted.push_back(Plural(collapsed[Rank::kSkipped], "case", "cases") + " skipped");
    }
    for (size_t i = 0; i < counted.size(); ++i)
      out += (i == 0 ? (rows.empty() ? "" : "And ") : ", ") + counted[i];
    if (!counted.empty()) out += ".\n\n";
  }
  if (results.cases.empty()) out += "No cases in these results.\n\n";
  if (!details.empty()) out += "### Details\n\n" + details;
  return out;
}

}  // namespace bankcheck
