// The limits of limits.h (docs/security.md): input beyond them is refused with an error that names
// the file and the limit, and crafted input within them (many cases, distinct skip reasons, many
// launches, long names) takes work and output that grow linearly. Each test here would run for
// minutes, or fill memory, without the limit or the linear path it checks.

#include "bankcheck/core/limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/report.h"
#include "bankcheck/core/results.h"
#include "core/platform/file_io.h"
#include "core/platform/json_io.h"
#include "core/platform/test_support.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_support::MakeInstruction;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;

// The message of the Error(kBadInput) that `read` throws; fails the test when it throws none.
template <typename Read>
std::string BadInputMessage(Read read) {
  try {
    read();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

// A results file's text: `cases` cases named c<i>, each with `launches` launches of 0 (the launches
// are counted before any is read).
std::string ResultsText(size_t cases, size_t launches) {
  std::string text = R"({"format":"bankcheck-results","version":1,"metadata":{"arch":"","device":"",)"
                     R"("driver":"","cuda_runtime":"","cuda_driver":"","date":"","git_commit":""},"cases":{)";
  for (size_t c = 0; c < cases; ++c) {
    text += (c == 0 ? "\"c" : ",\"c") + std::to_string(c) +
            R"(":{"description":"","status":"passed","expected":{},"baseline":"not_compared",)"
            R"("baseline_table":"","messages":[],"launches":[)";
    for (size_t l = 0; l < launches; ++l) text += (l == 0 ? "0" : ",0");
    text += "]}";
  }
  return text + "}}";
}

class LimitsTest : public testing_support::TempDirTest {};

TEST_F(LimitsTest, AFileLargerThanTheLimitIsRefusedNamingIt) {
  const auto big = dir_ / "big.json";
  testing_support::WriteFile(big, "{}");
  std::filesystem::resize_file(big, kMaxInputFileBytes + 1);  // sparse: no disk space used
  EXPECT_THAT(BadInputMessage([&] { ReadTextFile(big, ""); }),
              AllOf(HasSubstr(big.string()), HasSubstr("larger than 64 MiB")));
  std::filesystem::resize_file(big, kMaxInputFileBytes);
  EXPECT_EQ(ReadTextFile(big, "").size(), kMaxInputFileBytes);
}

TEST(Limits, AnEndlessFileIsReadNoFurtherThanTheLimit) {
  // /dev/zero never ends and has no size to check: the read itself stops at the limit.
  EXPECT_THAT(BadInputMessage([] { ReadResults("/dev/zero"); }),
              AllOf(HasSubstr("/dev/zero"), HasSubstr("larger than 64 MiB")));
}

TEST(Limits, DeepNestingIsRefused) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_THAT(BadInputMessage([&] { ParseJsonText(deep, "deep.json", "advice"); }),
              AllOf(HasSubstr("deep.json"), HasSubstr("nested deeper than 64 levels"), HasSubstr("advice")));
  EXPECT_NO_THROW(ParseJsonText(std::string(64, '[') + std::string(64, ']'), "ok.json", ""));
}

TEST(Limits, DeepObjectsAreRefusedAsArraysAre) {
  std::string deep;
  for (int level = 0; level <= kMaxJsonDepth; ++level) deep += "{\"a\":";
  deep += "0" + std::string(kMaxJsonDepth + 1, '}');
  EXPECT_THAT(BadInputMessage([&] { ParseJsonText(deep, "deep.json", ""); }),
              HasSubstr("nested deeper than 64"));
  EXPECT_NO_THROW(ParseJsonText(deep.substr(5, deep.size() - 6), "ok.json", ""));
}

TEST(Limits, ContainersOfTooManyElementsAreRefusedWhileParsing) {
  // "[{},{},...]": the parse takes time in proportion to the elements read, and stops after the
  // limit, before any reader counts cases or launches.
  std::string array = "[{}";
  for (size_t i = 1; i < kMaxJsonElements; ++i) array += ",{}";
  EXPECT_NO_THROW(ParseJsonText(array + "]", "ok.json", ""));
  EXPECT_THAT(BadInputMessage([&] { ParseJsonText(array + ",{}]", "many.json", "advice"); }),
              AllOf(HasSubstr("many.json"), HasSubstr("more than 200000 elements"), HasSubstr("advice")));
  std::string object = "{\"k0\":0";
  for (size_t i = 1; i <= kMaxJsonElements; ++i) object += ",\"k" + std::to_string(i) + "\":0";
  EXPECT_THAT(BadInputMessage([&] { ParseJsonText(object + "}", "keys.json", ""); }),
              HasSubstr("more than 200000 elements"));
}

TEST(Limits, ParsedDocumentsKeepTheirValuesAndLastDuplicateKey) {
  const nlohmann::json parsed =
      ParseJsonText(R"({"a":[1,-2,2.5,"s",true,null,{}],"b":{"c":{"d":[]}},"a2":1,"a2":2})", "v.json", "");
  EXPECT_EQ(parsed, nlohmann::json::parse(R"({"a":[1,-2,2.5,"s",true,null,{}],"b":{"c":{"d":[]}},"a2":2})"));
  EXPECT_EQ(ParseJsonText("7", "n.json", ""), nlohmann::json(7));
}

TEST(Limits, CaseNamesLongerThanTheLimitAreRefused) {
  RunResults results;
  results.metadata = MakeMetadata();
  const std::string long_name = "t/" + std::string(kMaxCaseNameBytes, 'a');
  results.cases[long_name].name = long_name;
  EXPECT_THAT(BadInputMessage([&] { ParseResults(SerializeResults(results), "long.json"); }),
              AllOf(HasSubstr("long.json"), HasSubstr("a case name of 4098 bytes")));
}

TEST(Limits, ANumberTooLargeForADoubleIsBadInput) {
  EXPECT_THAT(BadInputMessage([] { ParseJsonText("{\"a\": 1e400}", "huge.json", ""); }),
              AllOf(HasSubstr("huge.json"), HasSubstr("invalid JSON"), HasSubstr("1e400")));
}

TEST(Limits, ExpectedWaysOutOfRangeAreRefusedNamingTheField) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["t/a"].name = "t/a";
  results.cases["t/a"].expected_ways[MemoryKind::kSharedLoad] = 1e300;
  EXPECT_THAT(BadInputMessage([&] { ParseResults(SerializeResults(results), "ways.json"); }),
              AllOf(HasSubstr("ways.json"), HasSubstr("expected.shared_ld"), HasSubstr("from 0 to 1e+06")));
  results.cases["t/a"].expected_ways[MemoryKind::kSharedLoad] = -2;
  EXPECT_THAT(BadInputMessage([&] { ParseResults(SerializeResults(results), "ways.json"); }),
              HasSubstr("expected.shared_ld"));
}

