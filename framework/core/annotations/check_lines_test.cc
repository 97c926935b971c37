// CheckLines (core/annotations/line_counts.h): per-line counts against the line annotations of their
// files, kinds and case globs, and the globs that select no case that ran their line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/annotations/internal/line_counts_test_support.h"
#include "core/annotations/line_counts.h"
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

TEST(CheckLines, AFileWithoutAnnotationsIsNotChecked) {
  Sources sources;
  sources.Add(kFile, Source(5, {{2, "// a plain comment"}}));
  const LineCheck check = CheckLines({Line(2, MemoryKind::kSharedLoad, 128, 32)}, sources.Lookup(), "t/a");
  EXPECT_FALSE(check.applies);
  EXPECT_THAT(check.failures, IsEmpty());
}

TEST(CheckLines, AnAnnotatedLineThatMatches) {
  Sources sources;
  sources.Add(kFile, Source(5, {{2, "// bankcheck: 4-way"}, {3, "// bankcheck: 1.67-way; three launches"}}));
  const LineCheck check =
      CheckLines({Line(2, MemoryKind::kSharedLoad, 128, 32), Line(3, MemoryKind::kSharedLoad, 80, 48)},
                 sources.Lookup(), "t/a");
  EXPECT_TRUE(check.applies);
  EXPECT_THAT(check.failures, IsEmpty());
}

TEST(CheckLines, AnAnnotatedLineThatDoesNotMatch) {
  Sources sources;
  sources.Add(kOther, Source(80, {{74, "// bankcheck: 2-way"}}));
  LineCounts line = Line(74, MemoryKind::kSharedLoad, 8192, 2048, "LDS.128", kOther);
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
  LineCounts line = Line(74, MemoryKind::kSharedLoad, 8192, 2048, "LDS.128", kOther);
  line.derived = true;
  const LineCheck check = CheckLines({line}, sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].detail,
            "annotated 2-way, derived 4-way (LDS.128: 8,192 wavefronts, 2,048 ideal); write `// bankcheck: "
            "4-way` if that is intended");
}

TEST(CheckLines, AnAnnotationAloneAboveItsLine) {
  Sources sources;
  sources.Add(kFile, "x;\n  // bankcheck: 32-way; columns of an unpadded tile\n\n  y = t[i][j];\n");
  EXPECT_THAT(CheckLines({Line(4, MemoryKind::kSharedLoad, 1024, 32)}, sources.Lookup(), "t/a").failures,
              IsEmpty());
  const LineCheck check = CheckLines({Line(4, MemoryKind::kSharedLoad, 32, 32)}, sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].line, 4u);  // the code line, not the comment's
  EXPECT_EQ(check.failures[0].annotated, "32-way");
  EXPECT_EQ(check.failures[0].suggestion, "bankcheck: conflict-free");
}

TEST(CheckLines, AnUnannotatedLineOfAnAnnotatedFileMustBeConflictFree) {
  Sources sources;
  sources.Add(kFile, Source(10, {{2, "// bankcheck: conflict-free"}}));
  const LineCheck check =
      CheckLines({Line(2, MemoryKind::kSharedStore, 32, 32), Line(5, MemoryKind::kSharedLoad, 32, 32),
                  Line(7, MemoryKind::kSharedLoad, 96, 32)},
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
  EXPECT_THAT(CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32), Line(3, MemoryKind::kSharedStore, 16, 8)},
                         sources.Lookup(), "t/a")
                  .failures,
              IsEmpty());
  // 3-way loads and conflict-free stores: 2-way summed too (96 + 32 over 64).
  EXPECT_THAT(
      CheckLines({Line(3, MemoryKind::kSharedLoad, 96, 32), Line(3, MemoryKind::kSharedStore, 32, 32)},
                 sources.Lookup(), "t/a")
          .failures,
      IsEmpty());
  const LineCheck check =
      CheckLines({Line(3, MemoryKind::kSharedLoad, 128, 32), Line(3, MemoryKind::kSharedStore, 32, 32)},
                 sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].measured, "2.5-way (LDS, STS: 160 wavefronts, 64 ideal)");
  EXPECT_EQ(check.failures[0].suggestion, "bankcheck: ld 4-way, st conflict-free");
}

