// `report` as Markdown: for a pull request or a job summary, bounded by ReportOptions::max_bytes.
#include <algorithm>
#include <string>
#include <vector>

#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/report.h"
#include "core/reports/internal/markdown.h"
#include "core/reports/internal/report_data.h"
#include "core/reports/text_table.h"

namespace bankcheck::internal {
namespace {

// A collapsed section: `body` as preformatted text, then `markdown` as it is. `summary` is HTML.
std::string Details(const std::string& summary, const std::string& body, const std::string& markdown) {
  std::string out = "<details><summary>" + summary + "</summary>\n\n";
  if (!body.empty()) out += markdown::FencedBlock(body);
  if (!markdown.empty()) out += (body.empty() ? "" : "\n") + markdown;
  return out + "</details>\n\n";
}

// Which instructions cost the case its wavefronts: a table per attributed kernel.
std::string InstructionSections(const std::vector<LaunchRecord>& launches) {
  const std::string source_root = SourceRootFromEnvironment();
  std::string out;
  for (const size_t i : LaunchesWithDistinctInstructions(launches)) {
    const LaunchRecord& launch = launches[i];
    out +=
        "Memory instructions by excess wavefronts or sectors (kernel " +
        markdown::Code(ShortenKernelName(launch.kernel, markdown::kMaxInlineBytes)) + ", over " +
        Plural(launch.attributed_launches, "launch", "launches") + "):\n\n" +
        markdown::FencedBlock(FormatInstructionTable(launch.instructions, kInstructionsShown, source_root)) +
        "\n";
  }
  return out;
}

std::string BaselinesLine(const ReportData& data) {
  switch (data.baselines) {
    case ReportData::Baselines::kRun:
      return "Baselines: as compared during the run";
    case ReportData::Baselines::kNoArch:
      return "Baselines: not compared (the results name no GPU architecture; did the run skip?)";
    case ReportData::Baselines::kFolder:
      return "Baselines: compared with " + markdown::Code(data.baselines_folder, markdown::kMaxPathBytes);
    case ReportData::Baselines::kNoFolder:
      return "Baselines: " + markdown::Inline(data.baselines_reason, kMaxReasonBytes);
  }
  return "";
}

// The headline and the totals: always shown, first, and bounded (every field is cut to length).
std::string Head(const ReportData& data) {
  const RunMetadata& meta = data.results->metadata;
  std::string head =
      "## bankcheck: " + (meta.arch.empty() ? std::string("no GPU") : markdown::Inline(meta.arch)) +
      (meta.device.empty() ? "" : " · " + markdown::Inline(meta.device)) + "\n\n";
  std::vector<std::string> facts;
  if (!meta.driver.empty()) facts.push_back("driver " + markdown::Inline(meta.driver));
  if (!meta.cuda_runtime.empty()) facts.push_back("CUDA runtime " + markdown::Inline(meta.cuda_runtime));
  if (!meta.cuda_driver.empty()) facts.push_back("CUDA driver " + markdown::Inline(meta.cuda_driver));
  if (!meta.cuda_compiler.empty()) facts.push_back("built with " + markdown::Inline(meta.cuda_compiler));
  if (!meta.date.empty()) facts.push_back(markdown::Inline(meta.date));
  if (!meta.git_commit.empty()) facts.push_back("commit " + markdown::Code(meta.git_commit));
  for (size_t i = 0; i < facts.size(); ++i) head += (i == 0 ? "" : " · ") + facts[i];
  if (!facts.empty()) head += "  \n";
  head += BaselinesLine(data) + "\n\n";
  const std::string jit = PtxJitWarning(meta.cuda_architectures, meta.arch);
  if (!jit.empty()) head += "> **Warning:** " + markdown::Inline(jit, kMaxReasonBytes) + "\n\n";
  head += Headline(data, "**") + "  \n" + VerdictLine(data, "**") + "\n\n";
  for (const std::string& reason : data.skip_reasons) {
    head += "> Skipped: " + markdown::Inline(reason, kMaxReasonBytes) + "\n";  // one quoted line
  }
  for (const std::string& reason : data.not_evaluated_reasons)
    head += "> Not evaluated: " + markdown::Inline(reason, kMaxReasonBytes) + "\n";
  if (!data.skip_reasons.empty() || !data.not_evaluated_reasons.empty()) head += "\n";
  return head;
}

std::vector<TopicSection> Sections(const ReportData& data) {
  std::vector<TopicSection> sections;
  for (const auto& [first_rank, topic] : data.topic_order) {
    TopicSection& section = sections.emplace_back();
    section.heading = "### " + markdown::Inline(topic) + "\n\n";
    for (const CaseView& view : data.by_topic.at(topic)) {
      const CaseResult& result = *view.result;
      if (section.Collapse(view)) continue;
      Row& row = section.rows.emplace_back();
      row.rank = view.rank;
      row.cells = {markdown::Code(result.name), ExpectedWays(result), Measured(result.launches),
                   VerdictCell(view.verdict),
                   result.status == CaseStatus::kFailed ? StatusCell(result.status) : StatusText(view)};
      const std::string body = DetailsBody(view);
      const std::string instructions = InstructionSections(result.launches);
      if (!body.empty() || !instructions.empty())
        row.details = Details(markdown::Code(result.name) + ": " + DetailsWhat(view), body, instructions);
    }
  }
  return sections;
}

TableRow Header() { return {"case", "expected ways", "measured conflicts", "baseline", "status"}; }

// Marks what fits in `budget` bytes, most urgent first: the rows of regressions and their details,
// then of failures, improvements, changes and missing baselines, then the lines counting the other
// cases. The first part that does not fit ends the choice, so nothing less urgent is shown instead.
void ChooseWhatFits(std::vector<TopicSection>& sections, size_t budget) {
  const TableRow header = Header();
  const std::string empty_table = FormatMarkdownTable(header, {});
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
}

}  // namespace

std::string RenderMarkdown(const ReportData& data, const ReportOptions& options) {
  const std::string head = Head(data);
  std::vector<TopicSection> sections = Sections(data);
  const std::string details_heading = "### Details\n\n";
  const std::string results_file = options.results_path.empty()
                                       ? std::string()
                                       : markdown::Code(options.results_path, markdown::kMaxPathBytes);
  const size_t note_bytes = 512 + results_file.size();  // room for the note on what is not shown
  const size_t fixed = head.size() + note_bytes + details_heading.size();
  ChooseWhatFits(sections, options.max_bytes == 0      ? SIZE_MAX
                           : options.max_bytes > fixed ? options.max_bytes - fixed
                                                       : 0);

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
    if (!rows.empty()) body += FormatMarkdownTable(Header(), rows) + "\n";
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

}  // namespace bankcheck::internal
