#include "bankcheck/core/case_selection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"

namespace bankcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(MatchesGlobTest, MatchesTheWholeNameLikeFnmatch) {
  EXPECT_TRUE(MatchesGlob("transpose/padded", "transpose/padded"));
  EXPECT_FALSE(MatchesGlob("transpose/padded", "transpose"));
  EXPECT_TRUE(MatchesGlob("transpose/padded/128", "transpose/*"));  // '*' takes '/' too
  EXPECT_TRUE(MatchesGlob("a/stride2", "*/stride2"));
  EXPECT_FALSE(MatchesGlob("a/stride22", "*/stride2"));
  EXPECT_TRUE(MatchesGlob("", "*"));
  EXPECT_FALSE(MatchesGlob("", "?"));
  EXPECT_TRUE(MatchesGlob("abc", "a?c"));
  EXPECT_TRUE(MatchesGlob("aXbYc", "a*b*c"));
  EXPECT_FALSE(MatchesGlob("aXbYd", "a*b*c"));
  EXPECT_TRUE(MatchesGlob("mississippi", "*sip*"));
  EXPECT_TRUE(MatchesGlob("abab", "*ab"));
}

TEST(MatchesGlobTest, SetsRangesNegationAndEscapes) {
  EXPECT_TRUE(MatchesGlob("x4", "x[0-9]"));
  EXPECT_FALSE(MatchesGlob("xa", "x[0-9]"));
  EXPECT_TRUE(MatchesGlob("xa", "x[!0-9]"));
  EXPECT_TRUE(MatchesGlob("xa", "x[^0-9]"));
  EXPECT_TRUE(MatchesGlob("x]", "x[]]"));
  EXPECT_TRUE(MatchesGlob("x-", "x[a-]"));
  EXPECT_TRUE(MatchesGlob("x[", "x["));  // a '[' that no ']' closes is itself
  EXPECT_TRUE(MatchesGlob("a*b", "a\\*b"));
  EXPECT_FALSE(MatchesGlob("aXb", "a\\*b"));
  EXPECT_TRUE(MatchesGlob("a\\", "a\\"));  // a '\' at the end is itself
  EXPECT_TRUE(MatchesGlob("x]", "x[\\]]"));
}

TEST(CaseSelectionTest, CommaSeparatedGlobsWithEscapedCommas) {
  EXPECT_TRUE(MatchesCasePatterns("transpose/padded/128x128", ""));
  EXPECT_TRUE(MatchesCasePatterns("transpose/padded/128x128", "ldmatrix/*,transpose/?added/*"));
  EXPECT_FALSE(MatchesCasePatterns("transpose/padded", "ldmatrix/*,"));
  EXPECT_TRUE(MatchesCasePatterns("odd/a,b", "odd/a\\,b"));
  EXPECT_EQ(CasePatternFor("demo/stride2"), "demo/stride2");
  EXPECT_EQ(CasePatternFor("odd/a*b,c"), "odd/a\\*b\\,c");
  for (const std::string name : {"odd/a*b,c", "t/[x]", "t/back\\slash", "plain/name"}) {
    EXPECT_TRUE(MatchesCasePatterns(name, CasePatternFor(name))) << CasePatternFor(name);
  }
  EXPECT_FALSE(MatchesCasePatterns("odd/aXb,c", CasePatternFor("odd/a*b,c")));
  EXPECT_FALSE(MatchesCasePatterns("odd/a*b", CasePatternFor("odd/a*b,c")));
}

