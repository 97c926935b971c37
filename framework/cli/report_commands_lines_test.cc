// Runs the built `bankcheck` binary's lines command as CI scripts do: the attributed kernels'
// tables, case selection, limits and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"
#include "report_commands_fixture.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_support::CliRun;
using testing_support::ExpectUntouched;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::MakeVictim;
using testing_support::ModeOf;
using testing_support::Quoted;
using testing_support::ReadFile;
using testing_support::ReportCommandsTest;
using testing_support::RunCli;
using testing_support::ScopedUmask;
using testing_support::TemporaryFilesUnder;
using testing_support::Victim;
using testing_support::WithInstructions;
using testing_support::WriteFile;

TEST_F(ReportCommandsTest, LinesPrintsEachAttributedKernelsTableOnce) {
  const auto results = WriteAttributedRun();
  const std::string before = ReadFile(results);
  const CliRun run = Bankcheck("lines " + Quoted(results) + " --source-root /src/bankcheck");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "case transpose/naive, launch 0: transpose(float*, float const*) (2 launches attributed)\n"
            "kernels/transpose.cu:31  +0x0220  LDS  64 exec  2,048 wf  64 ideal  +1,984\n"
            "kernels/transpose.cu:40  +0x01a0  STS  64 exec     64 wf  64 ideal      +0\n"
            "\n"
            "case transpose/padded, launch 1: padded(float*, float const*) (1 launch attributed)\n"
            "kernels/transpose.cu:31  +0x0220  LDS  64 exec  64 wf  64 ideal  +0\n"
            "kernels/transpose.cu:40  +0x01a0  STS  64 exec  64 wf  64 ideal  +0\n");
  EXPECT_THAT(run.err, IsEmpty());
  EXPECT_EQ(ReadFile(results), before);
}

TEST_F(ReportCommandsTest, LinesSelectsCasesByGlobsAndLimitsTheRows) {
  const auto results = WriteAttributedRun();
  CliRun run =
      Bankcheck("lines " + Quoted(results) + " --case '*/padded' --top 1 --source-root /src/bankcheck/");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "case transpose/padded, launch 1: padded(float*, float const*) (1 launch attributed)\n"
            "kernels/transpose.cu:31  +0x0220  LDS  64 exec  64 wf  64 ideal  +0\n"
            "... 1 more instruction\n");
  // An exact name selects that case alone; without --source-root, BANKCHECK_SOURCE_ROOT applies.
  ::setenv("BANKCHECK_SOURCE_ROOT", "/src", 1);
  run = Bankcheck("lines " + Quoted(results) + " --case transpose/naive --top 0");
  ::unsetenv("BANKCHECK_SOURCE_ROOT");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("case transpose/naive, launch 0:"),
                             HasSubstr("\nbankcheck/kernels/transpose.cu:31  +0x0220")));
  EXPECT_THAT(run.out, Not(HasSubstr("padded")));
}

