#include "core/records/record_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"
#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_support::MakeRecord;
using testing_support::WithInstructions;

// The message of the Error(kBadInput) that parsing `value` throws; fails the test otherwise.
std::string ParseError(const json& value) {
  try {
    LaunchRecordFromJson(value, "demo.json: case \"demo/x\"", "Fix it", "launches[0]");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << value.dump();
  return "";
}

TEST(RecordJsonTest, FullRecordHasTheDocumentedFields) {
  const json out = LaunchRecordToJson(MakeRecord(2048), RecordDetail::kFull);
  EXPECT_EQ(out, json::parse(R"json({
    "kernel": "transpose(float*, float const*)", "mangled": "_Z9transposePfPKf",
    "grid": [32, 32, 1], "block": [32, 8, 1], "dynamic_shared_bytes": 0, "counters": "range profiler",
    "shared_ld": {"instructions": 64, "wavefronts": 2048, "ideal": 64, "conflicts": 1984},
    "shared_st": {"instructions": 64, "wavefronts": 64, "ideal": 64, "conflicts": 0},
    "hardware": {"ld_wavefronts": 2051, "ld_bank_conflicts": 1987, "st_wavefronts": 64, "st_bank_conflicts": 0}
  })json"));
}

TEST(RecordJsonTest, SassMetricsRecordHasNoHardwareReadingsAndReadsBack) {
  LaunchRecord record = MakeRecord(2048);
  record.counted_by = CountedBy::kSassMetrics;
  record.hardware = {};
  const json out = LaunchRecordToJson(record, RecordDetail::kFull);
  EXPECT_EQ(out.at("counters"), "sass metrics");
  EXPECT_FALSE(out.contains("hardware"));
  EXPECT_EQ(LaunchRecordFromJson(out, "test").counted_by, CountedBy::kSassMetrics);
  // Results written before "counters" existed came from counter sessions.
  json old = LaunchRecordToJson(MakeRecord(2048), RecordDetail::kFull);
  old.erase("counters");
  EXPECT_EQ(LaunchRecordFromJson(old, "test").counted_by, CountedBy::kRangeProfiler);
  json bad = out;
  bad["counters"] = "ncu";
  EXPECT_THROW(LaunchRecordFromJson(bad, "test"), Error);
}

TEST(RecordJsonTest, EmulatedRecordSaysSoAndReadsBack) {
  LaunchRecord record = MakeRecord(2048);
  record.counted_by = CountedBy::kEmulated;
  record.hardware = {};
  const json out = LaunchRecordToJson(record, RecordDetail::kFull);
  EXPECT_EQ(out.at("counters"), "emulated");
  EXPECT_FALSE(out.contains("hardware"));
  EXPECT_EQ(LaunchRecordFromJson(out, "test").counted_by, CountedBy::kEmulated);
}

TEST(RecordJsonTest, KindsNotCountedAreListedAndReadBack) {
  LaunchRecord record = MakeRecord(2048);
  record.counted_by = CountedBy::kEmulated;
  for (const MemoryKindInfo& info : MemoryKinds())  // as when no address of the launch was known
    if (info.space != MemorySpace::kShared) record.not_counted[info.kind] = true;
  for (const RecordDetail detail : {RecordDetail::kFull, RecordDetail::kExact}) {
    const json out = LaunchRecordToJson(record, detail);
    EXPECT_EQ(out.at("not_counted"), json::parse(R"(["global_ld", "global_st", "global_atom", "global_red",
                                                     "local_ld", "local_st", "global_ldgsts",
                                                     "global_tma_ld", "global_tma_st"])"));
    EXPECT_FALSE(out.contains("global_ld"));
    EXPECT_EQ(LaunchRecordFromJson(out, "test").not_counted, record.not_counted);
  }
  // A measured launch counted every kind: global loads are a block like any other.
  LaunchRecord measured = MakeRecord(2048);
  measured.kinds[MemoryKind::kGlobalLoad] = {512, 4096, 2048};
  const json out = LaunchRecordToJson(measured, RecordDetail::kExact);
  EXPECT_FALSE(out.contains("not_counted"));
  EXPECT_EQ(out.at("global_ld"), json::parse(R"({"instructions": 512, "wavefronts": 4096, "ideal": 2048,
                                                   "conflicts": 2048})"));
  EXPECT_EQ(LaunchRecordFromJson(out, "test").kinds[MemoryKind::kGlobalLoad],
            measured.kinds[MemoryKind::kGlobalLoad]);
  // Counts of a kind said not to be counted contradict each other.
  json both = out;
  both["not_counted"] = json::array({"global_ld"});
  EXPECT_THAT(ParseError(both),
              HasSubstr("not_counted: names \"global_ld\", which the launch has counts of"));
}

TEST(RecordJsonTest, ExactRecordLeavesOutHardwareNotesAndMetrics) {
  LaunchRecord record = MakeRecord(2048);
  record.notes.push_back("a note");
  record.extra_metrics["smsp__cycles_active.sum"] = 12.0;
  const json out = LaunchRecordToJson(record, RecordDetail::kExact);
  EXPECT_FALSE(out.contains("mangled"));  // differs from build to build
  EXPECT_FALSE(out.contains("hardware"));
  EXPECT_FALSE(out.contains("notes"));
  EXPECT_FALSE(out.contains("extra_metrics"));
  // Read back, the hardware readings are zero and the exact counts are all there.
  const LaunchRecord back = LaunchRecordFromJson(out, "test");
  EXPECT_EQ(back.loads(), record.loads());
  EXPECT_EQ(back.stores(), record.stores());
  EXPECT_EQ(back.hardware[MemoryKind::kSharedLoad].wavefronts, 0u);
}

TEST(RecordJsonTest, EachExecutedKindHasABlockWithItsProvenance) {
  LaunchRecord record = MakeRecord(2048);
  record.kinds[MemoryKind::kSharedLdmatrix] = {16, 512, 64};
  record.kinds[MemoryKind::kSharedAtomic] = {256, 806, 256, Provenance::kHardware};
  record.hardware[MemoryKind::kSharedAtomic] = {806, 550};
  record.kinds[MemoryKind::kSharedDsmem] = {16, 0, 0, Provenance::kNotMeasured};
  record.unsupported[MemoryKind::kSharedStmatrix] = true;
  const json full = LaunchRecordToJson(record, RecordDetail::kFull);
  EXPECT_EQ(full["shared_ldsm"],
            json::parse(R"({"instructions": 16, "wavefronts": 512, "ideal": 64, "conflicts": 448})"));
  EXPECT_EQ(full["shared_atom"], json::parse(R"({"instructions": 256, "wavefronts": 806, "ideal": 256,
                                                 "conflicts": 550, "ideal_source": "hardware"})"));
  EXPECT_EQ(full["shared_dsmem"],
            json::parse(R"({"instructions": 16, "wavefronts": 0, "ideal_source": "not measured"})"));
  EXPECT_FALSE(full.contains("shared_stsm"));  // not executed: no block
  EXPECT_EQ(full["unsupported"], json::array({"shared_stsm"}));
  EXPECT_EQ(full["hardware"]["atom_bank_conflicts"], 550);
  const LaunchRecord back = LaunchRecordFromJson(full, "test");
  EXPECT_EQ(back.kinds, record.kinds);
  EXPECT_EQ(back.unsupported, record.unsupported);
  EXPECT_EQ(back.hardware[MemoryKind::kSharedAtomic], record.hardware[MemoryKind::kSharedAtomic]);

  // Baselines keep only what is exact: the hardware-sourced ideal is left out.
  const json exact = LaunchRecordToJson(record, RecordDetail::kExact);
  EXPECT_EQ(exact["shared_atom"],
            json::parse(R"({"instructions": 256, "wavefronts": 806, "ideal_source": "not measured"})"));
  EXPECT_EQ(exact["shared_ldsm"], full["shared_ldsm"]);
}

TEST(RecordJsonTest, UnknownKindsAndProvenancesAreRejected) {
  json value = LaunchRecordToJson(MakeRecord(64), RecordDetail::kFull);
  value["shared_xyz"] = value["shared_ld"];
  EXPECT_THAT(ParseError(value), HasSubstr("unknown field launches[0].shared_xyz"));
  value = LaunchRecordToJson(MakeRecord(64), RecordDetail::kFull);
  value["shared_ld"]["ideal_source"] = "guessed";
  EXPECT_THAT(ParseError(value), HasSubstr("ideal_source"));
  value = LaunchRecordToJson(MakeRecord(64), RecordDetail::kFull);
  value["unsupported"] = json::array({"shared_nope"});
  EXPECT_THAT(ParseError(value), HasSubstr("not a kind of memory instruction"));
}

TEST(RecordJsonTest, FullRecordRoundTrips) {
  LaunchRecord record = MakeRecord(256, 64, "reduce");
  record.dynamic_shared_bytes = 49152;
  record.grid = {4294967295u, 2, 3};
  record.loads().instructions = uint64_t{1} << 40;  // beyond 32 bits
  record.notes = {"first", "second"};
  record.extra_metrics = {{"a", 1.5}, {"b", -2.0}};
  const LaunchRecord back = LaunchRecordFromJson(LaunchRecordToJson(record, RecordDetail::kFull), "test");
  EXPECT_EQ(back.kernel, record.kernel);
  EXPECT_EQ(back.mangled_kernel, record.mangled_kernel);
  EXPECT_EQ(back.grid, record.grid);
  EXPECT_EQ(back.block, record.block);
  EXPECT_EQ(back.dynamic_shared_bytes, 49152u);
  EXPECT_EQ(back.loads(), record.loads());
  EXPECT_EQ(back.stores(), record.stores());
  EXPECT_EQ(back.hardware[MemoryKind::kSharedLoad].wavefronts,
            record.hardware[MemoryKind::kSharedLoad].wavefronts);
  EXPECT_EQ(back.hardware[MemoryKind::kSharedLoad].bank_conflicts,
            record.hardware[MemoryKind::kSharedLoad].bank_conflicts);
  EXPECT_EQ(back.hardware[MemoryKind::kSharedStore].wavefronts,
            record.hardware[MemoryKind::kSharedStore].wavefronts);
  EXPECT_EQ(back.notes, record.notes);
  EXPECT_EQ(back.extra_metrics, record.extra_metrics);
}

TEST(RecordJsonTest, AttributedRecordCarriesItsInstructionsInResultsOnly) {
  const LaunchRecord record = WithInstructions(MakeRecord(2048), 3);
  const json full = LaunchRecordToJson(record, RecordDetail::kFull);
  EXPECT_EQ(full["attributed_launches"], 3);
  EXPECT_EQ(full["instructions"], json::parse(R"json([
    {"pc": 544, "opcode": "LDS", "kind": "shared_ld", "file": "/src/bankcheck/kernels/transpose.cu",
     "line": 31, "executions": 64, "wavefronts": 2048, "ideal": 64, "excess": 1984},
    {"pc": 416, "opcode": "STS", "kind": "shared_st", "file": "/src/bankcheck/kernels/transpose.cu",
     "line": 40, "executions": 64, "wavefronts": 64, "ideal": 64, "excess": 0}
  ])json"));
  const LaunchRecord back = LaunchRecordFromJson(json::parse(full.dump()), "test");
  EXPECT_EQ(back.instructions, record.instructions);
  // An inlined instruction keeps its chain, innermost first.
  LaunchRecord inlined = record;
  inlined.instructions[0].inline_chain = {{"/src/cute/arch/copy_sm80.hpp", 64},
                                          {"/src/bankcheck/kernels/transpose.cu", 31}};
  const json with_chain = LaunchRecordToJson(inlined, RecordDetail::kFull);
  EXPECT_EQ(with_chain["instructions"][0]["inline_chain"][0]["line"], 64);
  EXPECT_FALSE(with_chain["instructions"][1].contains("inline_chain"));
  EXPECT_EQ(LaunchRecordFromJson(json::parse(with_chain.dump()), "test").instructions, inlined.instructions);
  EXPECT_EQ(back.attributed_launches, 3u);
  // Baselines: the instructions' offsets and lines change with every edit of a kernel.
  const json exact = LaunchRecordToJson(record, RecordDetail::kExact);
  EXPECT_FALSE(exact.contains("instructions"));
  EXPECT_FALSE(exact.contains("attributed_launches"));
  EXPECT_TRUE(LaunchRecordFromJson(exact, "test").instructions.empty());
}

TEST(RecordJsonTest, AnInlineChainIsReadBackWhole) {
  LaunchRecord record = WithInstructions(MakeRecord(2048), 1);
  // A project's helper inlined into the kernel, inlined from a library: innermost first, names as
  // they came (JSON escapes them; text output makes them plain).
  record.instructions[0].inline_chain = {{"/deps/cute/arch/copy_sm80.hpp", 64},
                                         {"/src/kernels/helper \"q\"\n.cuh", 26},
                                         {"/src/kernels/10_kernel_warptiling.cuh", 150}};
  const json written = LaunchRecordToJson(record, RecordDetail::kFull);
  EXPECT_EQ(written["instructions"][0]["inline_chain"][1],
            json::parse(R"({"file": "/src/kernels/helper \"q\"\n.cuh", "line": 26})"));
  EXPECT_EQ(LaunchRecordFromJson(json::parse(written.dump()), "test").instructions, record.instructions);
}

TEST(RecordJsonTest, AnInlineChainMustBeFramesWithinTheLimit) {
  const json written = LaunchRecordToJson(WithInstructions(MakeRecord(2048), 1), RecordDetail::kFull);
  const auto read_with_chain = [&](const json& chain) {
    json launch = written;
    launch["instructions"][0]["inline_chain"] = chain;
    return ParseError(launch);
  };
  json frames = json::array();
  for (size_t i = 0; i <= kMaxInlineFrames; ++i) frames.push_back({{"file", "/src/a.cuh"}, {"line", i + 1}});
  EXPECT_THAT(read_with_chain(frames), AllOf(HasSubstr("demo.json"), HasSubstr("inline_chain"),
                                             HasSubstr("257 frames, more than the 256")));
  frames.erase(frames.begin());  // at the limit: read
  json launch = written;
  launch["instructions"][0]["inline_chain"] = frames;
  EXPECT_EQ(LaunchRecordFromJson(launch, "r.json").instructions[0].inline_chain.size(), kMaxInlineFrames);
  EXPECT_THAT(read_with_chain(json::parse(R"([{"file": "/src/a.cuh", "line": 3, "function": "f"}])")),
              HasSubstr("function"));
  EXPECT_THAT(read_with_chain(json::parse(R"([{"file": "/src/a.cuh", "line": -3}])")), HasSubstr("line"));
  EXPECT_THAT(read_with_chain(json::parse(R"({"file": "/src/a.cuh"})")), HasSubstr("inline_chain"));
}

TEST(RecordJsonTest, InstructionsWithoutLineInfoRoundTrip) {
  LaunchRecord record = WithInstructions(MakeRecord(2048));
  record.instructions[0].file.clear();
  record.instructions[0].line = 0;
  record.instructions[1].kind = MemoryKind::kSharedLdmatrix;
  record.instructions[1].opcode = "LDSM.16.M88.4";
  const LaunchRecord back = LaunchRecordFromJson(LaunchRecordToJson(record, RecordDetail::kFull), "test");
  EXPECT_EQ(back.instructions, record.instructions);
}

TEST(RecordJsonTest, InstructionExcessMustEqualWavefrontsMinusIdeal) {
  json value = LaunchRecordToJson(WithInstructions(MakeRecord(2048)), RecordDetail::kFull);
  value["instructions"][0]["excess"] = 7;
  EXPECT_THAT(ParseError(value), AllOf(HasSubstr("launches[0].instructions[0].excess: is 7, but wavefronts - "
                                                 "ideal is 1984"),
                                       HasSubstr("Fix it")));
}

TEST(RecordJsonTest, MalformedInstructionsAreNamed) {
  const json good = LaunchRecordToJson(WithInstructions(MakeRecord(2048)), RecordDetail::kFull);
  json value = good;
  value["instructions"][1]["kind"] = "shared_xyz";
  EXPECT_THAT(ParseError(value), HasSubstr("launches[0].instructions[1].kind: names \"shared_xyz\", which is "
                                           "not a kind of memory instruction"));
  value = good;
  value["instructions"][0]["pcs"] = 1;
  EXPECT_THAT(ParseError(value), HasSubstr("unknown field launches[0].instructions[0].pcs"));
  value = good;
  value["instructions"][0]["line"] = "31";
  EXPECT_THAT(ParseError(value),
              HasSubstr("launches[0].instructions[0].line must be a non-negative integer"));
  value = good;
  value["instructions"] = json::object();
  EXPECT_THAT(ParseError(value), HasSubstr("launches[0].instructions must be an array"));
  value = good;
  value.erase("attributed_launches");
  EXPECT_THAT(ParseError(value), HasSubstr("launches[0].attributed_launches is missing"));
}

TEST(RecordJsonTest, LargestCountsRoundTripExactly) {
  LaunchRecord record = MakeRecord(64);
  record.loads().wavefronts = UINT64_MAX;
  const LaunchRecord back =
      LaunchRecordFromJson(json::parse(LaunchRecordToJson(record, RecordDetail::kExact).dump()), "test");
  EXPECT_EQ(back.loads().wavefronts, UINT64_MAX);
}

TEST(RecordJsonTest, MetricWithoutValueIsWrittenAsNullAndReadAsNaN) {
  LaunchRecord record = MakeRecord(64);
  record.extra_metrics["missing"] = std::nan("");
  const json out = json::parse(LaunchRecordToJson(record, RecordDetail::kFull).dump());
  EXPECT_TRUE(out["extra_metrics"]["missing"].is_null());
  EXPECT_TRUE(std::isnan(LaunchRecordFromJson(out, "test").extra_metrics.at("missing")));
}

TEST(RecordJsonTest, ArraysOfLaunchesNameTheElement) {
  json launches = LaunchRecordsToJson({MakeRecord(64), MakeRecord(128)}, RecordDetail::kExact);
  EXPECT_EQ(LaunchRecordsFromJson(launches, "test").size(), 2u);
  launches[1]["block"] = "32x8";
  try {
    LaunchRecordsFromJson(launches, "f.json", "", "launches");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("launches[1].block must be an array"));
  }
}

