// Line annotations (docs/annotations.md): every rule of the grammar, which line an annotation
// annotates, what is not an annotation, and errors that name file:line.

#include "bankcheck/core/line_annotations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kFile[] = "kernels/k.cu";

LineAnnotation At(uint32_t line, uint32_t comment_line, std::optional<MemoryKind> kind, double ways,
                  std::vector<std::string> cases = {}) {
  return {kFile, line, comment_line, kind, ways, std::move(cases)};
}

std::vector<LineAnnotation> Parse(const std::string& text) { return ParseLineAnnotations(text, kFile); }

// The one problem `text` has, as "file:line: message".
std::string OneProblem(const std::string& text) {
  const LineAnnotationScan scan = ScanLineAnnotations(text, kFile);
  EXPECT_THAT(scan.problems, SizeIs(1)) << text;
  EXPECT_THAT(scan.annotations, IsEmpty()) << text;
  return scan.problems.empty() ? "" : scan.problems.front().ToString();
}

TEST(LineAnnotations, SameLineAnnotatesItsLine) {
  EXPECT_THAT(Parse("__global__ void k() {\n  float v = tile[x][y];  // bankcheck: 32-way\n}\n"),
              ElementsAre(At(2, 2, std::nullopt, 32)));
}

TEST(LineAnnotations, AloneAnnotatesTheNextCodeLine) {
  EXPECT_THAT(Parse("  // bankcheck: 2-way\n  float v = tile[x][y];\n"),
              ElementsAre(At(2, 1, std::nullopt, 2)));
  // Blank lines and lines of comments only (line and block) in between are passed over.
  EXPECT_THAT(Parse("// bankcheck: 4-way\n\n   \n// the read\n/* more\n   words */\n\t\nx = t[i];\n"),
              ElementsAre(At(8, 1, std::nullopt, 4)));
  // A line with code after a block comment is code.
  EXPECT_THAT(Parse("// bankcheck: 4-way\n/* note */ x = t[i];\n"), ElementsAre(At(2, 1, std::nullopt, 4)));
  // Only a block comment before it: still alone on its line.
  EXPECT_THAT(Parse("/* note */ // bankcheck: 4-way\nx = t[i];\n"), ElementsAre(At(2, 1, std::nullopt, 4)));
  // Code before a block comment on the annotation's line makes it a same-line annotation.
  EXPECT_THAT(Parse("x = t[i]; /* a */ // bankcheck: 4-way\n"), ElementsAre(At(1, 1, std::nullopt, 4)));
}

TEST(LineAnnotations, InsertingLinesAboveMovesTheAnnotations) {
  const std::string body = "// bankcheck: ld 2-way\nx = t[i];\ny = t[j];  // bankcheck: st conflict-free\n";
  EXPECT_THAT(Parse(body),
              ElementsAre(At(2, 1, MemoryKind::kSharedLoad, 2), At(3, 3, MemoryKind::kSharedStore, 1)));
  EXPECT_THAT(Parse("#include <x>\n\n// new comment\n" + body),
              ElementsAre(At(5, 4, MemoryKind::kSharedLoad, 2), At(6, 6, MemoryKind::kSharedStore, 1)));
  // Lines inserted between an annotation alone on its line and its code line.
  EXPECT_THAT(Parse("// bankcheck: 8-way\n\n\n// why\nx = t[i];\n"), ElementsAre(At(5, 1, std::nullopt, 8)));
}

TEST(LineAnnotations, ConflictFreeIsOneWay) {
  EXPECT_THAT(Parse("x; // bankcheck: conflict-free\ny; // bankcheck: 1-way\n"),
              ElementsAre(At(1, 1, std::nullopt, 1), At(2, 2, std::nullopt, 1)));
}

