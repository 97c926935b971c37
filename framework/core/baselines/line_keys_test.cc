#include "core/baselines/line_keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"
#include "bankcheck/core/verdict.h"
#include "core/records/record_json.h"

// Per-line baselines: the keys of source lines, the per-line counts of launches, and comparing them.
namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// Real rows: launch 0 of transpose/padded_32x8/128x128 and transpose/unpadded_32x8/128x128, measured
// on an H200 by the build of commit 92daaf8, and kernels/transpose_kernel.cuh of that commit
// (testdata/make_line_baseline_fixture.py copied them).
const nlohmann::json& Fixture() {
  static const nlohmann::json fixture = nlohmann::json::parse(
#include "core/baselines/testdata/line_baseline_fixture.inc"
  );
  return fixture;
}

constexpr char kRoot[] = "/work/main";
constexpr char kFile[] = "kernels/transpose_kernel.cuh";
constexpr uint32_t kLoadLine = 43;  // out[...] = tile[tx][...]: the column read
constexpr uint32_t kStoreLine = 33;

LaunchRecord FixtureLaunch(const std::string& name) {
  return LaunchRecordFromJson(Fixture().at("launches").at(name), "fixture");
}
LaunchRecord Padded() { return FixtureLaunch("transpose/padded_32x8/128x128"); }
LaunchRecord Unpadded() { return FixtureLaunch("transpose/unpadded_32x8/128x128"); }
std::string Source() { return Fixture().at("source").get<std::string>(); }

// `launch`'s per-line counts, keyed by `source` as the file's text.
LaunchRecord WithLines(LaunchRecord launch, const std::string& source) {
  const std::vector<SourceLineKey> keys = SourceLineKeys(source);
  const std::string file = Fixture().at("source_file").get<std::string>();
  std::vector<LaunchRecord> records = {std::move(launch)};
  AttachLineRecords(records, kRoot, [&](const std::string& name) { return name == file ? &keys : nullptr; });
  return records.front();
}

// What a recompile of the edited source gives: the same instructions, each at its line's new number.
LaunchRecord Shifted(LaunchRecord launch, uint32_t by) {
  for (InstructionCounts& instruction : launch.instructions) instruction.line += by;
  return launch;
}

// Line `number` (from 1) of `text` replaced by `replacement`.
std::string ReplaceLine(const std::string& text, uint32_t number, const std::string& replacement) {
  size_t begin = 0;
  for (uint32_t line = 1; line < number; ++line) begin = text.find('\n', begin) + 1;
  return text.substr(0, begin) + replacement + text.substr(text.find('\n', begin));
}

std::string LineOf(const std::string& text, uint32_t number) {
  size_t begin = 0;
  for (uint32_t line = 1; line < number; ++line) begin = text.find('\n', begin) + 1;
  return text.substr(begin, text.find('\n', begin) - begin);
}

// --- keys -----------------------------------------------------------------------------------------

TEST(SourceLineKeysTest, CodeWithoutCommentsAndWithWhitespaceCollapsed) {
  const std::vector<SourceLineKey> keys = SourceLineKeys(
      "int a;\n"
      "  x =\ttile[ty][tx];   // bankcheck: 32-way\n"
      "x = tile[ty][tx]; /* a comment */\n"
      "/* spans\n"
      "   lines */ y = 1;\n"
      "// only a comment\n"
      "x  =  tile[ty][tx];\n");
  ASSERT_THAT(keys, SizeIs(8));
  EXPECT_EQ(keys[0].code, "int a;");
  EXPECT_EQ(keys[1].code, "x = tile[ty][tx];");
  EXPECT_EQ(keys[1].occurrence, 0u);
  EXPECT_EQ(keys[2].code, "x = tile[ty][tx];");
  EXPECT_EQ(keys[2].occurrence, 1u);
  EXPECT_EQ(keys[3].code, "");
  EXPECT_EQ(keys[4].code, "y = 1;");
  EXPECT_EQ(keys[5].code, "");
  EXPECT_EQ(keys[6].code, "x = tile[ty][tx];");
  EXPECT_EQ(keys[6].occurrence, 2u);
  EXPECT_EQ(keys[7].code, "");  // after the last line end
}

TEST(SourceLineKeysTest, ALongLineIsCutAtACharacterBoundary) {
  const std::string line = std::string(kMaxLineCodeBytes - 1, 'a') + "\xc3\xa9" + std::string(50, 'b');
  const std::vector<SourceLineKey> keys = SourceLineKeys(line + "\n");
  EXPECT_EQ(keys[0].code, std::string(kMaxLineCodeBytes - 1, 'a'));
}

// --- per-line counts of a launch ------------------------------------------------------------------

