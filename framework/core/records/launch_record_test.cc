#include "bankcheck/core/launch_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::ThrowsMessage;

TEST(KindCountsTest, ConflictsAndWaysFollowFromWavefrontsAndIdeal) {
  const KindCounts stride2{8, 16, 8};
  EXPECT_EQ(stride2.conflicts(), 8u);
  EXPECT_DOUBLE_EQ(stride2.ways(), 2.0);
  const KindCounts stride32{8, 256, 8};
  EXPECT_EQ(stride32.conflicts(), 248u);
  EXPECT_DOUBLE_EQ(stride32.ways(), 32.0);
}

TEST(KindCountsTest, NoTrafficIsOneWayWithoutConflicts) {
  const KindCounts none{};
  EXPECT_EQ(none.conflicts(), 0u);
  EXPECT_DOUBLE_EQ(none.ways(), 1.0);
}

TEST(KindCountsTest, AddingSumsTheCountsAndKeepsTheLessCertainIdeal) {
  KindCounts sum{8, 16, 8};
  sum += KindCounts{8, 256, 8};
  EXPECT_EQ(sum, (KindCounts{16, 272, 16}));
  sum += KindCounts{1, 2, 1, Provenance::kHardware};
  EXPECT_EQ(sum, (KindCounts{17, 274, 17, Provenance::kHardware}));
  sum += KindCounts{0, 0, 0, Provenance::kNotMeasured};
  EXPECT_FALSE(sum.ideal_known());
  sum += KindCounts{1, 1, 1};
  EXPECT_EQ(sum.ideal_provenance, Provenance::kNotMeasured) << "an exact part cannot make it known again";
}

// Counts near 2^64 (a crafted results or baseline file) give an error naming the count, not a sum
// wrapped to a small one.
TEST(KindCountsTest, ASumThatWouldWrapIsAnErrorAndChangesNothing) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  KindCounts sum{1, 2, 1};
  for (const KindCounts& huge : {KindCounts{kMax, 0, 0}, KindCounts{0, kMax, 0}, KindCounts{0, 0, kMax}}) {
    try {
      sum += huge;
      ADD_FAILURE() << "the sum wrapped";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      EXPECT_THAT(e.what(), AllOf(HasSubstr("does not fit in 64 bits"), HasSubstr(std::to_string(kMax))));
    }
    EXPECT_EQ(sum, (KindCounts{1, 2, 1}));
  }
  const auto wrap_wavefronts = [] { KindCounts{0, kMax, 0} += KindCounts{0, 1, 0}; };
  EXPECT_THAT(wrap_wavefronts, ThrowsMessage<Error>(HasSubstr("wavefront counts")));
  sum += KindCounts{kMax - 1, kMax - 2, kMax - 1};  // the largest sums still fit
  EXPECT_EQ(sum, (KindCounts{kMax, kMax, kMax}));
}

TEST(KindCountsTest, SumCountsOfLaunchesThatWouldWrapIsAnError) {
  std::vector<LaunchRecord> launches(2);
  launches[0].loads() = {1, std::numeric_limits<uint64_t>::max(), 1};
  launches[1].loads() = {1, 1, 1};
  EXPECT_THROW(SumCounts(launches, MemoryKind::kSharedLoad), Error);
  EXPECT_EQ(SumCounts(launches, MemoryKind::kSharedStore), KindCounts{});
}

// Metric values as CUPTI would give them: every metric of the table, zero unless set.
MetricValues AllMetricsZero() {
  MetricValues values;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    for (const char* name : {info.instructions_metric, info.wavefronts_metric, info.conflicts_metric,
                             info.hardware_wavefronts_metric, info.hardware_conflicts_metric})
      if (name != nullptr) values[name] = 0.0;
  }
  return values;
}

void Set(MetricValues& values, MemoryKind kind, double instructions, double wavefronts) {
  values[InfoOf(kind).instructions_metric] = instructions;
  values[InfoOf(kind).wavefronts_metric] = wavefronts;
}
void SetHardware(MetricValues& values, MemoryKind kind, double wavefronts, double conflicts) {
  values[InfoOf(kind).hardware_wavefronts_metric] = wavefronts;
  values[InfoOf(kind).hardware_conflicts_metric] = conflicts;
}