TEST(LineAnnotations, CoalescedIsOneWayOfAGlobalKind) {
  EXPECT_THAT(Parse("out[i] = in[i];  // bankcheck: ldg coalesced, stg 2-way\n"),
              ElementsAre(At(1, 1, MemoryKind::kGlobalLoad, 1), At(1, 1, MemoryKind::kGlobalStore, 2)));
}

TEST(LineAnnotations, WaysMayHaveADecimalPart) {
  EXPECT_THAT(
      Parse("x; // bankcheck: 1.5-way\ny; // bankcheck: 2.25-way\nz; // bankcheck: 02.0-way\n"),
      ElementsAre(At(1, 1, std::nullopt, 1.5), At(2, 2, std::nullopt, 2.25), At(3, 3, std::nullopt, 2)));
  EXPECT_THAT(Parse("x; // bankcheck: 1000000-way\n"), ElementsAre(At(1, 1, std::nullopt, 1e6)));
}

TEST(LineAnnotations, KindsFromTheKindTable) {
  EXPECT_THAT(Parse("x; // bankcheck: ld 2-way, st conflict-free, ldsm 8-way\n"),
              ElementsAre(At(1, 1, MemoryKind::kSharedLoad, 2), At(1, 1, MemoryKind::kSharedStore, 1),
                          At(1, 1, MemoryKind::kSharedLdmatrix, 8)));
  // Every kind of the table, by label and by key.
  for (const MemoryKindInfo& info : MemoryKinds()) {
    for (const std::string name : {info.label, info.key}) {
      EXPECT_THAT(Parse("x; // bankcheck: " + name + " 4-way\n"), ElementsAre(At(1, 1, info.kind, 4)))
          << name;
    }
  }
}

TEST(LineAnnotations, SpacingAndANote) {
  EXPECT_THAT(Parse("x; //bankcheck:2-way\n"), ElementsAre(At(1, 1, std::nullopt, 2)));
  EXPECT_THAT(Parse("x; //   bankcheck:   ld\t2-way ,st   4-way   \r\n"),
              ElementsAre(At(1, 1, MemoryKind::kSharedLoad, 2), At(1, 1, MemoryKind::kSharedStore, 4)));
  EXPECT_THAT(Parse("x; // bankcheck: 32-way; the tile is not padded, so columns hit one bank\n"),
              ElementsAre(At(1, 1, std::nullopt, 32)));
}

TEST(LineAnnotations, OnlyCommentsThatStartWithTheMarker) {
  EXPECT_THAT(Parse("x; // see bankcheck: docs\n"
                    "x; // bankcheck is great: 2-way\n"
                    "x; // Bankcheck: 2-way\n"
                    "x; /// bankcheck: 2-way\n"
                    "x; // bankcheck 2-way\n"
                    "// the bankcheck: docs say\n"
                    "// bankcheck::Error when the file cannot be read\n"
                    "x; // bankcheck::MemoryKind::kSharedLoad 2-way\n"
                    "x;\n"),
              IsEmpty());
}

TEST(LineAnnotations, NotInLiteralsOrBlockComments) {
  EXPECT_THAT(Parse("const char* s = \"// bankcheck: 2-way\";\n"), IsEmpty());
  EXPECT_THAT(Parse("const char* s = \"\\\"// bankcheck: 2-way\";\n"), IsEmpty());
  EXPECT_THAT(Parse("auto s = u8\"// bankcheck: 2-way\";\n"), IsEmpty());
  EXPECT_THAT(Parse("auto s = R\"x(\n// bankcheck: 2-way\n)\" // bankcheck: 2-way\n)x\";\n"), IsEmpty());
  EXPECT_THAT(Parse("char c = '\"'; // bankcheck: 2-way\n"), ElementsAre(At(1, 1, std::nullopt, 2)));
  EXPECT_THAT(Parse("int n = 1'000; char q = '\"'; // bankcheck: 2-way\n"),
              ElementsAre(At(1, 1, std::nullopt, 2)));
  EXPECT_THAT(Parse("/* x; // bankcheck: 2-way\n   y; // bankcheck: 4-way */\nz;\n"), IsEmpty());
  // After a string that holds "//", the comment is still found.
  EXPECT_THAT(Parse("f(\"a//b\", t[i]); // bankcheck: 4-way\n"), ElementsAre(At(1, 1, std::nullopt, 4)));
  // Lines inside a raw string are code: an annotation above one annotates it.
  EXPECT_THAT(Parse("auto s = R\"(\n// bankcheck: 2-way\n)\";\n// bankcheck: 4-way\nx;\n"),
              ElementsAre(At(5, 4, std::nullopt, 4)));
}

