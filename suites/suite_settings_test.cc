// A suite's settings (bankcheck/suite/suite.h) as its programs use them: the folders, with the
// environment overriding them, and the commands that messages print.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/suite/suite.h"
#include "suite/internal/case_runner.h"

namespace bankcheck::suites {
namespace {

// A consumer's suite, as bankcheck_add_kernel_suite(my_suite ...) in /src/app would set it.
class SuiteSettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = GetSuiteSettings();
    for (const char* name : {"BANKCHECK_BASELINES_DIR", "BANKCHECK_RESULTS_DIR", "BANKCHECK_UPDATE_BASELINES",
                             "BANKCHECK_PRUNE_BASELINES", "BANKCHECK_ATTRIBUTE"}) {
      const char* value = std::getenv(name);
      saved_env_.push_back({name, value ? std::optional<std::string>(value) : std::nullopt});
      ::unsetenv(name);
    }
    SetSuiteSettings({"/src/app/baselines", "/src/app/build/my_suite-results", "my_suite", "",
                      "ctest --test-dir /src/app/build", "/src/app", "/src/app/build"});
  }
  void TearDown() override {
    SetSuiteSettings(saved_);
    for (const auto& [name, value] : saved_env_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }

 private:
  SuiteSettings saved_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_env_;
};

TEST_F(SuiteSettingsTest, FoldersComeFromTheSettingsUnlessTheEnvironmentSaysOtherwise) {
  EXPECT_EQ(BaselinesDir(), "/src/app/baselines");
  EXPECT_EQ(ResultsDir(), "/src/app/build/my_suite-results");
  ::setenv("BANKCHECK_BASELINES_DIR", "/tmp/other", 1);
  ::setenv("BANKCHECK_RESULTS_DIR", "/tmp/results", 1);
  EXPECT_EQ(BaselinesDir(), "/tmp/other");
  EXPECT_EQ(ResultsDir(), "/tmp/results");
}

TEST_F(SuiteSettingsTest, EnvironmentFoldersAndSwitchesAreCheckedWithAClearError) {
  ::setenv("BANKCHECK_RESULTS_DIR", "results", 1);  // relative: where would ctest's test put it?
  EXPECT_THAT([] { ResultsDir(); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("BANKCHECK_RESULTS_DIR")));
  ::setenv("BANKCHECK_BASELINES_DIR", "/tmp/a\nb", 1);
  EXPECT_THAT([] { BaselinesDir(); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("BANKCHECK_BASELINES_DIR")));
  EXPECT_FALSE(UpdatingBaselines());
  ::setenv("BANKCHECK_UPDATE_BASELINES", "true", 1);
  EXPECT_TRUE(UpdatingBaselines());
  ::setenv("BANKCHECK_PRUNE_BASELINES", "maybe", 1);
  EXPECT_THAT([] { PruningBaselines(); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("BANKCHECK_PRUNE_BASELINES")));
  ::setenv("BANKCHECK_ATTRIBUTE", "0", 1);
  EXPECT_FALSE(AttributionRequested());
}

TEST(SoftwareChangeNoteTest, SaysWhenTheBaselineCameFromOtherGpuSoftware) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("bankcheck-software-note-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  RunMetadata recorded;
  recorded.device = "NVIDIA H100 80GB HBM3";
  recorded.driver = "570.86.10";
  recorded.cuda_runtime = "12.8";
  LaunchRecord launch;
  launch.kernel = "k()";
  UpdateBaselines(dir, "sm_90", recorded, {{"demo/stride2", "a demo", {launch}}});
  const BaselineSet baselines = BaselineSet::Load(dir, "sm_90");
  std::filesystem::remove_all(dir);

  RunMetadata now = recorded;
  now.date = "2026-11-25T09:00:00Z";
  EXPECT_EQ(SoftwareChangeNote(baselines, "demo/stride2", now), "") << "the same software";
  now.driver = "580.65.06";
  now.cuda_runtime = "13.0";
  EXPECT_THAT(SoftwareChangeNote(baselines, "demo/stride2", now),
              ::testing::HasSubstr("recorded with other GPU software (driver 570.86.10 -> 580.65.06, "
                                   "CUDA runtime 12.8 -> 13.0)"));
  EXPECT_EQ(SoftwareChangeNote(baselines, "other/case", now), "") << "no file for that topic";
  EXPECT_THAT(SoftwareChangeNote(baselines, "demo/stride2", now),
              ::testing::HasSubstr("the change may come from the toolkit or driver, not from your code"));
}

TEST(JitNoteTest, SaysWhenTheGpuRunsJitCompiledPtx) {
  RunMetadata now;
  now.arch = "sm_90";
  EXPECT_EQ(JitNote(now), "") << "a build that does not say what it holds";
  now.cuda_architectures = "80-real;90";
  EXPECT_EQ(JitNote(now), "");
  now.cuda_architectures = "80";
  EXPECT_THAT(JitNote(now),
              ::testing::AllOf(::testing::StartsWith("Note: the kernels were built for "
                                                     "CUDA_ARCHITECTURES \"80\""),
                               ::testing::HasSubstr("JIT-compiles"), ::testing::EndsWith(".\n")));
}

TEST(UpdateBaselinesAdviceTest, NamesTheRunsFoldersAsShellWords) {
  EXPECT_EQ(UpdateBaselinesCommand("/b/results", "/src/baselines"),
            "bankcheck merge-results /b/results && bankcheck update-baselines /b/results/results.json "
            "--baselines /src/baselines");
  EXPECT_EQ(
      UpdateBaselinesCommand("/b/my results", "/src/it's"),
      "bankcheck merge-results '/b/my results' && bankcheck update-baselines '/b/my results/results.json' "
      "--baselines '/src/it'\\''s'");
}

TEST_F(SuiteSettingsTest, TheRecordCommandNamesTheSuitesTestAndCommand) {
  EXPECT_EQ(SuiteRecordCommand().ForCase("my_scale/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_CASES='my_scale/stride2' ctest --test-dir /src/app/build "
            "-R '^my_suite/my_scale$'");
  // A folder from the environment is named again, so the command records where the run looked.
  ::setenv("BANKCHECK_BASELINES_DIR", "/tmp/other", 1);
  EXPECT_EQ(SuiteRecordCommand().ForCase("my_scale/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR='/tmp/other' "
            "BANKCHECK_CASES='my_scale/stride2' ctest --test-dir /src/app/build -R '^my_suite/my_scale$'");
}

TEST_F(SuiteSettingsTest, ThePruneCommandSelectsTheSuitesBaselineFileCheck) {
  EXPECT_EQ(PruneBaselinesCommand(),
            "BANKCHECK_PRUNE_BASELINES=1 ctest --test-dir /src/app/build -R '^my_suite\\.baseline_files'");
  // ANNOTATION_TEST_PREFIX comes before the CPU checks' GoogleTest names in their CTest names.
  SuiteSettings prefixed = GetSuiteSettings();
  prefixed.annotation_test_prefix = "cpu.";
  SetSuiteSettings(prefixed);
  EXPECT_EQ(
      PruneBaselinesCommand(),
      "BANKCHECK_PRUNE_BASELINES=1 ctest --test-dir /src/app/build -R '^cpu\\.my_suite\\.baseline_files'");
}

}  // namespace
}  // namespace bankcheck::suites
