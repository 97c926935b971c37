// The counter session on a machine without a usable GPU (CPU CI): labelled cpu, unlike
// counter_session_test.cu, whose tests need the GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bankcheck/counter_session.h"
#include "bankcheck/error.h"
#include "bankcheck/gpu_probe.h"

namespace bankcheck {
namespace {

using ::testing::HasSubstr;

TEST(CounterSessionTest, WithoutAUsableGpuPreparationDoesNothingAndSessionsSayWhy) {
  const GpuProbe& probe = ProbeGpu();
  if (probe.usable()) GTEST_SKIP() << "this machine has a usable GPU; the GPU tests cover sessions";
  EXPECT_NO_THROW(PrepareCounterSession());
  try {
    CounterSession session;
    FAIL() << "a session started without a usable GPU";
  } catch (const Error& e) {
    EXPECT_TRUE(e.kind() == ErrorKind::kNoGpu || e.kind() == ErrorKind::kCountersNotPermitted)
        << ErrorKindName(e.kind());
    EXPECT_THAT(e.what(), HasSubstr(probe.reason));
  }
  EXPECT_NO_THROW(ShutdownProfiler());
}

}  // namespace
}  // namespace bankcheck