TEST(CaseSelectionTest, LongNamesAndManyStarsMatchWithoutRecursionOrBlowUp) {
  // std::regex's '(a|b)*c' recursed once per character and crashed on a 200,000-character name;
  // backtracking over every '*' would take 2^40 steps here.
  const std::string name(200'000, 'a');
  EXPECT_FALSE(MatchesGlob(
      name, "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"));
  EXPECT_TRUE(MatchesGlob(name, "*[ab]"));
  EXPECT_FALSE(MatchesGlob(name, "[ab]*c"));
}

TEST(CaseSelectionTest, SelectionsAreCheckedOnce) {
  EXPECT_NO_THROW(CheckCaseSelection("*/stride2,transpose/*", "--case"));
  EXPECT_THAT([] { CheckCaseSelection(std::string(kMaxCaseNameBytes + 1, 'a'), "--case"); },
              ThrowsMessage<Error>(HasSubstr("more than the 4096 bankcheck reads")));
  EXPECT_THAT([] { CheckCaseSelection("a\nb", "--case"); },
              ThrowsMessage<Error>(HasSubstr("--case='a b' holds a control character")));
  EXPECT_THAT([] { CheckCaseSelection(",,", "--case"); },
              ThrowsMessage<Error>(HasSubstr("holds no pattern")));
}

// A selection of many names (a shard's) is decided by lookup, as its globs would decide it: escaped
// names select themselves alone; a glob among them still matches.
TEST(CaseSelectionTest, ManyNamesSelectAsTheirGlobsWould) {
  std::string selection;
  for (int i = 0; i < 100'000; ++i) selection += "t/case" + std::to_string(i) + ",";
  selection += CasePatternFor("odd/a*b,c") + "," + CasePatternFor("t/back\\slash") + ",glob/?x,t/trailing\\";
  const CaseSelection selects(selection);
  EXPECT_TRUE(selects.Selects("t/case99999"));
  EXPECT_FALSE(selects.Selects("t/case100000"));
  EXPECT_TRUE(selects.Selects("odd/a*b,c"));
  EXPECT_FALSE(selects.Selects("odd/aXb,c"));
  EXPECT_TRUE(selects.Selects("t/back\\slash"));
  EXPECT_TRUE(selects.Selects("glob/ax"));
  EXPECT_TRUE(selects.Selects("t/trailing\\"));  // a last '\' is itself, as MatchesGlob reads it
  EXPECT_TRUE(MatchesGlob("t/trailing\\", "t/trailing\\"));
  EXPECT_TRUE(CaseSelection("").Selects("anything"));
}

TEST(CaseSelectionTest, ASelectionFileHasOneSelectionPerLineEachChecked) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("bankcheck_case_file_" + std::to_string(::getpid()));
  const auto write = [&file](const std::string& text) { std::ofstream(file, std::ios::binary) << text; };
  write("a/one\r\n\nb/*,c/two\n" + CasePatternFor("odd/x,y") + "\n");
  EXPECT_EQ(ReadCaseSelectionFile(file, "F"), "a/one,b/*,c/two,odd/x\\,y");
  write("a/one\n" + std::string(kMaxCaseNameBytes + 1, 'a') + "\n");
  EXPECT_THAT([&file] { ReadCaseSelectionFile(file, "F"); },
              ThrowsMessage<Error>(HasSubstr(", line 2='aaa")));
  write("a/one\\\nb\n");  // joined, the '\' would escape the ',' before b
  EXPECT_THAT([&file] { ReadCaseSelectionFile(file, "F"); },
              ThrowsMessage<Error>(HasSubstr("line 1 ends in a '\\' that escapes nothing")));
  write("a/one\\\\\n");
  EXPECT_EQ(ReadCaseSelectionFile(file, "F"), "a/one\\\\");
  write("a\x01b\n");
  EXPECT_THAT([&file] { ReadCaseSelectionFile(file, "F"); },
              ThrowsMessage<Error>(HasSubstr("control character")));
  write("\n\n");
  EXPECT_THAT(
      [&file] { ReadCaseSelectionFile(file, "F"); },
      ThrowsMessage<Error>(HasSubstr("holds no case selection (an empty file would select every case)")));
  std::string many;
  for (size_t i = 0; i <= kMaxCases; ++i) many += "c" + std::to_string(i) + "\n";
  write(many);
  EXPECT_THAT([&file] { ReadCaseSelectionFile(file, "F"); },
              ThrowsMessage<Error>(HasSubstr("holds more than 100000 selections")));
  std::filesystem::remove(file);
}

TEST(CaseSelectionTest, CaseNamesAreBoundedInLength) {
  EXPECT_NO_THROW(CheckCaseNameLength(std::string(kMaxCaseNameBytes, 'a'), "f.json"));
  EXPECT_THAT([] { CheckCaseNameLength(std::string(kMaxCaseNameBytes + 1, 'a'), "f.json"); },
              ThrowsMessage<Error>(HasSubstr("f.json: a case name of 4097 bytes")));
}

}  // namespace
}  // namespace bankcheck
