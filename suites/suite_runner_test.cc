#include "suite/internal/suite_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "bankcheck/core/error.h"
#include "bankcheck/core/results.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/testing/testing.h"
#include "fault_demo_run.h"

namespace bankcheck::suites {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(SuiteRunnerTest, GtestFilters) {
  EXPECT_TRUE(MatchesGtestFilter("suite/a.b", ""));
  EXPECT_TRUE(MatchesGtestFilter("suite/a.b", "*a.b"));
  EXPECT_TRUE(MatchesGtestFilter("suite/a.b", "x:*/a.?"));
  EXPECT_FALSE(MatchesGtestFilter("suite/a.b", "*a.c"));
  EXPECT_FALSE(MatchesGtestFilter("suite/a.b", "-*a.*"));
  EXPECT_TRUE(MatchesGtestFilter("suite/a.b", "*-*x*:*y*"));
}

TEST(SuiteRunnerTest, CasesOfATopicByName) {
  KernelCase a, b, c;
  a.name = "transpose/padded";
  b.name = "transpose16/padded";
  c.name = "transpose/unpadded";
  const std::vector<const KernelCase*> cases = {&a, &b, &c};
  EXPECT_THAT(Topics(cases), ElementsAre("transpose", "transpose16"));
  // A topic exactly: "transpose" is not "transpose16".
  EXPECT_THAT(SelectCaseTests(cases, "my_suite", "transpose", "", ""),
              ElementsAre("my_suite/transpose.padded", "my_suite/transpose.unpadded"));
  // BANKCHECK_CASES's globs over case names, and GoogleTest's filter over test names.
  EXPECT_THAT(SelectCaseTests(cases, "my_suite", "", "transpose/*", ""),
              ElementsAre("my_suite/transpose.padded", "my_suite/transpose.unpadded"));
  EXPECT_THAT(SelectCaseTests(cases, "my_suite", "", "*/padded", ""),
              ElementsAre("my_suite/transpose.padded", "my_suite/transpose16.padded"));
  EXPECT_THAT(SelectCaseTests(cases, "my_suite", "transpose", "*/padded", ""),
              ElementsAre("my_suite/transpose.padded"));
  EXPECT_THAT(SelectCaseTests(cases, "my_suite", "transpose16", "transpose/*", ""), ElementsAre());
  EXPECT_THAT(SelectCaseTests(cases, "my_suite", "transpose", "", "*.unpadded"),
              ElementsAre("my_suite/transpose.unpadded"));
  EXPECT_THAT(SelectCaseTests(cases, "", "", "", "transpose16.*"), ElementsAre("transpose16.padded"));
  EXPECT_THAT(SelectCases(cases, "transpose16/*,*/unpadded"), ElementsAre(&b, &c));
}

// GoogleTest's sharding over the whole suite: the i-th selected case is in shard i % total, whatever
// its topic; every case is in exactly one shard.
TEST(SuiteRunnerTest, ShardsSplitTheSelectedCasesOfEveryTopic) {
  KernelCase a, b, c, d;
  a.name = "t1/a";
  b.name = "t1/b";
  c.name = "t2/c";
  d.name = "t2/d";
  const std::vector<const KernelCase*> cases = {&a, &b, &c, &d};
  EXPECT_THAT(SelectCaseTests(cases, "s", "", "", "", {0, 2}), ElementsAre("s/t1.a", "s/t2.c"));
  EXPECT_THAT(SelectCaseTests(cases, "s", "", "", "", {1, 2}), ElementsAre("s/t1.b", "s/t2.d"));
  EXPECT_THAT(SelectCaseTests(cases, "s", "t2", "", "", {0, 3}), ElementsAre("s/t2.d"));
  EXPECT_THAT(SelectCaseTests(cases, "s", "t2", "", "", {1, 3}), ElementsAre());
  // Counted after the selection and the filter, as GoogleTest counts the tests its filter keeps.
  EXPECT_THAT(SelectCaseTests(cases, "s", "", "*/b,*/d", "", {1, 2}), ElementsAre("s/t2.d"));
  EXPECT_THAT(SelectCaseTests(cases, "s", "", "", "-*.a", {0, 2}), ElementsAre("s/t1.b", "s/t2.d"));
  EXPECT_EQ(Shard({1, 3}).Describe(), "shard 2 of 3 (GTEST_SHARD_INDEX=1, GTEST_TOTAL_SHARDS=3)");
}

TEST(SuiteRunnerTest, ShardVariablesAreReadAsGoogleTestReadsThem) {
  const auto shard_of = [](const char* total, const char* index) {
    ::setenv("GTEST_TOTAL_SHARDS", total, 1);
    ::setenv("GTEST_SHARD_INDEX", index, 1);
    const Shard shard = ShardFromEnvironment();
    EXPECT_EQ(std::getenv("GTEST_TOTAL_SHARDS"), nullptr) << "the children get their cases by name";
    return std::to_string(shard.index) + "/" + std::to_string(shard.total);
  };
  EXPECT_EQ(shard_of("3", "2"), "2/3");
  EXPECT_EQ(shard_of("1", "0"), "0/1");
  for (const auto& [total, index] : {std::pair{"2", "2"}, {"0", "0"}, {"two", "0"}, {"2", "-1"}, {"2", ""}}) {
    EXPECT_THROW(shard_of(total, index), Error) << total << " " << index;
  }
  ::unsetenv("GTEST_TOTAL_SHARDS");       // left by the refused values
  ::setenv("GTEST_SHARD_INDEX", "1", 1);  // one of the two alone: no sharding
  EXPECT_EQ(ShardFromEnvironment().total, 1);
  ::unsetenv("GTEST_SHARD_INDEX");
}

// The supervisor shards: a topic's test in a shard without any of its cases skips saying so (not
// Passed), and touches GTEST_SHARD_STATUS_FILE as GoogleTest does.
TEST(SuiteRunnerTest, AShardWithoutACaseOfTheTopicSkipsSayingWhy) {
  const std::filesystem::path status =
      std::filesystem::temp_directory_path() / ("bankcheck_shard_status_" + std::to_string(::getpid()));
  std::filesystem::remove(status);
  DemoRun run = RunFaultDemo(
      "GTEST_TOTAL_SHARDS=5 GTEST_SHARD_INDEX=4 GTEST_SHARD_STATUS_FILE='" + status.string() + "' ",
      "--bankcheck_topic=fault_demo");
  EXPECT_EQ(run.exit_code, gtest::kAllSkippedExitCode) << run.output;
  EXPECT_THAT(run.output, HasSubstr("bankcheck: every case was skipped: shard 5 of 5 (GTEST_SHARD_INDEX=4, "
                                    "GTEST_TOTAL_SHARDS=5) holds no case of topic 'fault_demo'"));
  EXPECT_TRUE(std::filesystem::exists(status));
  std::filesystem::remove(status);
  run = RunFaultDemo("GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=x ", "--bankcheck_topic=fault_demo");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("GTEST_SHARD_INDEX='x' is not a whole number"));
}