TEST(RecordJsonTest, WrongTypeNamesTheFieldAndTheValue) {
  json value = LaunchRecordToJson(MakeRecord(2048), RecordDetail::kExact);
  value["shared_ld"]["wavefronts"] = "2048";
  EXPECT_THAT(
      ParseError(value),
      AllOf(HasSubstr("demo.json: case \"demo/x\": launches[0].shared_ld.wavefronts must be a non-negative "
                      "integer, but is the string \"2048\""),
            HasSubstr("Fix it")));
}

TEST(RecordJsonTest, NegativeAndFractionalCountsAreRejected) {
  json value = LaunchRecordToJson(MakeRecord(64), RecordDetail::kExact);
  value["shared_st"]["instructions"] = -1;
  EXPECT_THAT(ParseError(value),
              HasSubstr("launches[0].shared_st.instructions must be a non-negative integer, but is -1"));
  value = LaunchRecordToJson(MakeRecord(64), RecordDetail::kExact);
  value["dynamic_shared_bytes"] = 1.5;
  EXPECT_THAT(ParseError(value),
              HasSubstr("launches[0].dynamic_shared_bytes must be a non-negative integer, but is 1.5"));
}

TEST(RecordJsonTest, MissingAndUnknownFieldsAreNamed) {
  json value = LaunchRecordToJson(MakeRecord(64), RecordDetail::kExact);
  value.erase("kernel");
  EXPECT_THAT(ParseError(value), HasSubstr("launches[0].kernel is missing"));
  value = LaunchRecordToJson(MakeRecord(64), RecordDetail::kExact);
  value["shared_ld"]["wavefront"] = 3;
  EXPECT_THAT(ParseError(value), HasSubstr("unknown field launches[0].shared_ld.wavefront"));
}

