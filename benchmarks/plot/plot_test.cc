// bankcheck_benchmark_plot: a small fake Google Benchmark JSON through the model (medians, suffixes,
// units, ratios, percent of the copy), the SVG (well-formed, labelled), and the program as
// run_benchmarks.sh runs it (exit codes, the file written atomically, bad JSON reported with the
// file and position).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "benchmark_plot.h"
#include "core/platform/test_support.h"

#ifndef BANKCHECK_BENCHMARK_PLOT_PATH
#error "BANKCHECK_BENCHMARK_PLOT_PATH must name the bankcheck_benchmark_plot program"
#endif

namespace bankcheck::benchmarks {
namespace {

using testing_support::CliRun;
using testing_support::Quoted;
using testing_support::ReadFile;

using ::testing::AllOf;
using ::testing::DoubleNear;
using ::testing::HasSubstr;
using ::testing::Not;

// One entry as Google Benchmark's JSON reporter writes it (manual time, microseconds).
std::string Entry(const std::string& name, const std::string& aggregate, double real_time_us,
                  const std::string& counters) {
  std::ostringstream out;
  out << "    {\n      \"name\": \"" << name << "/manual_time" << (aggregate.empty() ? "" : "_" + aggregate)
      << "\",\n      \"family_index\": 0,\n      \"per_family_instance_index\": 0,\n      \"run_name\": \""
      << name << "/manual_time\",\n      \"run_type\": \"" << (aggregate.empty() ? "iteration" : "aggregate")
      << "\",\n      \"repetitions\": 3,\n      \"threads\": 1,\n";
  if (!aggregate.empty()) out << "      \"aggregate_name\": \"" << aggregate << "\",\n";
  out << "      \"iterations\": 10,\n      \"real_time\": " << real_time_us
      << ",\n      \"cpu_time\": 5.0e+00,\n"
      << "      \"time_unit\": \"us\"" << counters << "\n    }";
  return out.str();
}

// The median and the mean of a benchmark; `cv_nan` adds a cv aggregate with a bare NaN, as Google
// Benchmark writes for a counter that is always 0.
std::string Aggregates(const std::string& name, double median_us, const std::string& counters,
                       bool cv_nan = false) {
  std::string text =
      Entry(name, "mean", median_us * 1.5, counters) + ",\n" + Entry(name, "median", median_us, counters);
  if (cv_nan) text += ",\n" + Entry(name, "cv", 0.01, ",\n      \"st_conflicts\": NaN");
  return text;
}

std::string Stride(int bytes, int stride, double ways) {
  return ",\n      \"elem_bytes\": " + std::to_string(bytes) +
         ",\n      \"stride\": " + std::to_string(stride) + ",\n      \"ld_ways\": " + std::to_string(ways) +
         ",\n      \"st_conflicts\": 0";
}

std::string Transpose(double gbps, double pct) {
  return ",\n      \"GB/s\": " + std::to_string(gbps) + ",\n      \"pct_of_copy\": " + std::to_string(pct);
}

std::string Document(const std::vector<std::string>& entries) {
  std::string text =
      "{\n  \"context\": {\n    \"date\": \"2025-01-01T00:00:00+00:00\",\n    \"num_cpus\": 16\n  },\n"
      "  \"benchmarks\": [\n";
  for (size_t i = 0; i < entries.size(); ++i) text += entries[i] + (i + 1 < entries.size() ? ",\n" : "\n");
  return text + "  ]\n}\n";
}

std::string FakeResults() {
  return Document({
      Aggregates("shared_stride/4B/s1", 100, Stride(4, 1, 1), true),
      Aggregates("shared_stride/4B/s2", 200, Stride(4, 2, 2)),
      Aggregates("shared_stride/4B/s32", 3100, Stride(4, 32, 32)),
      Aggregates("shared_stride/4B/s33", 101, Stride(4, 33, 1)),
      Aggregates("shared_stride/8B/s1", 150, Stride(8, 1, 1)),
      Aggregates("shared_stride/8B/s2", 300, Stride(8, 2, 2)),
      Aggregates("transpose/copy/4096x4096", 40, Transpose(3000, 101)),
      Aggregates("transpose/unpadded/4096x4096", 80, Transpose(1500, 49)),
      Aggregates("transpose/padded/4096x4096", 44, Transpose(2700, 88)),
      Aggregates("puzzle/no_conflict/67108864", 200,
                 ",\n      \"ld_conflicts\": 0,\n      \"st_conflicts\": 0"),
      Aggregates("puzzle/two_way/67108864", 202,
                 ",\n      \"ld_conflicts\": 1048576,\n      \"st_conflicts\": 1048576"),
  });
}

const StridePoint& FindStride(const ConflictCost& cost, int bytes, int stride) {
  for (const StridePoint& p : cost.strides)
    if (p.elem_bytes == bytes && p.stride == stride) return p;
  throw std::runtime_error("no stride point " + std::to_string(bytes) + "B/s" + std::to_string(stride));
}

const TransposeBar& FindBar(const ConflictCost& cost, const std::string& variant) {
  for (const TransposeBar& b : cost.transposes)
    if (b.variant == variant) return b;
  throw std::runtime_error("no transpose bar " + variant);
}

TEST(BenchmarkPlotTest, ReadsMediansWithoutSuffixesInSeconds) {
  const std::vector<BenchmarkResult> results = ParseBenchmarkResults(FakeResults(), "fake.json");
  ASSERT_EQ(results.size(), 11u);
  EXPECT_EQ(results[1].name, "shared_stride/4B/s2");
  EXPECT_DOUBLE_EQ(results[1].seconds, 200e-6);  // the median, not the mean (300 us)
  EXPECT_DOUBLE_EQ(results[1].counters.at("ld_ways"), 2.0);
  EXPECT_EQ(results[1].counters.count("iterations"), 0u);
  EXPECT_TRUE(results[1].error.empty());
}

TEST(BenchmarkPlotTest, AveragesRunsWithoutAggregates) {
  const std::string text = Document({Entry("shared_stride/4B/s1", "", 90, Stride(4, 1, 1)),
                                     Entry("shared_stride/4B/s1", "", 110, Stride(4, 1, 1))});
  const std::vector<BenchmarkResult> results = ParseBenchmarkResults(text, "runs.json");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_DOUBLE_EQ(results[0].seconds, 100e-6);
  EXPECT_DOUBLE_EQ(results[0].counters.at("stride"), 1.0);
}

TEST(BenchmarkPlotTest, ComputesRatiosAndPercentOfCopy) {
  const ConflictCost cost = SummarizeConflictCost(ParseBenchmarkResults(FakeResults(), "fake.json"));
  ASSERT_EQ(cost.strides.size(), 6u);
  EXPECT_DOUBLE_EQ(FindStride(cost, 4, 1).relative, 1.0);
  EXPECT_DOUBLE_EQ(FindStride(cost, 4, 2).relative, 2.0);
  EXPECT_DOUBLE_EQ(FindStride(cost, 4, 32).relative, 31.0);
  EXPECT_DOUBLE_EQ(FindStride(cost, 4, 33).relative, 1.01);
  EXPECT_DOUBLE_EQ(FindStride(cost, 8, 2).relative, 2.0);  // relative to the 8-byte stride 1
  EXPECT_DOUBLE_EQ(FindStride(cost, 4, 32).ways, 32.0);

  // Against the copy run of the same size in the file, not the programs' own pct_of_copy counter.
  ASSERT_EQ(cost.transposes.size(), 3u);
  EXPECT_EQ(cost.transposes[0].variant, "copy");
  EXPECT_DOUBLE_EQ(FindBar(cost, "copy").pct_of_copy, 100.0);
  EXPECT_DOUBLE_EQ(FindBar(cost, "unpadded").pct_of_copy, 50.0);
  EXPECT_DOUBLE_EQ(FindBar(cost, "padded").pct_of_copy, 90.0);

  ASSERT_EQ(cost.puzzles.size(), 1u);
  EXPECT_THAT(cost.puzzles[0].two_way_seconds / cost.puzzles[0].no_conflict_seconds, DoubleNear(1.01, 1e-12));
  EXPECT_DOUBLE_EQ(cost.puzzles[0].two_way_conflicts, 2097152.0);
}

TEST(BenchmarkPlotTest, WithoutStrideOneTheRatioIsUnknown) {
  const ConflictCost cost = SummarizeConflictCost(
      ParseBenchmarkResults(Document({Aggregates("shared_stride/4B/s2", 200, Stride(4, 2, 2))}), "x.json"));
  ASSERT_EQ(cost.strides.size(), 1u);
  EXPECT_TRUE(std::isnan(cost.strides[0].relative));
  EXPECT_THAT(FormatConflictCostTables(cost), HasSubstr("-"));
}

TEST(BenchmarkPlotTest, TablesHoldTheNumbers) {
  const std::string tables =
      FormatConflictCostTables(SummarizeConflictCost(ParseBenchmarkResults(FakeResults(), "f")));
  EXPECT_THAT(tables, AllOf(HasSubstr("2.00x"), HasSubstr("31.00x"), HasSubstr("1.01x"), HasSubstr("3100.0"),
                            HasSubstr("1500.0"), HasSubstr("50.0%"), HasSubstr("90.0%"), HasSubstr("100.0%"),
                            HasSubstr("1.010x"), HasSubstr("2097152")));
}

// A minimal well-formedness check: every tag closed in order, attributes quoted, one root, and no
// bare '&' or '<' in text.
::testing::AssertionResult WellFormedXml(const std::string& xml) {
  std::vector<std::string> open;
  int roots = 0;
  for (size_t i = 0; i < xml.size();) {
    if (xml[i] != '<') {
      if (xml[i] == '&') {
        const size_t semicolon = xml.find(';', i);
        const std::string entity = xml.substr(i, semicolon == std::string::npos ? 1 : semicolon - i + 1);
        if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" &&
            entity != "&apos;")
          return ::testing::AssertionFailure() << "bare & at " << i;
      }
      ++i;
      continue;
    }
    if (xml.compare(i, 2, "<?") == 0) {
      i = xml.find("?>", i) + 2;
      continue;
    }
    const size_t end = xml.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag at " << i;
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (!tag.empty() && tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1))
        return ::testing::AssertionFailure()
               << "</" << tag.substr(1) << "> does not close <" << (open.empty() ? "" : open.back()) << ">";
      open.pop_back();
      continue;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    const std::string name = tag.substr(0, tag.find(' '));
    if (name.empty() || tag.find('<') != std::string::npos)
      return ::testing::AssertionFailure() << "bad tag <" << tag << ">";
    // Attributes: name="value" pairs only.
    size_t quotes = 0;
    for (const char c : tag) quotes += c == '"';
    if (quotes % 2 != 0) return ::testing::AssertionFailure() << "unbalanced quotes in <" << tag << ">";
    if (open.empty()) ++roots;
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

TEST(BenchmarkPlotTest, SvgIsWellFormedAndLabelled) {
  const std::string svg =
      RenderConflictCostSvg(SummarizeConflictCost(ParseBenchmarkResults(FakeResults(), "f")));
  EXPECT_TRUE(WellFormedXml(svg));
  EXPECT_THAT(svg, AllOf(HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""), HasSubstr("4-byte elements"),
                         HasSubstr("8-byte elements"), HasSubstr("ideal: time = ways"),
                         HasSubstr("measured ways (load wavefronts / ideal), log scale"),
                         HasSubstr("time relative to stride 1"), HasSubstr("copy (ceiling)"),
                         HasSubstr(">unpadded<"), HasSubstr(">padded<"), HasSubstr(">4096x4096<"),
                         HasSubstr(">50%<"), HasSubstr(">90%<"), HasSubstr(">32<")));
  EXPECT_THAT(svg, Not(HasSubstr("nan")));
}

TEST(BenchmarkPlotTest, SvgWithoutDataSaysSo) {
  const std::string svg = RenderConflictCostSvg(ConflictCost{});
  EXPECT_TRUE(WellFormedXml(svg));
  EXPECT_THAT(svg, AllOf(HasSubstr("no shared_stride results"), HasSubstr("no transpose results")));
}

TEST(BenchmarkPlotTest, NamesAreEscapedInTheSvg) {
  const std::string text = Document({Aggregates("transpose/copy/4096x4096", 40, Transpose(3000, 100)),
                                     Aggregates("transpose/a<b&c/4096x4096", 80, Transpose(1500, 50))});
  const std::string svg = RenderConflictCostSvg(SummarizeConflictCost(ParseBenchmarkResults(text, "f")));
  EXPECT_TRUE(WellFormedXml(svg));
  EXPECT_THAT(svg, HasSubstr("a&lt;b&amp;c"));
}

TEST(BenchmarkPlotTest, BadJsonNamesTheFileAndPosition) {
  try {
    ParseBenchmarkResults("{\n  \"benchmarks\": [\n    {\"name\": oops}\n  ]\n}\n", "results/bad.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr("results/bad.json:3:14"));
  }
}

TEST(BenchmarkPlotTest, NonFiniteNumbersAreReadAsMissingAndKeepErrorPositions) {
  // Google Benchmark writes NaN and Infinity bare; they become null without moving later columns.
  const std::vector<BenchmarkResult> results = ParseBenchmarkResults(
      Document({Entry("shared_stride/4B/s1", "", 100, ",\n      \"a\": NaN,\n      \"b\": -Infinity")}),
      "nan.json");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].counters.count("a"), 0u);
  EXPECT_EQ(results[0].counters.count("b"), 0u);
  try {
    ParseBenchmarkResults("{\"benchmarks\": [{\"a\": NaN, \"b\": -Infinity, oops}]}", "bad.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.json:1:44"));
  }
}

