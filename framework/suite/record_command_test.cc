#include "suite/internal/record_command.h"

#include <gtest/gtest.h>

#include <regex>

namespace bankcheck::suites {
namespace {

// A consumer's suite, as bankcheck_add_kernel_suite(my_suite ...) in /src/app describes it.
const RecordCommand kMySuite{"ctest --test-dir /src/app/build", "my_suite", ""};

TEST(CaseNamesTest, TheGoogleTestNameIsTheSuitesPrefixTheTopicAndTheRest) {
  const CaseTestName name = GtestNameForCase("my_suite", "my_scale/stride2");
  EXPECT_EQ(name.suite, "my_suite/my_scale");
  EXPECT_EQ(name.test, "stride2");
  EXPECT_EQ(name.Full(), "my_suite/my_scale.stride2");
  // The rest keeps its '/'; what GoogleTest's filters or names read otherwise becomes '_'.
  EXPECT_EQ(GtestNameForCase("KernelSuite", "transpose/padded-33/4096").Full(),
            "KernelSuite/transpose.padded_33/4096");
  EXPECT_EQ(GtestNameForCase("my.suite", "a:b/c*d?e.f").Full(), "my_suite/a_b.c_d_e_f");
  // Without a prefix (a program not made by bankcheck_add_kernel_suite), and without a '/'.
  EXPECT_EQ(GtestNameForCase("", "fault_demo/a_before").Full(), "fault_demo.a_before");
  EXPECT_EQ(GtestNameForCase("my_suite", "single").Full(), "my_suite/single.single");
  EXPECT_EQ(GtestNameForCase("my_suite", "single/").Full(), "my_suite/single.single/");
}

TEST(CaseNamesTest, TheModelCheckIsTheCasesNameUnderModel) {
  const CaseTestName name = GtestNameForCase(ModelCheckPrefix("my_suite"), "my_scale/stride2");
  EXPECT_EQ(name.suite, "my_suite/model/my_scale");
  EXPECT_EQ(name.test, "stride2");
  // The GPU test's "<topic>.<rest>" after the suite and "model/".
  EXPECT_EQ(name.Full(), "my_suite/model/" + GtestNameForCase("", "my_scale/stride2").Full());
  EXPECT_EQ(GtestNameForCase(ModelCheckPrefix("KernelSuite"), "transpose/padded-33/4096").Full(),
            "KernelSuite/model/transpose.padded_33/4096");
  EXPECT_EQ(GtestNameForCase(ModelCheckPrefix(""), "demo/stride2").Full(), "model/demo.stride2");
}

TEST(CaseNamesTest, TheBaselineFilesCheckIsTheSuites) {
  EXPECT_EQ(GtestNameForBaselineFilesCheck("my_suite").Full(), "my_suite.baseline_files");
  EXPECT_EQ(GtestNameForBaselineFilesCheck("my.suite").Full(), "my_suite.baseline_files");
  EXPECT_EQ(GtestNameForBaselineFilesCheck("").Full(), "bankcheck.baseline_files");
}

TEST(CaseNamesTest, ATopicsRegexAndRecordingEverythingSelectNoBaselineFilesCheck) {
  const std::string model_check = GtestNameForCase(ModelCheckPrefix("my_suite"), "transpose/padded").Full();
  const std::string baseline_files = GtestNameForBaselineFilesCheck("my_suite").Full();
  // A topic's test alone: not the model checks of its cases.
  const std::regex topic(kMySuite.CtestRegexForCase("transpose/padded"), std::regex::extended);
  EXPECT_FALSE(std::regex_search(model_check, topic));
  EXPECT_FALSE(std::regex_search(baseline_files, topic));
  // Every test of the suite but the baseline files check, whose files the recording changes.
  const std::regex all("^my_suite/", std::regex::extended);
  EXPECT_EQ(kMySuite.ForAll(),
            "BANKCHECK_UPDATE_BASELINES=1 ctest --test-dir /src/app/build -R '^my_suite/'");
  EXPECT_TRUE(std::regex_search(model_check, all));
  EXPECT_FALSE(std::regex_search(baseline_files, all));
}

TEST(CaseNamesTest, TheCtestNameIsThatOfTheTopicSelectedExactly) {
  EXPECT_EQ(kMySuite.CtestNameForCase("demo/stride2"), "my_suite/demo");
  EXPECT_EQ(kMySuite.CtestRegexForCase("transpose/padded"), "^my_suite/transpose$");
  // Selects its topic's test and no other (ctest -R searches the names with such a regex).
  const std::regex topic(kMySuite.CtestRegexForCase("transpose/padded"), std::regex::extended);
  EXPECT_TRUE(std::regex_search("my_suite/transpose", topic));
  EXPECT_FALSE(std::regex_search("my_suite/transpose16", topic));
  EXPECT_FALSE(std::regex_search("other_suite/transpose", topic));
  EXPECT_EQ((RecordCommand{"ctest", "my.suite", ""}.CtestRegexForCase("my.demo/stride2")),
            "^my\\.suite/my\\.demo$");
}

TEST(RecordCommandTest, NamesTheSuitesOwnTestAndCommand) {
  EXPECT_EQ(kMySuite.ForCase("demo/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_CASES='demo/stride2' ctest --test-dir /src/app/build -R "
            "'^my_suite/demo$'");
  EXPECT_EQ(kMySuite.ForAll(),
            "BANKCHECK_UPDATE_BASELINES=1 ctest --test-dir /src/app/build -R '^my_suite/'");
  // bankcheck's own suite runs its tests through its script.
  const RecordCommand own{"ci/test.sh", "KernelSuite", ""};
  EXPECT_EQ(own.ForCase("demo/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_CASES='demo/stride2' ci/test.sh -R '^KernelSuite/demo$'");
  // A name with glob characters is escaped, and quoted for the shell; its topic is file-safe (TopicOfCase).
  EXPECT_EQ(
      own.ForCase("it's/a*b"),
      "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_CASES='it'\\''s/a\\*b' ci/test.sh -R '^KernelSuite/it_s$'");
}

TEST(RecordCommandTest, AFolderFromTheEnvironmentIsSetAgainQuoted) {
  RecordCommand record = kMySuite;
  record.baselines_dir = "/tmp/it's here";
  EXPECT_EQ(record.ForCase("demo/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR='/tmp/it'\\''s here' "
            "BANKCHECK_CASES='demo/stride2' ctest --test-dir /src/app/build -R '^my_suite/demo$'");
  EXPECT_EQ(record.ForAll(),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR='/tmp/it'\\''s here' ctest --test-dir "
            "/src/app/build -R '^my_suite/'");
}

TEST(RecordCommandTest, WithoutASuiteItIsAPlainCtestOfTheTopic) {
  // What the CLI knows: no suite, so any suite's test of that topic, run from the build folder.
  const RecordCommand unknown;
  EXPECT_EQ(unknown.CtestNameForCase("demo/stride2"), "");
  EXPECT_EQ(unknown.ForCase("demo/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_CASES='demo/stride2' ctest -R '/demo$'");
  EXPECT_EQ(unknown.ForAll(), "BANKCHECK_UPDATE_BASELINES=1 ctest");
}

TEST(RecordCommandTest, TheCoreGetsTheSameCommandsAsAdvice) {
  const RecordAdvice advice = kMySuite.Advice();
  EXPECT_EQ(advice.ForAll(), kMySuite.ForAll());
  EXPECT_EQ(advice.ForCase("demo/stride2"), kMySuite.ForCase("demo/stride2"));
  EXPECT_EQ(advice.TestOfCase("demo/stride2"), "my_suite/demo");
  EXPECT_EQ(RecordCommand{}.Advice().TestOfCase("demo/stride2"), "");
}

TEST(RecordCommandTest, RunsTestsByTheBeginningOfTheirNames) {
  EXPECT_EQ(kMySuite.RunTestsWith("BANKCHECK_PRUNE_BASELINES", "my_suite.baseline_files"),
            "BANKCHECK_PRUNE_BASELINES=1 ctest --test-dir /src/app/build -R '^my_suite\\.baseline_files'");
  EXPECT_EQ(kMySuite.RunTestsWith("BANKCHECK_PRUNE_BASELINES", ""),
            "BANKCHECK_PRUNE_BASELINES=1 ctest --test-dir /src/app/build");
}

}  // namespace
}  // namespace bankcheck::suites
