// `bankcheck merge-results` over the results of several shards or runners of one run (docs/ci.md,
// "Sharding"): one results file, and the refusals a CI merge job relies on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"

#ifndef BANKCHECK_CLI_PATH
#error "BANKCHECK_CLI_PATH must name the bankcheck binary"
#endif

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_support::CliRun;
using testing_support::MakeMetadata;
using testing_support::Quoted;
using testing_support::RunCli;

class MergeResultsCommandTest : public testing_support::TempDirTest {
 protected:
  CliRun Bankcheck(const std::string& arguments) { return RunCli(BANKCHECK_CLI_PATH, arguments, dir_); }

  // A shard's results folder holding the fragments of `cases`, measured at `commit`.
  std::filesystem::path Shard(const std::string& name, const std::vector<std::string>& cases,
                              const std::string& commit = "abc123") {
    RunMetadata metadata = MakeMetadata();
    metadata.git_commit = commit;
    for (const std::string& c : cases)
      WriteCaseResult(dir_ / name, metadata,
                      CaseResult{c, "", CaseStatus::kPassed, DefaultExpectedWays(), {}, {}, "", {}});
    return dir_ / name;
  }
};

TEST_F(MergeResultsCommandTest, TheShardsOfOneRunMergeIntoOneFile) {
  const auto one = Shard("shard-1", {"transpose/a", "reduce/c"});
  const auto two = Shard("shard-2", {"transpose/b"});
  // A third runner's results, merged there already: a results file is a source too.
  const auto three = Shard("shard-3", {"scan/d"});
  ASSERT_EQ(Bankcheck("merge-results " + Quoted(three)).exit_code, 0);
  const CliRun run = Bankcheck("merge-results " + Quoted(one) + " " + Quoted(two) + " " +
                               Quoted(three / "results.json") + " -o " + Quoted(dir_ / "all.json"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("(4 cases)"));
  const RunResults merged = ReadResults(dir_ / "all.json");
  EXPECT_EQ(merged.cases.size(), 4u);
  EXPECT_EQ(merged.metadata.git_commit, "abc123");
  EXPECT_TRUE(merged.cases.count("scan/d"));
}

// A folder ctest ran twice: the command merges the newest run and says what it left out.
TEST_F(MergeResultsCommandTest, AFoldersEarlierRunIsLeftOutAndSaidSo) {
  const auto write = [&](const std::string& name, const char* started) {
    WriteCaseResult(dir_ / "run", MakeMetadata(),
                    CaseResult{name, "", CaseStatus::kPassed, DefaultExpectedWays(), {}, {}, "", {}},
                    FragmentRun{"my_suite", started});
  };
  write("transpose/deleted", "2026-12-07T10:00:00.000000Z");
  write("transpose/a", "2026-12-07T11:00:00.000000Z");
  const CliRun run = Bankcheck("merge-results " + Quoted(dir_ / "run"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("bankcheck: left out 1 fragment of an earlier run in "),
                             HasSubstr("(\"transpose/deleted\")"), HasSubstr("(1 cases)")));
  EXPECT_EQ(ReadResults(dir_ / "run" / "results.json").cases.count("transpose/deleted"), 0u);
}

TEST_F(MergeResultsCommandTest, ShardsOfTwoCommitsAreRefusedNamingBoth) {
  const auto one = Shard("shard-1", {"transpose/a"}, "abc123");
  const auto two = Shard("shard-2", {"transpose/b"}, "def456");
  const CliRun run =
      Bankcheck("merge-results " + Quoted(one) + " " + Quoted(two) + " -o " + Quoted(dir_ / "all.json"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, AllOf(HasSubstr("different runs"), HasSubstr("git_commit \"def456\""),
                             HasSubstr("\"abc123\""), HasSubstr((two / "cases").string()),
                             HasSubstr((one / "cases").string()), HasSubstr("one run")));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "all.json"));
}

TEST_F(MergeResultsCommandTest, ACaseInTwoShardsIsRefusedNamingBoth) {
  const auto one = Shard("shard-1", {"transpose/a", "transpose/b"});
  const auto two = Shard("shard-2", {"transpose/b"});
  const CliRun run =
      Bankcheck("merge-results " + Quoted(one) + " " + Quoted(two) + " -o " + Quoted(dir_ / "all.json"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, AllOf(HasSubstr("case \"transpose/b\" is in both"),
                             HasSubstr(CaseResultPath(one, "transpose/b").string()),
                             HasSubstr(CaseResultPath(two, "transpose/b").string())));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "all.json"));
}

TEST_F(MergeResultsCommandTest, SeveralSourcesNeedAnOutputAndEachMustExist) {
  const auto one = Shard("shard-1", {"transpose/a"});
  CliRun run = Bankcheck("merge-results " + Quoted(one) + " " + Quoted(one / "cases" / "transpose_a.json"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("give the file to write with -o"));
  run = Bankcheck("merge-results " + Quoted(one) + " " + Quoted(dir_ / "missing") + " -o " +
                  Quoted(dir_ / "all.json"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("no results file or folder " + (dir_ / "missing").string()));
}

}  // namespace
}  // namespace bankcheck
