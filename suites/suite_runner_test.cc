#include "suite/internal/suite_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bankcheck/gpu_probe.h"
#include "bankcheck/testing.h"
#include "fault_demo_run.h"

namespace bankcheck::suites {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(SuiteRunnerTest, GtestFilters) {
  EXPECT_TRUE(MatchesGtestFilter("KernelSuite/CaseTest.Run/a_b", ""));
  EXPECT_TRUE(MatchesGtestFilter("KernelSuite/CaseTest.Run/a_b", "*a_b"));
  EXPECT_TRUE(MatchesGtestFilter("KernelSuite/CaseTest.Run/a_b", "x:*.Run/a_?"));
  EXPECT_FALSE(MatchesGtestFilter("KernelSuite/CaseTest.Run/a_b", "*a_c"));
  EXPECT_FALSE(MatchesGtestFilter("KernelSuite/CaseTest.Run/a_b", "-*a_*"));
  EXPECT_TRUE(MatchesGtestFilter("KernelSuite/CaseTest.Run/a_b", "*-*x*:*y*"));
}

TEST(SuiteRunnerTest, CasesOfATopicByName) {
  KernelCase a, b, c;
  a.name = "transpose/padded";
  b.name = "transpose16/padded";
  c.name = "transpose/unpadded";
  const std::vector<const KernelCase*> cases = {&a, &b, &c};
  EXPECT_THAT(Topics(cases), ElementsAre("transpose", "transpose16"));
  EXPECT_THAT(SelectCaseTests(cases, "transpose", ""),
              ElementsAre("KernelSuite/CaseTest.Run/transpose_padded",
                          "KernelSuite/CaseTest.Run/transpose_unpadded"));
  EXPECT_THAT(SelectCaseTests(cases, "transpose", "*unpadded"),
              ElementsAre("KernelSuite/CaseTest.Run/transpose_unpadded"));
  EXPECT_THAT(SelectCaseTests(cases, "", "*16*"), ElementsAre("KernelSuite/CaseTest.Run/transpose16_padded"));
}

TEST(SuiteRunnerTest, ProgressLines) {
  const std::vector<FinishedCase> finished = ParseProgress("passed\tA.x\nfailed\tA.y\n\ngarbage\n");
  ASSERT_EQ(finished.size(), 2u);
  EXPECT_EQ(finished[1].status, "failed");
  EXPECT_EQ(finished[1].test, "A.y");
}

TEST(SuiteRunnerTest, WithoutAGpuEveryCaseSkipsAndTheRunSaysSo) {
  if (ProbeGpu().usable()) GTEST_SKIP() << "this machine has a usable GPU (the GPU test below runs instead)";
  if (gtest::GpuRequired()) GTEST_SKIP() << "BANKCHECK_REQUIRE_GPU=1: the cases would fail, not skip";
  const DemoRun run = RunFaultDemo();
  EXPECT_EQ(run.exit_code, gtest::kAllSkippedExitCode) << run.output;
  EXPECT_THAT(run.output, HasSubstr("bankcheck: every case was skipped"));
}

}  // namespace
}  // namespace bankcheck::suites
