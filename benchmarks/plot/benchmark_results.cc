// Reading and grouping: Google Benchmark JSON files into BenchmarkResults, and those into the
// numbers the plot draws (ConflictCost). Drawing is conflict_cost_render.cc's.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "bankcheck/core/error.h"
#include "benchmark_plot.h"
#include "core/platform/file_io.h"
#include "core/platform/json_io.h"

namespace bankcheck::benchmarks {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const char kAdvice[] =
    "Expected a benchmark program's output written with --benchmark_format=json or --benchmark_out=FILE.";

// ---- reading ---------------------------------------------------------------------------------------

// Google Benchmark writes non-finite numbers as bare NaN / Infinity (e.g. a coefficient of
// variation of a counter that is always 0), which is not JSON. Each such value becomes null, padded
// with spaces to the same length so that error positions still point into the file as it is.
std::string NullNonFinite(std::string text) {
  for (const char* token : {"NaN", "-NaN", "Infinity", "-Infinity"}) {
    const std::string pattern = std::string("\": ") + token;
    for (size_t at = text.find(pattern); at != std::string::npos; at = text.find(pattern, at + 1)) {
      const size_t end = at + pattern.size();
      if (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != '\n' &&
          text[end] != '\r' && text[end] != ' ')
        continue;
      const size_t length = std::strlen(token) + 1;  // the space before the value, and the value
      text.replace(at + 2, length, "null" + std::string(length - 4, ' '));
    }
  }
  return text;
}

// "shared_stride/4B/s2/manual_time" -> "shared_stride/4B/s2": drops the parts Google Benchmark
// appends (time mode, "min_time:", "repeats:", "threads:", ...).
std::string BaseName(const std::string& run_name) {
  std::string base;
  std::stringstream parts(run_name);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part == "manual_time" || part == "real_time" || part == "process_time" ||
        part.find(':') != std::string::npos)
      continue;
    base += (base.empty() ? "" : "/") + part;
  }
  return base;
}

double SecondsPer(const FieldReader& unit) {
  const std::string name = unit.String();
  if (name == "ns") return 1e-9;
  if (name == "us") return 1e-6;
  if (name == "ms") return 1e-3;
  if (name == "s") return 1;
  unit.FailWith("unknown time unit \"" + name + "\" (expected ns, us, ms or s)");
}

bool IsCounter(const std::string& key) {
  static const std::set<std::string> kStructural = {"family_index", "per_family_instance_index",
                                                    "repetitions",  "repetition_index",
                                                    "threads",      "iterations",
                                                    "real_time",    "cpu_time"};
  return kStructural.count(key) == 0;
}

struct Accumulated {
  BenchmarkResult median;
  bool has_median = false;
  double seconds_sum = 0;
  std::map<std::string, double> counter_sums;
  int runs = 0;
  std::string error;
};

void Accumulate(const FieldReader& entry, std::vector<std::string>& order,
                std::map<std::string, Accumulated>& by_name) {
  entry.RequireObject();
  const std::string name = BaseName(entry.Field(entry.Has("run_name") ? "run_name" : "name").String());
  const bool aggregate = entry.Has("run_type") && entry.Field("run_type").String() == "aggregate";
  if (aggregate && entry.Field("aggregate_name").String() != "median") return;  // mean, stddev, cv: not used
  if (by_name.count(name) == 0) order.push_back(name);
  Accumulated& result = by_name[name];
  for (const char* flag : {"error_occurred", "skipped"}) {
    if (entry.Has(flag) && entry.json().at(flag) == true) {
      const char* message = std::strcmp(flag, "skipped") == 0 ? "skip_message" : "error_message";
      result.error = entry.Has(message) ? entry.Field(message).String() : flag;
      return;
    }
  }
  BenchmarkResult run;
  run.name = name;
  // Numbers beyond kMaxBenchmarkValue (benchmark_plot.h) are refused: no measurement is that large, and
  // scales drawn to them would mean nothing.
  run.seconds =
      entry.Field("real_time").NumberIn(0, kMaxBenchmarkValue) * SecondsPer(entry.Field("time_unit"));
  for (const auto& item : entry.json().items())
    if (item.value().is_number() && IsCounter(item.key()))
      run.counters[item.key()] = entry.Field(item.key()).NumberIn(-kMaxBenchmarkValue, kMaxBenchmarkValue);
  if (aggregate) {
    result.median = std::move(run);
    result.has_median = true;
    return;
  }
  result.seconds_sum += run.seconds;
  for (const auto& [key, value] : run.counters) result.counter_sums[key] += value;
  ++result.runs;
}

// ---- summarizing -----------------------------------------------------------------------------------

std::vector<std::string> Split(const std::string& name) {
  std::vector<std::string> parts;
  std::stringstream stream(name);
  for (std::string part; std::getline(stream, part, '/');) parts.push_back(part);
  return parts;
}

double CounterOr(const BenchmarkResult& result, const char* name, double fallback) {
  const auto found = result.counters.find(name);
  return found == result.counters.end() ? fallback : found->second;
}

}  // namespace

int VariantRank(const std::string& variant) {
  static const char* const kKnown[] = {"copy", "unpadded", "padded", "swizzled"};
  for (int i = 0; i < 4; ++i)
    if (variant == kKnown[i]) return i;
  return 4;
}