TEST_F(ReportCommandsTest, LinesShowsNamesOnOneLineWithControlCharactersShown) {
  // A name that holds a line break and "::error ...::" would be a GitHub workflow command of its
  // own in a CI log; an escape sequence would drive the terminal.
  RunResults results;
  results.metadata = MakeMetadata();
  const std::string name = "t/a\n::error title=forged::pwned";
  LaunchRecord launch = WithInstructions(MakeRecord(2048), 2);
  launch.kernel = "k\x1b[2J\n::add-mask::secret";
  launch.instructions.front().file = "kernels/x.cu\n::error::from a path";
  results.cases[name].name = name;
  results.cases[name].launches = {launch};
  WriteResults(dir_ / "names.json", results);
  const CliRun run = Bankcheck("lines " + Quoted(dir_ / "names.json"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              AllOf(HasSubstr("case t/a ::error title=forged::pwned, launch 0: k?[2J ::add-mask::secret"),
                    HasSubstr("kernels/x.cu ::error::from a path:")));
  EXPECT_THAT(run.out, AllOf(Not(HasSubstr("\n::")), Not(HasSubstr("\x1b"))));
}

TEST_F(ReportCommandsTest, LinesWithoutAttributedLaunchesExitsOneSayingHowToGetThem) {
  const auto results = WriteAttributedRun();
  CliRun run = Bankcheck("lines " + Quoted(results) + " --case 'reduce/*'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.out, IsEmpty());
  EXPECT_THAT(run.err, AllOf(HasSubstr("no launch of the selected cases in " + results.string() +
                                       " has per-instruction counts"),
                             HasSubstr("BANKCHECK_ATTRIBUTE=1"), HasSubstr("when a case fails")));
  run = Bankcheck("lines " + Quoted(WriteRun("plain.json", 2048)));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("BANKCHECK_ATTRIBUTE=1"));
}

TEST_F(ReportCommandsTest, LinesRejectsBadInputWithExitTwo) {
  const auto results = WriteAttributedRun();
  CliRun run = Bankcheck("lines " + Quoted(results) + " --case nothing/like/this");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("no case in " + results.string() + " matches --case 'nothing/like/this'"));
  // A part of a name is no longer enough: the pattern matches whole names, as BANKCHECK_CASES does.
  EXPECT_EQ(Bankcheck("lines " + Quoted(results) + " --case padded").exit_code, 2);
  // A negative, fractional or absurd --top (or --max-bytes) is refused in a line that names the range,
  // not CLI11's range of a double, DBL_MAX's 309 digits.
  for (const auto& [arguments, message] : std::vector<std::pair<std::string, std::string>>{
           {"lines " + Quoted(results) + " --top -1",
            "--top: '-1' is not a whole number; give a whole number "
            "from 0 to 1,000,000"},
           {"lines " + Quoted(results) + " --top many", "--top: 'many' is not a whole number"},
           {"lines " + Quoted(results) + " --top 1e3", "--top: '1e3' is not a whole number"},
           {"lines " + Quoted(results) + " --top 1000001", "--top: '1000001' is too large"},
           {"lines " + Quoted(results) + " --top 99999999999999999999999", "is too large"},
           {"report " + Quoted(results) + " --max-bytes -1", "--max-bytes: '-1' is not a whole number"},
           {"compare " + Quoted(results) + " " + Quoted(results) + " --max-bytes=-1",
            "not a whole number"}}) {
    SCOPED_TRACE(arguments);
    run = Bankcheck(arguments);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, AllOf(HasSubstr("bankcheck: error: "), HasSubstr(message)));
    EXPECT_LT(run.err.size(), 300u) << run.err;
  }
  EXPECT_EQ(Bankcheck("lines " + Quoted(results) + " --top 1000000").exit_code, 0);
  EXPECT_EQ(Bankcheck("lines").exit_code, 2);
  WriteFile(dir_ / "bad.json", "{");
  run = Bankcheck("lines " + Quoted(dir_ / "bad.json"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("invalid JSON"));
}

TEST_F(ReportCommandsTest, LinesPadsColumnsToAtMostTheLimit) {
  // A long source path in one of many rows: padding every row to it grew 1 MB into 1 GB.
  RunResults results;
  results.metadata = MakeMetadata();
  CaseResult& result = results.cases["transpose/long"];
  result.name = "transpose/long";
  LaunchRecord launch = MakeRecord(64);
  launch.attributed_launches = 1;
  for (uint32_t i = 0; i < 2000; ++i) {
    launch.instructions.push_back(
        testing_support::MakeInstruction(i * 16, "LDS", MemoryKind::kSharedLoad, i + 1, 1, 2, 1, "a.cu"));
  }
  const std::string long_path(100'000, 'p');
  launch.instructions[1000].file = long_path;
  result.launches = {launch};
  WriteResults(dir_ / "long.json", results);
  const CliRun run = Bankcheck("lines " + Quoted(dir_ / "long.json") + " --top 0");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("\n" + long_path + ":1001  +0x3e80  LDS"), HasSubstr("\na.cu:1  ")));
  EXPECT_LT(run.out.size(), long_path.size() + 2000 * 250);
}

}  // namespace
}  // namespace bankcheck
