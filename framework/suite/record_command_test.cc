#include "suite/internal/record_command.h"

#include <gtest/gtest.h>

#include "bankcheck/results.h"

namespace bankcheck::suites {
namespace {

// A consumer's suite, as bankcheck_add_kernel_suite(my_suite ...) in /src/app describes it.
const RecordCommand kMySuite{"ctest --test-dir /src/app/build", "my_suite", ""};

TEST(CaseNamesTest, TestNamesAndTheRecordCommandComeFromTheCaseName) {
  EXPECT_EQ(SafeCaseName("transpose/padded-33/4096"), "transpose_padded_33_4096");
  EXPECT_EQ(GtestTestNameForCase("demo/stride2"), "KernelSuite/CaseTest.Run/demo_stride2");
  EXPECT_EQ(kMySuite.CtestNameForCase("demo/stride2"), "my_suite/demo");
  EXPECT_EQ((RecordCommand{"ctest", "my.suite", ""}.CtestRegexForCase("my.demo/stride2")),
            "^my\\.suite/my\\.demo$");
}

TEST(RecordCommandTest, NamesTheSuitesOwnTestAndCommand) {
  EXPECT_EQ(
      kMySuite.ForCase("demo/stride2"),
      "BANKCHECK_UPDATE_BASELINES=1 GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ctest --test-dir "
      "/src/app/build -R '^my_suite/demo$'");
  EXPECT_EQ(kMySuite.ForAll(),
            "BANKCHECK_UPDATE_BASELINES=1 ctest --test-dir /src/app/build -R '^my_suite/'");
  // bankcheck's own suite runs its tests through its script.
  const RecordCommand own{"ci/test.sh", "KernelSuite", ""};
  EXPECT_EQ(own.ForCase("demo/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ci/test.sh -R "
            "'^KernelSuite/demo$'");
}

TEST(RecordCommandTest, AFolderFromTheEnvironmentIsSetAgainQuoted) {
  RecordCommand record = kMySuite;
  record.baselines_dir = "/tmp/it's here";
  EXPECT_EQ(record.ForCase("demo/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR='/tmp/it'\\''s here' "
            "GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ctest --test-dir /src/app/build -R "
            "'^my_suite/demo$'");
  EXPECT_EQ(record.ForAll(),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR='/tmp/it'\\''s here' ctest --test-dir "
            "/src/app/build -R '^my_suite/'");
}

TEST(RecordCommandTest, WithoutASuiteItIsAPlainCtestOfTheTopic) {
  // What the CLI knows: no suite, so any suite's test of that topic, run from the build folder.
  const RecordCommand unknown;
  EXPECT_EQ(unknown.CtestNameForCase("demo/stride2"), "");
  EXPECT_EQ(
      unknown.ForCase("demo/stride2"),
      "BANKCHECK_UPDATE_BASELINES=1 GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ctest -R '/demo$'");
  EXPECT_EQ(unknown.ForAll(), "BANKCHECK_UPDATE_BASELINES=1 ctest");
}

TEST(RecordCommandTest, TheCoreGetsTheSameCommandsAsAdvice) {
  const RecordAdvice advice = kMySuite.Advice();
  EXPECT_EQ(advice.ForAll(), kMySuite.ForAll());
  EXPECT_EQ(advice.ForCase("demo/stride2"), kMySuite.ForCase("demo/stride2"));
  EXPECT_EQ(advice.TestOfCase("demo/stride2"), "my_suite/demo");
  EXPECT_EQ(RecordCommand{}.Advice().TestOfCase("demo/stride2"), "");
}

}  // namespace
}  // namespace bankcheck::suites
