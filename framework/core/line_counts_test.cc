// Per-line counts (core/internal/line_counts.h): sums per line and kind, the written form of ways,
// suggestions, and CheckLines against the annotations of a file.

#include "core/internal/line_counts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/internal/test_support.h"

namespace bankcheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing_support::MakeInstruction;

constexpr char kFile[] = "/src/bankcheck/kernels/transpose.cu";
constexpr char kOther[] = "/src/bankcheck/kernels/gemm.cu";

LaunchRecord Attributed(const std::string& kernel, std::vector<InstructionCounts> instructions,
                        uint32_t launches = 1) {
  LaunchRecord record;
  record.kernel = kernel;
  record.instructions = std::move(instructions);
  record.attributed_launches = launches;
  return record;
}

LineCounts Line(uint32_t line, SharedKind kind, uint64_t wavefronts, uint64_t ideal,
                const std::string& opcode = "", const std::string& file = kFile) {
  LineCounts counts;
  counts.file = file;
  counts.line = line;
  counts.kind = kind;
  counts.executions = ideal;
  counts.wavefronts = wavefronts;
  counts.ideal_wavefronts = ideal;
  counts.opcodes = {opcode.empty() ? InfoOf(kind).sass : opcode};
  return counts;
}

// Source files by name, scanned as CheckLines would find them; a name not given cannot be read.
class Sources {
 public:
  void Add(const std::string& file, const std::string& text) {
    scans_[file] = ScanLineAnnotations(text, file);
  }
  AnnotationsOfFile Lookup() const {
    return [this](const std::string& file) -> const LineAnnotationScan* {
      const auto found = scans_.find(file);
      return found == scans_.end() ? nullptr : &found->second;
    };
  }

 private:
  std::map<std::string, LineAnnotationScan> scans_;
};

// `lines` lines of code, each "x;", with `annotated` text placed at the end of chosen lines.
std::string Source(uint32_t lines, const std::map<uint32_t, std::string>& comments) {
  std::string text;
  for (uint32_t line = 1; line <= lines; ++line) {
    const auto comment = comments.find(line);
    text += "x;" + (comment == comments.end() ? "" : "  " + comment->second) + "\n";
  }
  return text;
}

TEST(CountsByLine, SumsEachLineAndKindOverRecordsAndInstructions) {
  const std::vector<LaunchRecord> records = {
      Attributed("a", {MakeInstruction(0x40, "LDS.128", SharedKind::kLoad, 31, 10, 40, 20, kFile),
                       MakeInstruction(0x20, "LDS", SharedKind::kLoad, 31, 5, 10, 5, kFile),
                       MakeInstruction(0x60, "STS", SharedKind::kStore, 31, 8, 8, 8, kFile),
                       MakeInstruction(0x80, "LDS", SharedKind::kLoad, 0, 100, 100, 100, ""),
                       MakeInstruction(0x90, "LDS", SharedKind::kLoad, 12, 1, 4, 1, kOther)}),
      // Another kernel with the same line (an inlined helper): its counts add.
      Attributed("b", {MakeInstruction(0x10, "LDS.128", SharedKind::kLoad, 31, 2, 6, 3, kFile)})};
  const std::vector<LineCounts> lines = CountsByLine(records);
  ASSERT_THAT(lines, SizeIs(3));  // the instruction without line info is left out
  // Sorted by file, line, kind.
  EXPECT_EQ(lines[0].file, kOther);
  EXPECT_EQ(lines[0].line, 12u);
  EXPECT_EQ(lines[0].wavefronts, 4u);
  EXPECT_EQ(lines[1].file, kFile);
  EXPECT_EQ(lines[1].line, 31u);
  EXPECT_EQ(lines[1].kind, SharedKind::kLoad);
  EXPECT_EQ(lines[1].executions, 17u);
  EXPECT_EQ(lines[1].wavefronts, 56u);
  EXPECT_EQ(lines[1].ideal_wavefronts, 28u);
  EXPECT_DOUBLE_EQ(lines[1].ways(), 2.0);
  // Distinct, in the order of their first instruction's offset.
  EXPECT_THAT(lines[1].opcodes, ElementsAre("LDS.128", "LDS"));
  EXPECT_EQ(lines[2].kind, SharedKind::kStore);
  EXPECT_EQ(lines[2].wavefronts, 8u);
  EXPECT_THAT(lines[2].opcodes, ElementsAre("STS"));
}