TEST(LineAnnotations, ALineCommentContinuedByABackslash) {
  // The next line belongs to the comment, so it is no code line; the backslash is no term.
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way \\\ny;\n"),
              HasSubstr("k.cu:1: '2-way \\': '\\' after '2-way'; separate terms"));
  EXPECT_THAT(Parse("// note \\\n   still the note\n// bankcheck: 2-way\nx;\n"),
              ElementsAre(At(4, 3, std::nullopt, 2)));
  EXPECT_THAT(Parse("// bankcheck: 2-way\n// note \\\n   x = 1;\ny;\n"),
              ElementsAre(At(4, 1, std::nullopt, 2)));
}

TEST(LineAnnotations, LineSplicesAndLineEndsAsGccReadsThem) {
  // g++ 12 joins a line that ends in a backslash followed by spaces, tabs, form feeds, vertical
  // tabs or NUL bytes (it warns), before "\n", "\r\n" or a "\r" alone; the joined line is part of
  // the comment, so the annotation on it is not read and `x = 2;` is no code line.
  for (const std::string& blanks : {std::string(""), std::string(" "), std::string("\t"), std::string("\f"),
                                    std::string("\v"), std::string(1, '\0'), std::string(" \f\t")}) {
    for (const std::string eol : {"\n", "\r\n", "\r"}) {
      const std::string text =
          "// old code \\" + blanks + eol + "x = 2;  // bankcheck: 2-way\n// bankcheck: 4-way\ny;\n";
      EXPECT_THAT(Parse(text), ElementsAre(At(4, 3, std::nullopt, 4))) << ::testing::PrintToString(text);
    }
  }
  // Any other character after the backslash ends the splice (\x01 here), and a "\r" alone ends a
  // line, as "\n" does.
  EXPECT_THAT(Parse("// old code \\\x01\nx = 2;  // bankcheck: 2-way\n"),
              ElementsAre(At(2, 2, std::nullopt, 2)));
  EXPECT_THAT(Parse("x;\r// bankcheck: 2-way\ry = 1;\n"), ElementsAre(At(3, 2, std::nullopt, 2)));
  // A splice inside a string literal keeps the string open on the next line.
  EXPECT_THAT(Parse("auto s = \"a\\ \n// bankcheck: 2-way\";\nx;\n"), IsEmpty());
  // A raw string keeps its backslashes: no splice there.
  EXPECT_THAT(Parse("auto s = R\"(a\\\n)\";  // bankcheck: 2-way\n"), ElementsAre(At(2, 2, std::nullopt, 2)));
}

TEST(LineAnnotations, ProblemsAreOneLineWithControlCharactersShown) {
  // A problem quotes the source: an escape sequence or a line break in it must not reach a
  // terminal or a CI log as it is.
  const std::string problem = OneProblem("x; // bankcheck: 2-way \x1b[31mred\x1b[0m\n");
  EXPECT_THAT(problem, HasSubstr("?[31mred?[0m"));
  EXPECT_EQ(problem.find('\x1b'), std::string::npos);
}

