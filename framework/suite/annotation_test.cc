// CPU checks of the kernel registry that need no GPU: every annotation agrees with the CPU bank
// model (for cases that declare their access pattern), and the committed baselines parse and
// hold no entry for a case that no longer exists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>

#include "bankcheck/baseline.h"
#include "bankcheck/kernel_registry.h"
#include "suite/internal/case_runner.h"

namespace bankcheck::suites {
namespace {

class AnnotationTest : public ::testing::TestWithParam<const KernelCase*> {};

TEST_P(AnnotationTest, ModelAgreesWithAnnotation) {
  const KernelCase& c = *GetParam();
  const PredictedCounts predicted = c.predict();
  LaunchRecord as_predicted;
  as_predicted.shared = predicted.kinds;
  for (const std::string& mismatch : AnnotationMismatches(c.expect, as_predicted)) {
    ADD_FAILURE() << c.name << ": the CPU model disagrees with the annotation: " << mismatch << "\n"
                  << predicted.bank_map;
  }
}

INSTANTIATE_TEST_SUITE_P(KernelModel, AnnotationTest, ::testing::ValuesIn(CasesWithAccessPattern()),
                         [](const ::testing::TestParamInfo<const KernelCase*>& param_info) {
                           return SafeCaseName(param_info.param->name);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AnnotationTest);

TEST(BaselineFilesTest, ParseAndHaveNoStaleEntries) {
  std::vector<std::string> names;
  for (const KernelCase* c : RegisteredKernelCases()) names.push_back(c->name);
  const std::filesystem::path dir = BaselinesDir();
  if (!std::filesystem::exists(dir)) {
    // A new suite: nothing is recorded yet, and recording creates the folder.
    std::cout << "no baselines folder " << dir << " yet: nothing to check\n";
    return;
  }
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << "the baselines folder " << dir << " is not a folder";
  for (const auto& arch_dir : std::filesystem::directory_iterator(dir)) {
    if (!arch_dir.is_directory()) continue;
    const std::string arch = arch_dir.path().filename().string();
    const BaselineSet baselines = BaselineSet::Load(dir, arch, SuiteRecordCommand().Advice());
    const std::vector<std::string> stale = StaleBaselineEntries(baselines, names);
    if (PruningBaselines()) {
      for (const auto& file : RemoveBaselineEntries(dir, arch, stale, SuiteRecordCommand().Advice()))
        std::cout << "pruned " << file.string() << "\n";
      continue;
    }
    EXPECT_THAT(stale, ::testing::IsEmpty())
        << "baseline entries in " << baselines.folder().string()
        << " have no registered case (renamed or removed). Remove them with:\n  " << PruneBaselinesCommand();
  }
}

}  // namespace
}  // namespace bankcheck::suites