TEST(CountsByLine, ATableSharedBySeveralLaunchesCountsOnce) {
  // Two launches of one kernel attributed together: each record holds the same summed table.
  const std::vector<InstructionCounts> table = {
      MakeInstruction(0x20, "LDS", SharedKind::kLoad, 7, 4, 64, 16)};
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
      MakeInstruction(0x20, "LDS", SharedKind::kLoad, 7, 4, 64, 16)};
  const std::vector<LineCounts> lines = CountsByLine({Attributed("k", table), Attributed("k", table)});
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0].wavefronts, 128u);
  EXPECT_EQ(lines[0].executions, 8u);
}

TEST(CountsByLine, KeepsWhereInlinedCodeCameFrom) {
  InstructionCounts inlined =
      MakeInstruction(0x30, "LDSM.16.M88.4", SharedKind::kLdmatrix, 152, 1, 8, 2, kOther);
  inlined.inline_chain = {{"/deps/cute/arch/copy_sm80.hpp", 64}, {kOther, 152}};
  InstructionCounts plain =
      MakeInstruction(0x10, "LDSM.16.M88.4", SharedKind::kLdmatrix, 152, 1, 2, 2, kOther);
  plain.inline_chain = {{kOther, 152}};  // the innermost frame is the line itself
  const std::vector<LineCounts> lines = CountsByLine({Attributed("k", {inlined, plain})});
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0].inlined_from, "/deps/cute/arch/copy_sm80.hpp:64");
  EXPECT_EQ(lines[0].wavefronts, 10u);

  EXPECT_EQ(CountsByLine({Attributed("k", {plain})})[0].inlined_from, "");
}

TEST(LineCounts, WaysAndMeasurable) {
  EXPECT_DOUBLE_EQ(Line(1, SharedKind::kLoad, 96, 32).ways(), 3.0);
  EXPECT_DOUBLE_EQ(Line(1, SharedKind::kLoad, 0, 0).ways(), 1.0);
  EXPECT_FALSE(Line(1, SharedKind::kDsmem, 0, 0).measurable());
  EXPECT_TRUE(Line(1, SharedKind::kLoad, 5, 0).measurable());
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
  EXPECT_EQ(SuggestedAnnotation({Line(3, SharedKind::kLoad, 128, 32)}), "bankcheck: 4-way");
  EXPECT_EQ(SuggestedAnnotation({Line(3, SharedKind::kStore, 32, 32)}), "bankcheck: conflict-free");
  EXPECT_EQ(SuggestedAnnotation({Line(3, SharedKind::kLoad, 80, 48)}), "bankcheck: 1.67-way");
}

TEST(SuggestedAnnotation, KindsWithEqualWaysNeedNoKind) {
  EXPECT_EQ(SuggestedAnnotation({Line(3, SharedKind::kLoad, 64, 32), Line(3, SharedKind::kStore, 8, 4)}),
            "bankcheck: 2-way");
}

TEST(SuggestedAnnotation, KindsWithDifferentWaysAreQualifiedInKindTableOrder) {
  // Given stores first: the terms still follow the kind table (ld before st before ldsm).
  EXPECT_EQ(SuggestedAnnotation({Line(3, SharedKind::kLdmatrix, 64, 8), Line(3, SharedKind::kStore, 32, 32),
                                 Line(3, SharedKind::kLoad, 64, 32)}),
            "bankcheck: ld 2-way, st conflict-free, ldsm 8-way");
}

