// The CUPTI error mapping, tested by injecting the codes CUPTI returns in each failure mode.
#include "cuda/internal/cupti_errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bankcheck::internal {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(CuptiErrorsTest, InsufficientPrivilegesNamesTheDriverOptionAndCapabilities) {
  const Error e = CuptiFailure(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerEnable(&enable)");
  EXPECT_EQ(e.kind(), ErrorKind::kCountersNotPermitted);
  EXPECT_THAT(e.what(),
              AllOf(HasSubstr("cuptiRangeProfilerEnable"), HasSubstr("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
                    HasSubstr("NVreg_RestrictProfilingToAdminUsers=0"), HasSubstr("CAP_PERFMON")));
}

TEST(CuptiErrorsTest, AnotherProfilerAttachedSaysToRunWithoutIt) {
  // What cuptiProfilerInitialize returns under `ncu` (measured on the H100: 39).
  const Error e =
      CuptiFailure(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "cuptiProfilerInitialize(&init)");
  EXPECT_EQ(e.kind(), ErrorKind::kProfilerBusy);
  EXPECT_THAT(e.what(), AllOf(HasSubstr("(39)"), HasSubstr("ncu"), HasSubstr("Run the tests without it")));
}

TEST(CuptiErrorsTest, UnsupportedDevicesAreNamedSo) {
  for (CUptiResult code :
       {CUPTI_ERROR_NOT_SUPPORTED, CUPTI_ERROR_NOT_COMPATIBLE, CUPTI_ERROR_INVALID_CHIP_NAME,
        CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED, CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED}) {
    EXPECT_EQ(CuptiErrorKind(code), ErrorKind::kUnsupportedDevice) << code;
  }
  EXPECT_THAT(CuptiFailure(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "x").what(), HasSubstr("MIG"));
}

TEST(CuptiErrorsTest, OtherCodesKeepTheirNameAndNumber) {
  const Error e = CuptiFailure(CUPTI_ERROR_UNKNOWN, "cuptiRangeProfilerStart(&start)");
  EXPECT_EQ(e.kind(), ErrorKind::kCupti);
  EXPECT_THAT(e.what(), AllOf(HasSubstr("CUPTI_ERROR_UNKNOWN"), HasSubstr("(999)")));
}

TEST(CuptiErrorsTest, CheckMacroThrowsOnlyOnFailure) {
  EXPECT_NO_THROW(BANKCHECK_CUPTI_CHECK(CUPTI_SUCCESS));
  EXPECT_THROW(BANKCHECK_CUPTI_CHECK(CUPTI_ERROR_HARDWARE_BUSY), Error);
}

}  // namespace
}  // namespace bankcheck::internal
