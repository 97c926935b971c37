#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/results.h"
#include "bankcheck/core/run_metadata.h"
#include "core/baselines/internal/results_test_support.h"
#include "core/platform/test_support.h"

// A results folder's fragments: one per case, merged into one run's results (each program's
// newest run), refused where they are not of one run, build or bankcheck version.
namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing_support::MakeCheckedCase;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::ReadFile;
using testing_support::TemporaryFilesUnder;
using testing_support::WriteFile;

class ResultFragmentsTest : public testing_support::TempDirTest {};

TEST_F(ResultFragmentsTest, EachCaseWritesItsOwnFragment) {
  const auto path = WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("transpose/padded-33"));
  EXPECT_EQ(path, dir_ / "cases" / "transpose_padded_33.json");
  const RunResults fragment = ReadResults(path);
  EXPECT_THAT(fragment.cases, SizeIs(1));
  EXPECT_EQ(fragment.metadata.arch, "sm_90");
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(ResultFragmentsTest, MergeCombinesFragmentsWithTheEarliestDate) {
  WriteCaseResult(dir_, MakeMetadata("2025-11-22T10:00:05Z"), MakeCheckedCase("transpose/a"));
  WriteCaseResult(dir_, MakeMetadata("2025-11-22T10:00:01Z"),
                  MakeCheckedCase("transpose/b", CaseStatus::kFailed));
  RunMetadata no_gpu;  // a case that skipped before probing says nothing about the GPU
  no_gpu.date = "2025-11-22T10:00:03Z";
  WriteCaseResult(dir_, no_gpu, MakeCheckedCase("reduce/c", CaseStatus::kSkipped));
  const auto path = MergeResultsToFile(dir_);
  EXPECT_EQ(path, dir_ / "results.json");
  const RunResults merged = ReadResults(path);
  EXPECT_THAT(merged.cases, SizeIs(3));
  EXPECT_EQ(merged.cases.at("transpose/b").status, CaseStatus::kFailed);
  EXPECT_EQ(merged.metadata.date, "2025-11-22T10:00:01Z");
  EXPECT_EQ(merged.metadata.arch, "sm_90");
  EXPECT_EQ(merged.metadata.device, "NVIDIA H100 80GB HBM3");
  // The output may go elsewhere, into a folder that exists (as for every -o); the fragments stay.
  EXPECT_THROW(MergeResultsToFile(dir_, dir_ / "out" / "all.json"), Error);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out"));
  std::filesystem::create_directory(dir_ / "out");
  MergeResultsToFile(dir_, dir_ / "out" / "all.json");
  EXPECT_EQ(ReadFile(dir_ / "out" / "all.json"), ReadFile(path));
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

// A results folder reached through a link of the caller's (a build in a linked checkout): the
// fragments land where the link leads. A link another user could have planted there, or at a
// fragment's name, is refused and nothing is written through it.
TEST_F(ResultFragmentsTest, ResultsThroughALinkOfOursAreWrittenButNotThroughAPlantedOne) {
  const testing_support::Victim victim = testing_support::MakeVictim(dir_ / "victim");
  std::filesystem::create_directories(dir_ / "checkout" / "build");
  std::filesystem::create_directory_symlink(dir_ / "checkout", dir_ / "linked-checkout");
  const auto written = WriteCaseResult(dir_ / "linked-checkout" / "build" / "results", MakeMetadata(),
                                       MakeCheckedCase("transpose/a"));
  EXPECT_EQ(written, CaseResultPath(dir_ / "linked-checkout" / "build" / "results", "transpose/a"));
  EXPECT_TRUE(std::filesystem::is_regular_file(
      CaseResultPath(dir_ / "checkout" / "build" / "results", "transpose/a")));
  // A link planted at a fragment's name.
  const auto fragment = CaseResultPath(dir_ / "own", "transpose/a");
  std::filesystem::create_directories(fragment.parent_path());
  std::filesystem::create_symlink(victim.path, fragment);
  try {
    WriteCaseResult(dir_ / "own", MakeMetadata(), MakeCheckedCase("transpose/a"));
    ADD_FAILURE() << "wrote through a link";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr(fragment.string()), HasSubstr("symbolic link")));
  }
  testing_support::ExpectUntouched(victim);
  // BANKCHECK_RESULTS_DIR, or its cases/ folder, another user's link to a folder elsewhere.
  std::filesystem::create_directories(dir_ / "elsewhere");
  std::filesystem::create_directory_symlink(dir_ / "elsewhere", dir_ / "linked");
  std::filesystem::create_directories(dir_ / "run");
  std::filesystem::create_directory_symlink(dir_ / "elsewhere", dir_ / "run" / "cases");
  if (::lchown((dir_ / "linked").c_str(), 65534, 65534) != 0 ||
      ::lchown((dir_ / "run" / "cases").c_str(), 65534, 65534) != 0)
    GTEST_SKIP() << "cannot give a link to another user (not root): " << std::strerror(errno);
  EXPECT_THROW(WriteCaseResult(dir_ / "linked", MakeMetadata(), MakeCheckedCase("transpose/a")), Error);
  EXPECT_THROW(WriteCaseResult(dir_ / "run", MakeMetadata(), MakeCheckedCase("transpose/a")), Error);
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "elsewhere"));
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(ResultFragmentsTest, FragmentsOfDifferentRunsAreRefused) {
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("transpose/a"));
  RunMetadata other = MakeMetadata();
  other.arch = "sm_80";
  WriteCaseResult(dir_, other, MakeCheckedCase("transpose/b"));
  try {
    MergeResults(dir_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("different runs"), HasSubstr("arch \"sm_80\""),
                                HasSubstr("Delete " + (dir_ / "cases").string())));
  }
}

