#include "core/platform/json_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bankcheck/core/error.h"
#include "core/platform/test_support.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace {

using ::testing::HasSubstr;

TEST(LineColumnTest, CountsLinesAndColumnsFromOne) {
  const std::string text = "ab\ncd\n\nef";
  EXPECT_EQ(LineColumnAt(text, 0).line, 1u);
  EXPECT_EQ(LineColumnAt(text, 0).column, 1u);
  EXPECT_EQ(LineColumnAt(text, 4).line, 2u);
  EXPECT_EQ(LineColumnAt(text, 4).column, 2u);
  EXPECT_EQ(LineColumnAt(text, 7).line, 4u);
  EXPECT_EQ(LineColumnAt(text, 7).column, 1u);
  // Past the end (an unexpected end of input): the position just after the last character.
  EXPECT_EQ(LineColumnAt(text, 100).line, 4u);
  EXPECT_EQ(LineColumnAt(text, 100).column, 3u);
}

TEST(ParseJsonTextTest, EmptyInputIsReportedAtLineOneColumnOne) {
  try {
    ParseJsonText("", "empty.json", "Do this");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("empty.json:1:1: invalid JSON ("));
    EXPECT_THAT(e.what(), HasSubstr(". Do this"));
  }
}

TEST(TextTableTest, AlignsColumnsByCharactersNotBytes) {
  EXPECT_EQ(FormatTextTable({"a", "bb"}, {{"1 → 2", "x"}, {"3", "yy"}}),
            "a      bb\n"
            "-----  --\n"
            "1 → 2  x\n"
            "3      yy\n");
}

TEST(TextTableTest, MarkdownEscapesPipes) {
  EXPECT_EQ(FormatMarkdownTable({"a", "b"}, {{"x|y", "z"}}), "| a | b |\n| --- | --- |\n| x\\|y | z |\n");
}

}  // namespace
}  // namespace bankcheck
