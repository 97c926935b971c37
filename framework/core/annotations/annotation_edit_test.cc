// Writing annotations into source text (core/annotations/annotation_edit.h): appended, inserted above,
// replaced, kept; never an edit that would not read back or would break a macro.

#include "core/annotations/annotation_edit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/line_annotations.h"

namespace bankcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr char kFile[] = "kernels/k.cu";

EditedSource Edit(const std::string& text, const std::vector<AnnotationEdit>& edits) {
  return ApplyAnnotationEdits(text, kFile, edits);
}

// The one edit's result.
EditResult Only(const EditedSource& edited) {
  EXPECT_THAT(edited.results, SizeIs(1));
  return edited.results.empty() ? EditResult{} : edited.results.front();
}

TEST(ApplyAnnotationEdits, AppendsToALineWithoutAComment) {
  const EditedSource edited = Edit("__global__ void k() {\n  x = t[i];   \n}\n", {{2, "bankcheck: 4-way"}});
  EXPECT_EQ(edited.text, "__global__ void k() {\n  x = t[i];  // bankcheck: 4-way\n}\n");
  EXPECT_EQ(Only(edited).outcome, EditOutcome::kAppended);
  EXPECT_EQ(Only(edited).line, 2u);
  EXPECT_FALSE(edited.lines_moved);
}

TEST(ApplyAnnotationEdits, AppendsAfterSlashesInAStringAndKeepsCrLf) {
  EXPECT_EQ(Edit("x = f(\"http://a\", t[i]);\r\ny;\r\n", {{1, "bankcheck: 2-way"}}).text,
            "x = f(\"http://a\", t[i]);  // bankcheck: 2-way\r\ny;\r\n");
  // The last line without a final newline.
  EXPECT_EQ(Edit("x;\ny = t[i];", {{2, "bankcheck: conflict-free"}}).text,
            "x;\ny = t[i];  // bankcheck: conflict-free");
}

TEST(ApplyAnnotationEdits, AboveALineWithAnotherComment) {
  const EditedSource edited =
      Edit("{\n    y = t[j];  // the column\n}\n", {{2, "bankcheck: ld 2-way, st conflict-free"}});
  EXPECT_EQ(edited.text,
            "{\n    // bankcheck: ld 2-way, st conflict-free\n    y = t[j];  // the column\n}\n");
  EXPECT_EQ(Only(edited).outcome, EditOutcome::kInsertedAbove);
  EXPECT_TRUE(edited.lines_moved);
  // It reads back as an annotation of the code line, now line 3.
  const std::vector<LineAnnotation> read = ParseLineAnnotations(edited.text, kFile);
  ASSERT_THAT(read, SizeIs(2));
  EXPECT_EQ(read[0].line, 3u);
  EXPECT_EQ(read[0].comment_line, 2u);

  // Tabs and CRLF as the line has them.
  EXPECT_EQ(Edit("\ty = t[j]; // c\r\n", {{1, "bankcheck: 2-way"}}).text,
            "\t// bankcheck: 2-way\r\n\ty = t[j]; // c\r\n");
}

TEST(ApplyAnnotationEdits, ByCaseAppendedWhileTheLineStaysShortAboveItOtherwise) {
  const std::string by_case = "bankcheck: conflict-free, 32-way in transpose/unpadded*";
  EXPECT_EQ(Edit("  y = t[j];\n", {{1, by_case}}).text, "  y = t[j];  // " + by_case + "\n");
  // Appended, the line would be longer than 200 bytes: alone on a line above, read back with its globs.
  const std::string code = "  acc += a[" + std::string(120, 'i') + "];";
  const std::string text = "{\n" + code + "\n}\n";
  const std::string long_by_case =
      "bankcheck: conflict-free, 2-way in sgemm_tiled/vectorized/*, 4-way in sgemm_tiled/padded/* | "
      "sgemm_tiled/swizzled/*";
  const EditedSource edited = Edit(text, {{2, long_by_case}});
  EXPECT_EQ(edited.text, "{\n  // " + long_by_case + "\n" + code + "\n}\n");
  EXPECT_EQ(Only(edited).outcome, EditOutcome::kInsertedAbove);
  EXPECT_TRUE(edited.lines_moved);
  const std::vector<LineAnnotation> read = ParseLineAnnotations(edited.text, kFile);
  ASSERT_THAT(read, SizeIs(3));
  EXPECT_EQ(read[2].line, 3u);
  EXPECT_EQ(read[2].cases, (std::vector<std::string>{"sgemm_tiled/padded/*", "sgemm_tiled/swizzled/*"}));
  // Exactly 200 bytes is still appended.
  const std::string fits = std::string(200 - 5 - 16, 'x');
  EXPECT_EQ(Only(Edit(fits + "\n", {{1, "bankcheck: 2-way"}})).outcome, EditOutcome::kAppended);
  EXPECT_EQ(Only(Edit(fits + "x\n", {{1, "bankcheck: 2-way"}})).outcome, EditOutcome::kInsertedAbove);
}

