// Launches with thread-block clusters: undecided until distributed shared memory is emulated (the
// stand-in runtime gives the cluster dimensions in LaunchToEmulate::cluster).

#include <gmock/gmock.h>

#include "bankcheck/emulator.h"

namespace bankcheck::emulate {
namespace {

constexpr char kListing[] = R"(.text._Z4testPi:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   S2UR UR4, SR_CgaCtaId ;
        /*0020*/                   UMOV UR5, 0x400 ;
        /*0030*/                   ULEA UR4, UR4, UR5, 0x18 ;
        /*0040*/                   IMAD.SHL.U32 R2, R0, 0x4, RZ ;
        /*0050*/                   STS [R2+UR4], RZ ;
        /*0060*/                   EXIT ;
)";

LaunchToEmulate Launch(Dim3 cluster) {
  LaunchToEmulate launch;
  launch.mangled = "_Z4testPi";
  launch.grid = Dim3{4, 1, 1};
  launch.block = Dim3{32, 1, 1};
  launch.cluster = cluster;
  return launch;
}

TEST(EmulateClusterTest, WithoutClustersTheBlockIsRankZeroAndDecided) {
  const Module module = Module::FromListings(kListing, "");
  const Emulation emulation = Emulate(module, Launch(Dim3{}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->stores().instructions, 4u);
}

TEST(EmulateClusterTest, AClusterLaunchIsUndecidedWithTheReason) {
  const Module module = Module::FromListings(kListing, "");
  const Emulation emulation = Emulate(module, Launch(Dim3{2, 1, 1}));
  ASSERT_FALSE(emulation.record);
  ASSERT_TRUE(emulation.undecided);
  EXPECT_THAT(emulation.undecided->reason, ::testing::HasSubstr("thread-block clusters (cluster 2x1x1)"));
  EXPECT_THAT(emulation.undecided->reason, ::testing::HasSubstr("distributed shared memory"));
}

}  // namespace
}  // namespace bankcheck::emulate