TEST(SetKindCountsTest, LoadIdealIsHardwareWavefrontsMinusHardwareConflicts) {
  // Unpadded 4096x4096 transpose loads as measured on the H100: the hardware counters read high,
  // their difference is exact, and the instrumented wavefronts are exact.
  MetricValues values = AllMetricsZero();
  Set(values, MemoryKind::kSharedLoad, 524288, 16777216);
  SetHardware(values, MemoryKind::kSharedLoad, 16905908, 16381620);
  LaunchRecord r;
  SetKindCounts(values, r);
  EXPECT_EQ(r.loads().instructions, 524288u);
  EXPECT_EQ(r.loads().wavefronts, 16777216u);
  EXPECT_EQ(r.loads().ideal_wavefronts, 524288u);
  EXPECT_EQ(r.loads().ideal_provenance, Provenance::kExact);
  EXPECT_EQ(r.loads().conflicts(), 16252928u);
  EXPECT_DOUBLE_EQ(r.loads().ways(), 32.0);
  EXPECT_EQ(r.hardware[MemoryKind::kSharedLoad].wavefronts, 16905908u);
}

TEST(SetKindCountsTest, RoundsCounterValuesAndClampsNegatives) {
  MetricValues values = AllMetricsZero();
  Set(values, MemoryKind::kSharedLoad, 7.9999999, 16.0000001);
  SetHardware(values, MemoryKind::kSharedLoad, 3.0, 5.0);
  LaunchRecord r;
  SetKindCounts(values, r);
  EXPECT_EQ(r.loads().instructions, 8u);
  EXPECT_EQ(r.loads().wavefronts, 16u);
  EXPECT_EQ(r.loads().ideal_wavefronts, 0u);
}

TEST(SetKindCountsTest, LdmatrixTrafficInTheLoadHardwarePairStaysOutOfTheLoadIdeal) {
  // 8 LDS at stride 2 (16 wavefronts, ideal 8) and one ldmatrix .x4 with rows 128 B apart (32
  // wavefronts, 28 conflicts, ideal 4): the LDS hardware pair counts both.
  MetricValues values = AllMetricsZero();
  Set(values, MemoryKind::kSharedLoad, 8, 16);
  Set(values, MemoryKind::kSharedLdmatrix, 1, 32);
  values[InfoOf(MemoryKind::kSharedLdmatrix).conflicts_metric] = 28;
  SetHardware(values, MemoryKind::kSharedLoad, 16 + 32, 8 + 28);
  LaunchRecord r;
  SetKindCounts(values, r);
  EXPECT_EQ(r.loads().ideal_wavefronts, 8u);
  EXPECT_EQ(r.loads().conflicts(), 8u);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedLdmatrix].instructions, 1u);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedLdmatrix].ideal_wavefronts, 4u);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedLdmatrix].conflicts(), 28u);
  EXPECT_FALSE(r.hardware_differs());
}

TEST(SetKindCountsTest, AtomicIdealIsNotMeasuredUnlessItsHardwarePairIsRead) {
  MetricValues values = AllMetricsZero();
  Set(values, MemoryKind::kSharedAtomic, 64, 128);
  values.erase(InfoOf(MemoryKind::kSharedAtomic).hardware_wavefronts_metric);
  values.erase(InfoOf(MemoryKind::kSharedAtomic).hardware_conflicts_metric);
  LaunchRecord r;
  SetKindCounts(values, r);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedAtomic].wavefronts, 128u);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedAtomic].ideal_provenance, Provenance::kNotMeasured);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedAtomic].conflicts(), 0u);
  EXPECT_DOUBLE_EQ(r.kinds[MemoryKind::kSharedAtomic].ways(), 1.0);

  SetHardware(values, MemoryKind::kSharedAtomic, 130, 66);
  SetKindCounts(values, r);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedAtomic].ideal_provenance, Provenance::kHardware);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedAtomic].ideal_wavefronts, 64u);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedAtomic].conflicts(), 64u);
}

