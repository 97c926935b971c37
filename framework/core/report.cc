#include "bankcheck/report.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "bankcheck/instruction_counts.h"
#include "core/internal/json_io.h"
#include "core/internal/markdown.h"
#include "core/internal/text_table.h"

namespace bankcheck {
namespace {

// The longest reason (skip reason, why no baselines were found) shown, in bytes.
constexpr size_t kMaxReasonBytes = 500;

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
  std::string table;                     // before -> after
  std::vector<std::string> differences;  // one line each (a comparison made here; none stored in results)
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

// A collapsed section: `body` as preformatted text, then `markdown` as it is. `summary` is HTML.
std::string Details(const std::string& summary, const std::string& body, const std::string& markdown) {
  std::string out = "<details><summary>" + summary + "</summary>\n\n";
  if (!body.empty()) out += markdown::FencedBlock(body);
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
    out +=
        "Shared-memory instructions by excess wavefronts (kernel " +
        markdown::Code(ShortenKernelName(launch.kernel, markdown::kMaxInlineBytes)) + ", over " +
        Plural(launch.attributed_launches, "launch", "launches") + "):\n\n" +
        markdown::FencedBlock(FormatInstructionTable(launch.instructions, kInstructionsShown, source_root)) +
        "\n";
  }
  return out;
}

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
  bool opened = false;        // the heading is shown
  bool counts_shown = false;  // the line counting the collapsed cases is shown
};

// "3 cases passed unchanged, 1 case skipped." for the cases a section only counts.
std::string CountsLine(const TopicSection& section, bool after_rows) {
  std::vector<std::string> counted;
  const auto count = [&](Rank rank) {
    const auto found = section.collapsed.find(rank);
    return found == section.collapsed.end() ? size_t{0} : found->second;
  };
  if (count(Rank::kUnchanged) > 0)
    counted.push_back(Plural(count(Rank::kUnchanged), "case", "cases") + " passed unchanged");
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

namespace {

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
  std::vector<std::string> skip_reasons;  // the first few distinct ones

  size_t total(Rank rank) const {
    const auto found = totals.find(rank);
    return found == totals.end() ? 0 : found->second;
  }
  size_t status(CaseStatus status) const {
    const auto found = statuses.find(status);
    return found == statuses.end() ? 0 : found->second;
  }
};

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
  for (const auto& [name, result] : results.cases) {
    CaseView view;
    view.result = &result;
    view.verdict = result.baseline;
    view.table = result.baseline_table;
    if (baselines != nullptr) {
      view.verdict.reset();
      view.table.clear();
      if (baselines->has_folder() && result.status != CaseStatus::kSkipped) {
        BaselineComparison comparison = CompareWithBaseline(*baselines, name, result.launches);
        view.verdict = comparison.verdict;
        view.table = std::move(comparison.table);
        view.differences = std::move(comparison.differences);
      }
    }
    view.rank = RankOf(result, view.verdict);
    ++data.totals[view.rank];
    ++data.statuses[result.status];
    data.by_topic[TopicOfCase(name)].push_back(std::move(view));
  }
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
         std::to_string(data.status(CaseStatus::kSkipped)) + " skipped";
}

// The failure messages shown in a case's details, each at most this many bytes.
constexpr size_t kMaxMessage = 2000;