TEST(SuggestedAnnotation, KindsWithoutWavefrontsAreLeftOut) {
  EXPECT_EQ(SuggestedAnnotation({Line(3, SharedKind::kDsmem, 0, 0)}), "");
  EXPECT_EQ(SuggestedAnnotation({Line(3, SharedKind::kDsmem, 0, 0), Line(3, SharedKind::kLoad, 64, 32)}),
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

TEST(CheckLines, AFileWithoutAnnotationsIsNotChecked) {
  Sources sources;
  sources.Add(kFile, Source(5, {{2, "// a plain comment"}}));
  const LineCheck check = CheckLines({Line(2, SharedKind::kLoad, 128, 32)}, sources.Lookup(), "t/a");
  EXPECT_FALSE(check.applies);
  EXPECT_THAT(check.failures, IsEmpty());
}

TEST(CheckLines, AnAnnotatedLineThatMatches) {
  Sources sources;
  sources.Add(kFile, Source(5, {{2, "// bankcheck: 4-way"}, {3, "// bankcheck: 1.67-way; three launches"}}));
  const LineCheck check = CheckLines(
      {Line(2, SharedKind::kLoad, 128, 32), Line(3, SharedKind::kLoad, 80, 48)}, sources.Lookup(), "t/a");
  EXPECT_TRUE(check.applies);
  EXPECT_THAT(check.failures, IsEmpty());
}

TEST(CheckLines, AnAnnotatedLineThatDoesNotMatch) {
  Sources sources;
  sources.Add(kOther, Source(80, {{74, "// bankcheck: 2-way"}}));
  LineCounts line = Line(74, SharedKind::kLoad, 8192, 2048, "LDS.128", kOther);
  const LineCheck check = CheckLines({line}, sources.Lookup(), "t/a");
  EXPECT_TRUE(check.applies);
  ASSERT_THAT(check.failures, SizeIs(1));
  const LineFailure& failure = check.failures[0];
  EXPECT_EQ(failure.file, kOther);
  EXPECT_EQ(failure.line, 74u);
  EXPECT_EQ(failure.annotated, "2-way");
  EXPECT_EQ(failure.measured, "4-way (LDS.128: 8,192 wavefronts, 2,048 ideal)");
  EXPECT_EQ(failure.suggestion, "bankcheck: 4-way");
  EXPECT_EQ(failure.message,
            "/src/bankcheck/kernels/gemm.cu:74: annotated 2-way, measured 4-way (LDS.128: 8,192 wavefronts, "
            "2,048 ideal); write `// bankcheck: 4-way` if that is intended");
  EXPECT_EQ(failure.detail,
            "annotated 2-way, measured 4-way (LDS.128: 8,192 wavefronts, 2,048 ideal); write `// bankcheck: "
            "4-way` if that is intended");
}

TEST(CheckLines, CountsTheEmulatorDerivedAreSaidToBeDerived) {
  Sources sources;
  sources.Add(kOther, Source(80, {{74, "// bankcheck: 2-way"}}));
  LineCounts line = Line(74, SharedKind::kLoad, 8192, 2048, "LDS.128", kOther);
  line.derived = true;
  const LineCheck check = CheckLines({line}, sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].detail,
            "annotated 2-way, derived 4-way (LDS.128: 8,192 wavefronts, 2,048 ideal); write `// bankcheck: "
            "4-way` if that is intended");
}

TEST(CountsByLine, LinesOfEmulatedLaunchesAreDerived) {
  LaunchRecord measured = testing_support::MakeRecord(64);
  measured.attributed_launches = 1;
  measured.instructions = {MakeInstruction(0x10, "LDS", SharedKind::kLoad, 3, 1, 4, 4, "k.cu")};
  LaunchRecord emulated = measured;
  emulated.counted_by = CountedBy::kEmulated;
  ASSERT_THAT(CountsByLine({measured}), SizeIs(1));
  EXPECT_FALSE(CountsByLine({measured})[0].derived);
  EXPECT_TRUE(CountsByLine({emulated})[0].derived);
}

TEST(CheckLines, AnAnnotationAloneAboveItsLine) {
  Sources sources;
  sources.Add(kFile, "x;\n  // bankcheck: 32-way; columns of an unpadded tile\n\n  y = t[i][j];\n");
  EXPECT_THAT(CheckLines({Line(4, SharedKind::kLoad, 1024, 32)}, sources.Lookup(), "t/a").failures,
              IsEmpty());
  const LineCheck check = CheckLines({Line(4, SharedKind::kLoad, 32, 32)}, sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].line, 4u);  // the code line, not the comment's
  EXPECT_EQ(check.failures[0].annotated, "32-way");
  EXPECT_EQ(check.failures[0].suggestion, "bankcheck: conflict-free");
}

