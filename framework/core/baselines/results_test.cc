#include "bankcheck/core/results.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/run_metadata.h"
#include "core/baselines/internal/results_test_support.h"
#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using testing_support::MakeCheckedCase;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;

TEST(ResultsTest, RoundTripsWithHardwareReadings) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.metadata.git_commit = "abc";
  results.cases["transpose/naive"] = MakeCheckedCase("transpose/naive");
  results.cases["transpose/naive"].baseline_table = "launch ...\n";
  CaseResult skipped = MakeCheckedCase("transpose/big", CaseStatus::kSkipped);
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
  EXPECT_EQ(naive.expected_ways[MemoryKind::kSharedLoad], 32.0);
  EXPECT_EQ(naive.baseline, BaselineVerdict::kMatch);
  EXPECT_EQ(naive.baseline_table, "launch ...\n");
  EXPECT_THAT(naive.messages, ElementsAre("a message"));
  EXPECT_EQ(naive.launches.at(0).hardware[MemoryKind::kSharedLoad].bank_conflicts, 1987u);
  EXPECT_EQ(back.cases.at("transpose/big").baseline, std::nullopt);
  EXPECT_EQ(SerializeResults(back), text);
}

TEST(ResultsTest, HowTheKernelsWereBuiltIsKeptWhenKnown) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["transpose/naive"] = MakeCheckedCase("transpose/naive");
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
  results.cases["transpose/naive"] = MakeCheckedCase("transpose/naive");
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
  results.cases["transpose/naive"] = MakeCheckedCase("transpose/naive");
  results.cases.at("transpose/naive").expected_ways[MemoryKind::kSharedLdmatrix] = 8;
  nlohmann::json document = nlohmann::json::parse(SerializeResults(results));
  nlohmann::json& expected = document["cases"]["transpose/naive"]["expected"];
  EXPECT_EQ(expected, nlohmann::json::parse(R"({"shared_ld": 32, "shared_st": 1, "shared_ldsm": 8})"));
  // Results files written before the per-kind blocks named loads and stores only.
  expected = nlohmann::json::parse(R"({"load_ways": 2, "store_ways": 4})");
  const CaseResult back = ParseResults(document.dump(), "old.json").cases.at("transpose/naive");
  EXPECT_EQ(back.expected_ways[MemoryKind::kSharedLoad], 2.0);
  EXPECT_EQ(back.expected_ways[MemoryKind::kSharedStore], 4.0);
  EXPECT_EQ(back.expected_ways[MemoryKind::kSharedLdmatrix], 1.0);
}

TEST(ResultsTest, WhatACaseWasCheckedAgainstRoundTripsAndDefaultsToItsAnnotation) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["gemm/tiled"] = MakeCheckedCase("gemm/tiled");
  results.cases.at("gemm/tiled").expected_by = ExpectedBy::kBaselineOnly;
  results.cases["gemm/lines"] = MakeCheckedCase("gemm/lines");
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
  results.cases["t/emulated"] = MakeCheckedCase("t/emulated");
  results.cases.at("t/emulated").output = "not computed: a store's value is unknown";
  results.cases["t/measured"] = MakeCheckedCase("t/measured");
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
  CaseResult tile = MakeCheckedCase("cp_async/tile");
  LaunchRecord sass = tile.launches.at(0);
  sass.kinds[MemoryKind::kSharedCpAsync] = {32, 128, 128, Provenance::kExact};
  sass.kinds[MemoryKind::kGlobalCpAsync] = {32, 512, 0, Provenance::kNotMeasured};
  InstructionCounts shared_side;
  shared_side.pc_offset = 0x1a0;
  shared_side.opcode = "LDGSTS.E.BYPASS.128";
  shared_side.kind = MemoryKind::kSharedCpAsync;
  shared_side.executions = 32;
  shared_side.wavefronts = shared_side.ideal_wavefronts = 128;
  InstructionCounts global_side = shared_side;
  global_side.kind = MemoryKind::kGlobalCpAsync;
  global_side.wavefronts = 512;
  global_side.ideal_wavefronts = 512;
  sass.instructions = {shared_side, global_side};
  sass.attributed_launches = 1;
  sass.lines = std::vector<LineRecord>{{"k.cu",
                                        "cp_async16(dst, src);",
                                        0,
                                        9,
                                        MemoryKind::kSharedCpAsync,
                                        32,
                                        128,
                                        128,
                                        {"LDGSTS.E.BYPASS.128"}},
                                       {"k.cu",
                                        "cp_async16(dst, src);",
                                        0,
                                        9,
                                        MemoryKind::kGlobalCpAsync,
                                        32,
                                        512,
                                        0,
                                        {"LDGSTS.E.BYPASS.128"}}};
  LaunchRecord ranged = MakeRecord(64);
  ranged.counted_by = CountedBy::kRangeProfiler;
  ranged.kinds[MemoryKind::kSharedCpAsync] = {32, 128, 128, Provenance::kExact};
  ranged.not_counted[MemoryKind::kGlobalCpAsync] = true;
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
  EXPECT_EQ(read[0].kinds[MemoryKind::kGlobalCpAsync], sass.kinds[MemoryKind::kGlobalCpAsync]);
  EXPECT_EQ(read[0].kinds[MemoryKind::kSharedCpAsync], sass.kinds[MemoryKind::kSharedCpAsync]);
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
  EXPECT_FALSE(read[0].not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_TRUE(read[1].not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_FALSE(read[1].not_counted[MemoryKind::kSharedCpAsync]);
  EXPECT_EQ(SerializeResults(back), text);
}

TEST(ResultsTest, VersionOneFilesLoadWithoutGlobalAndLocalMemory) {
  RunResults results;
  results.cases["t/a"] = MakeCheckedCase("t/a");
  nlohmann::json document = nlohmann::json::parse(SerializeResults(results));
  EXPECT_EQ(document["version"], 4);
  EXPECT_FALSE(ParseResults(document.dump(), "r.json")
                   .cases.at("t/a")
                   .launches.at(0)
                   .not_counted[MemoryKind::kGlobalLoad]);
  // Written before global and local memory were counted: those kinds compare with nothing.
  document["version"] = 1;
  const LaunchRecord old = ParseResults(document.dump(), "r.json").cases.at("t/a").launches.at(0);
  EXPECT_TRUE(old.not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_TRUE(old.not_counted[MemoryKind::kLocalLoad]);
  EXPECT_FALSE(old.not_counted[MemoryKind::kSharedLoad]);
  // Written before cp.async's global reads were counted (version 2): that kind alone.
  document["version"] = 2;
  const LaunchRecord two = ParseResults(document.dump(), "r.json").cases.at("t/a").launches.at(0);
  EXPECT_TRUE(two.not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_FALSE(two.not_counted[MemoryKind::kGlobalLoad]);
  // Written before TMA's global traffic was counted (version 3): those two kinds alone.
  document["version"] = 3;
  const LaunchRecord three = ParseResults(document.dump(), "r.json").cases.at("t/a").launches.at(0);
  EXPECT_TRUE(three.not_counted[MemoryKind::kGlobalTmaLoad]);
  EXPECT_TRUE(three.not_counted[MemoryKind::kGlobalTmaStore]);
  EXPECT_FALSE(three.not_counted[MemoryKind::kGlobalCpAsync]);
  document["version"] = 5;
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
  results.cases["a/b"] = MakeCheckedCase("a/b");
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

}  // namespace
}  // namespace bankcheck