TEST(BenchmarkPlotTest, AbsurdNumbersAreRefusedNamingTheField) {
  // "GB/s": 1e300 drew ticks 50 apart up to 1e300 (an endless loop); 1e20 wrote more than 1 GB.
  for (const std::string value : {"1e300", "1e20", "-1e19"}) {
    SCOPED_TRACE(value);
    const std::string text =
        Document({Aggregates("transpose/copy/4096x4096", 40, ",\n      \"GB/s\": " + value)});
    try {
      ParseBenchmarkResults(text, "huge.json");
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      EXPECT_THAT(e.what(),
                  AllOf(HasSubstr("huge.json"), HasSubstr("GB/s"), HasSubstr("from -1e+18 to 1e+18")));
    }
  }
  try {
    ParseBenchmarkResults(Document({Entry("shared_stride/4B/s1", "", 1e300, "")}), "slow.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                AllOf(HasSubstr("slow.json"), HasSubstr("real_time"), HasSubstr("from 0 to 1e+18")));
  }
  try {
    ParseBenchmarkResults("{\"benchmarks\": [{\"real_time\": 1e400}]}", "overflow.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("overflow.json"), HasSubstr("invalid JSON")));
  }
}

TEST(BenchmarkPlotTest, HugeValuesDrawBoundedAxes) {
  // Values the reader would refuse, drawn anyway: the axes get a bounded number of ticks.
  ConflictCost cost;
  for (const double value : {1e300, 1e20, 3e5}) {
    cost.transposes.push_back({"4096x4096", "padded", 1, value, value});
    cost.strides.push_back({4, 2, 1, value, value});
    cost.strides.push_back({4, 1, 1, 1 / value, 1 / value});
    const std::string svg = RenderConflictCostSvg(cost);
    EXPECT_TRUE(WellFormedXml(svg));
    EXPECT_LT(svg.size(), 100'000u);
    cost = {};
  }
}

TEST(BenchmarkPlotTest, NotBenchmarkOutputIsBadInput) {
  try {
    ParseBenchmarkResults("{\"cases\": []}", "other.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), AllOf(HasSubstr("other.json"), HasSubstr("benchmarks")));
  }
}

// ---- the program ---------------------------------------------------------------------------------

class PlotCommandTest : public testing_support::TempDirTest {
 protected:
  std::filesystem::path Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }

  CliRun Plot(const std::string& arguments) {
    return testing_support::RunCli(BANKCHECK_BENCHMARK_PLOT_PATH, arguments, dir_);
  }
};

TEST_F(PlotCommandTest, WritesTheSvgAndPrintsTheTables) {
  const auto input = Write("results.json", FakeResults());
  const auto svg = dir_ / "out" / "conflict-cost.svg";
  std::filesystem::create_directories(svg.parent_path());
  const CliRun run = Plot(Quoted(input) + " -o " + Quoted(svg));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("31.00x"), HasSubstr("50.0%"), HasSubstr("wrote " + svg.string())));
  EXPECT_TRUE(WellFormedXml(ReadFile(svg)));
  // Written atomically: nothing but the SVG is left in its folder.
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(svg.parent_path())) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "conflict-cost.svg");
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(PlotCommandTest, MergesFiles) {
  const auto strides =
      Write("strides.json", Document({Aggregates("shared_stride/4B/s1", 100, Stride(4, 1, 1)),
                                      Aggregates("shared_stride/4B/s2", 200, Stride(4, 2, 2))}));
  const auto transposes =
      Write("transposes.json", Document({Aggregates("transpose/copy/8192x8192", 40, Transpose(3000, 100)),
                                         Aggregates("transpose/padded/8192x8192", 40, Transpose(2400, 80))}));
  const CliRun run = Plot(Quoted(strides) + " " + Quoted(transposes) + " -o " + Quoted(dir_ / "a.svg"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("2.00x"), HasSubstr("80.0%")));
}