TEST(LineAnnotations, MalformedTermsNameFileAndLine) {
  EXPECT_EQ(OneProblem("x;\n  // bankcheck:\ny;\n"),
            "kernels/k.cu:2: 'bankcheck:' without terms; write such as 'bankcheck: 2-way', 'bankcheck: "
            "conflict-free' or 'bankcheck: ld 2-way, st conflict-free'");
  EXPECT_THAT(OneProblem("x; // bankcheck:   ; just a note\n"),
              HasSubstr("k.cu:1: 'bankcheck:' without terms"));
  EXPECT_EQ(OneProblem("x; // bankcheck: 0-way\n"),
            "kernels/k.cu:1: '0-way': ways are wavefronts per ideal wavefront, at least 1 (conflict-free is "
            "1-way)");
  EXPECT_THAT(OneProblem("x; // bankcheck: 0.5-way\n"), HasSubstr("k.cu:1: '0.5-way': ways are wavefronts"));
  EXPECT_EQ(OneProblem("x; // bankcheck: fine\n"),
            "kernels/k.cu:1: 'fine': expected N-way (such as 2-way or 1.5-way) or conflict-free");
  EXPECT_THAT(OneProblem("x; // bankcheck: 2way\n"), HasSubstr("'2way': expected N-way"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-Way\n"), HasSubstr("'2-Way': expected N-way"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-ways\n"), HasSubstr("'2-ways': write '2-way' (singular)"));
  EXPECT_THAT(OneProblem("x; // bankcheck: two-way\n"), HasSubstr("'two-way': N in N-way must be a number"));
  EXPECT_THAT(OneProblem("x; // bankcheck: -2-way\n"), HasSubstr("'-2-way': N in N-way must be a number"));
  EXPECT_THAT(OneProblem("x; // bankcheck: +2-way\n"), HasSubstr("N in N-way must be a number"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2.-way\n"), HasSubstr("N in N-way must be a number"));
  EXPECT_THAT(OneProblem("x; // bankcheck: .5-way\n"), HasSubstr("N in N-way must be a number"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 1e3-way\n"), HasSubstr("N in N-way must be a number"));
  EXPECT_THAT(OneProblem("x; // bankcheck: -way\n"), HasSubstr("N in N-way must be a number"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 1.1234567-way\n"),
              HasSubstr("at most 6 digits after the decimal"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 1000001-way\n"), HasSubstr("more ways than 1000000"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 99999999999999999999999-way\n"),
              HasSubstr("more ways than 1000000"));
  EXPECT_THAT(
      OneProblem("x; // bankcheck: 2-way 4-way\n"),
      HasSubstr("'2-way 4-way': '4-way' after '2-way'; separate terms with ',' and begin a note with ';'"));
  EXPECT_THAT(OneProblem("x; // bankcheck: ld 2-way extra\n"), HasSubstr("'ld 2-way extra': too many words"));
}

TEST(LineAnnotations, MalformedKinds) {
  EXPECT_EQ(OneProblem("x; // bankcheck: shmem 2-way\n"),
            "kernels/k.cu:1: 'shmem': not a kind of memory instruction (kinds: ld, st, atom, ldsm, "
            "stsm, ldgsts, gmma, dsmem, ldg, stg, atomg, redg, ldl, stl, ldgsts_g, tma_ld, tma_st)");
  EXPECT_THAT(OneProblem("x; // bankcheck: lds 2-way\n"), HasSubstr("'lds' is an op name; the kind is 'ld'"));
  EXPECT_THAT(OneProblem("x; // bankcheck: LD 2-way\n"), HasSubstr("'LD': not a kind"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way ld\n"),
              HasSubstr("'2-way ld': put the kind first: 'ld 2-way'"));
  EXPECT_THAT(OneProblem("x; // bankcheck: ld\n"),
              HasSubstr("'ld': a kind without ways; write 'ld N-way' or 'ld conflict-free'"));
  EXPECT_EQ(OneProblem("x; // bankcheck: ld 2-way, st 1-way, shared_ld 4-way\n"),
            "kernels/k.cu:1: kind 'ld' given twice ('ld 2-way', 'shared_ld 4-way')");
  EXPECT_EQ(OneProblem("x; // bankcheck: ld 2-way, 4-way\n"),
            "kernels/k.cu:1: '4-way' has no kind but 'ld 2-way' has one; put a kind before every term, or "
            "give one term without a kind");
  EXPECT_THAT(OneProblem("x; // bankcheck: 4-way, st 2-way\n"),
              HasSubstr("'4-way' has no kind but 'st 2-way'"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way, 4-way\n"),
              HasSubstr("two terms without a kind ('2-way', '4-way'); give one"));
  EXPECT_THAT(OneProblem("x; // bankcheck: ld 2-way,\n"),
              HasSubstr("an empty term in 'ld 2-way,' (a stray comma?)"));
  EXPECT_THAT(OneProblem("x; // bankcheck: , ld 2-way\n"), HasSubstr("an empty term"));
}

TEST(LineAnnotations, CaseGlobsSelectTheCasesATermHoldsFor) {
  EXPECT_THAT(
      Parse("x; // bankcheck: 2-way in sgemm_tiled/vectorized/*, conflict-free in sgemm_tiled/padded/* | "
            "sgemm_tiled/swizzled/*\n"),
      ElementsAre(At(1, 1, std::nullopt, 2, {"sgemm_tiled/vectorized/*"}),
                  At(1, 1, std::nullopt, 1, {"sgemm_tiled/padded/*", "sgemm_tiled/swizzled/*"})));
  // A term without `in` is the default of its kind.
  EXPECT_THAT(Parse("x; // bankcheck: conflict-free, 32-way in transpose/unpadded*\n"),
              ElementsAre(At(1, 1, std::nullopt, 1), At(1, 1, std::nullopt, 32, {"transpose/unpadded*"})));
  EXPECT_THAT(
      Parse("// bankcheck: ld 32-way in transpose/unpadded*, ld conflict-free, st conflict-free\nx;\n"),
      ElementsAre(At(2, 1, MemoryKind::kSharedLoad, 32, {"transpose/unpadded*"}),
                  At(2, 1, MemoryKind::kSharedLoad, 1), At(2, 1, MemoryKind::kSharedStore, 1)));
  // Blanks around '|' are free; a glob is MatchesGlob's, escapes and sets too; a note still follows ';'.
  EXPECT_THAT(Parse("x; //bankcheck: ld 2-way in a*|b?\t|  [cd]\\*x ; why\n"),
              ElementsAre(At(1, 1, MemoryKind::kSharedLoad, 2, {"a*", "b?", "[cd]\\*x"})));
  // The errors of one kind twice hold per glob: one kind for different cases, or both without a kind.
  EXPECT_THAT(Parse("x; // bankcheck: ld 2-way in a*, ld 4-way in b*\n"),
              ElementsAre(At(1, 1, MemoryKind::kSharedLoad, 2, {"a*"}),
                          At(1, 1, MemoryKind::kSharedLoad, 4, {"b*"})));
  EXPECT_THAT(Parse("x; // bankcheck: 2-way in a*, 4-way in b*\n"),
              ElementsAre(At(1, 1, std::nullopt, 2, {"a*"}), At(1, 1, std::nullopt, 4, {"b*"})));
  // A case named "in" is selected as any other.
  EXPECT_THAT(Parse("x; // bankcheck: 2-way in in\n"), ElementsAre(At(1, 1, std::nullopt, 2, {"in"})));
}

TEST(LineAnnotations, ManyGlobsAndTermsAreReadInLinearTime) {
  // A hostile source: 100,000 globs in one term, and 100,000 terms of one kind; each pair compared
  // would be 10^10 steps.
  std::string globs, terms;
  for (int i = 0; i < 100000; ++i) {
    globs += (i == 0 ? "" : " | ") + ("g" + std::to_string(i));
    terms += (i == 0 ? "" : ", ") + ("2-way in t" + std::to_string(i));
  }
  ASSERT_THAT(Parse("x; // bankcheck: 2-way in " + globs + "\n"), SizeIs(1));
  EXPECT_EQ(Parse("x; // bankcheck: 2-way in " + globs + "\n").front().cases.size(), 100000u);
  EXPECT_THAT(Parse("x; // bankcheck: " + terms + "\n"), SizeIs(100000));
  EXPECT_THAT(OneProblem("x; // bankcheck: " + terms + ", 4-way in t99999\n"),
              HasSubstr("case glob 't99999' given twice for terms without a kind"));
}

TEST(LineAnnotations, MalformedCaseGlobs) {
  EXPECT_EQ(
      OneProblem("x; // bankcheck: 2-way in\n"),
      "kernels/k.cu:1: '2-way in': 'in' without a case glob; write such as '2-way in sgemm/padded/*' or "
      "'2-way in sgemm/padded/* | sgemm/swizzled/*'");
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in ; a note\n"),
              HasSubstr("'2-way in': 'in' without a case glob"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in a* |\n"),
              HasSubstr("k.cu:1: an empty case glob in '2-way in a* |' (a stray '|'?)"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in | a*\n"), HasSubstr("an empty case glob"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in a* || b*\n"), HasSubstr("an empty case glob"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in a* b*\n"),
              HasSubstr("'a* b*': a case glob holds no blanks; separate globs with '|'"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in a* in b*\n"), HasSubstr("a case glob holds no blanks"));
  EXPECT_THAT(
      OneProblem("x; // bankcheck: 2-way in a*,b*\n"),
      HasSubstr("'b*': expected N-way (such as 2-way or 1.5-way) or conflict-free (a case glob holds no "
                "','; separate globs with '|')"));
  EXPECT_THAT(OneProblem(std::string("x; // bankcheck: 2-way in a\x01"
                                     "b\n")),
              HasSubstr("a case glob in '2-way in a?b' holds a control character"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in " + std::string(4097, 'a') + "\n"),
              HasSubstr("a case glob of 4097 bytes in the term, longer than the 4096 bankcheck reads"));
  EXPECT_THAT(Parse("x; // bankcheck: 2-way in " + std::string(4096, 'a') + "\n"), SizeIs(1));
  // `in` before the ways.
  EXPECT_EQ(
      OneProblem("x; // bankcheck: in a* 2-way\n"),
      "kernels/k.cu:1: 'in a* 2-way': 'in' and its case globs come after the ways, such as 'ld 2-way in "
      "sgemm/padded/*'");
  EXPECT_THAT(OneProblem("x; // bankcheck: ld in a* 2-way\n"), HasSubstr("come after the ways"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way ld in a*\n"), HasSubstr("put the kind first: 'ld 2-way'"));
  EXPECT_THAT(OneProblem("x; // bankcheck: ld 2-way extra in a*\n"), HasSubstr("too many words"));
  // A glob twice for one kind.
  EXPECT_EQ(
      OneProblem("x; // bankcheck: ld 2-way in a*, ld 4-way in b* | a*\n"),
      "kernels/k.cu:1: case glob 'a*' given twice for kind 'ld' ('ld 2-way in a*', 'ld 4-way in b* | a*')");
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in a*, 4-way in a*\n"),
              HasSubstr("case glob 'a*' given twice for terms without a kind"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in a* | a*\n"),
              HasSubstr("case glob 'a*' given twice in '2-way in a* | a*'"));
  // The same glob for two kinds is fine; the errors without globs stay.
  EXPECT_THAT(Parse("x; // bankcheck: ld 2-way in a*, st 4-way in a*\n"), SizeIs(2));
  EXPECT_THAT(OneProblem("x; // bankcheck: ld 2-way in a*, ld 4-way, ld 8-way\n"),
              HasSubstr("kind 'ld' given twice"));
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in a*, 4-way, 8-way\n"),
              HasSubstr("two terms without a kind"));
  // Kinds and no kinds do not mix, with globs or without.
  EXPECT_THAT(OneProblem("x; // bankcheck: 2-way in a*, ld 4-way\n"),
              HasSubstr("'2-way in a*' has no kind but 'ld 4-way' has one"));
}

TEST(LineAnnotations, MisplacedAnnotations) {
  EXPECT_EQ(OneProblem("x;\n// bankcheck: 2-way\n\n// end\n"),
            "kernels/k.cu:2: the annotation annotates no line: only blank lines and comments follow it");
  EXPECT_THAT(OneProblem("x; /* bankcheck: 2-way */\n"),
              HasSubstr("k.cu:1: an annotation must be a // comment; a /* */ comment is not read"));
  // Only a block comment whose text starts with the marker on its first line is taken for one.
  const LineAnnotationScan scan = ScanLineAnnotations("/*\n  bankcheck: 2-way */ x;\n", kFile);
  EXPECT_THAT(scan.annotations, IsEmpty());
  EXPECT_THAT(scan.problems, IsEmpty());
}

TEST(LineAnnotations, OneAnnotationPerLine) {
  const LineAnnotationScan scan =
      ScanLineAnnotations("// bankcheck: ld 2-way\nx = t[i]; // bankcheck: st 2-way\n", kFile);
  EXPECT_THAT(scan.annotations, ElementsAre(At(2, 1, MemoryKind::kSharedLoad, 2)));
  ASSERT_THAT(scan.problems, SizeIs(1));
  EXPECT_EQ(scan.problems[0].ToString(),
            "kernels/k.cu:2: line 2 is already annotated (by the comment on line 1); give all of a line's "
            "terms in one annotation, such as 'ld 2-way, st conflict-free'");
  const LineAnnotationScan stacked =
      ScanLineAnnotations("// bankcheck: ld 2-way\n// bankcheck: st 2-way\nx;\n", kFile);
  EXPECT_THAT(stacked.annotations, ElementsAre(At(3, 1, MemoryKind::kSharedLoad, 2)));
  ASSERT_THAT(stacked.problems, SizeIs(1));
  EXPECT_THAT(stacked.problems[0].ToString(),
              HasSubstr("k.cu:2: line 3 is already annotated (by the comment on line 1)"));
}

TEST(LineAnnotations, EveryProblemIsReportedAndParseThrowsThemAll) {
  const std::string text = "x; // bankcheck: 0-way\ny; // bankcheck: 2-way\nz; // bankcheck: nope\n";
  const LineAnnotationScan scan = ScanLineAnnotations(text, kFile);
  EXPECT_THAT(scan.annotations, ElementsAre(At(2, 2, std::nullopt, 2)));
  ASSERT_THAT(scan.problems, SizeIs(2));
  EXPECT_EQ(scan.problems[0].line, 1u);
  EXPECT_EQ(scan.problems[1].line, 3u);
  try {
    Parse(text);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_EQ(std::string(e.what()), scan.problems[0].ToString() + "\n" + scan.problems[1].ToString());
  }
}

class LineAnnotationFiles : public testing_support::TempDirTest {};

TEST_F(LineAnnotationFiles, ReadNamesTheFile) {
  const std::filesystem::path path = dir_ / "kernel.cu";
  testing_support::WriteFile(path, "\nx = t[i]; // bankcheck: ldsm 8-way\n");
  EXPECT_THAT(ReadLineAnnotations(path),
              ElementsAre(LineAnnotation{path.string(), 2, 2, MemoryKind::kSharedLdmatrix, 8, {}}));
  testing_support::WriteFile(path, "x; // bankcheck: 3\n");
  try {
    ReadLineAnnotations(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr(path.string() + ":1: '3': expected N-way"));
  }
  try {
    ReadLineAnnotations(dir_ / "missing.cu");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr((dir_ / "missing.cu").string() + ": cannot be read"));
  }
}

}  // namespace
}  // namespace bankcheck
