// How long bankcheck takes on inputs crafted to be slow (docs/security.md, "Linear work"): each
// must take time about proportional to its size. Before the fixes these took (on the review's
// machine): "[{},{},...]" of 320,000 objects 20 s; a 4 MB source of `R""` lines 23.7 s; 8,000
// annotations written into one source 18 s; a 64 MiB results file about a day. No GPU needed:
//   build/benchmarks/hostile_input_benchmark
// benchmarks/hostile_inputs.sh times the same through the `bankcheck` command line.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"
#include "bankcheck/core/line_annotations.h"
#include "bankcheck/core/results.h"
#include "core/annotations/annotation_edit.h"
#include "core/platform/json_io.h"

namespace {

// "[{},{},...]" of `objects` objects: refused after kMaxJsonElements of them.
void BM_ParseManyEmptyObjects(benchmark::State& state) {
  std::string text = "[";
  for (int64_t i = 0; i < state.range(0); ++i) text += i == 0 ? "{}" : ",{}";
  text += "]";
  for (auto _ : state) {
    try {
      benchmark::DoNotOptimize(bankcheck::ParseJsonText(text, "objects.json", ""));
    } catch (const bankcheck::Error&) {
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseManyEmptyObjects)->Arg(80'000)->Arg(320'000)->Unit(benchmark::kMillisecond);

// A results file of the largest size read (64 MiB), every container within kMaxJsonElements:
// arrays of 150,000 empty objects in one case's messages, read as far as the reader goes.
void BM_ParseResults64MiB(benchmark::State& state) {
  std::string text =
      R"({"format":"bankcheck-results","version":1,"metadata":{"arch":"","device":"",)"
      R"("driver":"","cuda_runtime":"","cuda_driver":"","date":"","git_commit":""},"cases":{"t/a":)"
      R"({"description":"","status":"passed","expected":{},"baseline":"not_compared",)"
      R"("baseline_table":"","launches":[],"messages":[)";
  std::string inner = "[";
  for (int i = 0; i < 150'000; ++i) inner += i == 0 ? "{}" : ",{}";
  inner += "]";
  for (bool first = true; text.size() + inner.size() + 8 < bankcheck::kMaxInputFileBytes; first = false)
    text += (first ? "" : ",") + inner;
  text += "]}}}";
  for (auto _ : state) {
    try {
      benchmark::DoNotOptimize(bankcheck::ParseResults(text, "big.json"));
    } catch (const bankcheck::Error&) {
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseResults64MiB)->Unit(benchmark::kMillisecond)->Iterations(1);

// A source of `lines` lines of `R""`: a raw string prefix with no '(' after it.
void BM_ScanRawStringPrefixes(benchmark::State& state) {
  std::string text;
  for (int64_t i = 0; i < state.range(0); ++i) text += "R\"\"\n";
  for (auto _ : state) benchmark::DoNotOptimize(bankcheck::ScanLineAnnotations(text, "raw.cu"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ScanRawStringPrefixes)->Arg(250'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// `edits` annotations written into a source of as many lines, half appended, half above a line
// that ends in a comment.
void BM_ApplyManyAnnotationEdits(benchmark::State& state) {
  std::string text;
  std::vector<bankcheck::AnnotationEdit> edits;
  for (uint32_t line = 1; line <= static_cast<uint32_t>(state.range(0)); ++line)
    text += line % 2 == 0 ? "  x = t[i];  // a comment\n" : "  y = t[j];\n";
  for (uint32_t line = 1; line <= static_cast<uint32_t>(state.range(0)); ++line)
    edits.push_back({line, "bankcheck: 2-way", false});
  for (auto _ : state) benchmark::DoNotOptimize(bankcheck::ApplyAnnotationEdits(text, "many.cu", edits));
}
BENCHMARK(BM_ApplyManyAnnotationEdits)->Arg(8'000)->Arg(32'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
