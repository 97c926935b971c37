// GPU tests of the counter session's semantics (side effects, extra metrics, replay) and of every
// failure mode that can be produced on a real GPU. They skip with the reason on a machine without a
// usable GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/testing/matchers.h"
#include "bankcheck/testing/testing.h"
#include "counter_session_test_kernels.cuh"

namespace bankcheck {
namespace {

using gtest::Conflicts;
using gtest::LoadInstructions;
using gtest::LoadWays;
using gtest::MeasureLaunch;
using gtest::MeasureLaunches;
using gtest::StoreInstructions;
using gtest::StoreWays;
using test_kernels::DemoKernel;
using test_kernels::OneWarpStride;
using ::testing::AllOf;
using ::testing::HasSubstr;

__global__ void CountLaunches(int* counter) {
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(counter, 1);
}

__global__ void WriteThroughNull(int* p) { p[threadIdx.x] = 1; }

// ---- Semantics -------------------------------------------------------------------------------

TEST(CounterSessionGpuTest, SideEffectsHappenOnceDespiteReplay) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> counter(1);
  counter.Fill(0);
  MeasureLaunch([&] { CountLaunches<<<1, 32>>>(counter.get()); });
  EXPECT_EQ(counter.ToHost()[0], 1);
}

TEST(CounterSessionGpuTest, ExtraMetricsAreReported) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(256);
  SessionOptions options;
  options.extra_metrics = {"smsp__inst_executed.sum", "sm__cycles_elapsed.max"};
  const LaunchRecord r = MeasureLaunch([&] { DemoKernel<2><<<1, 256>>>(sink.get()); }, options);
  ASSERT_EQ(r.extra_metrics.count("smsp__inst_executed.sum"), 1u);
  EXPECT_GT(r.extra_metrics.at("smsp__inst_executed.sum"), 16.0);
  EXPECT_GT(r.extra_metrics.at("sm__cycles_elapsed.max"), 0.0);
  EXPECT_THAT(r, Conflicts(8, 8));
}

TEST(CounterSessionGpuTest, UserReplayGivesTheSameCountsAndRunsTheLaunchesOncePerPass) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(256);
  DeviceBuffer<int> counter(1);
  counter.Fill(0);
  SessionOptions options;
  options.counters = SessionOptions::Counters::kRangeProfiler;
  options.replay = SessionOptions::Replay::kUser;
  const std::vector<LaunchRecord> r = MeasureLaunches(
      [&] {
        DemoKernel<1><<<1, 256>>>(sink.get());
        DemoKernel<32><<<1, 256>>>(sink.get());
        CountLaunches<<<1, 32>>>(counter.get());
      },
      options);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_THAT(r[0], AllOf(LoadInstructions(8), StoreInstructions(8), Conflicts(0, 0)));
  EXPECT_THAT(r[1], AllOf(LoadInstructions(8), StoreInstructions(8), Conflicts(248, 248)));
  EXPECT_THAT(r[1].kernel, HasSubstr("DemoKernel<32>"));
  // docs/counters.md, "Replay passes": the instrumented metrics, the LDS/STS hardware pairs and TMA's
  // sector counters share no pass.
  EXPECT_EQ(counter.ToHost()[0], 3) << "the core metrics need three passes, so the launches run three times";
}

// ---- Failure modes ---------------------------------------------------------------------------

TEST(CounterSessionGpuTest, UnknownMetricFailsBeforeAnythingRuns) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  // No profiler set up yet: the failing session sets CUPTI up itself and must not leave it half
  // set up for the next one.
  ShutdownProfiler();
  SessionOptions options;
  options.extra_metrics = {"smsp__inst_executd.sum"};
  try {
    CounterSession session(options);
    FAIL() << "expected an unknown-metric error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnknownMetric);
    EXPECT_THAT(e.what(), HasSubstr("smsp__inst_executed.sum"));
  }
  EXPECT_FALSE(CounterSession::Active());
  DeviceBuffer<int> sink(256);
  EXPECT_THAT(MeasureLaunch([&] { DemoKernel<2><<<1, 256>>>(sink.get()); }), LoadWays(2));
}

TEST(CounterSessionGpuTest, NestedSessionIsRefused) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  CounterSession outer;
  try {
    CounterSession inner;
    FAIL() << "expected a nested-session error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNestedSession);
    EXPECT_THAT(e.what(), HasSubstr("already active"));
  }
  EXPECT_TRUE(outer.Finish().empty());
}

TEST(CounterSessionGpuTest, MoreLaunchesThanTheImageHoldsIsAnError) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(32);
  SessionOptions options;
  options.counters = SessionOptions::Counters::kRangeProfiler;  // SASS counting has no image to fill
  options.max_launches = 2;
  try {
    Measure(
        [&] {
          for (int i = 0; i < 3; ++i) OneWarpStride<<<1, 32>>>(sink.get(), 1);
        },
        options);
    FAIL() << "expected a too-many-launches error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTooManyLaunches) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("max_launches"));
  }
  // The next session works.
  EXPECT_EQ(Measure([&] { OneWarpStride<<<1, 32>>>(sink.get(), 2); }).size(), 1u);
}

TEST(CounterSessionGpuTest, LaunchFailureNamesTheKernelAndTheNextSessionWorks) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(4096);
  try {
    Measure([&] { OneWarpStride<<<1, 4096>>>(sink.get(), 1); });  // more threads than a block may have
    FAIL() << "expected a kernel-fault error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kKernelFault) << e.what();
    EXPECT_THAT(e.what(), AllOf(HasSubstr("OneWarpStride"), HasSubstr("block 4096x1x1"),
                                HasSubstr("later sessions in this process work")));
    std::printf("  launch failure message: %s\n", e.what());
  }
  EXPECT_FALSE(CounterSession::Active());
  const LaunchRecord r = MeasureLaunch([&] { DemoKernel<2><<<1, 256>>>(sink.get()); });
  EXPECT_THAT(r, Conflicts(8, 8));
}

// A fault inside a kernel poisons the process's CUDA context for good, so it runs in a fresh
// child process (a death test re-executing this binary): the error names the kernel, and a later
// session in that process says why it cannot run.
TEST(CounterSessionGpuDeathTest, KernelFaultNamesTheKernelAndLaterSessionsSayWhy) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        try {
          Measure([&] { WriteThroughNull<<<1, 32>>>(nullptr); });
        } catch (const Error& first) {
          std::fprintf(stderr, "first: %s\n", first.what());
          try {
            CounterSession second;
          } catch (const Error& e) {
            std::fprintf(stderr, "second: %s\n", e.what());
            std::exit(first.kind() == ErrorKind::kKernelFault && e.kind() == ErrorKind::kKernelFault ? 3 : 4);
          }
        }
        std::exit(5);
      },
      ::testing::ExitedWithCode(3),
      "first: kernel '.*WriteThroughNull.*' .*faulted while it was measured: cudaErrorIllegalAddress"
      "(.|\n)*second: an earlier kernel fault");
}

// The parent process was not affected by the child's fault.
TEST(CounterSessionGpuTest, SessionsWorkAfterAFaultInAnotherProcess) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(256);
  EXPECT_THAT(MeasureLaunch([&] { DemoKernel<32><<<1, 256>>>(sink.get()); }), Conflicts(248, 248));
}

}  // namespace
}  // namespace bankcheck
