// Per-line counts (core/annotations/line_counts.h): sums per line and kind, the written form of ways
// and suggestions. CheckLines against the annotations of a file: check_lines_test.cc.
#include "core/annotations/line_counts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/annotations/internal/line_counts_test_support.h"
#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing_support::Attributed;
using testing_support::kFile;
using testing_support::kOther;
using testing_support::Line;
using testing_support::MakeInstruction;
using testing_support::Source;
using testing_support::Sources;

TEST(CountsByLine, SumsEachLineAndKindOverRecordsAndInstructions) {
  const std::vector<LaunchRecord> records = {
      Attributed("a", {MakeInstruction(0x40, "LDS.128", MemoryKind::kSharedLoad, 31, 10, 40, 20, kFile),
                       MakeInstruction(0x20, "LDS", MemoryKind::kSharedLoad, 31, 5, 10, 5, kFile),
                       MakeInstruction(0x60, "STS", MemoryKind::kSharedStore, 31, 8, 8, 8, kFile),
                       MakeInstruction(0x80, "LDS", MemoryKind::kSharedLoad, 0, 100, 100, 100, ""),
                       MakeInstruction(0x90, "LDS", MemoryKind::kSharedLoad, 12, 1, 4, 1, kOther)}),
      // Another kernel with the same line (an inlined helper): its counts add.
      Attributed("b", {MakeInstruction(0x10, "LDS.128", MemoryKind::kSharedLoad, 31, 2, 6, 3, kFile)})};
  const std::vector<LineCounts> lines = CountsByLine(records);
  ASSERT_THAT(lines, SizeIs(3));  // the instruction without line info is left out
  // Sorted by file, line, kind.
  EXPECT_EQ(lines[0].file, kOther);
  EXPECT_EQ(lines[0].line, 12u);
  EXPECT_EQ(lines[0].wavefronts, 4u);
  EXPECT_EQ(lines[1].file, kFile);
  EXPECT_EQ(lines[1].line, 31u);
  EXPECT_EQ(lines[1].kind, MemoryKind::kSharedLoad);
  EXPECT_EQ(lines[1].executions, 17u);
  EXPECT_EQ(lines[1].wavefronts, 56u);
  EXPECT_EQ(lines[1].ideal_wavefronts, 28u);
  EXPECT_DOUBLE_EQ(lines[1].ways(), 2.0);
  // Distinct, in the order of their first instruction's offset.
  EXPECT_THAT(lines[1].opcodes, ElementsAre("LDS.128", "LDS"));
  EXPECT_EQ(lines[2].kind, MemoryKind::kSharedStore);
  EXPECT_EQ(lines[2].wavefronts, 8u);
  EXPECT_THAT(lines[2].opcodes, ElementsAre("STS"));
}

TEST(CountsByLine, ATableSharedBySeveralLaunchesCountsOnce) {
  // Two launches of one kernel attributed together: each record holds the same summed table.
  const std::vector<InstructionCounts> table = {
      MakeInstruction(0x20, "LDS", MemoryKind::kSharedLoad, 7, 4, 64, 16)};
  const std::vector<LineCounts> lines =
      CountsByLine({Attributed("k", table, 2), Attributed("k", table, 2), LaunchRecord{}});
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0].wavefronts, 64u);
  EXPECT_EQ(lines[0].ideal_wavefronts, 16u);
  EXPECT_EQ(lines[0].executions, 4u);
}

TEST(CountsByLine, EachLaunchsOwnTableCountsEvenWhenTwoAreTheSame) {
  // The default: every launch read its own table with its counts; two equal launches are two.
  const std::vector<InstructionCounts> table = {
      MakeInstruction(0x20, "LDS", MemoryKind::kSharedLoad, 7, 4, 64, 16)};
  const std::vector<LineCounts> lines = CountsByLine({Attributed("k", table), Attributed("k", table)});
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0].wavefronts, 128u);
  EXPECT_EQ(lines[0].executions, 8u);
}