TEST(AttachLineRecordsTest, TheRealTableAddedUpByLineAndKind) {
  const LaunchRecord launch = WithLines(Unpadded(), Source());
  ASSERT_TRUE(launch.lines.has_value());
  ASSERT_THAT(*launch.lines, SizeIs(2));
  const std::vector<SourceLineKey> keys = SourceLineKeys(Source());
  for (const LineRecord& line : *launch.lines) {
    EXPECT_EQ(line.file, kFile);
    EXPECT_EQ(line.code, keys[line.line - 1].code);
    EXPECT_EQ(line.occurrence, 0u);
    EXPECT_THAT(line.opcodes, SizeIs(1));
  }
  const auto line_of = [&](MemoryKind kind) {
    for (const LineRecord& line : *launch.lines)
      if (line.kind == kind) return line;
    return LineRecord{};
  };
  // Each line's sums are the launch's totals: the kernel has one load line and one store line.
  const LineRecord load = line_of(MemoryKind::kSharedLoad);
  EXPECT_EQ(load.line, kLoadLine);
  EXPECT_THAT(load.code, HasSubstr("= tile[tx]["));
  EXPECT_EQ(load.executions, launch.loads().instructions);
  EXPECT_EQ(load.wavefronts, launch.loads().wavefronts);
  EXPECT_EQ(load.ideal_wavefronts, launch.loads().ideal_wavefronts);
  EXPECT_EQ(load.ways(), 32.0);
  const LineRecord store = line_of(MemoryKind::kSharedStore);
  EXPECT_EQ(store.line, kStoreLine);
  EXPECT_EQ(store.wavefronts, launch.stores().wavefronts);
}

TEST(AttachLineRecordsTest, ALaunchWithoutATableHasNoLines) {
  LaunchRecord launch = Unpadded();
  launch.instructions.clear();
  launch.attributed_launches = 0;
  EXPECT_FALSE(WithLines(launch, Source()).lines.has_value());
}

TEST(AttachLineRecordsTest, ALineWhoseSourceCannotBeReadIsKnownByItsNumber) {
  std::vector<LaunchRecord> records = {Unpadded()};
  AttachLineRecords(records, kRoot, [](const std::string&) { return nullptr; });
  ASSERT_TRUE(records[0].lines.has_value());
  for (const LineRecord& line : *records[0].lines) EXPECT_EQ(line.code, "");
  // Moved lines then differ: one gone and one added.
  std::vector<LaunchRecord> moved = {Shifted(Unpadded(), 1)};
  AttachLineRecords(moved, kRoot, [](const std::string&) { return nullptr; });
  EXPECT_EQ(CompareLaunches(records, moved).lines, BaselineVerdict::kRegression);
}

TEST(AttachLineRecordsTest, LinesRoundTripThroughJsonInBaselinesAndResults) {
  const LaunchRecord launch = WithLines(Unpadded(), Source());
  for (const RecordDetail detail : {RecordDetail::kExact, RecordDetail::kFull}) {
    const LaunchRecord back = LaunchRecordFromJson(LaunchRecordToJson(launch, detail), "x");
    ASSERT_TRUE(back.lines.has_value());
    EXPECT_EQ(LaunchRecordToJson(back, detail), LaunchRecordToJson(launch, detail));
  }
  nlohmann::json json = LaunchRecordToJson(launch, RecordDetail::kExact);
  EXPECT_FALSE(json.contains("instructions")) << "baselines keep lines, not instructions";
  json["lines"][0]["wavefronts"] = "many";
  EXPECT_THROW(LaunchRecordFromJson(json, "x"), Error);
}

// --- comparing lines ------------------------------------------------------------------------------

TEST(CompareLinesTest, LinesInsertedAboveMakeNoDifference) {
  const LaunchRecord before = WithLines(Unpadded(), Source());
  const std::string edited = "// three lines\n// inserted\n#include <cstdint>\n" + Source();
  const LaunchRecord after = WithLines(Shifted(Unpadded(), 3), edited);
  const BaselineComparison comparison = CompareLaunches({before}, {after});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_EQ(comparison.lines, BaselineVerdict::kMatch);
  EXPECT_THAT(comparison.differences, IsEmpty());
  EXPECT_EQ(after.lines->front().line, before.lines->front().line + 3) << "the number is kept for display";
}

TEST(CompareLinesTest, ReformattingOrReannotatingALineMakesNoDifference) {
  const std::string line = LineOf(Source(), kLoadLine);
  const std::string edited = ReplaceLine(Source(), kLoadLine, "  " + line + "   // bankcheck: ld 32-way");
  const BaselineComparison comparison =
      CompareLaunches({WithLines(Unpadded(), Source())}, {WithLines(Unpadded(), edited)});
  EXPECT_EQ(comparison.lines, BaselineVerdict::kMatch);
}