// The preformatted part of a case's details: its before -> after table, then its failure messages.
std::string DetailsBody(const CaseView& view) {
  const CaseResult& result = *view.result;
  std::string body;
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

std::string RenderMarkdown(const ReportData& data, const ReportOptions& options) {
  const RunMetadata& meta = data.results->metadata;
  std::string baselines_line;
  switch (data.baselines) {
    case ReportData::Baselines::kRun:
      baselines_line = "Baselines: as compared during the run";
      break;
    case ReportData::Baselines::kNoArch:
      baselines_line = "Baselines: not compared (the results name no GPU architecture; did the run skip?)";
      break;
    case ReportData::Baselines::kFolder:
      baselines_line =
          "Baselines: compared with " + markdown::Code(data.baselines_folder, markdown::kMaxPathBytes);
      break;
    case ReportData::Baselines::kNoFolder:
      baselines_line = "Baselines: " + markdown::Inline(data.baselines_reason, kMaxReasonBytes);
      break;
  }

  // The headline and the totals: always shown, first, and bounded (every field is cut to length).
  std::string head =
      "## bankcheck: " + (meta.arch.empty() ? std::string("no GPU") : markdown::Inline(meta.arch)) +
      (meta.device.empty() ? "" : " · " + markdown::Inline(meta.device)) + "\n\n";
  std::vector<std::string> facts;
  if (!meta.driver.empty()) facts.push_back("driver " + markdown::Inline(meta.driver));
  if (!meta.cuda_runtime.empty()) facts.push_back("CUDA runtime " + markdown::Inline(meta.cuda_runtime));
  if (!meta.cuda_driver.empty()) facts.push_back("CUDA driver " + markdown::Inline(meta.cuda_driver));
  if (!meta.date.empty()) facts.push_back(markdown::Inline(meta.date));
  if (!meta.git_commit.empty()) facts.push_back("commit " + markdown::Code(meta.git_commit));
  for (size_t i = 0; i < facts.size(); ++i) head += (i == 0 ? "" : " · ") + facts[i];
  if (!facts.empty()) head += "  \n";
  head += baselines_line + "\n\n";
  head += Headline(data, "**") + "\n\n";
  for (const std::string& reason : data.skip_reasons) {
    head += "> Skipped: " + markdown::Inline(reason, kMaxReasonBytes) + "\n";  // one quoted line
  }
  if (!data.skip_reasons.empty()) head += "\n";

  std::vector<TopicSection> sections;
  for (const auto& [first_rank, topic] : data.topic_order) {
    TopicSection& section = sections.emplace_back();
    section.heading = "### " + markdown::Inline(topic) + "\n\n";
    for (const CaseView& view : data.by_topic.at(topic)) {
      const CaseResult& result = *view.result;
      if (view.rank >= Rank::kUnchanged) {
        ++section.collapsed[view.rank];
        ++section.collapsed_cases;
        continue;
      }
      Row& row = section.rows.emplace_back();
      row.rank = view.rank;
      row.cells = {markdown::Code(result.name), ExpectedWays(result), Measured(result.launches),
                   VerdictCell(view.verdict), StatusCell(result.status)};
      const std::string body = DetailsBody(view);
      const std::string instructions = InstructionSections(result.launches);
      if (!body.empty() || !instructions.empty())
        row.details = Details(markdown::Code(result.name) + ": " + DetailsWhat(view), body, instructions);
    }
  }
  // What fits in the budget, most urgent first: the rows of regressions and their details, then of
  // failures, improvements, changes and missing baselines, then the lines counting the other cases.
  // The first part that does not fit ends the choice, so nothing less urgent is shown instead.
  const TableRow header = {"case", "expected ways", "measured conflicts", "baseline", "status"};
  const std::string empty_table = FormatMarkdownTable(header, {});
  const std::string details_heading = "### Details\n\n";
  const std::string results_file = options.results_path.empty()
                                       ? std::string()
                                       : markdown::Code(options.results_path, markdown::kMaxPathBytes);
  const size_t note_bytes = 512 + results_file.size();  // room for the note on what is not shown
  const size_t fixed = head.size() + note_bytes + details_heading.size();
  const size_t budget = options.max_bytes == 0      ? SIZE_MAX
                        : options.max_bytes > fixed ? options.max_bytes - fixed
                                                    : 0;
  size_t used = 0;
  bool full = false;
  const auto take = [&](size_t cost) {
    if (full || cost > budget - used) full = true;
    if (full) return false;
    used += cost;
    return true;
  };
  for (Rank rank = Rank::kRegression; rank < Rank::kUnchanged;
       rank = static_cast<Rank>(static_cast<int>(rank) + 1)) {
    for (TopicSection& section : sections) {
      bool table_started =
          std::any_of(section.rows.begin(), section.rows.end(), [](const Row& row) { return row.shown; });
      for (Row& row : section.rows) {
        if (row.rank != rank) continue;
        const size_t cost = FormatMarkdownTable(header, {row.cells}).size() - empty_table.size() +
                            (section.opened ? 0 : section.heading.size()) +
                            (table_started ? 0 : empty_table.size() + 1);
        if (!take(cost)) break;
        row.shown = section.opened = table_started = true;
      }
    }
    for (TopicSection& section : sections) {
      for (Row& row : section.rows) {
        if (row.rank == rank && row.shown && !row.details.empty() && take(row.details.size())) {
          row.details_shown = true;
        }
      }
    }
  }
  for (TopicSection& section : sections) {
    if (section.collapsed_cases == 0) continue;
    if (!take(CountsLine(section, true).size() + (section.opened ? 0 : section.heading.size()))) break;
    section.counts_shown = section.opened = true;
  }

  std::string body;
  std::string details;
  size_t cases_not_shown = 0;
  size_t details_not_shown = 0;
  for (const TopicSection& section : sections) {
    std::vector<TableRow> rows;
    for (const Row& row : section.rows) {
      if (row.shown) rows.push_back(row.cells);
      cases_not_shown += row.shown ? 0 : 1;
      details_not_shown += row.shown && !row.details.empty() && !row.details_shown ? 1 : 0;
      if (row.details_shown) details += row.details;
    }
    cases_not_shown += section.counts_shown ? 0 : section.collapsed_cases;
    if (!section.opened) continue;
    body += section.heading;
    if (!rows.empty()) body += FormatMarkdownTable(header, rows) + "\n";
    if (section.counts_shown) body += CountsLine(section, !rows.empty());
  }
  if (data.results->cases.empty()) body += "No cases in these results.\n\n";
  if (!details.empty()) body += details_heading + details;

  std::string note;
  if (cases_not_shown > 0 || details_not_shown > 0) {
    std::vector<std::string> parts;
    if (cases_not_shown > 0) parts.push_back(Plural(cases_not_shown, "more case", "more cases"));
    if (details_not_shown > 0)
      parts.push_back("the details of " + Plural(details_not_shown, "case", "cases"));
    note =
        "> **Not shown:** " + parts[0] + (parts.size() > 1 ? " and " + parts[1] : "") +
        ", to keep this report under " + WithThousands(options.max_bytes) +
        " bytes (regressions come first). For the full report, run `bankcheck report` on the results file" +
        (options.results_path.empty() ? std::string() : " " + results_file) +
        " with `--max-bytes 0 -o report.md`.\n\n";
  }
  return head + note + body;
}

// The report for a terminal: the same headline, suites and details, as aligned text with nothing
// from the file able to send the terminal a control sequence. Not bounded by max_bytes.
std::string RenderText(const ReportData& data) {
  const RunMetadata& meta = data.results->metadata;
  std::string out = "bankcheck: " + (meta.arch.empty() ? std::string("no GPU") : PlainLine(meta.arch)) +
                    (meta.device.empty() ? "" : " · " + PlainLine(meta.device)) + "\n";
  std::vector<std::string> facts;
  if (!meta.driver.empty()) facts.push_back("driver " + PlainLine(meta.driver));
  if (!meta.cuda_runtime.empty()) facts.push_back("CUDA runtime " + PlainLine(meta.cuda_runtime));
  if (!meta.cuda_driver.empty()) facts.push_back("CUDA driver " + PlainLine(meta.cuda_driver));
  if (!meta.date.empty()) facts.push_back(PlainLine(meta.date));
  if (!meta.git_commit.empty()) facts.push_back("commit " + PlainLine(meta.git_commit));
  for (size_t i = 0; i < facts.size(); ++i) out += (i == 0 ? "" : " · ") + facts[i];
  if (!facts.empty()) out += "\n";
  switch (data.baselines) {
    case ReportData::Baselines::kRun:
      out += "Baselines: as compared during the run\n";
      break;
    case ReportData::Baselines::kNoArch:
      out += "Baselines: not compared (the results name no GPU architecture; did the run skip?)\n";
      break;
    case ReportData::Baselines::kFolder:
      out += "Baselines: compared with " + PlainLine(data.baselines_folder, markdown::kMaxPathBytes) + "\n";
      break;
    case ReportData::Baselines::kNoFolder:
      out += "Baselines: " + PlainLine(data.baselines_reason, kMaxReasonBytes) + "\n";
      break;
  }
  out += "\n" + Headline(data, "") + "\n";
  for (const std::string& reason : data.skip_reasons)
    out += "Skipped: " + PlainLine(reason, kMaxReasonBytes) + "\n";
  if (data.results->cases.empty()) out += "\nNo cases in these results.\n";

  const TableRow header = {"case", "expected ways", "measured conflicts", "baseline", "status"};
  std::string details;
  for (const auto& [first_rank, topic] : data.topic_order) {
    TopicSection section;
    std::vector<TableRow> rows;
    for (const CaseView& view : data.by_topic.at(topic)) {
      const CaseResult& result = *view.result;
      if (view.rank >= Rank::kUnchanged) {
        ++section.collapsed[view.rank];
        ++section.collapsed_cases;
        continue;
      }
      rows.push_back({PlainLine(result.name), ExpectedWays(result), Measured(result.launches),
                      view.verdict ? BaselineVerdictName(*view.verdict) : "—",
                      CaseStatusName(result.status)});
      const std::string body = DetailsBody(view);
      std::string instructions;
      for (const size_t i : LaunchesWithDistinctInstructions(result.launches)) {
        const LaunchRecord& launch = result.launches[i];
        instructions +=
            "Shared-memory instructions by excess wavefronts (kernel " +
            PlainLine(ShortenKernelName(launch.kernel, markdown::kMaxInlineBytes)) + ", over " +
            Plural(launch.attributed_launches, "launch", "launches") + "):\n" +
            PlainBlock(FormatInstructionTable(launch.instructions, 10, SourceRootFromEnvironment()));
      }
      if (!body.empty() || !instructions.empty()) {
        details += "\n-- " + PlainLine(result.name) + ": " + DetailsWhat(view) + "\n" + PlainBlock(body) +
                   (body.empty() || instructions.empty() ? "" : "\n") + instructions;
      }
    }
    out += "\n== " + PlainLine(topic) + "\n";
    if (!rows.empty()) out += FormatTextTable(header, rows);
    const std::string counts = CountsLine(section, !rows.empty());
    if (!counts.empty()) out += counts.substr(0, counts.size() - 1);  // one newline, not two
  }
  if (!details.empty()) out += "\n== Details\n" + details;
  return out;
}

// A case as the JSON output lists it.
nlohmann::json CaseJson(const CaseView& view) {
  const CaseResult& result = *view.result;
  nlohmann::json object = {
      {"name", result.name},
      {"topic", TopicOfCase(result.name)},
      {"status", CaseStatusName(result.status)},
      {"verdict", view.verdict ? nlohmann::json(BaselineVerdictName(*view.verdict)) : nlohmann::json()},
      {"differences", view.differences},
      {"table", view.verdict != BaselineVerdict::kMatch ? view.table : std::string()},
      {"launches", result.launches.size()},
  };
  nlohmann::json conflicts = nlohmann::json::object();
  for (const SharedKind kind : ShownKinds(result.launches)) {
    const SharedCounts total = SumCounts(result.launches, kind);
    conflicts[InfoOf(kind).label] =
        total.ideal_known() ? nlohmann::json(total.conflicts()) : nlohmann::json();
  }
  object["conflicts"] = std::move(conflicts);
  object["messages"] = result.status == CaseStatus::kPassed ? std::vector<std::string>() : result.messages;
  return object;
}

std::string RenderJson(const ReportData& data) {
  const RunMetadata& meta = data.results->metadata;
  nlohmann::json out = {{"format", "bankcheck-report"}, {"version", 1}};
  out["run"] = {{"arch", meta.arch},
                {"device", meta.device},
                {"driver", meta.driver},
                {"cuda_runtime", meta.cuda_runtime},
                {"cuda_driver", meta.cuda_driver},
                {"date", meta.date},
                {"git_commit", meta.git_commit}};
  static const char* const kSources[] = {"run", "none", "folder", "none"};
  out["baselines"] = {{"compared", kSources[static_cast<int>(data.baselines)]},
                      {"folder", data.baselines_folder},
                      {"reason", data.baselines == ReportData::Baselines::kNoArch
                                     ? std::string("the results name no GPU architecture")
                                     : data.baselines_reason}};
  out["totals"] = {
      {"regressions", data.total(Rank::kRegression)}, {"improvements", data.total(Rank::kImprovement)},
      {"changed", data.total(Rank::kChanged)},        {"missing", data.total(Rank::kMissing)},
      {"unchanged", data.total(Rank::kUnchanged)},    {"not_compared", data.total(Rank::kNotCompared)},
      {"cases", data.results->cases.size()},          {"passed", data.status(CaseStatus::kPassed)},
      {"failed", data.status(CaseStatus::kFailed)},   {"skipped", data.status(CaseStatus::kSkipped)}};
  out["skip_reasons"] = data.skip_reasons;
  for (const char* key : {"regressions", "improvements", "changed", "missing", "failed", "cases"})
    out[key] = nlohmann::json::array();
  for (const auto& [first_rank, topic] : data.topic_order) {
    for (const CaseView& view : data.by_topic.at(topic)) {
      nlohmann::json object = CaseJson(view);
      switch (view.rank) {
        case Rank::kRegression:
          out["regressions"].push_back(object);
          break;
        case Rank::kImprovement:
          out["improvements"].push_back(object);
          break;
        case Rank::kChanged:
          out["changed"].push_back(object);
          break;
        case Rank::kMissing:
          out["missing"].push_back(object);
          break;
        default:
          break;
      }
      if (view.result->status == CaseStatus::kFailed) out["failed"].push_back(object);
      out["cases"].push_back(std::move(object));
    }
  }
  return DumpJson(out);
}

}  // namespace

ReportOutcome RenderReport(const RunResults& results, const ReportOptions& options) {
  const ReportData data = ComputeReport(results, options);
  ReportOutcome outcome;
  outcome.regressions = data.total(Rank::kRegression);
  switch (options.format) {
    case OutputFormat::kMarkdown:
      outcome.output = RenderMarkdown(data, options);
      break;
    case OutputFormat::kText:
      outcome.output = RenderText(data);
      break;
    case OutputFormat::kJson:
      outcome.output = RenderJson(data);
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
