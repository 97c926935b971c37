// main() of the kernel suite program: prints its results folder, lists topics for CTest or the
// selected cases, or runs cases (one topic's, or every case; BANKCHECK_CASES selects among them)
// under the supervisor of suite_runner.h, or, as the supervisor's child, runs them.
#include <gmock/gmock.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "bankcheck/suite/suite.h"
#include "bankcheck/testing/testing.h"
#include "core/platform/environment.h"
#include "suite/internal/case_checks.h"
#include "suite/internal/case_runner.h"
#include "suite/internal/emulated_case.h"
#include "suite/internal/suite_runner.h"

namespace {

// Takes --name=value out of the arguments into `value`; false when absent.
bool TakeFlag(std::vector<std::string>& args, const std::string& name, std::string& value) {
  const std::string prefix = "--" + name + "=";
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (it->rfind(prefix, 0) == 0) {
      value = it->substr(prefix.size());
      args.erase(it);
      return true;
    }
  }
  return false;
}

bool Has(const std::vector<std::string>& args, const char* flag) {
  for (const std::string& arg : args)
    if (arg.rfind(flag, 0) == 0) return true;
  return false;
}

int RunSuiteProgram(int argc, char** argv) {
  using namespace bankcheck;
  std::vector<std::string> args(argv + 1, argv + argc);
  // Where this program's cases write their results (the emulated program's differ): scripts ask.
  if (Has(args, "--bankcheck_results_dir")) {
    std::cout << suites::ResultsDir().string() << "\n";
    return 0;
  }
  std::string no_emulated_program;
  if (TakeFlag(args, "bankcheck_no_emulated_program", no_emulated_program))
    return suites::SayNoEmulatedProgram(no_emulated_program);
  const std::vector<const KernelCase*> cases = RegisteredKernelCases();
  // Every topic, whatever BANKCHECK_CASES says: CTest's tests are made from this after each build.
  if (Has(args, "--bankcheck_list_topics")) {
    for (const std::string& topic : suites::Topics(cases)) std::cout << topic << "\n";
    return 0;
  }
  const suites::CasePatterns selection = suites::CasePatternsFromEnvironment();
  suites::CheckSelectionSelectsACase(cases, selection, suites::GetSuiteSettings().build_dir);
  const std::string& patterns = selection.patterns;
  const std::vector<const KernelCase*> selected = suites::SelectCases(cases, patterns);
  if (Has(args, "--bankcheck_list_cases")) {
    for (const KernelCase* c : selected) std::cout << c->name << "\n";
    return 0;
  }
  const std::string& prefix = suites::GetSuiteSettings().test_prefix;
  const bool supervised = FlagFromEnvironment("BANKCHECK_SUPERVISED");
  const bool listing = Has(args, "--gtest_list_tests") || Has(args, "--help") || Has(args, "-h");
  if (!supervised && !listing) {
    std::string topic, filter;
    TakeFlag(args, "bankcheck_topic", topic);
    if (!TakeFlag(args, "gtest_filter", filter) && std::getenv("GTEST_FILTER") != nullptr)
      filter = std::getenv("GTEST_FILTER");
    if (!topic.empty() && suites::SelectCaseTests(cases, prefix, topic, "", "").empty()) {
      std::cerr << "bankcheck: no registered case has the topic '" << topic << "'\n";
      return 1;
    }
    // The cases this test (its topic, its shard) would run, one name a line: bankcheck-ci keeps
    // them, and bankcheck-merge checks that the shard reported each.
    if (Has(args, "--bankcheck_list_shard_cases")) {
      for (const KernelCase* c :
           suites::SelectShardCases(cases, prefix, topic, patterns, filter, suites::ShardFromEnvironment()))
        std::cout << c->name << "\n";
      return 0;
    }
    const suites::Shard shard = suites::ShardFromEnvironment();
    const std::vector<std::string> tests =
        suites::SelectCaseTests(cases, prefix, topic, patterns, filter, shard);
    if (tests.empty()) {
      // e.g. BANKCHECK_CASES naming a case of another topic, or a shard that holds none of this
      // topic's cases: CTest reports this one as skipped.
      std::string by = selection.source;
      if (!filter.empty()) by += (by.empty() ? "" : " and ") + ("the filter '" + filter + "'");
      const std::string of_topic = topic.empty() ? "" : " of topic '" + topic + "'";
      const bool any_selected = !suites::SelectCaseTests(cases, prefix, topic, patterns, filter).empty();
      std::cout << "bankcheck: every case was skipped: "
                << (any_selected ? shard.Describe() + " holds no case" + of_topic +
                                       (by.empty() ? "" : " selected by " + by)
                    : by.empty() ? "no case is registered"
                                 : by + (patterns.empty() || filter.empty() ? " selects" : " select") +
                                       " no case" + of_topic)
                << "\n";
      return bankcheck::gtest::kAllSkippedExitCode;
    }
    ::unsetenv("GTEST_FILTER");  // the children get the cases by name
    suites::BeginRun();          // one run for every child (ThisFragmentRun)
    return suites::SuperviseCases(argv[0], args, tests, /*one_topic=*/!topic.empty());
  }
  // Lines checked: the project's modules load with the context and their disassembly begins at
  // once, beside the first cases (PrefetchProjectDisassembly), unless the user chose the loading.
  const bool prefetch = !suites::LinesOff() && !CountersDisabled();
  if (prefetch) ::setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
  // Before anything touches CUDA: run on the GPU CTest allocated to this test, if any.
  if (!bankcheck::gtest::SelectGpuFromCtestAllocation()) return 1;
  ::testing::InitGoogleMock(&argc, argv);
  suites::RegisterCaseTests(selected, prefix);
  suites::InstallLineGlobCheck(cases);
  // Inlined code in the tables is attributed to its innermost line in this suite's project.
  bankcheck::SetProjectSources(suites::GetSuiteSettings().source_dir, suites::GetSuiteSettings().build_dir);
  if (prefetch) bankcheck::PrefetchProjectDisassembly();
  ::testing::AddGlobalTestEnvironment(new bankcheck::gtest::CounterSessionEnvironment);
  suites::InstallChildListener();
  return RUN_ALL_TESTS();  // the supervisor tells "every case skipped" from the progress file
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return RunSuiteProgram(argc, argv);
  } catch (const bankcheck::Error& e) {  // e.g. a refused environment variable
    std::cerr << "bankcheck: error: " << e.what() << "\n";
    return 1;
  }
}