// A measured line worse than its baseline's fails, naming the line and the ways before -> after: the
// real conflict-free column read of the padded tile against the 32-way one of the unpadded tile.
TEST(CompareLinesTest, AWorseLineIsARegressionNamedWithItsWays) {
  const BaselineComparison comparison =
      CompareLaunches({WithLines(Padded(), Source())}, {WithLines(Unpadded(), Source())});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kRegression) << "the launch's loads too";
  EXPECT_EQ(comparison.lines, BaselineVerdict::kRegression);
  EXPECT_EQ(comparison.headline(), BaselineVerdict::kRegression);
  ASSERT_THAT(comparison.line_differences, SizeIs(1));
  EXPECT_THAT(
      comparison.line_differences[0],
      AllOf(HasSubstr("launch 0 ("), HasSubstr(") kernels/transpose_kernel.cuh:43 out["),
            HasSubstr("= tile[tx]["), HasSubstr(": ld conflict-free -> 32-way (wavefronts 512 -> 16384)")));
}

// A count doctored in the line table only (the launch's totals as recorded) still fails the case,
// through the one verdict table.
TEST(CompareLinesTest, ADoctoredLineCountFailsTheCaseNamingTheLine) {
  const LaunchRecord measured = WithLines(Unpadded(), Source());
  LaunchRecord recorded = measured;
  for (LineRecord& line : *recorded.lines)
    if (line.kind == MemoryKind::kSharedLoad) line.wavefronts = line.ideal_wavefronts * 16;
  const BaselineSet baselines = BaselineSet::FromEntries(
      "baselines/sm_90", "sm_90", {{"transpose/unpadded_32x8/128x128", {"unpadded", {recorded}}}});
  const BaselineComparison comparison =
      CompareWithBaseline(baselines, "transpose/unpadded_32x8/128x128", {measured});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_EQ(comparison.lines, BaselineVerdict::kRegression);
  EXPECT_THAT(comparison.message, AllOf(HasSubstr("REGRESSION: case \"transpose/unpadded_32x8/128x128\""),
                                        HasSubstr("kernels/transpose_kernel.cuh:43 "),
                                        HasSubstr("ld 16-way -> 32-way (wavefronts 8192 -> 16384)"),
                                        HasSubstr("record the new values with")));
  CaseFacts facts;
  facts.baseline = comparison.verdict;
  facts.lines = comparison.lines;
  const CaseDecision decision = DecideCase(facts);
  EXPECT_TRUE(decision.fails);
  EXPECT_EQ(decision.verdict, CaseVerdict::kRegression);
}

// A line whose code is edited in place is the same line changed (documented in README "Baselines");
// edited and moved, it is one line gone and one added.
TEST(CompareLinesTest, AnEditedLineIsChangedInPlaceOrGoneAndAdded) {
  const std::string line = LineOf(Source(), kLoadLine);
  const std::string renamed = line.substr(0, line.find("out[")) + "dst[" + line.substr(line.find("out[") + 4);
  const std::string edited = ReplaceLine(Source(), kLoadLine, renamed);
  const LaunchRecord before = WithLines(Unpadded(), Source());
  BaselineComparison comparison = CompareLaunches({before}, {WithLines(Unpadded(), edited)});
  EXPECT_EQ(comparison.lines, BaselineVerdict::kChanged);
  ASSERT_THAT(comparison.line_differences, SizeIs(1));
  EXPECT_THAT(comparison.line_differences[0], AllOf(HasSubstr("kernels/transpose_kernel.cuh:43 dst["),
                                                    HasSubstr("ld 32-way -> 32-way (its code was out[")));

  comparison = CompareLaunches({before}, {WithLines(Shifted(Unpadded(), 1), "\n" + edited)});
  EXPECT_EQ(comparison.lines, BaselineVerdict::kRegression) << "the added line's wavefronts are new";
  ASSERT_THAT(comparison.line_differences, SizeIs(2));
  EXPECT_THAT(comparison.line_differences,
              ElementsAre(HasSubstr("ld no access -> 32-way (a line that was not there before"),
                          HasSubstr("ld 32-way -> no access (no longer executed")));
}

TEST(CompareLinesTest, WithoutLinesOnASideTheLaunchTotalsAloneAreCompared) {
  const LaunchRecord with_lines = WithLines(Unpadded(), Source());
  LaunchRecord without = with_lines;
  without.lines.reset();
  EXPECT_FALSE(CompareLaunches({without}, {with_lines}).lines.has_value());
  EXPECT_FALSE(CompareLaunches({with_lines}, {without}).lines.has_value());
  const BaselineSet baselines =
      BaselineSet::FromEntries("baselines/sm_90", "sm_90", {{"t/x", {"old entry", {without}}}});
  const BaselineComparison comparison = CompareWithBaseline(baselines, "t/x", {with_lines});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_THAT(comparison.message,
              HasSubstr("has no per-line counts (recorded before baselines kept them), so "
                        "it was compared by launch totals only"));
}

}  // namespace
}  // namespace bankcheck