TEST(CheckLines, KindQualifiedTermsCheckTheirKinds) {
  Sources sources;
  sources.Add(kFile, Source(5, {{3, "// bankcheck: ld 2-way, st conflict-free"}}));
  EXPECT_THAT(
      CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32), Line(3, MemoryKind::kSharedStore, 32, 32)},
                 sources.Lookup(), "t/a")
          .failures,
      IsEmpty());
  // A term whose kind the case did not run is not checked.
  EXPECT_THAT(CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32)}, sources.Lookup(), "t/a").failures,
              IsEmpty());

  const LineCheck check =
      CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32), Line(3, MemoryKind::kSharedStore, 64, 32)},
                 sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].annotated, "ld 2-way, st conflict-free");
  EXPECT_EQ(check.failures[0].measured,
            "ld 2-way (LDS: 64 wavefronts, 32 ideal), st 2-way (STS: 64 wavefronts, 32 ideal)");
  EXPECT_EQ(check.failures[0].suggestion, "bankcheck: 2-way");
}

TEST(CheckLines, AKindAQualifiedAnnotationDoesNotNameMustBeConflictFree) {
  Sources sources;
  sources.Add(kFile, Source(5, {{3, "// bankcheck: ld 2-way"}}));
  EXPECT_THAT(
      CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32), Line(3, MemoryKind::kSharedStore, 32, 32)},
                 sources.Lookup(), "t/a")
          .failures,
      IsEmpty());
  const LineCheck check =
      CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32), Line(3, MemoryKind::kSharedAtomic, 64, 16)},
                 sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].annotated, "ld 2-way, atom conflict-free (not annotated)");
  EXPECT_EQ(check.failures[0].suggestion, "bankcheck: ld 2-way, atom 4-way");
}

// Sectors are opt-in per line: a global kind is checked where a term names it, and never makes an
// unannotated line, or a term without a kind, fail.
TEST(CheckLines, GlobalKindsAreCheckedWhereATermNamesThem) {
  Sources sources;
  sources.Add(kFile,
              Source(9, {{3, "// bankcheck: ldg coalesced, stg coalesced"}, {5, "// bankcheck: 2-way"}}));
  // Line 3 coalesced: 4 sectors per warp load, as ideal; line 5's stride-32 load and line 7's are
  // not named by a term.
  const std::vector<LineCounts> fine = {
      Line(3, MemoryKind::kGlobalLoad, 2048, 2048), Line(3, MemoryKind::kGlobalStore, 2048, 2048),
      Line(5, MemoryKind::kSharedLoad, 64, 32), Line(5, MemoryKind::kGlobalLoad, 16384, 2048),
      Line(7, MemoryKind::kGlobalLoad, 16384, 2048)};
  EXPECT_THAT(CheckLines(fine, sources.Lookup(), "t/a").failures, IsEmpty());
  // Line 3's load stops being coalesced: it fails there, in sectors.
  const LineCheck check = CheckLines(
      {Line(3, MemoryKind::kGlobalLoad, 4096, 2048), Line(3, MemoryKind::kGlobalStore, 2048, 2048)},
      sources.Lookup(), "t/a");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].line, 3u);
  EXPECT_EQ(check.failures[0].annotated, "ldg coalesced, stg coalesced");
  EXPECT_THAT(check.failures[0].measured, HasSubstr("ldg 2-way (LDG: 4,096 sectors, 2,048 ideal)"));
}