TEST_F(ResultFragmentsTest, FragmentsOfDifferentBuildsAreRefused) {
  RunMetadata one = MakeMetadata();
  one.cuda_architectures = "90";
  WriteCaseResult(dir_, one, MakeCheckedCase("transpose/a"));
  RunMetadata other = one;
  other.cuda_architectures = "80-virtual";
  WriteCaseResult(dir_, other, MakeCheckedCase("transpose/b"));
  EXPECT_THROW(MergeResults(dir_), Error);
  other.cuda_architectures.clear();  // a fragment that does not know it
  WriteCaseResult(dir_, other, MakeCheckedCase("transpose/b"));
  EXPECT_EQ(MergeResults(dir_).metadata.cuda_architectures, "90");
}

TEST_F(ResultFragmentsTest, FragmentsOfDifferentBankcheckVersionsAreRefused) {
  RunMetadata one = MakeMetadata();
  one.bankcheck_version = "0.2.0";
  WriteCaseResult(dir_, one, MakeCheckedCase("transpose/a"));
  RunMetadata other = one;
  other.bankcheck_version = "0.3.0";
  WriteCaseResult(dir_, other, MakeCheckedCase("transpose/b"));
  try {
    MergeResults(dir_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("different runs"), HasSubstr("bankcheck_version \"")));
  }
}

// A results folder that ctest ran twice (a case deleted, renamed or not selected in between), two
// programs writing into it: each program's newest run is merged, every fragment of it (its topics
// wrote them at once, in processes of their own), and the earlier runs' fragments are left out and
// counted. A fragment that names no run (an older bankcheck's) is older than any that does.
TEST_F(ResultFragmentsTest, AFolderMergesEachProgramsNewestRunOnly) {
  const FragmentRun earlier{"my_suite", "2026-12-07T12:00:00.000001Z"};
  const FragmentRun newest{"my_suite", "2026-12-07T12:30:00.000000Z"};
  const FragmentRun other{"other_suite", "2026-12-07T11:00:00.000000Z"};  // its only run, the oldest
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("transpose/renamed"), earlier);
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("transpose/a"), earlier);
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("transpose/a"), newest);  // rewritten by the newest
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("reduce/b"), newest);
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("other/c"), other);
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("old/d"));  // no run: before fragments named one
  std::string left_out;
  const RunResults merged = MergeResults({dir_}, &left_out);
  EXPECT_THAT(merged.cases, SizeIs(3));
  EXPECT_EQ(merged.cases.count("transpose/a"), 1u);
  EXPECT_EQ(merged.cases.count("reduce/b"), 1u);
  EXPECT_EQ(merged.cases.count("other/c"), 1u);
  EXPECT_EQ(left_out, "left out 2 fragments of earlier runs in " + (dir_ / "cases").string() +
                          " (\"old/d\", \"transpose/renamed\"): a results folder's merge is each suite "
                          "program's newest run; delete " +
                          (dir_ / "cases").string() + " before a run to keep none");
  EXPECT_TRUE(merged.run.started.empty());  // the merged file is no fragment
  EXPECT_EQ(SerializeResults(merged).find("\"run\""), std::string::npos);
  // One run, however its fragments came: all merged, nothing said.
  std::filesystem::remove(CaseResultPath(dir_, "transpose/renamed"));
  std::filesystem::remove(CaseResultPath(dir_, "old/d"));
  EXPECT_THAT(MergeResults({dir_}, &left_out).cases, SizeIs(3));
  EXPECT_EQ(left_out, "");
  // A folder of an older bankcheck's fragments only merges as before.
  std::filesystem::remove_all(dir_ / "cases");
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("old/d"));
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("old/e"));
  EXPECT_THAT(MergeResults({dir_}, &left_out).cases, SizeIs(2));
  EXPECT_EQ(left_out, "");
}

TEST_F(ResultFragmentsTest, AFragmentsRunIsReadBackAndAMalformedStartRefused) {
  const FragmentRun run{"my_suite_emulated", "2026-12-07T12:41:09.123456Z"};
  const RunResults fragment = ReadResults(WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("t/a"), run));
  EXPECT_EQ(fragment.run.program, run.program);
  EXPECT_EQ(fragment.run.started, run.started);
  EXPECT_TRUE(IsRunStart(CurrentUtcTimestampMicroseconds()));
  for (const char* started :
       {"2026-12-07T12:41:09Z", "2026-12-07T12:41:09.1234567Z", "2026-12-07 12:41:09.123456Z", ""})
    EXPECT_FALSE(IsRunStart(started)) << started;
  try {
    WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("t/b"), {"my_suite", "yesterday"});
    MergeResults(dir_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                AllOf(HasSubstr("t_b.json"), HasSubstr("started"), HasSubstr("2026-12-07T12:41:09.123456Z")));
  }
}

