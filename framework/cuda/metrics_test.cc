// The metric tables and name validation, against CUPTI's host library for the H100's chip
// (GH100). Needs no GPU: the host library describes every supported chip.
#include "bankcheck/cuda/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "bankcheck/core/error.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const MetricCatalog& Hopper() {
  static const MetricCatalog catalog("GH100");
  return catalog;
}

TEST(MetricsTest, SupportedChipsIncludeAmpereAndHopper) {
  EXPECT_THAT(SupportedChips(), AllOf(Contains("GA100"), Contains("GH100")));
}

TEST(MetricsTest, EveryKindMetricIsValidOnHopper) {
  for (const std::string& name : KindMetrics({MemoryKind::kSharedAtomic, MemoryKind::kSharedWgmma}))
    EXPECT_TRUE(Hopper().IsValid(name)) << name;
}

TEST(MetricsTest, AmpereLacksExactlyTheHopperOnlyKinds) {
  // stmatrix, wgmma and TMA are sm_90 instructions, distributed shared memory needs clusters
  // (sm_90): on an A100 the session leaves their metrics out and records the kinds as unsupported.
  const MetricCatalog ampere("GA100");
  std::set<MemoryKind> missing;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (!ampere.IsValid(info.instructions_metric)) missing.insert(info.kind);
  }
  EXPECT_THAT(missing,
              ElementsAre(MemoryKind::kSharedStmatrix, MemoryKind::kSharedWgmma, MemoryKind::kSharedDsmem,
                          MemoryKind::kGlobalTmaLoad, MemoryKind::kGlobalTmaStore));
  for (const std::string& name : CoreMetrics()) {
    const bool hopper_only =
        name.find("stsm") != std::string::npos || name.find("gmma") != std::string::npos ||
        name.find("dshared") != std::string::npos || name.find("tma") != std::string::npos;
    EXPECT_EQ(ampere.IsValid(name), !hopper_only) << name;
  }
}

TEST(MetricsTest, EveryKindIsCountedInThreePassesAndEachHardwareIdealAddsOne) {
  // Instrumented (sass) and hardware counters cannot share a pass (research note, section 2); all
  // the instrumented metrics fit in one, the LDS/STS hardware pairs in the other, and TMA's two
  // sector counters (hardware) in a third: without them, two passes as before.
  std::vector<std::string> without_tma;
  for (const std::string& name : CoreMetrics())
    if (name != InfoOf(MemoryKind::kGlobalTmaLoad).wavefronts_metric &&
        name != InfoOf(MemoryKind::kGlobalTmaStore).wavefronts_metric)
      without_tma.push_back(name);
  EXPECT_EQ(without_tma.size() + 2, CoreMetrics().size());
  EXPECT_EQ(Hopper().PassesFor(without_tma), 2u);
  EXPECT_EQ(Hopper().PassesFor(CoreMetrics()), 3u);
  EXPECT_EQ(Hopper().PassesFor(KindMetrics({MemoryKind::kSharedAtomic})), 4u);
  EXPECT_EQ(Hopper().PassesFor(KindMetrics({MemoryKind::kSharedAtomic, MemoryKind::kSharedWgmma})), 5u);
}

TEST(MetricsTest, RollupIsRequiredAndChecked) {
  EXPECT_FALSE(Hopper().IsValid("smsp__inst_executed"));
  EXPECT_TRUE(Hopper().IsValid("smsp__inst_executed.sum"));
  EXPECT_TRUE(Hopper().IsValid("smsp__inst_executed.avg.per_cycle_active"));
  EXPECT_FALSE(Hopper().IsValid("smsp__inst_executed.total"));
}

TEST(MetricsTest, UnknownNameListsCloseValidNames) {
  try {
    Hopper().Validate(
        {"smsp__inst_executed.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldx.sum"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnknownMetric);
    EXPECT_THAT(e.what(), AllOf(HasSubstr("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldx.sum"),
                                HasSubstr("closest valid names"),
                                HasSubstr("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
                                HasSubstr("GH100")));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("'smsp__inst_executed.sum'")));
  }
}

TEST(MetricsTest, UnknownRollupSaysWhichPartIsWrong) {
  try {
    Hopper().Validate({"smsp__inst_executed.total"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the rollup '.total' does not"));
  }
}

TEST(MetricsTest, UnknownChipIsAnUnsupportedDevice) {
  try {
    MetricCatalog catalog("GX999");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupportedDevice);
    EXPECT_THAT(e.what(), AllOf(HasSubstr("GX999"), HasSubstr("GH100")));
  }
}

TEST(ClosestNamesTest, RanksByEditDistanceThenContainment) {
  const std::vector<std::string> names = {"alpha", "alphabet", "beta", "gamma"};
  EXPECT_THAT(ClosestNames("alpah", names, 2), ElementsAre("alpha", "alphabet"));
  EXPECT_THAT(ClosestNames("gama", names, 1), ElementsAre("gamma"));
}

}  // namespace
}  // namespace bankcheck
