// `bankcheck plot`: what bank conflicts cost in time, drawn from the JSON output of the benchmark
// programs in benchmarks/ (benchmarks/run_benchmarks.sh runs them and this): one SVG, and the same
// numbers as plain-text tables on stdout.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/error.h"
#include "benchmark_plot.h"
#include "commands.h"
#include "core/internal/file_io.h"

namespace bankcheck::cli {

void AddPlotCommands(CLI::App& app) {
  struct Options {
    std::vector<std::string> inputs;
    std::string output;
  };
  auto options = std::make_shared<Options>();
  CLI::App* plot = app.add_subcommand("plot",
                                      "Draw what bank conflicts cost in time (an SVG, and tables on stdout) "
                                      "from the benchmark programs' JSON");
  plot->add_option("BENCHMARK_JSON", options->inputs,
                   "Google Benchmark JSON files (a later file wins for a name)")
      ->required();
  plot->add_option("-o,--output", options->output, "The SVG file to write (replaced atomically)")->required();
  plot->callback([options] {
    const std::vector<std::filesystem::path> files(options->inputs.begin(), options->inputs.end());
    const std::vector<BenchmarkResult> results = ReadBenchmarkResults(files);
    for (const BenchmarkResult& result : results) {
      if (!result.error.empty())
        std::cerr << "bankcheck plot: warning: " << result.name << " has no result: " << result.error << "\n";
    }
    const ConflictCost cost = SummarizeConflictCost(results);
    if (cost.strides.empty() && cost.transposes.empty() && cost.puzzles.empty()) {
      throw Error(ErrorKind::kBadInput,
                  "no shared_stride/, transpose/ or puzzle/ benchmarks in the input; give the JSON output of "
                  "shared_stride_benchmark, transpose_benchmark or puzzle_benchmark");
    }
    WriteFileAtomically(options->output, RenderConflictCostSvg(cost));
    std::cout << FormatConflictCostTables(cost) << "\nwrote " << options->output << "\n";
  });
}

}  // namespace bankcheck::cli