TEST(CheckLines, AnUnannotatedLineOfAnAnnotatedFileMustBeConflictFree) {
  Sources sources;
  sources.Add(kFile, Source(10, {{2, "// bankcheck: conflict-free"}}));
  const LineCheck check = CheckLines({Line(2, SharedKind::kStore, 32, 32), Line(5, SharedKind::kLoad, 32, 32),
                                      Line(7, SharedKind::kLoad, 96, 32)},
                                     sources.Lookup(), "t/a");
  EXPECT_TRUE(check.applies);
  ASSERT_THAT(check.failures, SizeIs(1));  // line 5 is conflict-free: it passes unannotated
  const LineFailure& failure = check.failures[0];
  EXPECT_EQ(failure.line, 7u);
  EXPECT_EQ(failure.annotated, "conflict-free (not annotated)");
  EXPECT_EQ(failure.measured, "3-way (LDS: 96 wavefronts, 32 ideal)");
  EXPECT_EQ(failure.suggestion, "bankcheck: 3-way");
  EXPECT_EQ(failure.message,
            std::string(kFile) +
                ":7: not annotated (so conflict-free), measured 3-way (LDS: 96 wavefronts, 32 "
                "ideal); write `// bankcheck: 3-way` if that is intended");
}

TEST(CheckLines, ATermWithoutAKindChecksTheKindsSummed) {
  Sources sources;
  sources.Add(kFile, Source(5, {{3, "// bankcheck: 2-way"}}));
  // 2-way loads and 2-way stores: 2-way summed.
  EXPECT_THAT(CheckLines({Line(3, SharedKind::kLoad, 64, 32), Line(3, SharedKind::kStore, 16, 8)},
                         sources.Lookup(), "t/a")
                  .failures,
              IsEmpty());
  // 3-way loads and conflict-free stores: 2-way summed too (96 + 32 over 64).
  EXPECT_THAT(CheckLines({Line(3, SharedKind::kLoad, 96, 32), Line(3, SharedKind::kStore, 32, 32)},
                         sources.Lookup(), "t/a")
                  .failures,
              IsEmpty());
  const LineCheck check = CheckLines(
      {Line(3, SharedKind::kLoad, 128, 32), Line(3, SharedKind::kStore, 32, 32)}, sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].measured, "2.5-way (LDS, STS: 160 wavefronts, 64 ideal)");
  EXPECT_EQ(check.failures[0].suggestion, "bankcheck: ld 4-way, st conflict-free");
}

TEST(CheckLines, KindQualifiedTermsCheckTheirKinds) {
  Sources sources;
  sources.Add(kFile, Source(5, {{3, "// bankcheck: ld 2-way, st conflict-free"}}));
  EXPECT_THAT(CheckLines({Line(3, SharedKind::kLoad, 64, 32), Line(3, SharedKind::kStore, 32, 32)},
                         sources.Lookup(), "t/a")
                  .failures,
              IsEmpty());
  // A term whose kind the case did not run is not checked.
  EXPECT_THAT(CheckLines({Line(3, SharedKind::kLoad, 64, 32)}, sources.Lookup(), "t/a").failures, IsEmpty());

  const LineCheck check = CheckLines(
      {Line(3, SharedKind::kLoad, 64, 32), Line(3, SharedKind::kStore, 64, 32)}, sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].annotated, "ld 2-way, st conflict-free");
  EXPECT_EQ(check.failures[0].measured,
            "ld 2-way (LDS: 64 wavefronts, 32 ideal), st 2-way (STS: 64 wavefronts, 32 ideal)");
  EXPECT_EQ(check.failures[0].suggestion, "bankcheck: 2-way");
}