std::vector<BenchmarkResult> ParseBenchmarkResults(const std::string& text,
                                                   const std::filesystem::path& origin) {
  const nlohmann::json document = ParseJsonText(NullNonFinite(text), origin, kAdvice);
  const FieldReader root(document, origin.string(), kAdvice);
  const FieldReader list = root.Field("benchmarks");
  list.RequireArray();
  if (list.json().size() > kMaxBenchmarkEntries) {
    list.FailWith("holds " + std::to_string(list.json().size()) + " entries, more than the " +
                  std::to_string(kMaxBenchmarkEntries) +
                  " bankcheck_benchmark_plot reads (benchmark_plot.h)");
  }
  std::vector<std::string> order;
  std::map<std::string, Accumulated> by_name;
  for (size_t i = 0; i < list.json().size(); ++i) Accumulate(list.Element(i), order, by_name);

  std::vector<BenchmarkResult> results;
  for (const std::string& name : order) {
    Accumulated& a = by_name[name];
    BenchmarkResult result;
    if (a.has_median) {
      result = a.median;
    } else if (a.runs > 0) {
      result.name = name;
      result.seconds = a.seconds_sum / a.runs;
      for (const auto& [key, sum] : a.counter_sums) result.counters[key] = sum / a.runs;
    } else {
      result.name = name;
      result.seconds = kNaN;
      result.error = a.error.empty() ? "no runs" : a.error;
    }
    results.push_back(std::move(result));
  }
  return results;
}

std::vector<BenchmarkResult> ReadBenchmarkResults(const std::vector<std::filesystem::path>& files) {
  std::vector<BenchmarkResult> merged;
  std::map<std::string, size_t> index_of_name;
  for (const std::filesystem::path& file : files) {
    for (BenchmarkResult& result : ParseBenchmarkResults(ReadTextFile(file, kAdvice), file)) {
      const auto [found, inserted] = index_of_name.emplace(result.name, merged.size());
      if (inserted) {
        merged.push_back(std::move(result));
      } else {
        merged[found->second] = std::move(result);
      }
    }
  }
  return merged;
}

ConflictCost SummarizeConflictCost(const std::vector<BenchmarkResult>& results) {
  ConflictCost cost;
  std::map<std::string, double> copy_gbps;
  std::map<std::string, size_t> transpose_size_index;  // by first appearance
  std::map<std::string, size_t> puzzle_row;
  for (const BenchmarkResult& r : results) {
    if (!r.error.empty()) continue;
    const std::vector<std::string> parts = Split(r.name);
    if (parts.size() < 3) continue;
    if (parts[0] == "shared_stride" && r.counters.count("elem_bytes") && r.counters.count("stride")) {
      StridePoint p;
      p.elem_bytes = static_cast<int>(CounterOr(r, "elem_bytes", 0));
      p.stride = static_cast<int>(CounterOr(r, "stride", 0));
      p.seconds = r.seconds;
      p.ways = CounterOr(r, "ld_ways", kNaN);
      cost.strides.push_back(p);
    } else if (parts[0] == "transpose") {
      TransposeBar b;
      b.variant = parts[1];
      b.size = parts[2];
      b.seconds = r.seconds;
      b.gbps = CounterOr(r, "GB/s", CounterOr(r, "bytes_per_second", kNaN) / 1e9);
      b.pct_of_copy = CounterOr(r, "pct_of_copy", kNaN);
      if (b.variant == "copy") copy_gbps[b.size] = b.gbps;
      transpose_size_index.emplace(b.size, transpose_size_index.size());
      cost.transposes.push_back(b);
    } else if (parts[0] == "puzzle") {
      const auto [found, inserted] = puzzle_row.emplace(parts[2], cost.puzzles.size());
      if (inserted) cost.puzzles.push_back({parts[2], kNaN, kNaN, kNaN});
      PuzzleRow* row = &cost.puzzles[found->second];
      if (parts[1] == "no_conflict") row->no_conflict_seconds = r.seconds;
      if (parts[1] == "two_way") {
        row->two_way_seconds = r.seconds;
        row->two_way_conflicts = CounterOr(r, "ld_conflicts", kNaN) + CounterOr(r, "st_conflicts", kNaN);
      }
    }
  }

  std::map<int, double> stride1;
  for (const StridePoint& p : cost.strides)
    if (p.stride == 1) stride1[p.elem_bytes] = p.seconds;
  for (StridePoint& p : cost.strides) {
    const auto found = stride1.find(p.elem_bytes);
    p.relative = found == stride1.end() ? kNaN : p.seconds / found->second;
  }
  std::stable_sort(cost.strides.begin(), cost.strides.end(), [](const StridePoint& a, const StridePoint& b) {
    return std::make_pair(a.elem_bytes, a.stride) < std::make_pair(b.elem_bytes, b.stride);
  });

  for (TransposeBar& b : cost.transposes) {
    const auto found = copy_gbps.find(b.size);
    if (found != copy_gbps.end() && std::isfinite(found->second) && found->second > 0)
      b.pct_of_copy = 100.0 * b.gbps / found->second;
  }
  const auto size_index = [&](const std::string& size) { return transpose_size_index.at(size); };
  std::stable_sort(cost.transposes.begin(), cost.transposes.end(),
                   [&](const TransposeBar& a, const TransposeBar& b) {
                     return std::make_tuple(size_index(a.size), VariantRank(a.variant), a.variant) <
                            std::make_tuple(size_index(b.size), VariantRank(b.variant), b.variant);
                   });
  return cost;
}

}  // namespace bankcheck::benchmarks
