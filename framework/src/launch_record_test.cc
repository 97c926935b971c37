#include "bankcheck/launch_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bankcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

TEST(SharedCountsTest, ConflictsAndWaysFollowFromWavefrontsAndIdeal) {
  const SharedCounts stride2{8, 16, 8};
  EXPECT_EQ(stride2.conflicts(), 8u);
  EXPECT_DOUBLE_EQ(stride2.ways(), 2.0);
  const SharedCounts stride32{8, 256, 8};
  EXPECT_EQ(stride32.conflicts(), 248u);
  EXPECT_DOUBLE_EQ(stride32.ways(), 32.0);
}

TEST(SharedCountsTest, NoTrafficIsOneWayWithoutConflicts) {
  const SharedCounts none{};
  EXPECT_EQ(none.conflicts(), 0u);
  EXPECT_DOUBLE_EQ(none.ways(), 1.0);
}

TEST(DeriveSharedCountsTest, IdealIsHardwareWavefrontsMinusHardwareConflicts) {
  // Unpadded 4096x4096 transpose loads as measured on the H100: the hardware counters read high,
  // their difference is exact, and the instrumented wavefronts are exact.
  const SharedCounts c = DeriveSharedCounts(524288, 16777216, 16905908, 16381620);
  EXPECT_EQ(c.instructions, 524288u);
  EXPECT_EQ(c.wavefronts, 16777216u);
  EXPECT_EQ(c.ideal_wavefronts, 524288u);
  EXPECT_EQ(c.conflicts(), 16252928u);
  EXPECT_DOUBLE_EQ(c.ways(), 32.0);
}

TEST(DeriveSharedCountsTest, RoundsCounterValuesAndClampsNegatives) {
  const SharedCounts c = DeriveSharedCounts(7.9999999, 16.0000001, 3.0, 5.0);
  EXPECT_EQ(c.instructions, 8u);
  EXPECT_EQ(c.wavefronts, 16u);
  EXPECT_EQ(c.ideal_wavefronts, 0u);
}

LaunchRecord ExactRecord() {
  LaunchRecord r;
  r.kernel = "stride2(float*)";
  r.loads = {8, 16, 8};
  r.stores = {8, 16, 8};
  r.hardware_loads = {16, 8};
  r.hardware_stores = {16, 8};
  return r;
}

TEST(LaunchRecordTest, HardwareDiffersOnlyWhenAReadingDiffers) {
  LaunchRecord r = ExactRecord();
  EXPECT_FALSE(r.hardware_differs());
  r.hardware_stores.bank_conflicts = 9;
  EXPECT_TRUE(r.hardware_differs());
}

TEST(LaunchRecordTest, ConsistencyNotesFlagIdealNotEqualToInstructions) {
  LaunchRecord r = ExactRecord();
  AddConsistencyNotes(r);
  EXPECT_THAT(r.notes, IsEmpty());

  r.loads = {128, 4096, 512};  // LDS.128: 4 ideal wavefronts per instruction
  r.hardware_loads = {4096, 3584};
  AddConsistencyNotes(r);
  ASSERT_THAT(r.notes, SizeIs(1));
  EXPECT_THAT(r.notes[0], HasSubstr("ideal wavefronts (512) differ from instructions (128)"));
}

TEST(LaunchRecordTest, ConsistencyNotesFlagNoisyHardwareReadings) {
  LaunchRecord r = ExactRecord();
  r.hardware_loads = {18, 10};
  AddConsistencyNotes(r);
  ASSERT_THAT(r.notes, SizeIs(1));
  EXPECT_THAT(r.notes[0], HasSubstr("hardware counters differ"));
}

TEST(LaunchRecordTest, SummaryShowsKernelShapeAndCounts) {
  LaunchRecord r = ExactRecord();
  r.grid = {4, 1, 1};
  r.block = {256, 1, 1};
  EXPECT_EQ(Summary(r),
            "stride2(float*) <<<4x1x1, 256x1x1>>> ld 8 inst / 16 wf (8 conflicts, 2-way) | "
            "st 8 inst / 16 wf (8 conflicts, 2-way)");
}

}  // namespace
}  // namespace bankcheck