TEST_F(PlotCommandTest, BadJsonExitsTwoNamingFileAndPosition) {
  const auto input = Write("bad.json", "{\n  \"benchmarks\": [\n    {\"name\": oops}\n  ]\n}\n");
  const auto svg = dir_ / "never.svg";
  const CliRun run = Plot(Quoted(input) + " -o " + Quoted(svg));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr(input.string() + ":3:14: invalid JSON"));
  EXPECT_FALSE(std::filesystem::exists(svg));
}

TEST_F(PlotCommandTest, AbsurdValuesExitTwoNamingTheField) {
  const auto input =
      Write("huge.json", Document({Aggregates("transpose/copy/4096x4096", 40, Transpose(1e300, 101))}));
  const CliRun run = Plot(Quoted(input) + " -o " + Quoted(dir_ / "a.svg"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, AllOf(HasSubstr(input.string()), HasSubstr("GB/s")));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "a.svg"));
}

TEST_F(PlotCommandTest, MissingFileAndNoBenchmarksExitTwo) {
  EXPECT_EQ(Plot(Quoted(dir_ / "absent.json") + " -o " + Quoted(dir_ / "a.svg")).exit_code, 2);
  const auto other = Write("other.json", Document({Aggregates("something/else/1", 1, "")}));
  const CliRun run = Plot(Quoted(other) + " -o " + Quoted(dir_ / "a.svg"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("no shared_stride/, transpose/ or puzzle/ benchmarks"));
  EXPECT_EQ(Plot(Quoted(other)).exit_code, 2);  // -o is required
}

TEST_F(PlotCommandTest, HelpSaysWhatItReads) {
  const CliRun run = Plot("--help");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("BENCHMARK_JSON"), HasSubstr("--output")));
  EXPECT_EQ(Plot(Quoted(dir_ / "a.json") + " -o " + Quoted(dir_ / "a.svg") + " --bogus").exit_code, 2);
}