// What a shard plans to run, by case name: bankcheck-merge checks that the shard reported each.
TEST(SuiteRunnerTest, AShardListsTheCasesItPlansToRun) {
  DemoRun run = RunFaultDemo("GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=1 ",
                             "--bankcheck_topic=fault_demo --bankcheck_list_shard_cases");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, "fault_demo/b_illegal_address\nfault_demo/d_unannotated_conflict\n");
  run = RunFaultDemo("BANKCHECK_CASES='*_after,*conflict' GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=0 ",
                     "--bankcheck_topic=fault_demo --bankcheck_list_shard_cases");
  EXPECT_EQ(run.output, "fault_demo/c_after\n");
  run = RunFaultDemo("", "--bankcheck_topic=other --bankcheck_list_shard_cases");
  EXPECT_EQ(run.exit_code, 1) << run.output;
}

TEST(SuiteRunnerTest, CasesWhoseTestNamesWouldBeTheSameAreNamed) {
  KernelCase a, b, c;
  a.name = "demo/a-b";
  b.name = "demo/a.c";
  c.name = "demo/a_b";
  EXPECT_EQ(CaseTestNameClash({&a, &b}, "my_suite"), "");
  EXPECT_THAT(CaseTestNameClash({&a, &b, &c}, "my_suite"),
              HasSubstr("the cases \"demo/a-b\" and \"demo/a_b\" would both be the test my_suite/demo.a_b"));
}