TEST(CheckLines, AKindAQualifiedAnnotationDoesNotNameMustBeConflictFree) {
  Sources sources;
  sources.Add(kFile, Source(5, {{3, "// bankcheck: ld 2-way"}}));
  EXPECT_THAT(CheckLines({Line(3, SharedKind::kLoad, 64, 32), Line(3, SharedKind::kStore, 32, 32)},
                         sources.Lookup(), "t/a")
                  .failures,
              IsEmpty());
  const LineCheck check = CheckLines(
      {Line(3, SharedKind::kLoad, 64, 32), Line(3, SharedKind::kAtomic, 64, 16)}, sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].annotated, "ld 2-way, atom conflict-free (not annotated)");
  EXPECT_EQ(check.failures[0].suggestion, "bankcheck: ld 2-way, atom 4-way");
}

TEST(CheckLines, AMalformedAnnotationFailsAtItsCommentLine) {
  Sources sources;
  sources.Add(kFile, "x;\n// bankcheck: 2-ways\ny;\nz;  // bankcheck: 0-way\n");
  const LineCheck check = CheckLines({Line(1, SharedKind::kLoad, 32, 32), Line(4, SharedKind::kLoad, 64, 32)},
                                     sources.Lookup(), "t/a");
  EXPECT_TRUE(check.applies);
  ASSERT_THAT(check.failures, SizeIs(2));
  EXPECT_EQ(check.failures[0].line, 2u);
  EXPECT_EQ(check.failures[0].measured, "");
  EXPECT_EQ(check.failures[0].message, std::string(kFile) + ":2: '2-ways': write '2-way' (singular)");
  EXPECT_EQ(check.failures[0].detail, "'2-ways': write '2-way' (singular)");
  // Line 4's own annotation is malformed: that is its one failure.
  EXPECT_EQ(check.failures[1].line, 4u);
  EXPECT_THAT(check.failures[1].message, HasSubstr("'0-way'"));
}

TEST(CheckLines, AnUnreadableFileIsNotChecked) {
  Sources sources;  // knows no file
  const LineCheck check = CheckLines({Line(3, SharedKind::kLoad, 128, 32)}, sources.Lookup(), "t/a");
  EXPECT_FALSE(check.applies);
  EXPECT_THAT(check.failures, IsEmpty());
}

TEST(CheckLines, KindsWithoutWavefrontsAreNotChecked) {
  Sources sources;
  sources.Add(kFile, Source(5, {{3, "// bankcheck: 4-way"}}));
  // dsmem has no wavefront counter: nothing to compare, though the annotation says 4-way.
  const LineCheck check = CheckLines({Line(3, SharedKind::kDsmem, 0, 0), Line(4, SharedKind::kDsmem, 0, 0)},
                                     sources.Lookup(), "t/a");
  EXPECT_TRUE(check.applies);
  EXPECT_THAT(check.failures, IsEmpty());
}

TEST(CheckLines, FailuresInFileAndLineOrderAndTheInlinedSourceNamed) {
  Sources sources;
  sources.Add(kFile, Source(10, {{9, "// bankcheck: conflict-free"}}));
  sources.Add(kOther, Source(200, {{152, "// bankcheck: conflict-free"}}));
  LineCounts inlined = Line(152, SharedKind::kLdmatrix, 16, 4, "LDSM.16.M88.4", kOther);
  inlined.inlined_from = "/deps/cute/arch/copy_sm80.hpp:64";
  const LineCheck check =
      CheckLines({Line(9, SharedKind::kLoad, 64, 32), Line(2, SharedKind::kLoad, 64, 32), inlined},
                 sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(3));
  EXPECT_EQ(check.failures[0].file, kOther);
  EXPECT_EQ(check.failures[1].line, 2u);
  EXPECT_EQ(check.failures[2].line, 9u);
  EXPECT_THAT(check.failures[0].message,
              HasSubstr("measured 4-way (LDSM.16.M88.4: 16 wavefronts, 4 ideal), in code inlined from "
                        "/deps/cute/arch/copy_sm80.hpp:64; write `// bankcheck: 4-way`"));
}