TEST(ApplyAnnotationEdits, AByCaseAnnotationReplacesOneAndIsUnchangedWhenTheSame) {
  const std::string text = "x;  // bankcheck: 2-way in a* | b*, 4-way; note\n";
  EXPECT_EQ(Only(Edit(text, {{1, "bankcheck: 4-way, 2-way in a*|b*"}})).outcome, EditOutcome::kUnchanged);
  const EditedSource replaced = Edit(text, {{1, "bankcheck: 4-way, 2-way in a*", true}});
  EXPECT_EQ(replaced.text, "x;  // bankcheck: 4-way, 2-way in a*; note\n");
  EXPECT_EQ(Only(replaced).outcome, EditOutcome::kReplaced);
  EXPECT_EQ(Only(replaced).existing, "2-way in a* | b*, 4-way");
}

TEST(ApplyAnnotationEdits, AboveALineThatLeavesABlockCommentOpen) {
  EXPECT_EQ(Edit("y = t[j]; /* the column\n   more */\n", {{1, "bankcheck: 2-way"}}).text,
            "// bankcheck: 2-way\ny = t[j]; /* the column\n   more */\n");
}

TEST(ApplyAnnotationEdits, NeverInAMacroContinuedByABackslash) {
  // A comment after the backslash, or a line before a continued line, would end the macro early.
  const std::string text = "#define LOAD(i) \\\n  t[i] \\\n  + 1  // one more\nx;\n";
  for (const uint32_t line : {2u, 3u}) {
    const EditedSource edited = Edit(text, {{line, "bankcheck: 2-way"}});
    EXPECT_EQ(edited.text, text);
    EXPECT_EQ(Only(edited).outcome, EditOutcome::kNotPlaced);
    EXPECT_THAT(Only(edited).reason, HasSubstr("backslash"));
  }
  // The macro's last line may end with a comment.
  EXPECT_EQ(Edit("#define LOAD(i) \\\n  t[i]\n", {{2, "bankcheck: 2-way"}}).text,
            "#define LOAD(i) \\\n  t[i]  // bankcheck: 2-way\n");
}

TEST(ApplyAnnotationEdits, NeverUncommentsALineJoinedToAComment) {
  // For g++, "\\\f" before the line end joins `x = 2;` to the comment above it: a line inserted
  // between them would make `x = 2;` code again (the review's program then printed 2, not 1).
  for (const std::string blanks : {"\f", " ", "\t", "\v"}) {
    const std::string text = "int x = 1;\n// x = 2 was wrong \\" + blanks + "\nx = 2;  // the fix\n";
    const EditedSource edited = Edit(text, {{3, "bankcheck: 2-way"}});
    EXPECT_EQ(edited.text, text);
    EXPECT_EQ(Only(edited).outcome, EditOutcome::kNotPlaced);
  }
  // Nor is an annotation replaced at the end of a comment that a splice continues.
  const std::string text = "x; // bankcheck: 2-way; note \\ \ny = 2;\n";
  EXPECT_EQ(Edit(text, {{1, "bankcheck: 4-way", true}}).text, text);
}

TEST(ApplyAnnotationEdits, AnAnnotationThatWouldJoinTheNextLineIsAnError) {
  EXPECT_THROW(Edit("x;\ny;\n", {{1, "bankcheck: 2-way; note \\"}}), Error);
  EXPECT_THROW(Edit("x;\ny;\n", {{1, "bankcheck: 2-way; note \\ \t"}}), Error);
}

TEST(ApplyAnnotationEdits, NotInsideARawString) {
  const std::string text = "auto s = R\"(\nt[i]\n)\";\n";
  const EditedSource edited = Edit(text, {{2, "bankcheck: 2-way"}});
  EXPECT_EQ(edited.text, text);
  EXPECT_EQ(Only(edited).outcome, EditOutcome::kNotPlaced);
}