TEST(SuiteRunnerTest, CasePatternsComeFromTheEnvironmentChecked) {
  const char* saved = std::getenv("BANKCHECK_CASES");
  const std::string saved_value = saved == nullptr ? "" : saved;
  ::unsetenv("BANKCHECK_CASES");
  EXPECT_EQ(CasePatternsFromEnvironment().patterns, "");
  ::setenv("BANKCHECK_CASES", "transpose/*,ldmatrix/x4", 1);
  EXPECT_EQ(CasePatternsFromEnvironment().patterns, "transpose/*,ldmatrix/x4");
  EXPECT_EQ(CasePatternsFromEnvironment().source, "BANKCHECK_CASES='transpose/*,ldmatrix/x4'");
  ::setenv("BANKCHECK_CASES", "transpose/*\nrm", 1);
  EXPECT_THAT([] { CasePatternsFromEnvironment(); },
              ::testing::ThrowsMessage<Error>(HasSubstr("BANKCHECK_CASES='transpose/* rm' holds a control")));
  if (saved == nullptr) {
    ::unsetenv("BANKCHECK_CASES");
  } else {
    ::setenv("BANKCHECK_CASES", saved_value.c_str(), 1);
  }
}

// A shard's selection of many cases (bankcheck-shard-plan's) outgrows the 4096 bytes of one
// BANKCHECK_CASES value (kMaxCaseNameBytes bounds a selection as it bounds a name); a file of one
// selection per line has no such ceiling, and selects as the same patterns joined would.
TEST(SuiteRunnerTest, ASelectionFileHoldsMoreThanOneVariableMay) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("bankcheck_cases_file_" + std::to_string(::getpid()));
  std::string lines;
  for (int i = 0; i < 300; ++i) lines += "fault_demo/not_a_case_of_this_program_" + std::to_string(i) + "\n";
  lines += "fault_demo/c_after\n\n*conflict\n";
  ASSERT_GT(lines.size(), 4096u);
  {
    std::ofstream out(file);
    out << lines;
  }
  DemoRun run = RunFaultDemo("BANKCHECK_CASES_FILE='" + file.string() + "' ", "--bankcheck_list_cases");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, "fault_demo/c_after\nfault_demo/d_unannotated_conflict\n");
  run = RunFaultDemo("BANKCHECK_CASES=x BANKCHECK_CASES_FILE='" + file.string() + "' ",
                     "--bankcheck_list_cases");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("BANKCHECK_CASES and BANKCHECK_CASES_FILE are both set"));
  {
    std::ofstream out(file);
    out << "\n\n";
  }
  run = RunFaultDemo("BANKCHECK_CASES_FILE='" + file.string() + "' ", "--bankcheck_list_cases");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("holds no case selection (an empty file would select every case)"));
  run = RunFaultDemo("BANKCHECK_CASES_FILE=relative/cases.txt ", "--bankcheck_list_cases");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("BANKCHECK_CASES_FILE"));
  std::filesystem::remove(file);
}

// The demo program names its tests after its suite ("fault_suite") and its cases, and lists them
// without a GPU.
TEST(SuiteRunnerTest, TheProgramListsItsTestsByTheSuiteAndTheCaseName) {
  DemoRun run = RunFaultDemo("", "--gtest_list_tests");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("fault_suite/fault_demo.\n  a_before\n  b_illegal_address\n  c_after\n"
                                    "  d_unannotated_conflict\n"));
  run = RunFaultDemo("BANKCHECK_CASES='fault_demo/?_after,*/a*' ", "--gtest_list_tests");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("fault_suite/fault_demo.\n  a_before\n  c_after\n"));
  EXPECT_THAT(run.output, Not(HasSubstr("b_illegal_address")));
  run = RunFaultDemo("BANKCHECK_CASES='*conflict' ", "--bankcheck_list_cases");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, "fault_demo/d_unannotated_conflict\n");
  // Every topic, whatever the selection: CTest's tests are made from it.
  run = RunFaultDemo("BANKCHECK_CASES='none/*' ", "--bankcheck_list_topics");
  EXPECT_EQ(run.output, "fault_demo\n");
}

// A selection of no case at all (the demo is a build of its own: no other suite's cases) fails,
// decided before any child touches the GPU; a topic without a selected case where the selection
// selects others skips saying why (suites/check_case_selection.cmake, over the build's suites).
TEST(SuiteRunnerTest, ASelectionOfNoCaseFailsSayingWhy) {
  for (const char* args : {"--bankcheck_topic=fault_demo", "", "--bankcheck_list_cases"}) {
    const DemoRun run = RunFaultDemo("BANKCHECK_CASES='other/*' ", args);
    EXPECT_EQ(run.exit_code, 1) << args << "\n" << run.output;
    EXPECT_THAT(run.output, HasSubstr("bankcheck: error: BANKCHECK_CASES='other/*' selects no case of any "
                                      "kernel suite of this build"))
        << args;
  }
  EXPECT_EQ(RunFaultDemo("", "--bankcheck_topic=fault").exit_code, 1) << "a topic is named exactly";
}