TEST(CheckLines, ATermWithCaseGlobsHoldsForTheCasesTheySelect) {
  Sources sources;
  sources.Add(kFile,
              Source(5, {{3, "// bankcheck: 2-way in s/vec/*, 8-way in s/swz | s/x*, conflict-free"}}));
  const auto check = [&](const std::string& case_name, uint64_t wavefronts) {
    return CheckLines({Line(3, SharedKind::kLoad, wavefronts, 32)}, sources.Lookup(), case_name).failures;
  };
  EXPECT_THAT(check("s/vec/a", 64), IsEmpty());
  EXPECT_THAT(check("s/swz", 256), IsEmpty());
  EXPECT_THAT(check("s/xy", 256), IsEmpty());
  // Every other case: the term without `in`.
  EXPECT_THAT(check("s/pad", 32), IsEmpty());
  EXPECT_THAT(check("s/vecx", 32), IsEmpty());
  const std::vector<LineFailure> failures = check("s/vec/b", 128);
  ASSERT_THAT(failures, SizeIs(1));
  EXPECT_EQ(failures[0].annotated, "2-way");
  EXPECT_EQ(failures[0].message,
            std::string(kFile) +
                ":3: annotated 2-way, measured 4-way (LDS: 128 wavefronts, 32 ideal); give this "
                "case terms such as `4-way in s/vec/b` if that is intended");
  ASSERT_THAT(check("s/pad", 64), SizeIs(1));
}

TEST(CheckLines, ACaseNoTermSelectsMustBeConflictFree) {
  Sources sources;
  sources.Add(kFile,
              Source(5, {{3, "// bankcheck: 2-way in a/*"}, {4, "// bankcheck: ld 2-way in a/*, st 4-way"}}));
  EXPECT_THAT(CheckLines({Line(3, SharedKind::kLoad, 32, 32)}, sources.Lookup(), "b/x").failures, IsEmpty());
  const LineCheck check = CheckLines({Line(3, SharedKind::kLoad, 64, 32)}, sources.Lookup(), "b/x");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].annotated, "conflict-free (no term selects this case)");
  EXPECT_THAT(check.failures[0].message,
              HasSubstr(":3: annotated for other cases only (so conflict-free), measured 2-way"));
  // Kinds: the ld term selects a/* only; for b/x loads are a kind the annotation does not name.
  EXPECT_THAT(CheckLines({Line(4, SharedKind::kLoad, 64, 32), Line(4, SharedKind::kStore, 128, 32)},
                         sources.Lookup(), "a/x")
                  .failures,
              IsEmpty());
  const LineCheck kinds = CheckLines(
      {Line(4, SharedKind::kLoad, 64, 32), Line(4, SharedKind::kStore, 128, 32)}, sources.Lookup(), "b/x");
  ASSERT_THAT(kinds.failures, SizeIs(1));
  EXPECT_EQ(kinds.failures[0].annotated, "st 4-way, ld conflict-free (not annotated)");
}

TEST(CheckLines, PerKindADefaultAndTermsByCase) {
  Sources sources;
  sources.Add(kFile,
              Source(5, {{2, "// bankcheck: ld 32-way in t/unpadded*, ld conflict-free, st conflict-free"}}));
  const std::vector<LineCounts> unpadded = {Line(2, SharedKind::kLoad, 1024, 32),
                                            Line(2, SharedKind::kStore, 32, 32)};
  const std::vector<LineCounts> padded = {Line(2, SharedKind::kLoad, 32, 32),
                                          Line(2, SharedKind::kStore, 32, 32)};
  EXPECT_THAT(CheckLines(unpadded, sources.Lookup(), "t/unpadded64").failures, IsEmpty());
  EXPECT_THAT(CheckLines(padded, sources.Lookup(), "t/padded").failures, IsEmpty());
  EXPECT_THAT(CheckLines(unpadded, sources.Lookup(), "t/padded").failures, SizeIs(1));
  EXPECT_THAT(CheckLines(padded, sources.Lookup(), "t/unpadded64").failures, SizeIs(1));
}

TEST(CheckLines, TwoTermsOfAKindThatSelectOneCaseFailAtTheComment) {
  Sources sources;
  sources.Add(kFile, "x;\n// bankcheck: ld 2-way in s/*, ld 4-way in *v | *w, st 2-way in s/*\ny;\n");
  EXPECT_THAT(CheckLines({Line(3, SharedKind::kLoad, 64, 32)}, sources.Lookup(), "s/a").failures, IsEmpty());
  const LineCheck check = CheckLines({Line(3, SharedKind::kLoad, 64, 32)}, sources.Lookup(), "s/v");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].line, 2u);
  EXPECT_EQ(check.failures[0].measured, "");
  EXPECT_EQ(
      check.failures[0].message,
      std::string(kFile) +
          ":2: the case 's/v' is selected by two terms, 'ld 2-way in s/*' and 'ld 4-way in *v | *w'; give "
          "each case one term of a kind (globs that do not overlap)");
}

