// main() of the kernel suite program: lists topics for CTest, or runs cases (one topic's, or
// every case) under the supervisor of suite_runner.h, or, as the supervisor's child, runs them.
#include <gmock/gmock.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bankcheck/counter_session.h"
#include "bankcheck/error.h"
#include "bankcheck/kernel_registry.h"
#include "bankcheck/suite.h"
#include "bankcheck/testing.h"
#include "core/internal/environment.h"
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
  const std::vector<const KernelCase*> cases = RegisteredKernelCases();
  if (Has(args, "--bankcheck_list_topics")) {
    for (const std::string& topic : suites::Topics(cases)) std::cout << topic << "\n";
    return 0;
  }
  const bool supervised = FlagFromEnvironment("BANKCHECK_SUPERVISED");
  const bool listing = Has(args, "--gtest_list_tests") || Has(args, "--help") || Has(args, "-h");
  if (!supervised && !listing) {
    std::string topic, filter;
    TakeFlag(args, "bankcheck_topic", topic);
    if (!TakeFlag(args, "gtest_filter", filter) && std::getenv("GTEST_FILTER") != nullptr)
      filter = std::getenv("GTEST_FILTER");
    if (!topic.empty() && suites::SelectCaseTests(cases, topic, "").empty()) {
      std::cerr << "bankcheck: no registered case has the topic '" << topic << "'\n";
      return 1;
    }
    const std::vector<std::string> tests = suites::SelectCaseTests(cases, topic, filter);
    if (tests.empty()) {
      // e.g. GTEST_FILTER naming a case of another topic: CTest reports this one as skipped.
      std::cout << "bankcheck: every case was skipped: the filter '" << filter << "' selects none"
                << (topic.empty() ? "" : " of topic '" + topic + "'") << "\n";
      return bankcheck::gtest::kAllSkippedExitCode;
    }
    ::unsetenv("GTEST_FILTER");  // the children get the cases by name
    return suites::SuperviseCases(argv[0], args, tests);
  }
  // Before anything touches CUDA: run on the GPU CTest allocated to this test, if any.
  if (!bankcheck::gtest::SelectGpuFromCtestAllocation()) return 1;
  ::testing::InitGoogleMock(&argc, argv);
  // Inlined code in the tables is attributed to its call site in this suite's project.
  bankcheck::SetProjectSources(suites::GetSuiteSettings().source_dir, suites::GetSuiteSettings().build_dir);
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