TEST(SuiteRunnerTest, WithoutAGpuTheSelectedCasesSkip) {
  if (ProbeGpu().usable()) GTEST_SKIP() << "this machine has a usable GPU (the GPU test runs the cases)";
  if (gtest::GpuRequired()) GTEST_SKIP() << "BANKCHECK_REQUIRE_GPU=1: the cases would fail, not skip";
  const DemoRun run = RunFaultDemo("BANKCHECK_CASES='fault_demo/c_after' ", "--bankcheck_topic=fault_demo");
  EXPECT_EQ(run.exit_code, gtest::kAllSkippedExitCode) << run.output;
  EXPECT_THAT(run.output, HasSubstr("[  SKIPPED ] fault_suite/fault_demo.c_after"));
  EXPECT_THAT(run.output, Not(HasSubstr("a_before")));
}

TEST(SuiteRunnerTest, WithoutAGpuAShardRunsItsCasesOnly) {
  if (ProbeGpu().usable()) GTEST_SKIP() << "this machine has a usable GPU (its cases would fault)";
  if (gtest::GpuRequired()) GTEST_SKIP() << "BANKCHECK_REQUIRE_GPU=1: the cases would fail, not skip";
  const DemoRun run =
      RunFaultDemo("GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=1 ", "--bankcheck_topic=fault_demo");
  EXPECT_EQ(run.exit_code, gtest::kAllSkippedExitCode) << run.output;
  EXPECT_THAT(run.output, HasSubstr("[  SKIPPED ] fault_suite/fault_demo.b_illegal_address"));
  EXPECT_THAT(run.output, HasSubstr("[  SKIPPED ] fault_suite/fault_demo.d_unannotated_conflict"));
  EXPECT_THAT(run.output, Not(HasSubstr("a_before")));
  EXPECT_THAT(run.output, Not(HasSubstr("c_after")));
}

TEST(SuiteRunnerTest, ProgressLines) {
  const std::vector<FinishedCase> finished = ParseProgress("passed\tA.x\nfailed\tA.y\n\ngarbage\n");
  ASSERT_EQ(finished.size(), 2u);
  EXPECT_EQ(finished[1].status, "failed");
  EXPECT_EQ(finished[1].test, "A.y");
}

// The GPU program runs one case at a time whatever BANKCHECK_JOBS says (its counters need the GPU
// to themselves); the emulated one runs as many as it says, else one per hardware thread for the
// whole suite and one at a time for a topic (CTest runs topics at once).
TEST(SuiteRunnerTest, CasesRunAtOnceOnlyInTheEmulatedProgram) {
  EXPECT_EQ(CaseJobs(/*emulated=*/false, /*one_topic=*/false, "8", 16), 1);
  EXPECT_EQ(CaseJobs(false, false, nullptr, 16), 1);
  EXPECT_EQ(CaseJobs(true, false, nullptr, 16), 16);
  EXPECT_EQ(CaseJobs(true, true, nullptr, 16), 1);
  EXPECT_EQ(CaseJobs(true, true, "4", 16), 4);
  EXPECT_EQ(CaseJobs(true, false, "", 0), 1);
  EXPECT_EQ(CaseJobs(true, false, "3", 16), 3);
  EXPECT_EQ(CaseJobs(true, false, "1024", 1), 1024);
  for (const char* refused : {"0", "-2", "1025", "two", "4 ", "99999"}) {
    try {
      CaseJobs(true, false, refused, 16);
      ADD_FAILURE() << refused << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      EXPECT_THAT(e.what(), HasSubstr("BANKCHECK_JOBS='" + std::string(refused) + "' is not a number"));
    }
  }
}

// Every case in exactly one group, in order; one group for one process; about three per process.
TEST(SuiteRunnerTest, CasesAreCutIntoGroupsForTheProcesses) {
  EXPECT_THAT(ChunkSizes(10, 1), ElementsAre(10u));
  EXPECT_THAT(ChunkSizes(10, 2), ElementsAre(2u, 2u, 2u, 2u, 2u));
  EXPECT_THAT(ChunkSizes(3, 16), ElementsAre(1u, 1u, 1u));
  EXPECT_TRUE(ChunkSizes(0, 4).empty());
  size_t sum = 0;
  const std::vector<size_t> sizes = ChunkSizes(202, 16);
  for (const size_t size : sizes) sum += size;
  EXPECT_EQ(sum, 202u);
  EXPECT_GE(sizes.size(), 16u * 2);
  EXPECT_LE(sizes.size(), 16u * 3 + 1);
}