TEST(SetKindCountsTest, KindsWhoseMetricsTheChipLacksAreUnsupportedNotZero) {
  MetricValues values = AllMetricsZero();
  values.erase(InfoOf(MemoryKind::kSharedStmatrix).instructions_metric);
  values.erase(InfoOf(MemoryKind::kSharedStmatrix).wavefronts_metric);
  values.erase(InfoOf(MemoryKind::kSharedStmatrix).conflicts_metric);
  LaunchRecord r;
  SetKindCounts(values, r);
  EXPECT_TRUE(r.unsupported[MemoryKind::kSharedStmatrix]);
  EXPECT_FALSE(r.unsupported[MemoryKind::kSharedLdmatrix]);
  EXPECT_THAT(ShownKinds(r), ::testing::Contains(MemoryKind::kSharedStmatrix));
  EXPECT_THAT(Summary(r), HasSubstr("stsm not measurable on this device"));
}

TEST(SetKindCountsTest, DistributedSharedMemoryHasInstructionsOnly) {
  MetricValues values = AllMetricsZero();
  values[InfoOf(MemoryKind::kSharedDsmem).instructions_metric] = 16;
  LaunchRecord r;
  SetKindCounts(values, r);
  EXPECT_EQ(r.kinds[MemoryKind::kSharedDsmem].instructions, 16u);
  EXPECT_FALSE(r.kinds[MemoryKind::kSharedDsmem].ideal_known());
  EXPECT_EQ(Describe(MemoryKind::kSharedDsmem, r.kinds[MemoryKind::kSharedDsmem]),
            "dsmem: 16 instructions (wavefronts not measurable)");
}

