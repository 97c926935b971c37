// `bankcheck report --format github|sarif` as a CI job runs it: paths relative to --source-root,
// line annotations read only from files under it, the options' errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"

#ifndef BANKCHECK_CLI_PATH
#error "BANKCHECK_CLI_PATH must name the bankcheck binary"
#endif

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::CliRun;
using testing_support::MakeInstruction;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::Quoted;
using testing_support::ReadFile;
using testing_support::RunCli;
using testing_support::WriteFile;

class ReportFormatsTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ::unsetenv("BANKCHECK_BASELINES_DIR");
    ::unsetenv("BANKCHECK_SOURCE_ROOT");
    root_ = std::filesystem::canonical(dir_) / "repo";
    outside_ = std::filesystem::canonical(dir_) / "elsewhere";
    // Line 3 says conflict-free; the run measures it 2-way. The same file outside the root is
    // never read, so its lines are not checked.
    const std::string source = "x;\ny;\nv = t[i];  // bankcheck: conflict-free\n";
    WriteFile(root_ / "kernels" / "t.cu", source);
    WriteFile(outside_ / "t.cu", source);
  }

  CliRun Bankcheck(const std::string& arguments) { return RunCli(BANKCHECK_CLI_PATH, arguments, dir_); }

  // One case per file, each 2-way at line 3 of its file; the case's baseline matches.
  std::filesystem::path WriteRun(const std::string& case_name) {
    RunResults results;
    results.metadata = MakeMetadata();
    const auto add = [&](const std::string& name, const std::filesystem::path& file) {
      CaseResult& result = results.cases[name];
      result.name = name;
      result.status = CaseStatus::kFailed;
      result.baseline = BaselineVerdict::kMatch;
      LaunchRecord launch = MakeRecord(128);
      launch.instructions = {
          MakeInstruction(0x10, "LDS", MemoryKind::kSharedLoad, 3, 64, 128, 64, file.string())};
      launch.attributed_launches = 1;
      result.launches = {launch};
    };
    add(case_name, root_ / "kernels" / "t.cu");
    add("outside/case", outside_ / "t.cu");
    const auto path = dir_ / "results.json";
    WriteResults(path, results);
    return path;
  }

  std::filesystem::path root_, outside_;
};

TEST_F(ReportFormatsTest, GithubPlacesTheFailingLineRelativeToTheSourceRoot) {
  const auto results = WriteRun("transpose/naive");
  const std::string line_failure =
      "::error file=kernels/t.cu,line=3,title=bankcheck%3A line mismatch (transpose/naive)::annotated "
      "conflict-free, measured 2-way (LDS: 128 wavefronts, 64 ideal); write `// bankcheck: 2-way` if that is "
      "intended%0ACase: transpose/naive\n";
  const CliRun run =
      Bankcheck("report " + Quoted(results) + " --format github --source-root " + Quoted(root_));
  EXPECT_EQ(run.exit_code, 1) << run.err;  // its cases failed (README: When a case fails)
  EXPECT_THAT(run.out, AllOf(HasSubstr(line_failure),
                             HasSubstr("::error file=kernels/t.cu,line=3,title=bankcheck%3A failed "
                                       "(transpose/naive)::transpose/naive: failed its checks."),
                             // Outside the root: not read, so not checked, and shown without a place.
                             HasSubstr("::error title=bankcheck%3A failed (outside/case)::"),
                             Not(HasSubstr("line mismatch (outside/case)"))));
  // BANKCHECK_SOURCE_ROOT is the default, as for `lines` and `annotate`.
  ::setenv("BANKCHECK_SOURCE_ROOT", root_.c_str(), 1);
  const CliRun from_environment = Bankcheck("report " + Quoted(results) + " --format github");
  ::unsetenv("BANKCHECK_SOURCE_ROOT");
  EXPECT_THAT(from_environment.out, HasSubstr(line_failure)) << from_environment.err;
}

TEST_F(ReportFormatsTest, ALinkOutOfTheSourceRootIsNotRead) {
  std::filesystem::create_symlink(outside_ / "t.cu", root_ / "kernels" / "link.cu");
  RunResults results;
  CaseResult& result = results.cases["t/link"];
  result.name = "t/link";
  LaunchRecord launch = MakeRecord(128);
  launch.instructions = {MakeInstruction(0x10, "LDS", MemoryKind::kSharedLoad, 3, 64, 128, 64,
                                         (root_ / "kernels" / "link.cu").string())};
  launch.attributed_launches = 1;
  result.launches = {launch};
  WriteResults(dir_ / "results.json", results);
  const CliRun run = Bankcheck("report " + Quoted(dir_ / "results.json") + " --format github --source-root " +
                               Quoted(root_));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, Not(HasSubstr("::error")));
}

TEST_F(ReportFormatsTest, SarifGoesToTheFileWithItsCategory) {
  const auto results = WriteRun("transpose/naive");
  const auto sarif_path = dir_ / "my_suite.sarif";
  const CliRun run =
      Bankcheck("report " + Quoted(results) + " --format sarif --category bankcheck/my_suite " +
                "--source-root " + Quoted(root_) + " -o " + Quoted(sarif_path));
  EXPECT_EQ(run.exit_code, 1) << run.err;  // as for every format: its cases failed
  EXPECT_EQ(run.out, "");
  const nlohmann::json sarif = nlohmann::json::parse(ReadFile(sarif_path));
  EXPECT_EQ(sarif["version"], "2.1.0");
  const nlohmann::json& run_object = sarif["runs"][0];
  EXPECT_EQ(run_object["automationDetails"]["id"], "bankcheck/my_suite/");
  ASSERT_EQ(run_object["results"].size(), 2u);  // the line, and its case at it
  const nlohmann::json& location = run_object["results"][0]["locations"][0]["physicalLocation"];
  EXPECT_EQ(location["artifactLocation"]["uri"], "kernels/t.cu");
  EXPECT_EQ(location["region"]["startLine"], 3);
  EXPECT_EQ(run_object["results"][0]["ruleId"], "line-mismatch");
}

TEST_F(ReportFormatsTest, BadOptionsAreUsageErrors) {
  const auto results = WriteRun("transpose/naive");
  CliRun run = Bankcheck("report " + Quoted(results) + " --format sarif --category 'a b'");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("'a b' is no category"));
  run = Bankcheck("report " + Quoted(results) + " --format github --source-root " + Quoted(dir_ / "none"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, AllOf(HasSubstr("bankcheck: error: the source root"), HasSubstr("is not a folder")));
  EXPECT_EQ(run.out, "");
  // compare has no per-line data: github and sarif are report's.
  run = Bankcheck("compare " + Quoted(results) + " " + Quoted(results) + " --format github");
  EXPECT_EQ(run.exit_code, 2);
}

}  // namespace
}  // namespace bankcheck