TEST_F(PlotCommandTest, BenchmarksSkippedWithAnErrorAreReported) {
  const std::string skipped =
      "    {\n      \"name\": \"shared_stride/4B/s2/manual_time\",\n      \"run_name\": "
      "\"shared_stride/4B/s2/manual_time\",\n"
      "      \"run_type\": \"iteration\",\n      \"error_occurred\": true,\n      \"error_message\": "
      "\"counters failed\"\n    }";
  const auto input =
      Write("r.json", Document({Aggregates("shared_stride/4B/s1", 100, Stride(4, 1, 1)), skipped}));
  const CliRun run = Plot(Quoted(input) + " -o " + Quoted(dir_ / "a.svg"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("shared_stride/4B/s2 has no result: counters failed"));
}

TEST_F(PlotCommandTest, ALinkAtTheOutputIsRefusedAndAHardLinksTargetKept) {
  const auto input = Write("results.json", FakeResults());
  const testing_support::Victim victim = testing_support::MakeVictim(dir_ / "victim");
  const auto svg = dir_ / "plot.svg";
  std::filesystem::create_symlink(victim.path, svg);
  CliRun run = Plot(Quoted(input) + " -o " + Quoted(svg));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, AllOf(HasSubstr("refusing to write " + svg.string()), HasSubstr("symbolic link")));
  testing_support::ExpectUntouched(victim);
  std::filesystem::remove(svg);
  std::filesystem::create_hard_link(victim.path, svg);
  run = Plot(Quoted(input) + " -o " + Quoted(svg));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(WellFormedXml(ReadFile(svg)));
  testing_support::ExpectUntouched(victim);
  EXPECT_EQ(testing_support::ModeOf(svg), 0600u);  // the replaced file's mode
}

}  // namespace
}  // namespace bankcheck::benchmarks
