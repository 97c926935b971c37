#include "bankcheck/results.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "bankcheck/error.h"
#include "bankcheck/run_metadata.h"
#include "core/internal/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::ReadFile;
using testing_support::TemporaryFilesUnder;
using testing_support::WriteFile;

CaseResult MakeCase(const std::string& name, CaseStatus status = CaseStatus::kPassed) {
  CaseResult result;
  result.name = name;
  result.description = "what " + name + " shows";
  result.status = status;
  result.expected_ways[SharedKind::kLoad] = 32;
  result.expected_ways[SharedKind::kStore] = 1;
  if (status != CaseStatus::kSkipped) result.launches = {MakeRecord(2048)};
  result.baseline = BaselineVerdict::kMatch;
  result.messages = {"a message"};
  return result;
}

TEST(ResultsTest, RoundTripsWithHardwareReadings) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.metadata.git_commit = "abc";
  results.cases["transpose/naive"] = MakeCase("transpose/naive");
  results.cases["transpose/naive"].baseline_table = "launch ...\n";
  CaseResult skipped = MakeCase("transpose/big", CaseStatus::kSkipped);
  skipped.baseline.reset();
  results.cases["transpose/big"] = skipped;
  const std::string text = SerializeResults(results);
  EXPECT_THAT(text,
              AllOf(HasSubstr("\"format\": \"bankcheck-results\""), HasSubstr("\"ld_bank_conflicts\": 1987"),
                    HasSubstr("\"baseline\": \"not_compared\""), HasSubstr("\"status\": \"skipped\"")));
  const RunResults back = ParseResults(text, "results.json");
  EXPECT_EQ(back.metadata, results.metadata);
  ASSERT_THAT(back.cases, SizeIs(2));
  const CaseResult& naive = back.cases.at("transpose/naive");
  EXPECT_EQ(naive.name, "transpose/naive");
  EXPECT_EQ(naive.status, CaseStatus::kPassed);
  EXPECT_EQ(naive.expected_ways[SharedKind::kLoad], 32.0);
  EXPECT_EQ(naive.baseline, BaselineVerdict::kMatch);
  EXPECT_EQ(naive.baseline_table, "launch ...\n");
  EXPECT_THAT(naive.messages, ElementsAre("a message"));
  EXPECT_EQ(naive.launches.at(0).hardware[SharedKind::kLoad].bank_conflicts, 1987u);
  EXPECT_EQ(back.cases.at("transpose/big").baseline, std::nullopt);
  EXPECT_EQ(SerializeResults(back), text);
}

TEST(ResultsTest, HowTheKernelsWereBuiltIsKeptWhenKnown) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["transpose/naive"] = MakeCase("transpose/naive");
  EXPECT_THAT(SerializeResults(results),
              AllOf(Not(HasSubstr("cuda_compiler")), Not(HasSubstr("cuda_architectures"))))
      << "unknown: left out, so older readers and files agree";
  results.metadata.cuda_compiler = "NVIDIA 13.0.88";
  results.metadata.cuda_architectures = "90;80-virtual";
  const std::string text = SerializeResults(results);
  EXPECT_THAT(text, AllOf(HasSubstr("\"cuda_compiler\": \"NVIDIA 13.0.88\""),
                          HasSubstr("\"cuda_architectures\": \"90;80-virtual\"")));
  EXPECT_EQ(ParseResults(text, "results.json").metadata, results.metadata);
}

TEST(ResultsTest, TheBankcheckVersionIsKeptWhenKnown) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["transpose/naive"] = MakeCase("transpose/naive");
  EXPECT_THAT(SerializeResults(results), Not(HasSubstr("bankcheck_version")))
      << "unknown: left out, as files of versions before 0.2.0 have it";
  results.metadata.bankcheck_version = "0.2.0";
  const std::string text = SerializeResults(results);
  EXPECT_THAT(text, HasSubstr("\"bankcheck_version\": \"0.2.0\""));
  EXPECT_EQ(ParseResults(text, "results.json").metadata.bankcheck_version, "0.2.0");
}