TEST(ApplyAnnotationEdits, ADifferentAnnotationIsKeptUnlessOverwritten) {
  const std::string text = "x;\n  // bankcheck: 2-way; padded by one word\n  y = t[j];\n";
  const EditedSource kept = Edit(text, {{3, "bankcheck: 4-way"}});
  EXPECT_EQ(kept.text, text);
  EXPECT_EQ(Only(kept).outcome, EditOutcome::kKept);
  EXPECT_EQ(Only(kept).existing, "2-way");
  EXPECT_EQ(Only(kept).comment_line, 2u);

  const EditedSource replaced = Edit(text, {{3, "bankcheck: 4-way", true}});
  EXPECT_EQ(replaced.text, "x;\n  // bankcheck: 4-way; padded by one word\n  y = t[j];\n");
  EXPECT_EQ(Only(replaced).outcome, EditOutcome::kReplaced);
  EXPECT_EQ(Only(replaced).existing, "2-way");
  EXPECT_FALSE(replaced.lines_moved);

  // On the line itself, after a string that looks like one.
  EXPECT_EQ(Edit("s = \"// bankcheck: 9-way\"; y = t[j];  //bankcheck:ld 2-way,st 2-way\n",
                 {{1, "bankcheck: ld 4-way, st conflict-free", true}})
                .text,
            "s = \"// bankcheck: 9-way\"; y = t[j];  //bankcheck: ld 4-way, st conflict-free\n");
}

TEST(ApplyAnnotationEdits, TheSameAnnotationIsLeftAsItIs) {
  const std::string text = "y = t[j];  // bankcheck: st conflict-free, ld 2.0-way\n";
  const EditedSource edited = Edit(text, {{1, "bankcheck: ld 2-way, st conflict-free", true}});
  EXPECT_EQ(edited.text, text);
  EXPECT_EQ(Only(edited).outcome, EditOutcome::kUnchanged);
}

TEST(ApplyAnnotationEdits, BottomUpSoEveryLineNumberIsTheGivenTexts) {
  const std::string text = "a = t[0];\nb = t[1];  // b\nc = t[2];\nd = t[3];  // e\ne = t[4];\n";
  const EditedSource edited = Edit(
      text,
      {{2, "bankcheck: 2-way"}, {5, "bankcheck: 5-way"}, {4, "bankcheck: 4-way"}, {1, "bankcheck: 1.5-way"}});
  EXPECT_EQ(edited.text,
            "a = t[0];  // bankcheck: 1.5-way\n"
            "// bankcheck: 2-way\n"
            "b = t[1];  // b\n"
            "c = t[2];\n"
            "// bankcheck: 4-way\n"
            "d = t[3];  // e\n"
            "e = t[4];  // bankcheck: 5-way\n");
  ASSERT_THAT(edited.results, SizeIs(4));  // in the order given
  EXPECT_EQ(edited.results[0].outcome, EditOutcome::kInsertedAbove);
  EXPECT_EQ(edited.results[1].outcome, EditOutcome::kAppended);
  EXPECT_EQ(edited.results[2].outcome, EditOutcome::kInsertedAbove);
  EXPECT_EQ(edited.results[3].outcome, EditOutcome::kAppended);
  EXPECT_TRUE(edited.lines_moved);
}

TEST(ApplyAnnotationEdits, ALinePastTheEnd) {
  const EditedSource edited = Edit("x;\n", {{7, "bankcheck: 2-way"}});
  EXPECT_EQ(edited.text, "x;\n");
  EXPECT_EQ(Only(edited).outcome, EditOutcome::kNotPlaced);
  EXPECT_THAT(Only(edited).reason, HasSubstr("has 1 lines"));
}

TEST(ApplyAnnotationEdits, BadEditsAreErrors) {
  EXPECT_THROW(Edit("x;\n", {{1, "bankcheck: 2-way"}, {1, "bankcheck: 4-way"}}), Error);
  EXPECT_THROW(Edit("x;\n", {{1, "bankcheck: 2-ways"}}), Error);
  EXPECT_THROW(Edit("x;\n", {{1, "2-way"}}), Error);
  EXPECT_THROW(Edit("x;\n", {{1, "bankcheck: 2-way\ny;"}}), Error);
}

}  // namespace
}  // namespace bankcheck
