#include "bankcheck/cuda/gpu_probe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "bankcheck/core/error.h"

namespace bankcheck {
namespace {

using ::testing::HasSubstr;

TEST(GpuProbeTest, ReadsTheDriversProfilingRestriction) {
  EXPECT_TRUE(ProfilingRestrictedToAdmins("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n"));
  EXPECT_FALSE(ProfilingRestrictedToAdmins("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 0\n"));
  EXPECT_FALSE(ProfilingRestrictedToAdmins(""));  // no driver: nothing restricts
}

TEST(GpuProbeTest, FindsProfilingCapabilities) {
  EXPECT_TRUE(HasProfilingCapability("Name:\tx\nCapEff:\t000001ffffffffff\n"));  // root
  EXPECT_TRUE(HasProfilingCapability("CapEff:\t0000000000200000\n"));            // CAP_SYS_ADMIN only
  EXPECT_TRUE(HasProfilingCapability("CapEff:\t0000004000000000\n"));            // CAP_PERFMON only
  EXPECT_FALSE(HasProfilingCapability("CapEff:\t0000000000000000\n"));
  EXPECT_FALSE(HasProfilingCapability("CapInh:\t0000000000200000\n"));  // not effective
}

TEST(GpuProbeTest, PermissionAdviceNamesTheFixes) {
  const std::string advice = CounterPermissionAdvice();
  EXPECT_THAT(advice, HasSubstr("NVreg_RestrictProfilingToAdminUsers=0"));
  EXPECT_THAT(advice, HasSubstr("CAP_PERFMON"));
  EXPECT_THAT(advice, HasSubstr("CAP_SYS_ADMIN"));
  EXPECT_THAT(advice, HasSubstr("root"));
}

TEST(GpuProbeTest, ProbeIsConsistentOnThisMachine) {
  const GpuProbe& probe = ProbeGpu();
  if (probe.usable()) {
    EXPECT_TRUE(probe.reason.empty());
    EXPECT_FALSE(probe.device_name.empty());
    EXPECT_GE(probe.compute_major, 7);
    EXPECT_EQ(probe.arch(), "sm_" + std::to_string(probe.compute_major * 10 + probe.compute_minor));
  } else {
    EXPECT_FALSE(probe.reason.empty()) << "an unusable GPU must come with a reason";
  }
  EXPECT_EQ(&probe, &ProbeGpu()) << "the probe is cached";
}

}  // namespace
}  // namespace bankcheck