TEST(ResultsTest, ExpectedWaysArePerKindAndOlderFilesStillRead) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["transpose/naive"] = MakeCase("transpose/naive");
  results.cases.at("transpose/naive").expected_ways[SharedKind::kLdmatrix] = 8;
  nlohmann::json document = nlohmann::json::parse(SerializeResults(results));
  nlohmann::json& expected = document["cases"]["transpose/naive"]["expected"];
  EXPECT_EQ(expected, nlohmann::json::parse(R"({"shared_ld": 32, "shared_st": 1, "shared_ldsm": 8})"));
  // Results files written before the per-kind blocks named loads and stores only.
  expected = nlohmann::json::parse(R"({"load_ways": 2, "store_ways": 4})");
  const CaseResult back = ParseResults(document.dump(), "old.json").cases.at("transpose/naive");
  EXPECT_EQ(back.expected_ways[SharedKind::kLoad], 2.0);
  EXPECT_EQ(back.expected_ways[SharedKind::kStore], 4.0);
  EXPECT_EQ(back.expected_ways[SharedKind::kLdmatrix], 1.0);
}

TEST(ResultsTest, WhatACaseWasCheckedAgainstRoundTripsAndDefaultsToItsAnnotation) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["gemm/tiled"] = MakeCase("gemm/tiled");
  results.cases.at("gemm/tiled").expected_by = ExpectedBy::kBaselineOnly;
  results.cases["gemm/lines"] = MakeCase("gemm/lines");
  results.cases.at("gemm/lines").expected_by = ExpectedBy::kLines;
  nlohmann::json document = nlohmann::json::parse(SerializeResults(results));
  EXPECT_EQ(document["cases"]["gemm/tiled"]["expected_by"], "baseline");
  RunResults back = ParseResults(document.dump(), "r.json");
  EXPECT_EQ(back.cases.at("gemm/tiled").expected_by, ExpectedBy::kBaselineOnly);
  EXPECT_EQ(back.cases.at("gemm/lines").expected_by, ExpectedBy::kLines);
  // Files written before it: the case's annotation.
  document["cases"]["gemm/tiled"].erase("expected_by");
  back = ParseResults(document.dump(), "r.json");
  EXPECT_EQ(back.cases.at("gemm/tiled").expected_by, ExpectedBy::kCase);
  document["cases"]["gemm/tiled"]["expected_by"] = "nothing";
  EXPECT_THROW(ParseResults(document.dump(), "r.json"), Error);
}

TEST(ResultsTest, AnEmulatedCasesOutputStatusRoundTripsAndIsAbsentFromMeasuredOnes) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["t/emulated"] = MakeCase("t/emulated");
  results.cases.at("t/emulated").output = "not computed: a store's value is unknown";
  results.cases["t/measured"] = MakeCase("t/measured");
  nlohmann::json document = nlohmann::json::parse(SerializeResults(results));
  EXPECT_EQ(document["cases"]["t/emulated"]["output"], "not computed: a store's value is unknown");
  EXPECT_FALSE(document["cases"]["t/measured"].contains("output"));
  const RunResults back = ParseResults(document.dump(), "r.json");
  EXPECT_EQ(back.cases.at("t/emulated").output, "not computed: a store's value is unknown");
  EXPECT_EQ(back.cases.at("t/measured").output, "");
  document["cases"]["t/emulated"]["output"] = 3;
  EXPECT_THROW(ParseResults(document.dump(), "r.json"), Error);
}

