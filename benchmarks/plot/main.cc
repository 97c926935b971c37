// bankcheck_benchmark_plot BENCHMARK_JSON... -o FILE.svg: what bank conflicts cost in time, drawn
// from the JSON output of this repository's benchmark programs (benchmarks/run_benchmarks.sh runs
// them and this): one SVG, and the same numbers as plain-text tables on stdout. It reads only the
// benchmark names of benchmarks/ (shared_stride/, transpose/, puzzle/), so it is not part of the
// installed `bankcheck` command.
//
// Exit codes, as the `bankcheck` command's: 0 success; 1 any other failure; 2 bad input (an unknown
// option, a missing -o, a file that is not benchmark JSON or holds numbers beyond the limits).

#include <CLI/CLI.hpp>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "benchmark_plot.h"
#include "core/platform/file_io.h"

namespace {

constexpr int kExitSuccess = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;
constexpr char kProgram[] = "bankcheck_benchmark_plot";

void Plot(const std::vector<std::string>& inputs, const std::string& output) {
  using namespace bankcheck::benchmarks;
  const std::vector<std::filesystem::path> files(inputs.begin(), inputs.end());
  const std::vector<BenchmarkResult> results = ReadBenchmarkResults(files);
  for (const BenchmarkResult& result : results) {
    if (!result.error.empty())
      std::cerr << kProgram << ": warning: " << result.name << " has no result: " << result.error << "\n";
  }
  const ConflictCost cost = SummarizeConflictCost(results);
  if (cost.strides.empty() && cost.transposes.empty() && cost.puzzles.empty()) {
    throw bankcheck::Error(bankcheck::ErrorKind::kBadInput,
                           "no shared_stride/, transpose/ or puzzle/ benchmarks in the input; give the JSON "
                           "output of shared_stride_benchmark, transpose_benchmark or puzzle_benchmark");
  }
  bankcheck::WriteFileAtomically(output, RenderConflictCostSvg(cost));
  std::cout << FormatConflictCostTables(cost) << "\nwrote " << output << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Draw what bank conflicts cost in time (an SVG, and tables on stdout) from the JSON of "
      "bankcheck's benchmark programs (benchmarks/).",
      kProgram};
  std::vector<std::string> inputs;
  std::string output;
  app.add_option("BENCHMARK_JSON", inputs, "Google Benchmark JSON files (a later file wins for a name)")
      ->required();
  app.add_option("-o,--output", output, "The SVG file to write (replaced atomically)")->required();

  try {
    app.parse(argc, argv);
    Plot(inputs, output);
  } catch (const CLI::ParseError& e) {
    // Prints help for --help (status 0), or the parse error and a pointer to --help.
    return app.exit(e) == 0 ? kExitSuccess : kExitBadInput;
  } catch (const bankcheck::Error& e) {
    std::cerr << kProgram << ": error: " << e.what() << "\n";
    return e.kind() == bankcheck::ErrorKind::kBadInput ? kExitBadInput : kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << kProgram << ": error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitSuccess;
}