TEST(NeverMatchingGlobs, AGlobThatSelectsNoCaseThatRanItsLine) {
  Sources sources;
  sources.Add(kFile, Source(6, {{2, "// bankcheck: 2-way in s/vec* | s/typo, conflict-free"},
                                {4, "// bankcheck: 4-way in s/pad"},
                                {5, "// bankcheck: 4-way in s/other*"}}));
  const std::vector<CaseLineCounts> ran = {
      {"s/vec1", {Line(2, SharedKind::kLoad, 64, 32), Line(4, SharedKind::kLoad, 32, 32)}},
      {"s/pad", {Line(2, SharedKind::kLoad, 32, 32), Line(6, SharedKind::kLoad, 32, 32)}},
      {"s/other1", {Line(5, SharedKind::kDsmem, 0, 0)}}};
  // s/typo selects no case; s/pad ran, but not line 4 (s/vec1 did); line 5 ran nothing measurable.
  const std::vector<LineFailure> failures = NeverMatchingGlobs(ran, {"s/skipped"}, sources.Lookup());
  ASSERT_THAT(failures, SizeIs(2));
  EXPECT_EQ(failures[0].line, 2u);
  EXPECT_EQ(failures[0].measured, "");
  EXPECT_EQ(failures[0].message,
            std::string(kFile) +
                ":2: case glob 's/typo' of '2-way in s/vec* | s/typo' selects none of the cases "
                "that ran line 2 (s/vec1, s/pad), nor a case that did not run; correct the "
                "glob, or remove it");
  EXPECT_EQ(failures[1].line, 4u);
  EXPECT_THAT(failures[1].detail,
              HasSubstr("case glob 's/pad' of '4-way in s/pad' selects none of the cases that "
                        "ran line 4 (s/vec1)"));
  // A glob that selects a case that did not run (or whose lines are not known) might be right.
  EXPECT_THAT(NeverMatchingGlobs(ran, {"s/typo", "s/pad"}, sources.Lookup()), IsEmpty());
  // Files without annotations, or not readable, have none.
  EXPECT_THAT(
      NeverMatchingGlobs({{"s/a", {Line(2, SharedKind::kLoad, 64, 32, "", kOther)}}}, {}, sources.Lookup()),
      IsEmpty());
}

TEST(FormatAnnotationTerms, WritesCaseGlobs) {
  EXPECT_EQ(FormatAnnotationTerms(
                ParseLineAnnotations("x; // bankcheck: ld 2-way in a* |b, ld conflict-free", "k.cu")),
            "ld 2-way in a* | b, ld conflict-free");
}

TEST(FormatSuggestions, OneRowPerMeasurableLineRelativeToTheRoot) {
  LineCounts inlined = Line(152, SharedKind::kLdmatrix, 16, 4, "LDSM.16.M88.4", kOther);
  inlined.inlined_from = "/src/bankcheck/third_party/copy.hpp:64";
  const std::string table =
      FormatSuggestions({Line(31, SharedKind::kLoad, 8192, 2048, "LDS.128"),
                         Line(31, SharedKind::kStore, 32, 32), Line(40, SharedKind::kDsmem, 0, 0), inlined},
                        "/src/bankcheck");
  EXPECT_EQ(table,
            "kernels/gemm.cu:152 (third_party/copy.hpp:64)  LDSM.16.M88.4  4-way                       "
            "// bankcheck: 4-way\n"
            "kernels/transpose.cu:31                        LDS.128, STS   ld 4-way, st conflict-free  "
            "// bankcheck: ld 4-way, st conflict-free\n");
  EXPECT_EQ(FormatSuggestions({Line(40, SharedKind::kDsmem, 0, 0)}), "");
}

}  // namespace
}  // namespace bankcheck