TEST(ResultsTest, CpAsyncGlobalReadsRoundTripBesideTheirSharedWrites) {
  // One LDGSTS counted through SASS metrics: two rows at its pc (its shared writes, its global
  // reads) and a line per kind; a range-profiler record of it marks global_ldgsts not counted.
  RunResults results;
  CaseResult tile = MakeCase("cp_async/tile");
  LaunchRecord sass = tile.launches.at(0);
  sass.shared[SharedKind::kCpAsync] = {32, 128, 128, Provenance::kExact};
  sass.shared[SharedKind::kGlobalCpAsync] = {32, 512, 0, Provenance::kNotMeasured};
  InstructionCounts shared_side;
  shared_side.pc_offset = 0x1a0;
  shared_side.opcode = "LDGSTS.E.BYPASS.128";
  shared_side.kind = SharedKind::kCpAsync;
  shared_side.executions = 32;
  shared_side.wavefronts = shared_side.ideal_wavefronts = 128;
  InstructionCounts global_side = shared_side;
  global_side.kind = SharedKind::kGlobalCpAsync;
  global_side.wavefronts = 512;
  global_side.ideal_wavefronts = 512;
  sass.instructions = {shared_side, global_side};
  sass.attributed_launches = 1;
  sass.lines = std::vector<LineRecord>{
      {"k.cu", "cp_async16(dst, src);", 0, 9, SharedKind::kCpAsync, 32, 128, 128, {"LDGSTS.E.BYPASS.128"}},
      {"k.cu",
       "cp_async16(dst, src);",
       0,
       9,
       SharedKind::kGlobalCpAsync,
       32,
       512,
       0,
       {"LDGSTS.E.BYPASS.128"}}};
  LaunchRecord ranged = MakeRecord(64);
  ranged.counted_by = CountedBy::kRangeProfiler;
  ranged.shared[SharedKind::kCpAsync] = {32, 128, 128, Provenance::kExact};
  ranged.not_counted[SharedKind::kGlobalCpAsync] = true;
  tile.launches = {sass, ranged};
  results.cases["cp_async/tile"] = tile;
  const std::string text = SerializeResults(results);
  const nlohmann::json document = nlohmann::json::parse(text);
  const nlohmann::json& launches = document["cases"]["cp_async/tile"]["launches"];
  EXPECT_EQ(launches[0]["global_ldgsts"]["wavefronts"], 512);
  EXPECT_EQ(launches[0]["instructions"][1]["kind"], "global_ldgsts");
  EXPECT_FALSE(launches[1].contains("global_ldgsts"));
  EXPECT_EQ(launches[1]["not_counted"], nlohmann::json::array({"global_ldgsts"}));
  const RunResults back = ParseResults(text, "results.json");
  const std::vector<LaunchRecord>& read = back.cases.at("cp_async/tile").launches;
  ASSERT_THAT(read, SizeIs(2));
  EXPECT_EQ(read[0].shared[SharedKind::kGlobalCpAsync], sass.shared[SharedKind::kGlobalCpAsync]);
  EXPECT_EQ(read[0].shared[SharedKind::kCpAsync], sass.shared[SharedKind::kCpAsync]);
  EXPECT_EQ(read[0].instructions, sass.instructions);
  ASSERT_TRUE(read[0].lines);
  ASSERT_THAT(*read[0].lines, SizeIs(2));
  for (size_t i = 0; i < 2; ++i) {
    const LineRecord &want = sass.lines->at(i), &got = read[0].lines->at(i);
    EXPECT_EQ(got.kind, want.kind);
    EXPECT_EQ(got.line, want.line);
    EXPECT_EQ(got.executions, want.executions);
    EXPECT_EQ(got.wavefronts, want.wavefronts);
    EXPECT_EQ(got.ideal_wavefronts, want.ideal_wavefronts);
    EXPECT_EQ(got.opcodes, want.opcodes);
  }
  EXPECT_FALSE(read[0].not_counted[SharedKind::kGlobalCpAsync]);
  EXPECT_TRUE(read[1].not_counted[SharedKind::kGlobalCpAsync]);
  EXPECT_FALSE(read[1].not_counted[SharedKind::kCpAsync]);
  EXPECT_EQ(SerializeResults(back), text);
}