TEST(Limits, TooManyCasesAreRefusedBeforeTheyAreRead) {
  // The cases need not be valid: their number is checked first.
  std::string text = R"({"format":"bankcheck-results","version":1,"metadata":{"arch":"","device":"",)"
                     R"("driver":"","cuda_runtime":"","cuda_driver":"","date":"","git_commit":""},"cases":{)";
  for (size_t c = 0; c <= kMaxCases; ++c) text += (c == 0 ? "\"c" : ",\"c") + std::to_string(c) + "\":0";
  text += "}}";
  EXPECT_THAT(BadInputMessage([&] { ParseResults(text, "many.json"); }),
              AllOf(HasSubstr("many.json"), HasSubstr("cases"), HasSubstr("more than the 100000")));
  std::string baseline = R"({"format":"bankcheck-baseline","version":1,"arch":"sm_90","cases":{)";
  for (size_t c = 0; c <= kMaxCases; ++c)
    baseline += (c == 0 ? "\"t/c" : ",\"t/c") + std::to_string(c) + "\":0";
  baseline += R"(},"recorded_with":{"device":"","driver":"","cuda_runtime":"","cuda_driver":"","date":""}})";
  EXPECT_THAT(BadInputMessage([&] { ParseBaselineFile(baseline, "sm_90/t.json"); }),
              AllOf(HasSubstr("sm_90/t.json"), HasSubstr("more than the 100000")));
}

TEST(Limits, TooManyLaunchesOfOneCaseAreRefused) {
  std::string launches = "[0";
  for (size_t l = 0; l < kMaxLaunchesPerCase; ++l) launches += ",0";
  const std::string text =
      R"({"format":"bankcheck-results","version":1,"metadata":{"arch":"","device":"","driver":"",)"
      R"("cuda_runtime":"","cuda_driver":"","date":"","git_commit":""},"cases":{"t/a":{"description":"",)"
      R"("status":"passed","expected":{},"baseline":"not_compared","baseline_table":"","messages":[],)"
      R"("launches":)" +
      launches + "]}}}";
  EXPECT_THAT(BadInputMessage([&] { ParseResults(text, "launches.json"); }),
              AllOf(HasSubstr("launches.json"), HasSubstr("case \"t/a\""), HasSubstr("launches"),
                    HasSubstr("more than the 100000")));
}