TEST(CountsByLine, KeepsWhereInlinedCodeCameFrom) {
  InstructionCounts inlined =
      MakeInstruction(0x30, "LDSM.16.M88.4", MemoryKind::kSharedLdmatrix, 152, 1, 8, 2, kOther);
  inlined.inline_chain = {{"/deps/cute/arch/copy_sm80.hpp", 64}, {kOther, 152}};
  InstructionCounts plain =
      MakeInstruction(0x10, "LDSM.16.M88.4", MemoryKind::kSharedLdmatrix, 152, 1, 2, 2, kOther);
  plain.inline_chain = {{kOther, 152}};  // the innermost frame is the line itself
  const std::vector<LineCounts> lines = CountsByLine({Attributed("k", {inlined, plain})});
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0].inlined_from, "/deps/cute/arch/copy_sm80.hpp:64");
  EXPECT_EQ(lines[0].wavefronts, 10u);

  EXPECT_EQ(CountsByLine({Attributed("k", {plain})})[0].inlined_from, "");
}

TEST(LineCounts, WaysAndMeasurable) {
  EXPECT_DOUBLE_EQ(Line(1, MemoryKind::kSharedLoad, 96, 32).ways(), 3.0);
  EXPECT_DOUBLE_EQ(Line(1, MemoryKind::kSharedLoad, 0, 0).ways(), 1.0);
  EXPECT_FALSE(Line(1, MemoryKind::kSharedDsmem, 0, 0).measurable());
  EXPECT_TRUE(Line(1, MemoryKind::kSharedLoad, 5, 0).measurable());
}

TEST(FormatWays, WritesAsAnAnnotationDoes) {
  EXPECT_EQ(FormatWays(1), "conflict-free");
  EXPECT_EQ(FormatWays(1.001), "conflict-free");
  EXPECT_EQ(FormatWays(2), "2-way");
  EXPECT_EQ(FormatWays(32), "32-way");
  EXPECT_EQ(FormatWays(2.5), "2.5-way");
  EXPECT_EQ(FormatWays(5.0 / 3.0), "1.67-way");
  EXPECT_EQ(FormatWays(1.01), "1.01-way");
  EXPECT_EQ(FormatWays(1.999), "2-way");
}

TEST(WaysMatch, EqualToTwoDecimals) {
  EXPECT_TRUE(WaysMatch(2, 2));
  EXPECT_TRUE(WaysMatch(5.0 / 3.0, 1.67));
  EXPECT_TRUE(WaysMatch(1.004, 1));
  EXPECT_FALSE(WaysMatch(1.006, 1));
  EXPECT_FALSE(WaysMatch(4, 2));
  EXPECT_FALSE(WaysMatch(1.5, 1.52));
}

TEST(WaysMatch, EverySuggestionMatchesItsMeasurement) {
  // Ties (1.125 = 9/8) included: what FormatWays writes, read back by the parser, matches.
  for (uint64_t ideal = 1; ideal <= 64; ++ideal) {
    for (uint64_t wavefronts = ideal; wavefronts <= 40 * ideal; ++wavefronts) {
      const double ways = static_cast<double>(wavefronts) / static_cast<double>(ideal);
      const std::vector<LineAnnotation> parsed =
          ParseLineAnnotations("x; // bankcheck: " + FormatWays(ways), "k.cu");
      ASSERT_THAT(parsed, SizeIs(1));
      ASSERT_TRUE(WaysMatch(ways, parsed[0].ways))
          << wavefronts << "/" << ideal << " as " << FormatWays(ways);
    }
  }
}

TEST(SuggestedAnnotation, OneKind) {
  EXPECT_EQ(SuggestedAnnotation({Line(3, MemoryKind::kSharedLoad, 128, 32)}), "bankcheck: 4-way");
  EXPECT_EQ(SuggestedAnnotation({Line(3, MemoryKind::kSharedStore, 32, 32)}), "bankcheck: conflict-free");
  EXPECT_EQ(SuggestedAnnotation({Line(3, MemoryKind::kSharedLoad, 80, 48)}), "bankcheck: 1.67-way");
}

