#pragma once
// The names a kernel suite gives its cases, how a person selects cases, and the commands its
// messages print to record baselines, handed to the core as a RecordAdvice.
//
// A case "<topic>/<rest>" (its topic: the name up to the first '/', one baseline file and one
// CTest test) of the suite whose TEST_PREFIX is "my_suite" (bankcheck_add_kernel_suite) is
//   my_scale/stride2            its name: the baseline key, what BANKCHECK_CASES selects
//   my_suite/my_scale.stride2   its GoogleTest and JUnit test (test suite "my_suite/my_scale")
//   my_suite/my_scale           the CTest test of its topic, which runs every case of the topic
//   my_suite/model/my_scale.stride2  its CPU model check (annotation_checks.cc), when it declares its
//                               access pattern: a GoogleTest test and a CTest test of its own
//   my_suite.baseline_files     the CPU check of the suite's baseline files (no case's)
// The CPU checks' CTest names are their GoogleTest names, after ANNOTATION_TEST_PREFIX if one is given.

#include <string>

#include "bankcheck/core/baseline.h"

namespace bankcheck::suites {

// The GoogleTest name of a case's test. Characters other than A-Z a-z 0-9 _ / become '_': '.'
// separates test suite and test, and ':', '-', '*', '?' mean something in GoogleTest's filters.
struct CaseTestName {
  std::string suite;  // "<test_prefix>/<topic>"; "<topic>" without a prefix
  std::string test;   // the case name after its topic's '/'; the whole name when nothing follows it
  // "<suite>.<test>": what --gtest_filter, GoogleTest's output and JUnit XML name.
  std::string Full() const { return suite + "." + test; }
};
CaseTestName GtestNameForCase(const std::string& test_prefix, const std::string& case_name);
// The prefix of the CPU model checks' names: GtestNameForCase(ModelCheckPrefix(test_prefix), case)
// is "<test_prefix>/model/<topic>.<rest>" ("model/<topic>.<rest>" without a prefix), so that the
// GPU test and the model check of a case share "<topic>.<rest>" and a topic's anchored ctest -R
// ("^my_suite/my_scale$") selects its GPU test alone.
std::string ModelCheckPrefix(const std::string& test_prefix);
// The GoogleTest name of the check of the suite's baseline files: "<test_prefix>.baseline_files"
// ("bankcheck.baseline_files" without a prefix). Not under "<test_prefix>/", so that recording every
// case (RecordCommand::ForAll) does not run it while the baselines change.
CaseTestName GtestNameForBaselineFilesCheck(const std::string& test_prefix);

// How messages tell a person to record baselines: the command that runs the suite's CTest tests,
// and the CTest name of its topic tests. A suite program has its own (bankcheck/suite/suite.h, from
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
  // BANKCHECK_UPDATE_BASELINES's value in the record commands: "1" (measured on a GPU), or "emulated"
  // where only the emulated program can record (first baselines, docs/emulate.md).
  std::string update_value = "1";

  // The CTest test that runs the case, that of its topic: "my_suite/demo"; empty without a prefix.
  std::string CtestNameForCase(const std::string& case_name) const;
  // An anchored `ctest -R` regex for that test alone: "^my_suite/demo$" (without a prefix:
  // "/demo$"), which does not select "my_suite/demo2".
  std::string CtestRegexForCase(const std::string& case_name) const;
  // Records this case only, the other cases of its topic skipped:
  // "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_CASES='demo/stride2' ctest -R '^my_suite/demo$'"
  std::string ForCase(const std::string& case_name) const;
  // Records every case of the suite: "BANKCHECK_UPDATE_BASELINES=1 ctest -R '^my_suite/'" (which
  // runs the suite's model checks too: they record nothing, and take milliseconds)
  std::string ForAll() const;
  // Runs the tests whose CTest names begin with `test_name_prefix` (every test when it is empty)
  // with `variable`=`value`: "BANKCHECK_PRUNE_BASELINES=1 ctest -R '^my_suite\.baseline_files'"
  std::string RunTestsWith(const std::string& variable, const std::string& test_name_prefix,
                           const std::string& value = "1") const;
  // These commands as the core's messages take them (baseline.h).
  RecordAdvice Advice() const;
};

}  // namespace bankcheck::suites
