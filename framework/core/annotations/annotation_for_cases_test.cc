// The annotation of a line that several cases measure (core/annotations/annotation_for_cases.h): plain
// when they agree, by case glob when they do not, and none where no glob can tell the cases apart.

#include "core/annotations/annotation_for_cases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bankcheck/core/line_annotations.h"

namespace bankcheck {
namespace {

LineCounts Kind(MemoryKind kind, uint64_t wavefronts, uint64_t ideal) {
  LineCounts counts;
  counts.file = "/src/k.cu";
  counts.line = 7;
  counts.kind = kind;
  counts.executions = ideal;
  counts.wavefronts = wavefronts;
  counts.ideal_wavefronts = ideal;
  counts.opcodes = {InfoOf(kind).sass};
  return counts;
}

// A case whose line loads at `ways` ways.
CaseLineCounts Loads(const std::string& name, uint64_t ways) {
  return {name, {Kind(MemoryKind::kSharedLoad, 32 * ways, 32)}};
}

TEST(AnnotationForCases, CasesThatAgreeGetThePlainSuggestion) {
  EXPECT_EQ(AnnotationForCases({Loads("t/a", 2), Loads("t/b", 2)}), "bankcheck: 2-way");
  EXPECT_EQ(AnnotationForCases(
                {{"t/a", {Kind(MemoryKind::kSharedLoad, 64, 32), Kind(MemoryKind::kSharedStore, 32, 32)}},
                 {"t/b", {Kind(MemoryKind::kSharedLoad, 64, 32), Kind(MemoryKind::kSharedStore, 32, 32)}}}),
            "bankcheck: ld 2-way, st conflict-free");
  EXPECT_EQ(AnnotationForCases({}), "");
  EXPECT_EQ(AnnotationForCases({{"t/a", {Kind(MemoryKind::kSharedDsmem, 0, 0)}}}), "");
}

TEST(AnnotationForCases, TheMostCommonWaysAreTheDefaultAndAPrefixSelectsTheOthers) {
  EXPECT_EQ(AnnotationForCases({Loads("transpose/padded", 1), Loads("transpose/swizzled", 1),
                                Loads("transpose/unpadded32", 32), Loads("transpose/unpadded64", 32)}),
            "bankcheck: conflict-free, 32-way in transpose/unpadded*");
  // One case: its own name, the narrowest glob.
  EXPECT_EQ(AnnotationForCases({Loads("g/a", 2), Loads("g/b", 2), Loads("g/c", 4)}),
            "bankcheck: 2-way, 4-way in g/c");
  // Among equals, the ways of the first case by name are the default.
  EXPECT_EQ(AnnotationForCases({Loads("g/b", 4), Loads("g/a", 2)}), "bankcheck: 2-way, 4-way in g/b");
}

TEST(AnnotationForCases, NamesWhenAPrefixWouldSelectACaseOfOtherWays) {
  // "g/v*" would select g/vz, which measured the default.
  EXPECT_EQ(AnnotationForCases(
                {Loads("g/va", 4), Loads("g/vb", 4), Loads("g/vz", 1), Loads("g/w", 1), Loads("g/x", 1)}),
            "bankcheck: conflict-free, 4-way in g/va | g/vb");
  // No common prefix at all.
  EXPECT_EQ(AnnotationForCases({Loads("a", 4), Loads("b", 4), Loads("c", 1), Loads("d", 1), Loads("e", 1)}),
            "bankcheck: conflict-free, 4-way in a | b");
  // Glob characters of a name are escaped, so it selects that case alone.
  EXPECT_EQ(AnnotationForCases({Loads("g/a*", 4), Loads("g/b", 1), Loads("g/c", 1)}),
            "bankcheck: conflict-free, 4-way in g/a\\*");
}

TEST(AnnotationForCases, KindsThatDifferGetTermsPerKind) {
  // One case's kinds differ among themselves: every case's kinds get terms of their own.
  const std::string annotation = AnnotationForCases(
      {{"t/a", {Kind(MemoryKind::kSharedLoad, 64, 32), Kind(MemoryKind::kSharedStore, 32, 32)}},
       {"t/b", {Kind(MemoryKind::kSharedLoad, 32, 32), Kind(MemoryKind::kSharedStore, 32, 32)}},
       {"t/c", {Kind(MemoryKind::kSharedLoad, 32, 32), Kind(MemoryKind::kSharedStore, 32, 32)}}});
  EXPECT_EQ(annotation, "bankcheck: ld conflict-free, ld 2-way in t/a, st conflict-free");
  // A case that does not run a kind does not count for that kind.
  EXPECT_EQ(AnnotationForCases(
                {{"t/a", {Kind(MemoryKind::kSharedLoad, 64, 32), Kind(MemoryKind::kSharedStore, 32, 32)}},
                 {"t/b", {Kind(MemoryKind::kSharedLoad, 128, 32)}}}),
            "bankcheck: ld 2-way, ld 4-way in t/b, st conflict-free");
}

TEST(AnnotationForCases, GlobalAndLocalKindsAreNotSuggested) {
  // Sectors are checked where a term names them: a suggestion speaks of bank conflicts alone.
  EXPECT_EQ(AnnotationForCases(
                {{"t/a", {Kind(MemoryKind::kSharedLoad, 64, 32), Kind(MemoryKind::kGlobalStore, 64, 32)}},
                 {"t/b", {Kind(MemoryKind::kSharedLoad, 32, 32), Kind(MemoryKind::kGlobalStore, 32, 32)}}}),
            "bankcheck: 2-way, conflict-free in t/b");
  EXPECT_EQ(AnnotationForCases({{"t/a", {Kind(MemoryKind::kGlobalLoad, 64, 32)}}}), "");
}

TEST(AnnotationForCases, EveryAnnotationReadsBackAndHoldsForEveryCase) {
  const std::vector<CaseLineCounts> cases = {Loads("s/vec/a", 2), Loads("s/vec/b", 2), Loads("s/pad/a", 1),
                                             Loads("s/pad/b", 1), Loads("s/pad/c", 1), Loads("s/swz", 8)};
  const std::string annotation = AnnotationForCases(cases);
  EXPECT_EQ(annotation, "bankcheck: conflict-free, 8-way in s/swz, 2-way in s/vec/*");
  const LineAnnotationScan scan = ScanLineAnnotations("x; // " + annotation, "");
  ASSERT_THAT(scan.problems, ::testing::IsEmpty());
  for (const CaseLineCounts& c : cases) {
    std::vector<LineCounts> lines = c.lines;
    lines[0].file.clear();
    lines[0].line = 1;
    EXPECT_THAT(CheckLines(
                    lines, [&](const std::string&) { return &scan; }, c.case_name)
                    .failures,
                ::testing::IsEmpty())
        << c.case_name;
  }
}

TEST(AnnotationForCases, NoneWhereNoGlobCanTellTheCasesApart) {
  for (const std::string name : {"g/a b", "g/a,b", "g/a;b", "g/a|b", "g/a\tb"})
    EXPECT_EQ(AnnotationForCases({Loads(name, 4), Loads("g/c", 1)}), "") << name;
  // Its pattern would end the comment with a backslash (joining the next line to it).
  EXPECT_EQ(AnnotationForCases({Loads("g/c", 1), Loads("g/d\\", 4)}), "");
  // More than 16 different ways, or an annotation longer than 1000 bytes.
  std::vector<CaseLineCounts> many;
  for (uint64_t ways = 1; ways <= 17; ++ways) many.push_back(Loads("g/" + std::to_string(ways), ways));
  EXPECT_EQ(AnnotationForCases(many), "");
  many.pop_back();
  EXPECT_NE(AnnotationForCases(many), "");
  std::vector<CaseLineCounts> long_names;
  for (int i = 0; i < 11; ++i) long_names.push_back(Loads("g/" + std::to_string(i), 1));
  for (int i = 0; i < 10; ++i) long_names.push_back(Loads(std::to_string(i) + std::string(100, 'n'), 2));
  EXPECT_EQ(AnnotationForCases(long_names), "");
  // One case name, two measurements (two results files).
  EXPECT_EQ(AnnotationForCases({Loads("g/a", 4), Loads("g/a", 2)}), "");
}

}  // namespace
}  // namespace bankcheck
