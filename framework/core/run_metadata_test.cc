#include "bankcheck/run_metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/internal/test_support.h"

namespace bankcheck {
namespace {

using testing_support::MakeMetadata;

TEST(RunMetadataTest, VersionsAndDriverAreReadable) {
  EXPECT_EQ(CudaVersionString(13000), "13.0");
  EXPECT_EQ(CudaVersionString(12080), "12.8");
  EXPECT_EQ(CudaVersionString(0), "");
  EXPECT_EQ(ParseNvidiaDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 "
                                     "07:09:00 UTC 2025\nGCC version:  gcc version 12.2.0\n"),
            "580.65.06");
  EXPECT_EQ(
      ParseNvidiaDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release"),
      "575.57.08");
  EXPECT_EQ(ParseNvidiaDriverVersion(""), "");
}

TEST(RunMetadataTest, DescribeRunTakesTheCommitFromTheEnvironment) {
  ::setenv("BANKCHECK_GIT_COMMIT", "abc1234", 1);
  const RunMetadata metadata = DescribeRun("NVIDIA H100", "sm_90", 13000, 13000);
  ::unsetenv("BANKCHECK_GIT_COMMIT");
  EXPECT_EQ(metadata.git_commit, "abc1234");
  EXPECT_EQ(metadata.arch, "sm_90");
  EXPECT_EQ(metadata.cuda_runtime, "13.0");
  EXPECT_THAT(metadata.date,
              ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"));
  EXPECT_EQ(DescribeRun("", "", 0, 0).git_commit, "");
}

TEST(RunMetadataTest, SoftwareChangeNamesWhatDiffersAndIgnoresDateAndUnknowns) {
  const RunMetadata recorded = MakeMetadata("2025-11-22T10:00:00Z");
  RunMetadata now = MakeMetadata("2026-11-25T09:00:00Z");
  now.git_commit = "def";
  EXPECT_EQ(SoftwareChange(recorded, now), "") << "the date and the commit are not GPU software";
  now.driver = "590.10.01";
  now.cuda_runtime = "13.1";
  EXPECT_EQ(SoftwareChange(recorded, now), "driver 580.65.06 -> 590.10.01, CUDA runtime 13.0 -> 13.1");
  RunMetadata unknown = now;
  unknown.driver.clear();  // a driver version that could not be read is not a change
  EXPECT_EQ(SoftwareChange(recorded, unknown), "CUDA runtime 13.0 -> 13.1");
}

}  // namespace
}  // namespace bankcheck