TEST_F(ResultFragmentsTest, NoFragmentsOrAMalformedOneIsAnError) {
  EXPECT_THROW(MergeResults(dir_), Error);
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("transpose/a"));
  WriteFile(dir_ / "cases" / "transpose_b.json", "{\n\n   oops");
  try {
    MergeResults(dir_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr((dir_ / "cases" / "transpose_b.json").string() + ":3:4: invalid JSON"));
  }
}

// The shards or runners of one run (docs/ci.md, "Sharding"): folders and results files merge into
// one; the times may differ, the rest of the metadata must agree (results.cc's rule).
TEST_F(ResultFragmentsTest, TheShardsOfOneRunMergeAndOnlyTheirTimesMayDiffer) {
  RunMetadata one = MakeMetadata("2025-11-22T10:00:09Z");
  one.git_commit = "abc123";
  one.cuda_compiler = "NVIDIA 13.0.48";
  RunMetadata two = one;
  two.date = "2025-11-22T10:00:02Z";
  WriteCaseResult(dir_ / "shard-1", one, MakeCheckedCase("transpose/a"));
  WriteCaseResult(dir_ / "shard-2", two, MakeCheckedCase("transpose/b"));
  WriteCaseResult(dir_ / "shard-3", one, MakeCheckedCase("reduce/c"));
  const auto file = MergeResultsToFile(dir_ / "shard-3");
  const RunResults merged = MergeResults({dir_ / "shard-1", dir_ / "shard-2", file});
  EXPECT_THAT(merged.cases, SizeIs(3));
  EXPECT_EQ(merged.metadata.date, "2025-11-22T10:00:02Z");
  for (const auto& [field, value] : {std::pair{&RunMetadata::git_commit, "def456"},
                                     {&RunMetadata::arch, "sm_100"},
                                     {&RunMetadata::cuda_compiler, "NVIDIA 12.8.93"},
                                     {&RunMetadata::counters, "emulated"}}) {
    RunMetadata other = two;
    other.*field = value;
    std::filesystem::remove_all(dir_ / "shard-2");
    WriteCaseResult(dir_ / "shard-2", other, MakeCheckedCase("transpose/b"));
    try {
      MergeResults({dir_ / "shard-1", dir_ / "shard-2"});
      ADD_FAILURE() << value;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr("different runs"), HasSubstr(std::string("\"") + value + "\""),
                                  HasSubstr((dir_ / "shard-1" / "cases").string()), HasSubstr("one run")));
    }
  }
}

TEST_F(ResultFragmentsTest, EmulatedAndMeasuredCountsDoNotMerge) {
  CaseResult measured = MakeCheckedCase("transpose/a");
  measured.launches = {MakeRecord(64)};
  CaseResult emulated = MakeCheckedCase("transpose/b");
  emulated.launches = {MakeRecord(64)};
  emulated.launches[0].counted_by = CountedBy::kEmulated;
  WriteCaseResult(dir_ / "gpu", MakeMetadata(), measured);
  WriteCaseResult(dir_ / "cpu", MakeMetadata(), emulated);
  try {
    MergeResults({dir_ / "gpu", dir_ / "cpu"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr(CaseResultPath(dir_ / "cpu", "transpose/b").string() +
                                          " were derived by the emulator"),
                                HasSubstr("merge the GPU program's results and the emulated program's")));
  }
}

TEST_F(ResultFragmentsTest, TheSameCaseInTwoShardsIsAnErrorNamingBoth) {
  WriteCaseResult(dir_ / "shard-1", MakeMetadata(), MakeCheckedCase("transpose/a"));
  WriteCaseResult(dir_ / "shard-2", MakeMetadata(), MakeCheckedCase("transpose/a"));
  try {
    MergeResults({dir_ / "shard-1", dir_ / "shard-2"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("case \"transpose/a\" is in both"),
                                HasSubstr(CaseResultPath(dir_ / "shard-1", "transpose/a").string()),
                                HasSubstr(CaseResultPath(dir_ / "shard-2", "transpose/a").string())));
  }
  EXPECT_THROW(MergeResults(std::vector<std::filesystem::path>{}), Error);
}

TEST_F(ResultFragmentsTest, TheSameCaseInTwoFragmentsIsAnError) {
  WriteCaseResult(dir_, MakeMetadata(), MakeCheckedCase("transpose/a"));
  std::filesystem::copy_file(dir_ / "cases" / "transpose_a.json", dir_ / "cases" / "copy.json");
  EXPECT_THROW(MergeResults(dir_), Error);
}

}  // namespace
}  // namespace bankcheck
