#include "bankcheck/core/run_metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

#include "core/platform/test_support.h"

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

TEST(RunMetadataTest, SoftwareChangeNamesANewCompilerWhereBothSidesKnowIt) {
  RunMetadata recorded = MakeMetadata();
  RunMetadata now = MakeMetadata();
  now.cuda_compiler = "NVIDIA 13.0.88";
  EXPECT_EQ(SoftwareChange(recorded, now), "") << "a baseline recorded before compilers were recorded";
  recorded.cuda_compiler = "NVIDIA 13.0.48";
  EXPECT_EQ(SoftwareChange(recorded, now), "CUDA compiler NVIDIA 13.0.48 -> NVIDIA 13.0.88")
      << "a toolkit update that keeps the runtime's major.minor";
}

TEST(PtxJitWarningTest, NativeCodeForTheGpuMeansNoWarning) {
  const std::pair<const char*, const char*> native[] = {
      {"90", "sm_90"},       {"90-real", "sm_90"},    {"90a", "sm_90"},
      {"90a-real", "sm_90"}, {"80-real;90", "sm_90"}, {"90-real;80-virtual", "sm_90"},
      {"80", "sm_86"},                                 // sm_80 SASS runs on sm_86
      {"86", "sm_89"},       {"100f-real", "sm_103"},  // family code runs on its family
  };
  for (const auto& [built, arch] : native)
    EXPECT_EQ(PtxJitWarning(built, arch), "") << built << " on " << arch;
}

TEST(PtxJitWarningTest, PtxOnlyForTheGpuWarns) {
  const std::string warning = PtxJitWarning("80-virtual", "sm_90");
  EXPECT_THAT(warning, ::testing::AllOf(::testing::HasSubstr("CUDA_ARCHITECTURES \"80-virtual\""),
                                        ::testing::HasSubstr("no native code (SASS) for this sm_90 GPU"),
                                        ::testing::HasSubstr("JIT-compiles their PTX"),
                                        ::testing::HasSubstr("Add 90 to CUDA_ARCHITECTURES")));
  EXPECT_NE(PtxJitWarning("80", "sm_90"), "") << "sm_80 SASS does not run on sm_90, its PTX is JIT-compiled";
  EXPECT_NE(PtxJitWarning("90a", "sm_100"), "") << "arch-specific SASS runs on its GPU only";
  EXPECT_NE(PtxJitWarning("86-real;80", "sm_120"), "");
}

TEST(PtxJitWarningTest, NoCodeAtAllSaysTheKernelsCannotRun) {
  EXPECT_THAT(PtxJitWarning("100-real", "sm_90"), ::testing::HasSubstr("neither native code (SASS) nor PTX"));
  EXPECT_THAT(PtxJitWarning("90a-real", "sm_100"), ::testing::HasSubstr("cannot run on it"));
}

TEST(PtxJitWarningTest, UnknownSidesOrListsGiveNoWarning) {
  EXPECT_EQ(PtxJitWarning("", "sm_90"), "");
  EXPECT_EQ(PtxJitWarning("80-virtual", ""), "") << "no GPU";
  for (const char* built : {"native", "all", "all-major", "OFF", "80;native", "80-both", "sm_80"})
    EXPECT_EQ(PtxJitWarning(built, "sm_90"), "") << built;
}

}  // namespace
}  // namespace bankcheck
