#pragma once
// The names a kernel suite gives its cases in GoogleTest and CTest, and the commands its messages
// print to record baselines: the suite's own test command and CTest names
// (bankcheck_add_kernel_suite), handed to the core as a RecordAdvice.

#include <string>

#include "bankcheck/baseline.h"

namespace bankcheck::suites {

// The GoogleTest name of a case's test: the value-parameterized suite's prefix, fixture and test
// (kernel_suite_test.cc's INSTANTIATE_TEST_SUITE_P), then SafeCaseName(case name) (results.h).
inline constexpr char kCaseTestPrefix[] = "KernelSuite/CaseTest.Run/";
// "KernelSuite/CaseTest.Run/demo_stride2": for --gtest_filter or GTEST_FILTER.
std::string GtestTestNameForCase(const std::string& case_name);

// How messages tell a person to record baselines: the command that runs the suite's CTest tests,
// and the CTest name of its topic tests. A suite program has its own (bankcheck/suite.h, from
// bankcheck_add_kernel_suite()); the defaults are a plain `ctest` in the build folder.
struct RecordCommand {
  // Runs the suite's tests and takes ctest's options: "ctest --test-dir /src/build", "ci/test.sh".
  std::string test_command = "ctest";
  // CTest runs the cases of topic T as one test, "<topic_test_prefix>/T". Empty: not known, so
  // commands select the topic in whichever suite has it.
  std::string topic_test_prefix;
  // Non-empty: the run took its baselines folder from BANKCHECK_BASELINES_DIR, and the commands
  // set it again so that they record into the same folder.
  std::string baselines_dir;

  // The CTest test that runs the case, that of its topic: "KernelSuite/demo"; empty without a prefix.
  std::string CtestNameForCase(const std::string& case_name) const;
  // An anchored `ctest -R` regex for that test: "^KernelSuite/demo$" (without a prefix: "/demo$").
  std::string CtestRegexForCase(const std::string& case_name) const;
  // Records this case only: "BANKCHECK_UPDATE_BASELINES=1
  // GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ctest -R '^KernelSuite/demo$'"
  std::string ForCase(const std::string& case_name) const;
  // Records every case of the suite: "BANKCHECK_UPDATE_BASELINES=1 ctest -R '^KernelSuite/'"
  std::string ForAll() const;
  // Runs the tests whose CTest names begin with `test_name_prefix` (every test when it is empty)
  // with `variable`=1: "BANKCHECK_PRUNE_BASELINES=1 ctest -R '^BaselineFilesTest\.'"
  std::string RunTestsWith(const std::string& variable, const std::string& test_name_prefix) const;
  // These commands as the core's messages take them (baseline.h).
  RecordAdvice Advice() const;
};

}  // namespace bankcheck::suites
