#pragma once
// bankcheck_benchmark_plot's model: the Google Benchmark JSON results of the programs in benchmarks/ turned
// into what bank conflicts cost in time, as a text table and as one SVG with two panels:
//   1. shared_stride/<n>B/s<stride>: time relative to stride 1 (per element size) against the
//      measured ways (the ld_ways counter), with the ideal line time = ways;
//   2. transpose/<variant>/<size>: bandwidth (the GB/s counter) as a percent of the
//      transpose/copy/<size> run of the same size (or, without one, the pct_of_copy counter).
// puzzle/<variant>/<elements> runs are tabulated (two_way time / no_conflict time), not drawn.
// benchmark_results.cc reads and groups; conflict_cost_render.cc draws the tables and the SVG.

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace bankcheck::benchmarks {

// Entries ("benchmarks") of one Google Benchmark output file that the plot reads.
inline constexpr size_t kMaxBenchmarkEntries = 100'000;

// The largest magnitude of a number the plot accepts (times, GB/s, ways, counters): above any real
// measurement, and small enough that scales and ticks stay meaningful.
inline constexpr double kMaxBenchmarkValue = 1e18;

// One benchmark of a results file: its median where the file has aggregates over repetitions,
// else the mean of its runs.
struct BenchmarkResult {
  std::string name;    // run_name without Google Benchmark's suffixes: "shared_stride/4B/s2"
  double seconds = 0;  // real (or manual) time per iteration
  std::map<std::string, double> counters;  // every other numeric field (user counters, bytes_per_second)
  std::string error;                       // the error message of a benchmark that was skipped with an error
};

// Parses the text of one file written with --benchmark_format=json or --benchmark_out=FILE.
// Error(kBadInput) names `origin` and, for a syntax error, the line and column.
std::vector<BenchmarkResult> ParseBenchmarkResults(const std::string& text,
                                                   const std::filesystem::path& origin);

// Reads and merges files; a benchmark in several files keeps the last file's result.
std::vector<BenchmarkResult> ReadBenchmarkResults(const std::vector<std::filesystem::path>& files);

struct StridePoint {
  int elem_bytes = 0;
  int stride = 0;
  double seconds = 0;
  double ways = 0;      // measured load ways
  double relative = 0;  // seconds / seconds at stride 1 for the same element size; NaN without one
};

struct TransposeBar {
  std::string size;     // "4096x4096"
  std::string variant;  // "copy", "unpadded", "padded", "swizzled", ...
  double seconds = 0;
  double gbps = 0;
  double pct_of_copy = 0;  // NaN when neither a copy run nor a pct_of_copy counter is there
};

struct PuzzleRow {
  std::string elements;
  double no_conflict_seconds = 0;  // NaN when missing
  double two_way_seconds = 0;      // NaN when missing
  double two_way_conflicts = 0;    // loads + stores, per launch
};

struct ConflictCost {
  std::vector<StridePoint> strides;      // by element size, then stride
  std::vector<TransposeBar> transposes;  // by size (as first seen), then copy, unpadded, padded, swizzled
  std::vector<PuzzleRow> puzzles;        // as first seen
};

ConflictCost SummarizeConflictCost(const std::vector<BenchmarkResult>& results);

// The order of transpose variants, in the tables and the SVG: copy, unpadded, padded, swizzled (0 to
// 3), then any other (4).
int VariantRank(const std::string& variant);

// Plain-text tables of the numbers the SVG draws.
std::string FormatConflictCostTables(const ConflictCost& cost);

// One self-contained SVG document.
std::string RenderConflictCostSvg(const ConflictCost& cost);

}  // namespace bankcheck::benchmarks