TEST(SuiteRunnerTest, WithoutAGpuEveryCaseSkipsAndTheRunSaysSo) {
  if (ProbeGpu().usable()) GTEST_SKIP() << "this machine has a usable GPU (the GPU test below runs instead)";
  if (gtest::GpuRequired()) GTEST_SKIP() << "BANKCHECK_REQUIRE_GPU=1: the cases would fail, not skip";
  const DemoRun run = RunFaultDemo();
  EXPECT_EQ(run.exit_code, gtest::kAllSkippedExitCode) << run.output;
  EXPECT_THAT(run.output, HasSubstr("bankcheck: every case was skipped"));
}

// A build reached through a link (a linked checkout, home or scratch folder, as on many CI runners
// and clusters): each case writes its results under <results>/cases through it, as through the
// real path (with a GPU the case runs, without one it skips; either way it writes its fragment). A
// link another user could have planted there is refused and nothing is written through it.
TEST(SuiteRunnerTest, ACaseWritesItsResultsThroughALinkedBuildFolder) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("bankcheck_linked_build_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "real-checkout" / "build");
  std::filesystem::create_directory_symlink(dir / "real-checkout", dir / "checkout");
  const std::string environment = "BANKCHECK_CASES='fault_demo/c_after' BANKCHECK_RESULTS_DIR='" +
                                  (dir / "checkout" / "build" / "results").string() + "' ";
  const DemoRun run = RunFaultDemo(environment, "--bankcheck_topic=fault_demo");
  EXPECT_THAT(run.output, Not(HasSubstr("refusing")));
  EXPECT_THAT(run.exit_code, ::testing::AnyOf(0, gtest::kAllSkippedExitCode)) << run.output;
  const std::filesystem::path fragment =
      CaseResultPath(dir / "real-checkout" / "build" / "results", "fault_demo/c_after");
  EXPECT_TRUE(std::filesystem::is_regular_file(fragment)) << fragment << "\n" << run.output;

  std::filesystem::remove_all(dir / "real-checkout" / "build" / "results");
  if (::lchown((dir / "checkout").c_str(), 65534, 65534) == 0) {  // root: the link given to another user
    const DemoRun planted = RunFaultDemo(environment, "--bankcheck_topic=fault_demo");
    EXPECT_NE(planted.exit_code, 0);
    EXPECT_THAT(planted.output,
                HasSubstr((dir / "checkout").string() + " is a symbolic link of another user"));
    EXPECT_FALSE(std::filesystem::exists(dir / "real-checkout" / "build" / "results"));
  }
  std::filesystem::remove_all(dir);
}

// Two runs of the program into one results folder, as `ctest` twice (or a case deleted, renamed or
// no longer selected in between): the merge is the newest run's, and leaves out the fragment the
// earlier run wrote of a case the newest did not run, saying so.
TEST(SuiteRunnerTest, TheMergeOfAResultsFolderIsItsNewestRunsFragments) {
  const std::filesystem::path results =
      std::filesystem::temp_directory_path() / ("bankcheck_two_runs_" + std::to_string(::getpid()));
  std::filesystem::remove_all(results);
  // Not a run of the calling ctest's: each run is the program's own.
  const std::string environment = "BANKCHECK_RUN_STARTED= BANKCHECK_RESULTS_DIR='" + results.string() + "' ";
  for (const char* selected : {"fault_demo/c_after", "fault_demo/d_unannotated_conflict"}) {
    const DemoRun run =
        RunFaultDemo(environment + "BANKCHECK_CASES='" + selected + "' ", "--bankcheck_topic=fault_demo");
    ASSERT_TRUE(std::filesystem::is_regular_file(CaseResultPath(results, selected))) << run.output;
  }
  std::string note;
  const RunResults merged = MergeResults({results}, &note);
  EXPECT_EQ(merged.cases.count("fault_demo/c_after"), 0u) << "a fragment of the earlier run was merged";
  EXPECT_EQ(merged.cases.count("fault_demo/d_unannotated_conflict"), 1u);
  EXPECT_THAT(note, HasSubstr("left out 1 fragment of an earlier run"));
  std::filesystem::remove_all(results);
}

}  // namespace
}  // namespace bankcheck::suites