TEST(SuggestedAnnotation, KindsWithEqualWaysNeedNoKind) {
  EXPECT_EQ(SuggestedAnnotation(
                {Line(3, MemoryKind::kSharedLoad, 64, 32), Line(3, MemoryKind::kSharedStore, 8, 4)}),
            "bankcheck: 2-way");
}

TEST(SuggestedAnnotation, KindsWithDifferentWaysAreQualifiedInKindTableOrder) {
  // Given stores first: the terms still follow the kind table (ld before st before ldsm).
  EXPECT_EQ(SuggestedAnnotation({Line(3, MemoryKind::kSharedLdmatrix, 64, 8),
                                 Line(3, MemoryKind::kSharedStore, 32, 32),
                                 Line(3, MemoryKind::kSharedLoad, 64, 32)}),
            "bankcheck: ld 2-way, st conflict-free, ldsm 8-way");
}

TEST(SuggestedAnnotation, KindsWithoutWavefrontsAreLeftOut) {
  EXPECT_EQ(SuggestedAnnotation({Line(3, MemoryKind::kSharedDsmem, 0, 0)}), "");
  EXPECT_EQ(SuggestedAnnotation(
                {Line(3, MemoryKind::kSharedDsmem, 0, 0), Line(3, MemoryKind::kSharedLoad, 64, 32)}),
            "bankcheck: 2-way");
  EXPECT_EQ(SuggestedAnnotation({}), "");
}

TEST(FormatAnnotationTerms, AsWritten) {
  EXPECT_EQ(FormatAnnotationTerms(ParseLineAnnotations("x; // bankcheck: 1.123456-way", "k.cu")),
            "1.123456-way");
  EXPECT_EQ(
      FormatAnnotationTerms(ParseLineAnnotations("x; // bankcheck: ld 2-way, st conflict-free", "k.cu")),
      "ld 2-way, st conflict-free");
}

TEST(CountsByLine, LinesOfEmulatedLaunchesAreDerived) {
  LaunchRecord measured = testing_support::MakeRecord(64);
  measured.attributed_launches = 1;
  measured.instructions = {MakeInstruction(0x10, "LDS", MemoryKind::kSharedLoad, 3, 1, 4, 4, "k.cu")};
  LaunchRecord emulated = measured;
  emulated.counted_by = CountedBy::kEmulated;
  ASSERT_THAT(CountsByLine({measured}), SizeIs(1));
  EXPECT_FALSE(CountsByLine({measured})[0].derived);
  EXPECT_TRUE(CountsByLine({emulated})[0].derived);
}

TEST(FormatAnnotationTerms, WritesCaseGlobs) {
  EXPECT_EQ(FormatAnnotationTerms(
                ParseLineAnnotations("x; // bankcheck: ld 2-way in a* |b, ld conflict-free", "k.cu")),
            "ld 2-way in a* | b, ld conflict-free");
}

TEST(FormatSuggestions, OneRowPerMeasurableLineRelativeToTheRoot) {
  LineCounts inlined = Line(152, MemoryKind::kSharedLdmatrix, 16, 4, "LDSM.16.M88.4", kOther);
  inlined.inlined_from = "/src/bankcheck/third_party/copy.hpp:64";
  const std::string table = FormatSuggestions(
      {Line(31, MemoryKind::kSharedLoad, 8192, 2048, "LDS.128"), Line(31, MemoryKind::kSharedStore, 32, 32),
       Line(40, MemoryKind::kSharedDsmem, 0, 0), inlined},
      "/src/bankcheck");
  EXPECT_EQ(table,
            "kernels/gemm.cu:152 (third_party/copy.hpp:64)  LDSM.16.M88.4  4-way                       "
            "// bankcheck: 4-way\n"
            "kernels/transpose.cu:31                        LDS.128, STS   ld 4-way, st conflict-free  "
            "// bankcheck: ld 4-way, st conflict-free\n");
  EXPECT_EQ(FormatSuggestions({Line(40, MemoryKind::kSharedDsmem, 0, 0)}), "");
}

}  // namespace
}  // namespace bankcheck