TEST(ResultsTest, VersionOneFilesLoadWithoutGlobalAndLocalMemory) {
  RunResults results;
  results.cases["t/a"] = MakeCase("t/a");
  nlohmann::json document = nlohmann::json::parse(SerializeResults(results));
  EXPECT_EQ(document["version"], 3);
  EXPECT_FALSE(ParseResults(document.dump(), "r.json")
                   .cases.at("t/a")
                   .launches.at(0)
                   .not_counted[SharedKind::kGlobalLoad]);
  // Written before global and local memory were counted: those kinds compare with nothing.
  document["version"] = 1;
  const LaunchRecord old = ParseResults(document.dump(), "r.json").cases.at("t/a").launches.at(0);
  EXPECT_TRUE(old.not_counted[SharedKind::kGlobalLoad]);
  EXPECT_TRUE(old.not_counted[SharedKind::kLocalLoad]);
  EXPECT_FALSE(old.not_counted[SharedKind::kLoad]);
  // Written before cp.async's global reads were counted (version 2): that kind alone.
  document["version"] = 2;
  const LaunchRecord two = ParseResults(document.dump(), "r.json").cases.at("t/a").launches.at(0);
  EXPECT_TRUE(two.not_counted[SharedKind::kGlobalCpAsync]);
  EXPECT_FALSE(two.not_counted[SharedKind::kGlobalLoad]);
  document["version"] = 4;
  EXPECT_THROW(ParseResults(document.dump(), "r.json"), Error);
}

TEST(ResultsTest, MalformedAndWrongFieldsAreNamed) {
  try {
    ParseResults("{\"format\": \"bankcheck-results\",\n\"version\": tru}", "r.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("r.json:2:15: invalid JSON"));
  }
  RunResults results;
  results.cases["a/b"] = MakeCase("a/b");
  nlohmann::json document = nlohmann::json::parse(SerializeResults(results));
  document["cases"]["a/b"]["status"] = "flaky";
  try {
    ParseResults(document.dump(), "r.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("r.json: case \"a/b\": status must be \"passed\", \"failed\" or \"skipped\", "
                          "but is the string \"flaky\""));
  }
}

class ResultFragmentsTest : public testing_support::TempDirTest {};

TEST_F(ResultFragmentsTest, EachCaseWritesItsOwnFragment) {
  const auto path = WriteCaseResult(dir_, MakeMetadata(), MakeCase("transpose/padded-33"));
  EXPECT_EQ(path, dir_ / "cases" / "transpose_padded_33.json");
  const RunResults fragment = ReadResults(path);
  EXPECT_THAT(fragment.cases, SizeIs(1));
  EXPECT_EQ(fragment.metadata.arch, "sm_90");
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(ResultFragmentsTest, MergeCombinesFragmentsWithTheEarliestDate) {
  WriteCaseResult(dir_, MakeMetadata("2025-11-22T10:00:05Z"), MakeCase("transpose/a"));
  WriteCaseResult(dir_, MakeMetadata("2025-11-22T10:00:01Z"), MakeCase("transpose/b", CaseStatus::kFailed));
  RunMetadata no_gpu;  // a case that skipped before probing says nothing about the GPU
  no_gpu.date = "2025-11-22T10:00:03Z";
  WriteCaseResult(dir_, no_gpu, MakeCase("reduce/c", CaseStatus::kSkipped));
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
                                       MakeCase("transpose/a"));
  EXPECT_EQ(written, CaseResultPath(dir_ / "linked-checkout" / "build" / "results", "transpose/a"));
  EXPECT_TRUE(std::filesystem::is_regular_file(
      CaseResultPath(dir_ / "checkout" / "build" / "results", "transpose/a")));
  // A link planted at a fragment's name.
  const auto fragment = CaseResultPath(dir_ / "own", "transpose/a");
  std::filesystem::create_directories(fragment.parent_path());
  std::filesystem::create_symlink(victim.path, fragment);
  try {
    WriteCaseResult(dir_ / "own", MakeMetadata(), MakeCase("transpose/a"));
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
  EXPECT_THROW(WriteCaseResult(dir_ / "linked", MakeMetadata(), MakeCase("transpose/a")), Error);
  EXPECT_THROW(WriteCaseResult(dir_ / "run", MakeMetadata(), MakeCase("transpose/a")), Error);
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "elsewhere"));
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(ResultFragmentsTest, FragmentsOfDifferentRunsAreRefused) {
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("transpose/a"));
  RunMetadata other = MakeMetadata();
  other.arch = "sm_80";
  WriteCaseResult(dir_, other, MakeCase("transpose/b"));
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
  WriteCaseResult(dir_, one, MakeCase("transpose/a"));
  RunMetadata other = one;
  other.cuda_architectures = "80-virtual";
  WriteCaseResult(dir_, other, MakeCase("transpose/b"));
  EXPECT_THROW(MergeResults(dir_), Error);
  other.cuda_architectures.clear();  // a fragment that does not know it
  WriteCaseResult(dir_, other, MakeCase("transpose/b"));
  EXPECT_EQ(MergeResults(dir_).metadata.cuda_architectures, "90");
}