TEST(Limits, TooManyLaunchesInOneFileAreRefused) {
  const size_t per_case = kMaxLaunchesPerFile / 3 + 1;
  // Within the limit, the launches are read (and these, being 0, refused).
  EXPECT_THAT(BadInputMessage([&] { ParseResults(ResultsText(2, per_case), "ok.json"); }),
              HasSubstr("launches[0] must be an object"));
  EXPECT_THAT(BadInputMessage([&] { ParseResults(ResultsText(3, per_case), "all.json"); }),
              AllOf(HasSubstr("all.json"), HasSubstr("more than 200000 launches")));
}

TEST(Limits, ReportOfManyCasesWithDistinctSkipReasonsShowsTheFirstFew) {
  // 100,000 distinct reasons: a search of the reasons seen so far for each would take minutes.
  RunResults results;
  results.metadata = MakeMetadata();
  for (size_t c = 0; c < kMaxCases; ++c) {
    CaseResult& result = results.cases["t/c" + std::to_string(1'000'000 + c)];
    result.status = CaseStatus::kSkipped;
    result.messages = {"reason " + std::to_string(c)};
  }
  const std::string report = RenderMarkdownReport(results);
  EXPECT_THAT(report, AllOf(HasSubstr("> Skipped: reason 0\n> Skipped: reason 1\n> Skipped: reason 2\n\n"),
                            HasSubstr("100000 cases skipped")));
  EXPECT_LT(report.size(), 4096u);
}

TEST(Limits, ManyAttributedLaunchesAreDeduplicatedWithoutComparingEachPair) {
  // 40,000 launches of one kernel, each with its own table: every pair compared would take long.
  std::vector<LaunchRecord> launches(40'000, MakeRecord(64));
  for (size_t i = 0; i < launches.size(); ++i) {
    launches[i].kernel = "k";
    launches[i].instructions = {
        MakeInstruction(0x10, "LDS", MemoryKind::kSharedLoad, 1, 1, static_cast<uint64_t>(i), 0)};
    launches[i].attributed_launches = 1;
  }
  launches.push_back(launches[7]);  // a repeat of an earlier table is not shown again
  const std::vector<size_t> distinct = LaunchesWithDistinctInstructions(launches);
  ASSERT_EQ(distinct.size(), 40'000u);
  EXPECT_EQ(distinct.back(), 39'999u);

  RunResults results;
  results.metadata = MakeMetadata();
  CaseResult& result = results.cases["t/many"];
  result.name = "t/many";
  result.status = CaseStatus::kFailed;
  result.launches = launches;
  ReportOptions unbounded;
  unbounded.max_bytes = 0;  // every table: the dedup, not the report's size budget, is under test
  const std::string report = RenderMarkdownReport(results, unbounded);
  size_t tables = 0;
  for (size_t at = report.find("Memory instructions by excess"); at != std::string::npos;
       at = report.find("Memory instructions by excess", at + 1))
    ++tables;
  EXPECT_EQ(tables, 40'000u);
}

TEST(Limits, TableColumnsArePaddedToAtMostTheLimit) {
  // One cell of 100,000 characters among 1,000 rows: padding every row to it would print 100 MB.
  const std::string long_name(100'000, 'x');
  std::vector<InstructionCounts> instructions;
  for (uint32_t i = 0; i < 1000; ++i)
    instructions.push_back(MakeInstruction(i, "LDS", MemoryKind::kSharedLoad, i + 1, 1, 2, 1));
  instructions[500].file = long_name;
  const std::string table = FormatInstructionTable(instructions, 0, "");
  EXPECT_THAT(table, HasSubstr(long_name + ":501"));  // printed whole
  EXPECT_LT(table.size(), long_name.size() + 1000 * (kMaxColumnWidth + 100));

  std::vector<TableRow> rows(1000, TableRow{"a", "b"});
  rows[3][0] = long_name;
  const std::string text = FormatTextTable({"name", "value"}, rows);
  EXPECT_THAT(text, HasSubstr(long_name + "  b\n"));
  EXPECT_LT(text.size(), long_name.size() + 1000 * (kMaxColumnWidth + 10));
  EXPECT_THAT(FormatTextTable({"name", "value"}, {{"abc", "1"}, {"a", "2"}}), HasSubstr("\na     2\n"));
}

}  // namespace
}  // namespace bankcheck
