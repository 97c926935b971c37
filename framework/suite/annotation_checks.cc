// CPU checks of the kernel registry that need no GPU: the CPU bank model (for cases that declare
// their access pattern) agrees with the case's c.expect, or, for a case whose lines state its
// conflicts, with its committed baselines; and the committed baselines parse and hold no entry for
// a case that no longer exists. Registered at run time (annotation_main.cc).
#include "suite/internal/annotation_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/case_selection.h"
#include "bankcheck/core/error.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "suite/internal/case_runner.h"
#include "suite/internal/record_command.h"
#include "suite/internal/suite_runner.h"

namespace bankcheck::suites {
namespace {

// Where a case's failures and its test are reported: the line that registered it in the kernel's
// own file, or here when that is not known.
const char* FileOf(const KernelCase& c, const char* here) {
  return c.source_file.empty() ? here : c.source_file.c_str();
}
int LineOf(const KernelCase& c, int here) { return c.source_file.empty() ? here : c.source_line; }

class ModelCheck : public ::testing::Test {
 public:
  // `skipped`: why the selection leaves this case out ("" when it selects it): decided once at
  // registration, so that a selection of many names costs each check nothing.
  ModelCheck(const KernelCase& c, std::string skipped) : case_(c), skipped_(std::move(skipped)) {}

  void TestBody() override {
    const KernelCase& c = case_;
    RecordProperty("case", c.name);  // JUnit XML names the case itself beside the test's name
    // One reason for every check skipped so, which ci/test.sh then lists once.
    if (!skipped_.empty()) GTEST_SKIP() << skipped_;
    const PredictedCounts predicted = c.predict();
    if (!c.expect.stated()) {
      CheckAgainstBaselines(predicted);
      return;
    }
    LaunchRecord as_predicted;
    as_predicted.kinds = predicted.kinds;
    for (const std::string& mismatch : AnnotationMismatches(c.expect, as_predicted)) {
      ADD_FAILURE_AT(FileOf(c, __FILE__), LineOf(c, __LINE__))
          << c.name << ": the CPU model disagrees with the annotation: " << mismatch << "\n"
          << predicted.bank_map;
    }
  }

 private:
  // A case without c.expect states its conflicts on its lines, which the model does not know: the
  // model is held to what the GPU recorded for the case instead, in every architecture's baseline.
  void CheckAgainstBaselines(const PredictedCounts& predicted) {
    const KernelCase& c = case_;
    const std::filesystem::path dir = BaselinesDir();
    std::vector<std::string> compared;
    std::error_code error;
    if (std::filesystem::is_directory(dir, error)) {
      for (const auto& arch_dir : std::filesystem::directory_iterator(dir)) {
        if (!arch_dir.is_directory()) continue;
        const std::string arch = arch_dir.path().filename().string();
        const BaselineSet baselines = BaselineSet::Load(dir, arch, SuiteRecordCommand().Advice());
        const BaselineEntry* entry = baselines.Find(c.name);
        if (entry == nullptr) continue;
        compared.push_back(arch);
        for (const std::string& mismatch : ModelMismatches(predicted, entry->launches)) {
          ADD_FAILURE_AT(FileOf(c, __FILE__), LineOf(c, __LINE__))
              << c.name << ": the CPU model disagrees with the " << arch << " baseline: " << mismatch << "\n"
              << predicted.bank_map;
        }
      }
    }
    if (compared.empty())
      GTEST_SKIP() << c.name
                   << " has no c.expect and no baseline yet: its model is checked against the GPU's "
                   << "counts when the suite runs";
  }

  const KernelCase& case_;
  const std::string skipped_;
};

class BaselineFilesCheck : public ::testing::Test {
 public:
  void TestBody() override;
};

void BaselineFilesCheck::TestBody() {
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

void RegisterAnnotationChecks(const std::vector<const KernelCase*>& cases, const std::string& test_prefix,
                              const CasePatterns& selection) {
  const CaseSelection selects(selection.patterns);
  const std::string skipped = selection.source + " does not select this case";
  const std::string model_prefix = ModelCheckPrefix(test_prefix);
  const std::string clash = CaseTestNameClash(cases, model_prefix);
  if (!clash.empty()) throw Error(ErrorKind::kBadInput, clash);
  for (const KernelCase* c : cases) {
    const CaseTestName name = GtestNameForCase(model_prefix, c->name);
    ::testing::RegisterTest(name.suite.c_str(), name.test.c_str(), nullptr, nullptr, FileOf(*c, __FILE__),
                            LineOf(*c, __LINE__),
                            [c, why = selects.Selects(c->name) ? "" : skipped]() -> ModelCheck* {
                              return new ModelCheck(*c, why);
                            });
  }
  const CaseTestName baselines = GtestNameForBaselineFilesCheck(test_prefix);
  ::testing::RegisterTest(baselines.suite.c_str(), baselines.test.c_str(), nullptr, nullptr, __FILE__,
                          __LINE__, []() -> BaselineFilesCheck* { return new BaselineFilesCheck; });
}

}  // namespace bankcheck::suites
