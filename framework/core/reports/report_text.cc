// `report` as plain text for a terminal.
#include <string>
#include <vector>

#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/report.h"
#include "core/reports/internal/markdown.h"
#include "core/reports/internal/report_data.h"
#include "core/reports/text_table.h"

namespace bankcheck::internal {

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
  if (!meta.cuda_compiler.empty()) facts.push_back("built with " + PlainLine(meta.cuda_compiler));
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
  const std::string jit = PtxJitWarning(meta.cuda_architectures, meta.arch);
  if (!jit.empty()) out += "Warning: " + PlainLine(jit, kMaxReasonBytes) + "\n";
  out += "\n" + Headline(data, "") + "\n" + VerdictLine(data, "") + "\n";
  for (const std::string& reason : data.skip_reasons)
    out += "Skipped: " + PlainLine(reason, kMaxReasonBytes) + "\n";
  for (const std::string& reason : data.not_evaluated_reasons)
    out += "Not evaluated: " + PlainLine(reason, kMaxReasonBytes) + "\n";
  if (data.results->cases.empty()) out += "\nNo cases in these results.\n";

  const TableRow header = {"case", "expected ways", "measured conflicts", "baseline", "status"};
  std::string details;
  for (const auto& [first_rank, topic] : data.topic_order) {
    TopicSection section;
    std::vector<TableRow> rows;
    for (const CaseView& view : data.by_topic.at(topic)) {
      const CaseResult& result = *view.result;
      if (section.Collapse(view)) continue;
      rows.push_back({PlainLine(result.name), ExpectedWays(result), Measured(result.launches),
                      view.verdict ? BaselineVerdictName(*view.verdict) : "—", StatusText(view)});
      const std::string body = DetailsBody(view);
      std::string instructions;
      for (const size_t i : LaunchesWithDistinctInstructions(result.launches)) {
        const LaunchRecord& launch = result.launches[i];
        instructions += "Memory instructions by excess wavefronts or sectors (kernel " +
                        PlainLine(ShortenKernelName(launch.kernel, markdown::kMaxInlineBytes)) + ", over " +
                        Plural(launch.attributed_launches, "launch", "launches") + "):\n" +
                        PlainBlock(FormatInstructionTable(launch.instructions, kInstructionsShown,
                                                          SourceRootFromEnvironment()));
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

}  // namespace bankcheck::internal