TEST_F(ResultFragmentsTest, FragmentsOfDifferentBankcheckVersionsAreRefused) {
  RunMetadata one = MakeMetadata();
  one.bankcheck_version = "0.2.0";
  WriteCaseResult(dir_, one, MakeCase("transpose/a"));
  RunMetadata other = one;
  other.bankcheck_version = "0.3.0";
  WriteCaseResult(dir_, other, MakeCase("transpose/b"));
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
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("transpose/renamed"), earlier);
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("transpose/a"), earlier);
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("transpose/a"), newest);  // rewritten by the newest
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("reduce/b"), newest);
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("other/c"), other);
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("old/d"));  // no run: before fragments named one
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
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("old/d"));
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("old/e"));
  EXPECT_THAT(MergeResults({dir_}, &left_out).cases, SizeIs(2));
  EXPECT_EQ(left_out, "");
}

TEST_F(ResultFragmentsTest, AFragmentsRunIsReadBackAndAMalformedStartRefused) {
  const FragmentRun run{"my_suite_emulated", "2026-12-07T12:41:09.123456Z"};
  const RunResults fragment = ReadResults(WriteCaseResult(dir_, MakeMetadata(), MakeCase("t/a"), run));
  EXPECT_EQ(fragment.run.program, run.program);
  EXPECT_EQ(fragment.run.started, run.started);
  EXPECT_TRUE(IsRunStart(CurrentUtcTimestampMicroseconds()));
  for (const char* started :
       {"2026-12-07T12:41:09Z", "2026-12-07T12:41:09.1234567Z", "2026-12-07 12:41:09.123456Z", ""})
    EXPECT_FALSE(IsRunStart(started)) << started;
  try {
    WriteCaseResult(dir_, MakeMetadata(), MakeCase("t/b"), {"my_suite", "yesterday"});
    MergeResults(dir_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                AllOf(HasSubstr("t_b.json"), HasSubstr("started"), HasSubstr("2026-12-07T12:41:09.123456Z")));
  }
}

TEST_F(ResultFragmentsTest, NoFragmentsOrAMalformedOneIsAnError) {
  EXPECT_THROW(MergeResults(dir_), Error);
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("transpose/a"));
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
  WriteCaseResult(dir_ / "shard-1", one, MakeCase("transpose/a"));
  WriteCaseResult(dir_ / "shard-2", two, MakeCase("transpose/b"));
  WriteCaseResult(dir_ / "shard-3", one, MakeCase("reduce/c"));
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
    WriteCaseResult(dir_ / "shard-2", other, MakeCase("transpose/b"));
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
  CaseResult measured = MakeCase("transpose/a");
  measured.launches = {MakeRecord(64)};
  CaseResult emulated = MakeCase("transpose/b");
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
  WriteCaseResult(dir_ / "shard-1", MakeMetadata(), MakeCase("transpose/a"));
  WriteCaseResult(dir_ / "shard-2", MakeMetadata(), MakeCase("transpose/a"));
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
  WriteCaseResult(dir_, MakeMetadata(), MakeCase("transpose/a"));
  std::filesystem::copy_file(dir_ / "cases" / "transpose_a.json", dir_ / "cases" / "copy.json");
  EXPECT_THROW(MergeResults(dir_), Error);
}

}  // namespace
}  // namespace bankcheck