TEST(RecordJsonTest, ConflictsMustEqualWavefrontsMinusIdeal) {
  json value = LaunchRecordToJson(MakeRecord(2048), RecordDetail::kExact);
  value["shared_ld"]["conflicts"] = 7;
  EXPECT_THAT(ParseError(value),
              HasSubstr("launches[0].shared_ld.conflicts: is 7, but wavefronts - ideal is 1984"));
}

TEST(RecordJsonTest, GridMustBeThreeUnsigned32BitIntegers) {
  json value = LaunchRecordToJson(MakeRecord(64), RecordDetail::kExact);
  value["grid"] = json::array({1, 2});
  EXPECT_THAT(ParseError(value), HasSubstr("launches[0].grid must be an array of 3 integers [x, y, z]"));
  value["grid"] = json::array({1, 2, uint64_t{1} << 32});
  EXPECT_THAT(ParseError(value), HasSubstr("launches[0].grid[2] must be an integer below 2^32"));
}

TEST(RecordJsonTest, NotAnObjectIsRejected) {
  EXPECT_THAT(ParseError(json::array()), HasSubstr("launches[0] must be an object, but is an array"));
  EXPECT_THAT(ParseError(json(nullptr)), HasSubstr("launches[0] must be an object, but is null"));
}

}  // namespace
}  // namespace bankcheck
