#pragma once
// `bankcheck report`: a results file as Markdown for a pull request or a CI job summary.
//
// One table per suite (topic): case, expected ways (ld/st), measured ld and st (conflicts and
// ways), baseline verdict, status. Regressions come first (then failures, improvements, changed
// values, missing baselines); cases that passed unchanged are counted in one line per suite, and
// suites with regressions come before the others. Before -> after tables follow in <details>, with
// the per-instruction table (instruction_counts.h) of each attributed kernel of the case.
//
// Results files can come from a pull request, so nothing in them is written raw: names, topics,
// kernel names, metadata and reasons are one line each, cut to length, with HTML and Markdown
// markup escaped; messages and tables go in code blocks whose fence no line of theirs can close.
// The report stays under ReportOptions::max_bytes (GitHub's job summary holds at most 1 MiB): the
// headline and totals always come first, then as many cases as fit, regressions first, and a line
// saying how many are not shown.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/results.h"

namespace bankcheck {

// The default bound on a report's (and a comparison's) size: under GitHub's 1 MiB step summary.
inline constexpr size_t kMaxReportBytes = 1'000'000;

struct ReportOptions {
  // Compare each case with the baselines in <baselines_dir>/<results' arch>/ instead of using the
  // comparison stored in the results. Error(kBadInput) if a baseline file there is malformed.
  std::optional<std::filesystem::path> baselines_dir;
  // The most bytes the report may take (0: no limit).
  size_t max_bytes = kMaxReportBytes;
  // The results file, named in the line saying how to get the full report when cases are not shown.
  std::string results_path;
};

std::string RenderMarkdownReport(const RunResults& results, const ReportOptions& options = {});

// The positions in `launches` whose per-instruction tables a reader is shown: each launch with
// instructions, but not one whose kernel and table an earlier launch already shows (every
// attributed launch of a kernel holds the kernel's one table).
std::vector<size_t> LaunchesWithDistinctInstructions(const std::vector<LaunchRecord>& launches);

}  // namespace bankcheck
