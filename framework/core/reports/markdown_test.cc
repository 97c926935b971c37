#include "core/reports/internal/markdown.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace bankcheck::markdown {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MarkdownTest, InlineTextOfOrdinaryNamesIsUnchanged) {
  EXPECT_EQ(Inline("transpose/naive_32x32 · sm_90"), "transpose/naive_32x32 · sm_90");
  EXPECT_EQ(Inline("NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB HBM3");
}

TEST(MarkdownTest, InlineTextEscapesHtmlAndMarkdown) {
  EXPECT_EQ(Inline("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
  EXPECT_EQ(Inline("[x](https://e.example) `c` *e* _u_ | ~s~ #h \\"),
            "&#91;x&#93;(https://e.example) &#96;c&#96; &#42;e&#42; &#95;u&#95; &#124; &#126;s&#126; &#35;h "
            "&#92;");
  // A leading list or setext marker is escaped; the same character inside the text is not.
  EXPECT_EQ(Inline("- a-b"), "&#45; a-b");
  EXPECT_EQ(Inline("+1"), "&#43;1");
  EXPECT_EQ(Inline("==="), "&#61;==");
  EXPECT_EQ(Inline("&lt;"), "&amp;lt;");  // entities in the input stay text
}

TEST(MarkdownTest, InlineTextIsOneLine) {
  EXPECT_EQ(Inline("a\nb\r\nc\td\x7f"
                   "e"),
            "a b  c d e");
  EXPECT_EQ(Inline("a\xe2\x80\xa8"
                   "b\xe2\x80\xae"
                   "c\xc2\x85"
                   "d"),
            "a b c d");  // U+2028, U+202E, U+0085
  EXPECT_EQ(Inline("a\xff"
                   "b\xc3"),
            "a\xef\xbf\xbd"
            "b\xef\xbf\xbd");  // malformed UTF-8
  EXPECT_EQ(Inline("\n## bankcheck: all cases passed"), " &#35;&#35; bankcheck: all cases passed");
}

TEST(MarkdownTest, InlineTextIsCutVisiblyAtACharacterBoundary) {
  EXPECT_EQ(Inline(std::string(300, 'x')), std::string(kMaxInlineBytes, 'x') + "…");
  EXPECT_EQ(Inline("abcd", 4), "abcd");
  EXPECT_EQ(Inline("abcde", 4), "abcd…");
  EXPECT_EQ(Inline("a→b", 2), "a…");  // "→" is 3 bytes: not cut in two
  EXPECT_EQ(Truncate("a→b", 4), "a→…");
}

TEST(MarkdownTest, CodeIsHtmlWithTheTextEscaped) {
  EXPECT_EQ(Code("t/a`b</summary></details>"), "<code>t/a&#96;b&lt;/summary&gt;&lt;/details&gt;</code>");
}

TEST(MarkdownTest, FenceIsLongerThanAnyBacktickRunInTheBody) {
  EXPECT_EQ(FencedBlock("plain\n"), "```\nplain\n```\n");
  EXPECT_EQ(FencedBlock("no newline"), "```\nno newline\n```\n");
  // Printed into a CI log, no line of it is a GitHub workflow command.
  EXPECT_EQ(FencedBlock("ok\n ::error::x ##[add-mask]y\n"), "```\nok\n ?:error::x ##?add-mask]y\n```\n");
  const std::string block = FencedBlock("a\n```\n[click](https://e.example)\n`````x\n");
  EXPECT_EQ(block, "``````\na\n```\n[click](https://e.example)\n`````x\n``````\n");
}

TEST(MarkdownTest, FencedBodyShowsControlsAndIsBounded) {
  EXPECT_EQ(FencedBlock("a\r\nb\x1b[31mc\rd"), "```\na\nb\\x1b[31mc\\x0dd\n```\n");
  EXPECT_EQ(FencedBlock(std::string(10, 'x'), 4), "```\nxxxx\n[... 6 more bytes not shown]\n```\n");
  // A cut through a character leaves none of its bytes.
  EXPECT_EQ(FencedBlock("ab→", 3), "```\nab\n[... 3 more bytes not shown]\n```\n");
  EXPECT_THAT(FencedBlock(std::string(kMaxBlockBytes + 10, 'y')), HasSubstr("[... 10 more bytes not shown]"));
  EXPECT_THAT(FencedBlock("\xe2\x80\xae"), Not(HasSubstr("\xe2\x80\xae")));
}

}  // namespace
}  // namespace bankcheck::markdown