TEST(SetKindCountsTest, CpAsyncGlobalReadsAreCountedByTheRangeProfilerWithoutAnIdeal) {
  // The range profiler reads ncu's launch metric of LDGSTS's global sectors (H100: equal to the
  // SASS per-instruction sum); no launch counter gives their ideal.
  MetricValues values = AllMetricsZero();
  Set(values, MemoryKind::kSharedCpAsync, 4, 16);
  values["smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum"] = 64;
  LaunchRecord r;
  SetKindCounts(values, r);
  EXPECT_FALSE(r.not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_EQ(r.kinds[MemoryKind::kGlobalCpAsync].instructions, 4u);
  EXPECT_EQ(r.kinds[MemoryKind::kGlobalCpAsync].wavefronts, 64u);
  EXPECT_FALSE(r.kinds[MemoryKind::kGlobalCpAsync].ideal_known());
  EXPECT_FALSE(r.not_counted[MemoryKind::kSharedCpAsync]);
  EXPECT_TRUE(IsShown(r, MemoryKind::kGlobalCpAsync));
}

TEST(MemoryKindTest, CpAsyncGlobalReadsAreAGlobalKindCountedByTheLdgstsCounterAndLdgSectors) {
  const MemoryKindInfo& info = InfoOf(MemoryKind::kGlobalCpAsync);
  EXPECT_STREQ(info.key, "global_ldgsts");
  EXPECT_EQ(MemoryKindFromKey("global_ldgsts"), MemoryKind::kGlobalCpAsync);
  EXPECT_EQ(MemoryKindFromOp("ldgsts_g"), MemoryKind::kGlobalCpAsync);
  EXPECT_EQ(info.space, MemorySpace::kGlobal);
  EXPECT_STREQ(TrafficUnit(MemoryKind::kGlobalCpAsync), "sectors");
  // The same instruction counter as shared_ldgsts: one LDGSTS is both kinds.
  EXPECT_STREQ(info.instructions_metric, InfoOf(MemoryKind::kSharedCpAsync).instructions_metric);
  // Its sectors and ideal: the per-instruction global counters LDG's are read from.
  EXPECT_STREQ(info.sass_traffic_metric, InfoOf(MemoryKind::kGlobalLoad).sass_traffic_metric);
  EXPECT_STREQ(info.sass_ideal_metric, InfoOf(MemoryKind::kGlobalLoad).sass_ideal_metric);
  EXPECT_EQ(info.ideal, IdealSource::kSassOnly);
  EXPECT_TRUE(TrafficMeasured(info, /*sass=*/true));
  EXPECT_TRUE(RangeProfilerCounts(info));
  // ncu's launch metric of its sectors (H100), which the range profiler reads too.
  EXPECT_STREQ(info.wavefronts_metric, "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum");
  EXPECT_STREQ(NcuTrafficMetric(info), "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum");
  EXPECT_STREQ(NcuTrafficMetric(InfoOf(MemoryKind::kGlobalLoad)),
               InfoOf(MemoryKind::kGlobalLoad).wavefronts_metric);
  EXPECT_EQ(NcuTrafficMetric(InfoOf(MemoryKind::kSharedDsmem)), nullptr);
  EXPECT_TRUE(info.emulated);
  EXPECT_EQ(info.first_baseline_version, 4);
  // Every kind is counted by the range profiler.
  for (const MemoryKindInfo& other : MemoryKinds()) {
    EXPECT_TRUE(RangeProfilerCounts(other)) << other.key;
    EXPECT_EQ(other.ncu_only_traffic_metric, nullptr) << other.key;
  }
  EXPECT_FALSE(TrafficMeasured(InfoOf(MemoryKind::kSharedDsmem), /*sass=*/true));
}

TEST(MemoryKindTest, TmaGlobalTrafficIsCountedByTheRangeProfilerAlone) {
  // TMA and bulk copies' global sectors have launch counters only (H100: no SASS per-instruction
  // counter sees a UTMALDG), so a SASS-metrics session does not count the kinds at all.
  const MemoryKindInfo& load = InfoOf(MemoryKind::kGlobalTmaLoad);
  const MemoryKindInfo& store = InfoOf(MemoryKind::kGlobalTmaStore);
  EXPECT_STREQ(load.key, "global_tma_ld");
  EXPECT_STREQ(store.key, "global_tma_st");
  EXPECT_STREQ(load.wavefronts_metric, "l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum");
  EXPECT_STREQ(store.wavefronts_metric, "l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum");
  EXPECT_STREQ(load.instructions_metric, "smsp__sass_inst_executed_op_tma_ld.sum");
  EXPECT_STREQ(store.instructions_metric, "smsp__sass_inst_executed_op_tma_st.sum");
  for (const MemoryKindInfo* info : {&load, &store}) {
    EXPECT_EQ(info->space, MemorySpace::kGlobal);
    EXPECT_STREQ(TrafficUnit(info->kind), "sectors");
    EXPECT_TRUE(TrafficMeasured(*info, /*sass=*/false));
    EXPECT_FALSE(TrafficMeasured(*info, /*sass=*/true));
    EXPECT_TRUE(RangeProfilerCounts(*info));
    EXPECT_FALSE(SassMetricsCount(*info));
    EXPECT_EQ(info->ideal, IdealSource::kNone);
    EXPECT_EQ(info->first_baseline_version, kBaselineVersion);
    EXPECT_STREQ(NcuTrafficMetric(*info), info->wavefronts_metric);
  }
  for (const MemoryKindInfo& other : MemoryKinds()) {
    if (other.kind != MemoryKind::kGlobalTmaLoad && other.kind != MemoryKind::kGlobalTmaStore) {
      EXPECT_TRUE(SassMetricsCount(other)) << other.key;
    }
  }
}

TEST(SetKindCountsTest, TmaSectorsComeFromTheLaunchCountersWithoutAnIdeal) {
  MetricValues values = AllMetricsZero();
  values["smsp__sass_inst_executed_op_tma_ld.sum"] = 2;
  values["l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld.sum"] = 512;
  values["smsp__sass_inst_executed_op_tma_st.sum"] = 1;
  values["l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st.sum"] = 32;
  LaunchRecord r;
  SetKindCounts(values, r);
  EXPECT_FALSE(r.not_counted[MemoryKind::kGlobalTmaLoad]);
  EXPECT_EQ(r.kinds[MemoryKind::kGlobalTmaLoad].instructions, 2u);
  EXPECT_EQ(r.kinds[MemoryKind::kGlobalTmaLoad].wavefronts, 512u);
  EXPECT_EQ(r.kinds[MemoryKind::kGlobalTmaStore].wavefronts, 32u);
  EXPECT_FALSE(r.kinds[MemoryKind::kGlobalTmaLoad].ideal_known());
  EXPECT_EQ(Describe(MemoryKind::kGlobalTmaLoad, r.kinds[MemoryKind::kGlobalTmaLoad]),
            "tma_ld: 2 instructions, 512 sectors, ideal not measured");
}

TEST(SetEmulatedCountsTest, TmaSumsAreLaunchTotalsAsARangeProfilerSessionCountsThem) {
  // The emulator's sums by kind: a UTMALDG's sectors beside an LDS's wavefronts.
  PerKind<KindCounts> sums;
  sums[MemoryKind::kSharedLoad] = {4, 16, 8};
  sums[MemoryKind::kGlobalTmaLoad] = {2, 256, 0};
  LaunchRecord r;
  SetEmulatedCounts(sums, r);
  EXPECT_EQ(r.counted_by, CountedBy::kEmulated);
  EXPECT_EQ(r.loads(), (KindCounts{4, 16, 8, Provenance::kExact}));
  // SetSassCounts alone would keep the instructions and drop the sectors (no SASS counter sees them).
  EXPECT_EQ(r.kinds[MemoryKind::kGlobalTmaLoad], (KindCounts{2, 256, 0, Provenance::kNotMeasured}));
  EXPECT_EQ(r.kinds[MemoryKind::kGlobalTmaStore], (KindCounts{0, 0, 0, Provenance::kNotMeasured}));
  for (const MemoryKindInfo& info : MemoryKinds())
    EXPECT_EQ(r.not_counted[info.kind], !info.emulated) << info.key;
  EXPECT_TRUE(InfoOf(MemoryKind::kGlobalTmaLoad).emulated);
  EXPECT_TRUE(InfoOf(MemoryKind::kGlobalTmaStore).emulated);
}

// A range-profiler record, with hardware readings equal to the exact counts.
LaunchRecord ExactRecord() {
  LaunchRecord r;
  r.kernel = "stride2(float*)";
  r.counted_by = CountedBy::kRangeProfiler;
  r.loads() = {8, 16, 8};
  r.stores() = {8, 16, 8};
  r.hardware[MemoryKind::kSharedLoad] = {16, 8};
  r.hardware[MemoryKind::kSharedStore] = {16, 8};
  return r;
}

TEST(LaunchRecordTest, HardwareDiffersOnlyWhenAReadingDiffers) {
  LaunchRecord r = ExactRecord();
  EXPECT_FALSE(r.hardware_differs());
  r.hardware[MemoryKind::kSharedStore].bank_conflicts = 9;
  EXPECT_TRUE(r.hardware_differs());
  // Counted through SASS metrics, a record has no hardware readings to differ.
  r.counted_by = CountedBy::kSassMetrics;
  EXPECT_FALSE(r.hardware_differs());
}

TEST(LaunchRecordTest, SassSumsGiveExactIdealsWhereCheckedAgainstNcu) {
  PerKind<KindCounts> sums;
  sums[MemoryKind::kSharedLoad] = {128, 4096, 512};
  sums[MemoryKind::kSharedCpAsync] = {4, 128, 16};
  sums[MemoryKind::kSharedAtomic] = {256, 806, 256};
  sums[MemoryKind::kSharedDsmem] = {16, 0, 0};
  PerKind<bool> unsupported;
  unsupported[MemoryKind::kSharedWgmma] = true;
  LaunchRecord r;
  SetSassCounts(sums, unsupported, r);
  EXPECT_EQ(r.counted_by, CountedBy::kSassMetrics);
  EXPECT_EQ(r.loads(), (KindCounts{128, 4096, 512, Provenance::kExact}));
  EXPECT_EQ(r.stores(), (KindCounts{0, 0, 0, Provenance::kExact}));
  EXPECT_EQ(r.kinds[MemoryKind::kSharedCpAsync], (KindCounts{4, 128, 16, Provenance::kExact}));
  // Atomics: the SASS ideal was checked against ncu's Source page (memory_kind.cc), so it is exact.
  EXPECT_EQ(r.kinds[MemoryKind::kSharedAtomic], (KindCounts{256, 806, 256, Provenance::kExact}));
  EXPECT_EQ(r.kinds[MemoryKind::kSharedDsmem], (KindCounts{16, 0, 0, Provenance::kNotMeasured}));
  EXPECT_TRUE(r.unsupported[MemoryKind::kSharedWgmma]);
  // cp.async's global reads: their SASS sectors; their SASS ideal is not yet checked against ncu's
  // Source page (memory_kind.cc), so not measured.
  PerKind<KindCounts> with_global = sums;
  with_global[MemoryKind::kGlobalCpAsync] = {4, 72, 64};
  SetSassCounts(with_global, unsupported, r);
  EXPECT_EQ(r.kinds[MemoryKind::kGlobalCpAsync], (KindCounts{4, 72, 0, Provenance::kNotMeasured}));
  EXPECT_EQ(Describe(MemoryKind::kGlobalCpAsync, r.kinds[MemoryKind::kGlobalCpAsync]),
            "ldgsts_g: 4 instructions, 72 sectors, ideal not measured");
  EXPECT_FALSE(r.unsupported[MemoryKind::kSharedLoad]);
}

TEST(LaunchRecordTest, CountedByHasOneNameEach) {
  for (const CountedBy counted_by : {CountedBy::kSassMetrics, CountedBy::kRangeProfiler})
    EXPECT_EQ(CountedByFromName(CountedByName(counted_by)), counted_by);
  EXPECT_EQ(CountedByFromName("ncu"), std::nullopt);
}

TEST(LaunchRecordTest, ConsistencyNotesFlagOnlyAnIdealNoAccessWidthGives) {
  LaunchRecord r = ExactRecord();
  AddConsistencyNotes(r);
  EXPECT_THAT(r.notes, IsEmpty());

  // LDS.128 (4 ideal wavefronts per instruction) and a mix of widths: nothing to say.
  r.loads() = {128, 4096, 512};
  r.hardware[MemoryKind::kSharedLoad] = {4096, 3584};
  AddConsistencyNotes(r);
  EXPECT_THAT(r.notes, IsEmpty());
  r.loads() = {128, 4096, 300};
  r.hardware[MemoryKind::kSharedLoad] = {4096, 3796};
  AddConsistencyNotes(r);
  EXPECT_THAT(r.notes, IsEmpty());

  // Fewer than 1 per instruction: warps with every lane predicated off. Nothing to say either.
  r.loads() = {128, 100, 100};
  r.hardware[MemoryKind::kSharedLoad] = {100, 0};
  AddConsistencyNotes(r);
  EXPECT_THAT(r.notes, IsEmpty());

  // More than 4 per instruction: no width gives that.
  r.loads() = {128, 4096, 513};
  r.hardware[MemoryKind::kSharedLoad] = {4096, 3583};
  AddConsistencyNotes(r);
  ASSERT_THAT(r.notes, SizeIs(1));
  EXPECT_THAT(r.notes[0], HasSubstr("ideal wavefronts (513) above 4 per instruction (128 instructions)"));
}

TEST(LaunchRecordTest, ConsistencyNotesFlagNoisyHardwareReadings) {
  LaunchRecord r = ExactRecord();
  r.hardware[MemoryKind::kSharedLoad] = {18, 10};
  AddConsistencyNotes(r);
  ASSERT_THAT(r.notes, SizeIs(1));
  EXPECT_THAT(r.notes[0], HasSubstr("hardware counters differ"));
}

TEST(LaunchRecordTest, SummaryShowsKernelShapeAndCounts) {
  LaunchRecord r = ExactRecord();
  r.grid = {4, 1, 1};
  r.block = {256, 1, 1};
  EXPECT_EQ(Summary(r),
            "stride2(float*) <<<4x1x1, 256x1x1>>> ld: 8 instructions, 16 wavefronts, 8 ideal, 8 conflicts "
            "(2-way) | st: 8 instructions, 16 wavefronts, 8 ideal, 8 conflicts (2-way)");
}

TEST(GraphLaunchRecordsTest, ByNodeOnlyWhenEveryNodeRunsAKernelNoOtherNodeRuns) {
  EXPECT_TRUE(RecordsGraphByNode({"_Z1av", "_Z1bv"}));
  EXPECT_FALSE(RecordsGraphByNode({"_Z1av", "_Z1bv", "_Z1av"}));
  EXPECT_FALSE(RecordsGraphByNode({}));
  EXPECT_EQ(GraphLaunchName({"a()", "a()"}), "CUDA graph [a(), a()]");
}

}  // namespace
}  // namespace bankcheck
