#include "core/reports/text_table.h"

#include <gtest/gtest.h>

namespace bankcheck {
namespace {

size_t Width(const std::string& text) {
  size_t width = 0;
  for (const char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return width;
}

TEST(ShortenKernelNameTest, KeepsANameThatFits) {
  EXPECT_EQ(ShortenKernelName("transpose", 48), "transpose");
  EXPECT_EQ(ShortenKernelName("transpose(float*, float const*)", 48), "transpose(float*, float const*)");
}

TEST(ShortenKernelNameTest, CutsAPlainFunctionNameInItsMiddle) {
  const std::string name(60, 'a');
  const std::string shortened = ShortenKernelName(name + "_end", 20);
  EXPECT_EQ(Width(shortened), 20u);
  EXPECT_EQ(shortened.substr(0, 9), "aaaaaaaaa");
  EXPECT_NE(shortened.find("…"), std::string::npos);
  EXPECT_EQ(shortened.substr(shortened.size() - 4), "_end");
}

TEST(ShortenKernelNameTest, DropsReturnTypeAndAnonymousNamespaceFirst) {
  const std::string name =
      "void bankcheck::kernels::(anonymous namespace)::Transpose<32, 8>(float const*, float*)";
  EXPECT_EQ(ShortenKernelName(name, 48), "…::Transpose<32, 8>(float const*, float*)");
  EXPECT_EQ(ShortenKernelName(name, 82),
            "bankcheck::kernels::(anonymous namespace)::Transpose<32, 8>(float const*, float*)");
  EXPECT_EQ(ShortenKernelName(name, 30), "…::Transpose<32, 8>(…)");
}

TEST(ShortenKernelNameTest, CutsALongTemplateKeepingTheFunctionsStartAndEnd) {
  const std::string name =
      "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
      "cutlass::gemm::collective::CollectiveMma<>, void>>(cutlass::gemm::kernel::Params)";
  const std::string shortened = ShortenKernelName(name, 48);
  EXPECT_EQ(Width(shortened), 48u);
  EXPECT_EQ(shortened.substr(0, std::string("…::device_kernel<").size()), "…::device_kernel<");
  EXPECT_EQ(shortened.substr(shortened.size() - std::string(">>(…)").size()), ">>(…)");
}

TEST(ShortenKernelNameTest, AnUnpairedBracketIsCutInTheMiddle) {
  const std::string name = "bool ns::operator<(ns::Widget const&, ns::Widget const&)" + std::string(30, 'x');
  const std::string shortened = ShortenKernelName(name, 24);
  EXPECT_EQ(Width(shortened), 24u);
}

TEST(PlainTextTest, ControlCharactersCannotReachTheTerminal) {
  EXPECT_EQ(PlainLine("a\x1b[31mred\nb\tc"), "a?[31mred b c");
  EXPECT_EQ(PlainBlock("a\x1b]0;x\x07\nb\tc\r\n"), "a?]0;x?\nb\tc\n");
  EXPECT_EQ(PlainLine("x\xc2\x9b"
                      "31m"),
            "x?31m");  // U+009B, the C1 CSI
  EXPECT_EQ(PlainLine("é", 200), "é");
  EXPECT_EQ(PlainLine("abcdef", 3), "abc…");
}

// A GitHub Actions runner reads "::cmd ...::" at a line's start after whitespace (Unicode spaces
// too) and "##[cmd]" anywhere: a name from a file forms neither, in a line or in a block.
TEST(PlainTextTest, NoLineBecomesAGithubWorkflowCommand) {
  EXPECT_EQ(PlainLine("::error title=pwn::x"), "?:error title=pwn::x");
  EXPECT_EQ(PlainLine("  \t::add-mask::x"), "   ?:add-mask::x");
  EXPECT_EQ(PlainLine("\xE2\x80\xA8::error::x"), "\xE2\x80\xA8?:error::x");  // U+2028 first
  EXPECT_EQ(PlainLine("\xE2\x80\x83::error::x"), "\xE2\x80\x83?:error::x");  // U+2003 first
  EXPECT_EQ(PlainBlock("ok\n::error::a\n ::warning::b ##[add-mask]c"),
            "ok\n?:error::a\n ?:warning::b ##?add-mask]c");
  EXPECT_EQ(PlainLine("x\n::error::y"), "x ::error::y");  // one line: "::" is not at its start
  EXPECT_EQ(PlainLine("void ns::f()"), "void ns::f()");   // names keep their scopes
}

TEST(TextTableTest, RowsWithoutAHeaderAreAlignedAndTrimmed) {
  EXPECT_EQ(FormatTextRows({{"a.cu:7", "LDS", "2-way"}, {"long/b.cu:12", "STS.128", ""}, {"c"}}),
            "a.cu:7        LDS      2-way\n"
            "long/b.cu:12  STS.128\n"
            "c\n");
  EXPECT_EQ(FormatTextRows({}), "");
}

TEST(TextTableTest, CellsAreOneLineWithControlCharactersShown) {
  // A case name from a results file: a line break and "::error ...::" would be a GitHub workflow
  // command in a CI log; ESC would drive the terminal.
  EXPECT_EQ(FormatTextRows({{"t/a\n::error title=x::y", "\x1b[2J"}}), "t/a ::error title=x::y  ?[2J\n");
  EXPECT_EQ(FormatTextTable({"case"}, {{"a\n::add-mask::z"}}), "case\n---------------\na ::add-mask::z\n");
}

}  // namespace
}  // namespace bankcheck
