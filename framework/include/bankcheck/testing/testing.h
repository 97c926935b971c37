#pragma once
// GoogleTest integration: skip (or fail) without a GPU, measure launches in one line, and attach
// the measured values to the test's XML/JSON report.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/gpu_probe.h"

// Named gtest, not testing: inside namespace bankcheck (or after `using namespace bankcheck`),
// `testing::` still means GoogleTest's.
namespace bankcheck::gtest {

// The exit code of a test program whose every test skipped (no usable GPU) and none failed: CTest
// reports such a program as skipped (SKIP_RETURN_CODE), not passed.
inline constexpr int kAllSkippedExitCode = 77;
// RUN_ALL_TESTS()'s result, or kAllSkippedExitCode when every test that ran was skipped.
int ExitCodeOf(int run_all_tests_result);

// True when the environment sets BANKCHECK_REQUIRE_GPU=1 (GPU CI runners): then a missing GPU
// fails the test instead of skipping it, so a broken runner never goes green. An on/off switch
// (FlagFromEnvironment): any other value is an Error, which fails the test.
bool GpuRequired();

// The message a GPU test prints when it cannot run.
std::string NoGpuMessage(const GpuProbe& probe);

// Sets bankcheck up (PrepareCounterSession) before any test or test-suite set-up runs, so that a
// CUDA graph a fixture instantiates is counted node by node when a test measures it (CUDA runs a
// graph instantiated before bankcheck was set up uninstrumented beyond its first node:
// docs/counters.md, "CUDA graphs"). bankcheck::gtest_main adds it; a program with its own main()
// adds it with ::testing::AddGlobalTestEnvironment(new bankcheck::gtest::CounterSessionEnvironment).
class CounterSessionEnvironment : public ::testing::Environment {
 public:
  void SetUp() override;
};

// Runs `launches` in a CounterSession and returns one record per launch. Each record is attached
// to the running test's report as properties ("launch0.kernel", "launch0.ld_wavefronts", ...).
std::vector<LaunchRecord> MeasureLaunches(const std::function<void()>& launches,
                                          const SessionOptions& options = {});

// Like MeasureLaunches, for exactly one launch; a test failure (and an empty record) otherwise.
LaunchRecord MeasureLaunch(const std::function<void()>& launch, const SessionOptions& options = {});

// Attaches records to the running test's report.
void RecordLaunchProperties(const std::vector<LaunchRecord>& records);

// Whether a check of a kernel's output is to be skipped: true in a kernel suite's emulated program,
// whose kernels are recorded, not run (docs/emulate.md), when the case read back bytes the emulator
// did not compute (false where every byte read back was computed: the check runs). Then it says why in the
// test's output
// ("note: emulated: the kernel did not run, its output is not checked: <what>") and report
// (property "output_not_checked"). Checks of a kernel's output call it first and return when it is
// true: the one place that decides it (kernels/kernel_support.h's ExpectVectorsEqual calls it).
bool SkipOutputCheck(const std::string& what);

// The CUDA_VISIBLE_DEVICES value that pins this process to the GPU CTest allocated to it
// (CTEST_RESOURCE_GROUP_0_GPUS="id:N,slots:1"), given the current CUDA_VISIBLE_DEVICES (ids index
// into its list when set). Empty when CTest allocated nothing. Error(kBadInput) saying what is wrong
// when the allocation has no numeric id, or names a GPU outside CUDA_VISIBLE_DEVICES (the GPUs the
// runner was given).
std::string VisibleDevicesForCtestAllocation(const char* ctest_gpus, const char* cuda_visible_devices);

// Applies VisibleDevicesForCtestAllocation to this process's environment; called by
// bankcheck::gtest_main before anything touches CUDA. False, having printed the error, when the
// allocation is refused: the caller exits with a failure instead of running on another GPU.
[[nodiscard]] bool SelectGpuFromCtestAllocation();

}  // namespace bankcheck::gtest

// First statement of every GPU test: skips with the reason when no usable GPU is there, or fails
// when BANKCHECK_REQUIRE_GPU=1. Never touches CUPTI before the check; after it, starts CUPTI's set-up
// (PrepareCounterSession) before the test creates its CUDA context.
#define BANKCHECK_SKIP_WITHOUT_GPU()                                         \
  do {                                                                       \
    const ::bankcheck::GpuProbe& bankcheck_probe_ = ::bankcheck::ProbeGpu(); \
    if (!bankcheck_probe_.usable()) {                                        \
      if (::bankcheck::gtest::GpuRequired()) {                               \
        GTEST_FAIL() << ::bankcheck::gtest::NoGpuMessage(bankcheck_probe_);  \
      } else {                                                               \
        GTEST_SKIP() << ::bankcheck::gtest::NoGpuMessage(bankcheck_probe_);  \
      }                                                                      \
    }                                                                        \
    ::bankcheck::PrepareCounterSession();                                    \
  } while (0)
