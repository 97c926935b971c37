// Failing cases on the GPU: a case whose kernel faults fails alone, and the cases after it run in a
// fresh process; a case with more conflicts than its annotation says fails naming the instruction.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/testing/testing.h"
#include "fault_demo_run.h"

namespace bankcheck::suites {
namespace {

using ::testing::HasSubstr;

TEST(SuiteRunnerGpuTest, AFaultingCaseFailsAloneAndTheOthersStillRun) {
  // Not BANKCHECK_SKIP_WITHOUT_GPU(): that would set up counters here and hold the GPU's counter
  // lock for this process, which the demo program (not our child) would then wait for.
  const GpuProbe& probe = ProbeGpu();
  if (!probe.usable()) {
    if (gtest::GpuRequired()) GTEST_FAIL() << gtest::NoGpuMessage(probe);
    GTEST_SKIP() << gtest::NoGpuMessage(probe);
  }
  const DemoRun run = RunFaultDemo();
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("[       OK ] fault_suite/fault_demo.a_before"));
  EXPECT_THAT(run.output, HasSubstr("[  FAILED  ] fault_suite/fault_demo.b_illegal_address"));
  EXPECT_THAT(run.output, HasSubstr("running the remaining 2 case(s) in a fresh process"));
  EXPECT_THAT(run.output, HasSubstr("[       OK ] fault_suite/fault_demo.c_after"));

  // The 2-way load: its failure ends with the instruction, its source line and its excess.
  EXPECT_THAT(run.output, HasSubstr("[  FAILED  ] fault_suite/fault_demo.d_unannotated_conflict"));
  EXPECT_THAT(run.output, HasSubstr("where the excess wavefronts are"));
  EXPECT_THAT(run.output,
              ::testing::ContainsRegex(
                  "suites/fault_demo_cases.cu:[0-9]+ +\\+0x[0-9a-f]+ +LDS +1 exec +2 wf +1 ideal +\\+1"));
}

}  // namespace
}  // namespace bankcheck::suites
