#pragma once
// `bankcheck report`: a results file as Markdown for a pull request or a CI job summary.
//
// One table per suite (topic): case, expected ways (ld/st), measured ld and st (conflicts and
// ways), baseline verdict, status. Regressions come first (then failures, improvements, changed
// values, missing baselines); cases that passed unchanged are counted in one line per suite, and
// suites with regressions come before the others. Before -> after tables follow in <details>, with
// the per-instruction table (instruction_counts.h) of each attributed kernel of the case.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/results.h"

namespace bankcheck {

struct ReportOptions {
  // Compare each case with the baselines in <baselines_dir>/<results' arch>/ instead of using the
  // comparison stored in the results. Error(kBadInput) if a baseline file there is malformed.
  std::optional<std::filesystem::path> baselines_dir;
};

std::string RenderMarkdownReport(const RunResults& results, const ReportOptions& options = {});

// The positions in `launches` whose per-instruction tables a reader is shown: each launch with
// instructions, but not one whose kernel and table an earlier launch already shows (every
// attributed launch of a kernel holds the kernel's one table).
std::vector<size_t> LaunchesWithDistinctInstructions(const std::vector<LaunchRecord>& launches);

}  // namespace bankcheck