TEST(CheckLines, AMalformedAnnotationFailsAtItsCommentLine) {
  Sources sources;
  sources.Add(kFile, "x;\n// bankcheck: 2-ways\ny;\nz;  // bankcheck: 0-way\n");
  const LineCheck check =
      CheckLines({Line(1, MemoryKind::kSharedLoad, 32, 32), Line(4, MemoryKind::kSharedLoad, 64, 32)},
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
  const LineCheck check = CheckLines({Line(3, MemoryKind::kSharedLoad, 128, 32)}, sources.Lookup(), "t/a");
  EXPECT_FALSE(check.applies);
  EXPECT_THAT(check.failures, IsEmpty());
}

TEST(CheckLines, KindsWithoutWavefrontsAreNotChecked) {
  Sources sources;
  sources.Add(kFile, Source(5, {{3, "// bankcheck: 4-way"}}));
  // dsmem has no wavefront counter: nothing to compare, though the annotation says 4-way.
  const LineCheck check =
      CheckLines({Line(3, MemoryKind::kSharedDsmem, 0, 0), Line(4, MemoryKind::kSharedDsmem, 0, 0)},
                 sources.Lookup(), "t/a");
  EXPECT_TRUE(check.applies);
  EXPECT_THAT(check.failures, IsEmpty());
}

TEST(CheckLines, FailuresInFileAndLineOrderAndTheInlinedSourceNamed) {
  Sources sources;
  sources.Add(kFile, Source(10, {{9, "// bankcheck: conflict-free"}}));
  sources.Add(kOther, Source(200, {{152, "// bankcheck: conflict-free"}}));
  LineCounts inlined = Line(152, MemoryKind::kSharedLdmatrix, 16, 4, "LDSM.16.M88.4", kOther);
  inlined.inlined_from = "/deps/cute/arch/copy_sm80.hpp:64";
  const LineCheck check = CheckLines(
      {Line(9, MemoryKind::kSharedLoad, 64, 32), Line(2, MemoryKind::kSharedLoad, 64, 32), inlined},
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
    return CheckLines({Line(3, MemoryKind::kSharedLoad, wavefronts, 32)}, sources.Lookup(), case_name)
        .failures;
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
  EXPECT_THAT(CheckLines({Line(3, MemoryKind::kSharedLoad, 32, 32)}, sources.Lookup(), "b/x").failures,
              IsEmpty());
  const LineCheck check = CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32)}, sources.Lookup(), "b/x");
  ASSERT_THAT(check.failures, SizeIs(1));
  EXPECT_EQ(check.failures[0].annotated, "conflict-free (no term selects this case)");
  EXPECT_THAT(check.failures[0].message,
              HasSubstr(":3: annotated for other cases only (so conflict-free), measured 2-way"));
  // Kinds: the ld term selects a/* only; for b/x loads are a kind the annotation does not name.
  EXPECT_THAT(
      CheckLines({Line(4, MemoryKind::kSharedLoad, 64, 32), Line(4, MemoryKind::kSharedStore, 128, 32)},
                 sources.Lookup(), "a/x")
          .failures,
      IsEmpty());
  const LineCheck kinds =
      CheckLines({Line(4, MemoryKind::kSharedLoad, 64, 32), Line(4, MemoryKind::kSharedStore, 128, 32)},
                 sources.Lookup(), "b/x");
  ASSERT_THAT(kinds.failures, SizeIs(1));
  EXPECT_EQ(kinds.failures[0].annotated, "st 4-way, ld conflict-free (not annotated)");
}

TEST(CheckLines, PerKindADefaultAndTermsByCase) {
  Sources sources;
  sources.Add(kFile,
              Source(5, {{2, "// bankcheck: ld 32-way in t/unpadded*, ld conflict-free, st conflict-free"}}));
  const std::vector<LineCounts> unpadded = {Line(2, MemoryKind::kSharedLoad, 1024, 32),
                                            Line(2, MemoryKind::kSharedStore, 32, 32)};
  const std::vector<LineCounts> padded = {Line(2, MemoryKind::kSharedLoad, 32, 32),
                                          Line(2, MemoryKind::kSharedStore, 32, 32)};
  EXPECT_THAT(CheckLines(unpadded, sources.Lookup(), "t/unpadded64").failures, IsEmpty());
  EXPECT_THAT(CheckLines(padded, sources.Lookup(), "t/padded").failures, IsEmpty());
  EXPECT_THAT(CheckLines(unpadded, sources.Lookup(), "t/padded").failures, SizeIs(1));
  EXPECT_THAT(CheckLines(padded, sources.Lookup(), "t/unpadded64").failures, SizeIs(1));
}

TEST(CheckLines, TwoTermsOfAKindThatSelectOneCaseFailAtTheComment) {
  Sources sources;
  sources.Add(kFile, "x;\n// bankcheck: ld 2-way in s/*, ld 4-way in *v | *w, st 2-way in s/*\ny;\n");
  EXPECT_THAT(CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32)}, sources.Lookup(), "s/a").failures,
              IsEmpty());
  const LineCheck check = CheckLines({Line(3, MemoryKind::kSharedLoad, 64, 32)}, sources.Lookup(), "s/v");
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
      {"s/vec1", {Line(2, MemoryKind::kSharedLoad, 64, 32), Line(4, MemoryKind::kSharedLoad, 32, 32)}},
      {"s/pad", {Line(2, MemoryKind::kSharedLoad, 32, 32), Line(6, MemoryKind::kSharedLoad, 32, 32)}},
      {"s/other1", {Line(5, MemoryKind::kSharedDsmem, 0, 0)}}};
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
  EXPECT_THAT(NeverMatchingGlobs({{"s/a", {Line(2, MemoryKind::kSharedLoad, 64, 32, "", kOther)}}}, {},
                                 sources.Lookup()),
              IsEmpty());
}

}  // namespace
}  // namespace bankcheck
