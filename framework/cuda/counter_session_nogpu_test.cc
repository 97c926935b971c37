// The counter session on a machine without a usable GPU (CPU CI): labelled cpu, unlike
// counter_session_test.cu, whose tests need the GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/gpu_probe.h"

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

// The emulated program is a program of its own (docs/emulate.md): here the value names it.
TEST(CounterSessionTest, EmulateIsRefusedWhereKernelsRunOnTheGpu) {
  ASSERT_EQ(setenv("BANKCHECK_COUNTERS", "emulate", 1), 0);
  try {
    CountersFor(SessionOptions{});
    ADD_FAILURE() << "BANKCHECK_COUNTERS=emulate accepted in a program whose kernels run on the GPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr("<target>_emulated"));
  }
  EXPECT_FALSE(CountersDisabled());
  ASSERT_EQ(unsetenv("BANKCHECK_COUNTERS"), 0);
  SessionOptions emulated;
  emulated.counters = SessionOptions::Counters::kEmulated;
  EXPECT_THROW(CountersFor(emulated), Error);
  ASSERT_EQ(setenv("BANKCHECK_COUNTERS", "emulated", 1), 0);
  try {
    CountersFor(SessionOptions{});
    ADD_FAILURE() << "a misspelt BANKCHECK_COUNTERS accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("or emulate"));
  }
  ASSERT_EQ(unsetenv("BANKCHECK_COUNTERS"), 0);
}

}  // namespace
}  // namespace bankcheck
