// The GPU test programs' set-up (testing.h): the no-GPU message, and the GPU that CTest's resource
// allocation names.
#include "bankcheck/testing/testing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/gpu_probe.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(NoGpuMessageTest, SaysSkippedOrRequired) {
  GpuProbe probe;
  probe.reason = "no NVIDIA driver is loaded on this machine";
  unsetenv("BANKCHECK_REQUIRE_GPU");
  EXPECT_THAT(gtest::NoGpuMessage(probe), HasSubstr("GPU test skipped, no usable GPU: no NVIDIA driver"));
  setenv("BANKCHECK_REQUIRE_GPU", "1", 1);
  EXPECT_TRUE(gtest::GpuRequired());
  EXPECT_THAT(gtest::NoGpuMessage(probe),
              HasSubstr("BANKCHECK_REQUIRE_GPU=1 is set but there is no usable GPU"));
  setenv("BANKCHECK_REQUIRE_GPU", "0", 1);
  EXPECT_FALSE(gtest::GpuRequired());
  unsetenv("BANKCHECK_REQUIRE_GPU");
}

TEST(CtestGpuAllocationTest, PinsTheAllocatedGpu) {
  EXPECT_EQ(gtest::VisibleDevicesForCtestAllocation(nullptr, nullptr), "");
  EXPECT_EQ(gtest::VisibleDevicesForCtestAllocation("id:1,slots:1", nullptr), "1");
  EXPECT_EQ(gtest::VisibleDevicesForCtestAllocation("id:0,slots:1", ""), "0");
  // Ids index the devices the runner was already limited to.
  EXPECT_EQ(gtest::VisibleDevicesForCtestAllocation("id:1,slots:1", "4,6"), "6");
  EXPECT_EQ(gtest::VisibleDevicesForCtestAllocation("id:0,slots:1", "GPU-abc,GPU-def"), "GPU-abc");
  EXPECT_EQ(gtest::VisibleDevicesForCtestAllocation("slots:1,id:1", "4,6"), "6");
  EXPECT_EQ(gtest::VisibleDevicesForCtestAllocation("id:1,slots:1;id:0,slots:1", "4,6"), "6");
}

TEST(CtestGpuAllocationTest, RefusesAMalformedIdOrOneOutsideTheVisibleGpus) {
  const auto error_of = [](const char* ctest_gpus, const char* visible) {
    try {
      gtest::VisibleDevicesForCtestAllocation(ctest_gpus, visible);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      return std::string(e.what());
    }
    ADD_FAILURE() << ctest_gpus << " was accepted";
    return std::string();
  };
  for (const char* malformed :
       {"id:x", "id:", "slots:1", "", "id:-1,slots:1", "id:99999999999999999999", "xid:1"}) {
    EXPECT_THAT(error_of(malformed, "2,3"),
                AllOf(HasSubstr("CTEST_RESOURCE_GROUP_0_GPUS='" + std::string(malformed) + "'"),
                      HasSubstr("no GPU index"), HasSubstr("resource-spec-file")));
  }
  // id 5 of a runner given GPUs 2 and 3 would run on a GPU it was not given.
  EXPECT_THAT(error_of("id:5,slots:1", "2,3"),
              AllOf(HasSubstr("names GPU 5"), HasSubstr("CUDA_VISIBLE_DEVICES='2,3' allows 2")));
  EXPECT_THAT(error_of("id:2,slots:1", "2,3"), HasSubstr("allows 2"));
}

TEST(CtestGpuAllocationTest, SelectingARefusedAllocationFailsWithoutChangingTheDevices) {
  ::setenv("CTEST_RESOURCE_GROUP_0_GPUS", "id:5,slots:1", 1);
  ::setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(gtest::SelectGpuFromCtestAllocation());
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("bankcheck: error: CTEST_RESOURCE_GROUP_0_GPUS"));
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "2,3");
  ::setenv("CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:1", 1);
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(gtest::SelectGpuFromCtestAllocation());
  ::testing::internal::GetCapturedStderr();
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "3");
  ::unsetenv("CTEST_RESOURCE_GROUP_0_GPUS");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
}

}  // namespace
}  // namespace bankcheck
