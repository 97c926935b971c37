// Runs the built `bankcheck` binary's report, compare and merge-results commands as CI scripts do,
// and checks what they rely on: exit codes, where output goes, and that input files are untouched.
// The lines command: report_commands_lines_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"
#include "report_commands_fixture.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_support::CliRun;
using testing_support::ExpectUntouched;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::MakeVictim;
using testing_support::ModeOf;
using testing_support::Quoted;
using testing_support::ReadFile;
using testing_support::ReportCommandsTest;
using testing_support::RunCli;
using testing_support::ScopedUmask;
using testing_support::TemporaryFilesUnder;
using testing_support::Victim;
using testing_support::WithInstructions;
using testing_support::WriteFile;

// An improvement is a difference from OLD: it fails, as in the suite (README, "When a case fails").
TEST_F(ReportCommandsTest, CompareExitsOneOnAnImprovementZeroOnAMatchAndLeavesTheFilesAlone) {
  const auto before = WriteRun("old.json", 2048);
  const auto after = WriteRun("new.json", 64);
  const std::string before_text = ReadFile(before);
  const std::string after_text = ReadFile(after);
  CliRun run = Bankcheck("compare " + Quoted(before) + " " + Quoted(after));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("0 regressed, 1 improved"),
                             HasSubstr("| <code>transpose/naive</code> | improvement |"),
                             HasSubstr("**1 case fails: 1 improvement.**")));
  EXPECT_EQ(ReadFile(before), before_text);
  EXPECT_EQ(ReadFile(after), after_text);
  run = Bankcheck("compare " + Quoted(after) + " " + Quoted(after));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("No case fails."));
}

TEST_F(ReportCommandsTest, CompareExitsOneOnARegression) {
  const auto before = WriteRun("old.json", 64);
  const auto after = WriteRun("new.json", 2048);
  const std::string before_text = ReadFile(before);
  const CliRun run = Bankcheck("compare " + Quoted(before) + " " + Quoted(after));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, HasSubstr("| <code>transpose/naive</code> | **regression** | ld 0 → 1984 · st 0 |"));
  EXPECT_EQ(ReadFile(before), before_text);
}

TEST_F(ReportCommandsTest, CompareAcceptsABaselineFileAgainstAResultsFile) {
  UpdateBaselines(dir_ / "baselines", "sm_90", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(64)}}});
  const auto baseline = dir_ / "baselines" / "sm_90" / "transpose.json";
  const CliRun run = Bankcheck("compare " + Quoted(baseline) + " " + Quoted(WriteRun("new.json", 2048)));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, HasSubstr("(baseline, sm_90"));
}

TEST_F(ReportCommandsTest, CompareTakesABaselinesFolderForTheOtherSidesArchitecture) {
  UpdateBaselines(dir_ / "baselines", "sm_90", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(64)}}});
  UpdateBaselines(dir_ / "baselines", "sm_80", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(2048)}}});
  const auto results = WriteRun("new.json", 2048);
  CliRun run = Bankcheck("compare " + Quoted(dir_ / "baselines") + " " + Quoted(results));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("Old: <code>" + (dir_ / "baselines" / "sm_90").string() +
                                       "</code> (baselines, sm_90)"),
                             HasSubstr("| <code>transpose/naive</code> | **regression** |")));
  run = Bankcheck("compare " + Quoted(results) + " " + Quoted(dir_ / "baselines"));
  EXPECT_EQ(run.exit_code, 1) << run.err;  // an improvement differs from OLD too
  EXPECT_THAT(run.out, HasSubstr("| <code>transpose/naive</code> | improvement |"));
}

TEST_F(ReportCommandsTest, CompareWithAFolderNeedsAnArchitectureWithBaselines) {
  UpdateBaselines(dir_ / "baselines", "sm_80", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(64)}}});
  CliRun run = Bankcheck("compare " + Quoted(dir_ / "baselines") + " " + Quoted(WriteRun("new.json", 64)));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr((dir_ / "baselines" / "sm_90").string() + " does not exist"));
  RunResults skipped;  // a run without a GPU names no architecture
  skipped.cases["transpose/naive"].name = "transpose/naive";
  WriteResults(dir_ / "skipped.json", skipped);
  run = Bankcheck("compare " + Quoted(dir_ / "baselines") + " " + Quoted(dir_ / "skipped.json"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("names no GPU architecture"));
  run = Bankcheck("compare " + Quoted(dir_ / "baselines") + " " + Quoted(dir_ / "baselines"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("both folders"));
}

TEST_F(ReportCommandsTest, CompareExitsTwoOnUnreadableInputNamingFileAndPosition) {
  const auto good = WriteRun("good.json", 64);
  const std::string damaged = "{\"format\": \"bankcheck-results\",\n  \"version\": 1,\n  \"cases\": [}\n";
  WriteFile(dir_ / "bad.json", damaged);
  const std::string good_text = ReadFile(good);
  CliRun run = Bankcheck("compare " + Quoted(good) + " " + Quoted(dir_ / "bad.json"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr((dir_ / "bad.json").string() + ":3:13: invalid JSON"));
  EXPECT_THAT(run.out, IsEmpty());
  EXPECT_EQ(ReadFile(dir_ / "bad.json"), damaged);
  EXPECT_EQ(ReadFile(good), good_text);

  run = Bankcheck("compare " + Quoted(dir_ / "absent.json") + " " + Quoted(good));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr((dir_ / "absent.json").string() + ": cannot be read"));
  // -o is not written when an input is bad.
  run = Bankcheck("compare " + Quoted(good) + " " + Quoted(dir_ / "bad.json") + " -o " +
                  Quoted(dir_ / "out.md"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.md"));
  // A missing argument is bad input too.
  EXPECT_EQ(Bankcheck("compare " + Quoted(good)).exit_code, 2);
}

TEST_F(ReportCommandsTest, ReportPrintsMarkdownOrWritesAFile) {
  const auto results = WriteRun("results.json", 2048);
  CliRun run = Bankcheck("report " + Quoted(results));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("## bankcheck: sm_90"), HasSubstr("### transpose")));
  run = Bankcheck("report " + Quoted(results) + " -o " + Quoted(dir_ / "report.md"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(ReadFile(dir_ / "report.md"), HasSubstr("## bankcheck: sm_90"));
}

TEST_F(ReportCommandsTest, MaxBytesBoundsReportAndCompareAndZeroLiftsTheBound) {
  const auto before = WriteRun("old.json", 64);
  const auto after = WriteRun("new.json", 2048);
  CliRun run = Bankcheck("report " + Quoted(after) + " --max-bytes 1");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("## bankcheck: sm_90"),
                             HasSubstr("> **Not shown:** 1 more case, to keep this report under 1 bytes"),
                             HasSubstr("the results file <code>" + after.string() + "</code>"),
                             Not(HasSubstr("### transpose"))));
  run = Bankcheck("report " + Quoted(after) + " --max-bytes 0");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("### transpose"), Not(HasSubstr("Not shown"))));
  run = Bankcheck("compare " + Quoted(before) + " " + Quoted(after) + " --max-bytes 1");
  EXPECT_EQ(run.exit_code, 1) << run.err;  // the regression still decides the exit status
  EXPECT_THAT(run.out, AllOf(HasSubstr("**1 regressed**"), HasSubstr("> **Not shown:** 1 more case"),
                             Not(HasSubstr("<code>transpose/naive</code>"))));
  run = Bankcheck("report " + Quoted(after) + " --max-bytes -1");
  EXPECT_EQ(run.exit_code, 2) << run.out;
}

TEST_F(ReportCommandsTest, ReportWithBaselinesComparesWithThem) {
  const auto results = WriteRun("results.json", 2048);
  UpdateBaselines(dir_ / "baselines", "sm_90", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(64)}}});
  const CliRun run = Bankcheck("report " + Quoted(results) + " --baselines " + Quoted(dir_ / "baselines"));
  EXPECT_EQ(run.exit_code, 1) << run.err;  // a regression: as compare
  EXPECT_THAT(run.out, HasSubstr("**regression**"));
}

TEST_F(ReportCommandsTest, ReportWithBaselinesOfAnotherArchitectureOrNoneSaysSo) {
  // No folder for the results' architecture: every case is missing (as in the suite), the report
  // says why, and --allow-missing lets them pass.
  UpdateBaselines(dir_ / "baselines", "sm_80", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(64)}}});
  const auto results = WriteRun("results.json", 2048);
  CliRun run = Bankcheck("report " + Quoted(results) + " --baselines " + Quoted(dir_ / "baselines"));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("Baselines: no baselines for sm_90"), HasSubstr("0 regressions"),
                             HasSubstr("1 missing baseline"), HasSubstr("**1 case fails: 1 missing.**")));
  run = Bankcheck("report " + Quoted(results) + " --baselines " + Quoted(dir_ / "baselines") +
                  " --allow-missing");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  // A run that skipped names no architecture: nothing to load, the stored comparison is shown.
  RunResults skipped;
  skipped.cases["transpose/naive"].name = "transpose/naive";
  WriteResults(dir_ / "skipped.json", skipped);
  run = Bankcheck("report " + Quoted(dir_ / "skipped.json") + " --baselines " + Quoted(dir_ / "baselines"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("Baselines: not compared (the results name no GPU architecture"));
}

TEST_F(ReportCommandsTest, ReportWithAMalformedBaselineExitsTwoNamingIt) {
  const auto results = WriteRun("results.json", 2048);
  WriteFile(dir_ / "baselines" / "sm_90" / "transpose.json", "[");
  const CliRun run = Bankcheck("report " + Quoted(results) + " --baselines " + Quoted(dir_ / "baselines"));
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_THAT(run.err, HasSubstr((dir_ / "baselines" / "sm_90" / "transpose.json").string()));
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST_F(ReportCommandsTest, ReportComparesWithTheFolderTheEnvironmentNames) {
  // As the suite's run does: BANKCHECK_BASELINES_DIR in place of the run's stored comparison.
  const auto results = WriteRun("results.json", 2048);
  UpdateBaselines(dir_ / "baselines", "sm_90", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(64)}}});
  EXPECT_THAT(Bankcheck("report " + Quoted(results)).out, Not(HasSubstr("**regression**")));
  ::setenv("BANKCHECK_BASELINES_DIR", (dir_ / "baselines").c_str(), 1);
  const CliRun run = Bankcheck("report " + Quoted(results));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out,
              AllOf(HasSubstr("compared with <code>" + (dir_ / "baselines" / "sm_90").string() + "</code>"),
                    HasSubstr("**regression**")));
}

// One exit status for report and compare: 0 no case fails, 1 some case fails, 2 usage or input error.
TEST_F(ReportCommandsTest, ReportAndCompareShareOneExitStatus) {
  const auto before = WriteRun("old.json", 64);
  const auto after = WriteRun("new.json", 2048);
  UpdateBaselines(dir_ / "baselines", "sm_90", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(64)}}});
  for (const std::string format : {"markdown", "text", "json"}) {
    SCOPED_TRACE(format);
    EXPECT_EQ(Bankcheck("report " + Quoted(before) + " --format " + format).exit_code, 0);
    EXPECT_EQ(Bankcheck("report " + Quoted(after) + " --baselines " + Quoted(dir_ / "baselines") +
                        " --format " + format)
                  .exit_code,
              1);
    EXPECT_EQ(Bankcheck("compare " + Quoted(before) + " " + Quoted(before) + " --format " + format).exit_code,
              0);
    EXPECT_EQ(Bankcheck("compare " + Quoted(before) + " " + Quoted(after) + " --format " + format).exit_code,
              1);
  }
  CliRun run = Bankcheck("report " + Quoted(before) + " --format yaml");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--format"));
  EXPECT_EQ(Bankcheck("compare " + Quoted(before) + " " + Quoted(after) + " --format html").exit_code, 2);
  EXPECT_EQ(Bankcheck("report " + Quoted(dir_ / "absent.json")).exit_code, 2);
  EXPECT_EQ(Bankcheck("compare " + Quoted(before)).exit_code, 2);
}

TEST_F(ReportCommandsTest, JsonOutputsParseAndCountWhatTheMarkdownCounts) {
  const auto before = WriteRun("old.json", 64);
  const auto after = WriteRun("new.json", 2048);
  UpdateBaselines(dir_ / "baselines", "sm_90", MakeMetadata(), {{"transpose/naive", "", {MakeRecord(64)}}});
  const std::string baselines = " --baselines " + Quoted(dir_ / "baselines");
  CliRun run = Bankcheck("report " + Quoted(after) + baselines + " --format json");
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["format"], "bankcheck-report");
  EXPECT_EQ(report["totals"]["regressions"], 1);
  ASSERT_EQ(report["regressions"].size(), 1u);
  EXPECT_EQ(report["regressions"][0]["name"], "transpose/naive");
  EXPECT_EQ(report["regressions"][0]["verdict"], "regression");
  EXPECT_THAT(report["regressions"][0]["differences"][0].get<std::string>(),
              HasSubstr("wavefronts 64 -> 2048"));
  EXPECT_THAT(Bankcheck("report " + Quoted(after) + baselines).out,
              HasSubstr("**1 regression**, 0 improvements"));

  run = Bankcheck("compare " + Quoted(before) + " " + Quoted(after) + " --format json");
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const nlohmann::json compare = nlohmann::json::parse(run.out);
  EXPECT_EQ(compare["format"], "bankcheck-compare");
  EXPECT_EQ(compare["totals"]["regressions"], 1);
  EXPECT_EQ(compare["regressions"][0]["name"], "transpose/naive");
  EXPECT_THAT(Bankcheck("compare " + Quoted(before) + " " + Quoted(after)).out,
              HasSubstr("**1 regressed**, 0 improved, 0 changed, 0 unchanged; 0 new, 0 removed"));

  run = Bankcheck("compare " + Quoted(before) + " " + Quoted(after) + " --format text");
  EXPECT_THAT(run.out, AllOf(HasSubstr("1 regressed, 0 improved"), HasSubstr("transpose/naive  regression"),
                             Not(HasSubstr("**")), Not(HasSubstr("<code>")), Not(HasSubstr("| "))));
}

// A baselines folder against the results of one topic: the other topics' cases are not "removed".
TEST_F(ReportCommandsTest, CompareOfASubsetListsNoRemovedCasesUnlessAll) {
  UpdateBaselines(dir_ / "baselines", "sm_90", MakeMetadata(),
                  {{"transpose/naive", "", {MakeRecord(64)}}, {"reduce/plain", "", {MakeRecord(64)}}});
  const auto results = WriteRun("new.json", 64);  // transpose/naive only
  const std::string command = "compare " + Quoted(dir_ / "baselines") + " " + Quoted(results);
  CliRun run = Bankcheck(command);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("1 unchanged; 0 new, 0 removed"), Not(HasSubstr("Removed cases")),
                             Not(HasSubstr("reduce/plain")), HasSubstr("`--all` lists them as removed")));
  nlohmann::json json = nlohmann::json::parse(Bankcheck(command + " --format json").out);
  EXPECT_EQ(json["totals"]["removed"], 0);
  EXPECT_EQ(json["totals"]["left_out"], 1);
  EXPECT_TRUE(json["removed"].empty());

  run = Bankcheck(command + " --all");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              AllOf(HasSubstr("0 new, 1 removed"),
                    HasSubstr("Removed cases (only in the old file):\n\n- <code>reduce/plain</code>")));
  json = nlohmann::json::parse(Bankcheck(command + " --all --format json").out);
  EXPECT_EQ(json["removed"], nlohmann::json::array({"reduce/plain"}));
}

TEST_F(ReportCommandsTest, ReportOfAMalformedFileExitsTwo) {
  WriteFile(dir_ / "results.json", "{\"format\": \"bankcheck-results\", \"version\": \"one\"}");
  const CliRun run = Bankcheck("report " + Quoted(dir_ / "results.json"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("version must be a non-negative integer"));
}

TEST_F(ReportCommandsTest, InputBeyondTheLimitsExitsTwoNamingTheLimit) {
  for (const std::string command : {"report ", "lines ", "compare /dev/zero "}) {
    SCOPED_TRACE(command);
    const CliRun run = Bankcheck(command + "/dev/zero");
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, AllOf(HasSubstr("/dev/zero: larger than 64 MiB"), HasSubstr("limits.h")));
  }
}

TEST_F(ReportCommandsTest, MergeResultsWritesOneFile) {
  WriteCaseResult(dir_ / "run", MakeMetadata(),
                  CaseResult{"transpose/a", "", CaseStatus::kPassed, DefaultExpectedWays(), {}, {}, "", {}});
  WriteCaseResult(dir_ / "run", MakeMetadata(),
                  CaseResult{"transpose/b", "", CaseStatus::kSkipped, DefaultExpectedWays(), {}, {}, "", {}});
  CliRun run = Bankcheck("merge-results " + Quoted(dir_ / "run"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("(2 cases)"));
  EXPECT_EQ(ReadResults(dir_ / "run" / "results.json").cases.size(), 2u);
  run = Bankcheck("merge-results " + Quoted(dir_ / "run") + " -o " + Quoted(dir_ / "merged.json"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ReadResults(dir_ / "merged.json").cases.size(), 2u);
  // No fragments: bad input.
  std::filesystem::create_directory(dir_ / "empty");
  run = Bankcheck("merge-results " + Quoted(dir_ / "empty"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("no case results in"));
}

// Every command that writes a file it is given (-o, --svg), with its inputs made here: each is
// followed by the output's path. (bankcheck_benchmark_plot's `-o` is checked in
// benchmarks/plot/plot_test.cc.)
class OutputPathTest : public ReportCommandsTest {
 protected:
  void SetUp() override {
    ReportCommandsTest::SetUp();
    const auto results = Quoted(WriteRun("results.json", 64));
    WriteCaseResult(
        dir_ / "run", MakeMetadata(),
        CaseResult{"transpose/a", "", CaseStatus::kPassed, DefaultExpectedWays(), {}, {}, "", {}});
    commands_ = {"report " + results + " -o ", "compare " + results + " " + results + " -o ",
                 "merge-results " + Quoted(dir_ / "run") + " -o ", "explain --bytes 4 --stride 2 --svg "};
    std::filesystem::create_directory(dir_ / "out");
  }

  std::vector<std::string> commands_;
};

TEST_F(OutputPathTest, ALinkAtTheOutputIsRefusedAndItsTargetKept) {
  const Victim victim = MakeVictim(dir_ / "victim");
  const auto out = dir_ / "out" / "file";
  for (const std::string& command : commands_) {
    SCOPED_TRACE(command);
    for (const auto& target : {victim.path, dir_ / "out" / "created-by-the-link"}) {
      std::filesystem::create_symlink(target, out);
      const CliRun run = Bankcheck(command + Quoted(out));
      EXPECT_EQ(run.exit_code, 2) << run.out;
      EXPECT_THAT(run.err, AllOf(HasSubstr("bankcheck: error: refusing to write " + out.string()),
                                 HasSubstr("symbolic link"), HasSubstr("remove the link")));
      EXPECT_TRUE(std::filesystem::is_symlink(out));
      std::filesystem::remove(out);
    }
    ExpectUntouched(victim);
    EXPECT_FALSE(std::filesystem::exists(dir_ / "out" / "created-by-the-link"));
  }
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(OutputPathTest, LinksAtTheOldTemporaryNamesAndHardLinksAreNotWrittenThrough) {
  const Victim victim = MakeVictim(dir_ / "victim");
  const Victim hard = MakeVictim(dir_ / "hard-victim");
  const auto out = dir_ / "out" / "file";
  for (const std::string& command : commands_) {
    SCOPED_TRACE(command);
    std::filesystem::create_symlink(victim.path, out.string() + ".tmp");  // explain --svg's old name
    std::filesystem::create_hard_link(hard.path, out);
    const CliRun run = Bankcheck(command + Quoted(out));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(ReadFile(out), hard.content);
    ExpectUntouched(victim);
    ExpectUntouched(hard);
    std::filesystem::remove(out);
    std::filesystem::remove(out.string() + ".tmp");
  }
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(OutputPathTest, ModesAreKeptAndNeverWorldWritable) {
  const ScopedUmask no_mask(0);
  const auto out = dir_ / "out" / "file";
  for (const std::string& command : commands_) {
    SCOPED_TRACE(command);
    ASSERT_EQ(Bankcheck(command + Quoted(out)).exit_code, 0);
    EXPECT_EQ(ModeOf(out), 0644u);
    std::filesystem::permissions(out, std::filesystem::perms(0600));
    ASSERT_EQ(Bankcheck(command + Quoted(out)).exit_code, 0);
    EXPECT_EQ(ModeOf(out), 0600u);
    std::filesystem::remove(out);
  }
}

TEST_F(OutputPathTest, NoOutputCreatesFoldersAndNothingButAFileIsReplaced) {
  for (const std::string& command : commands_) {
    SCOPED_TRACE(command);
    // One -o behaviour: no command creates folders; the error names the path given and what to do.
    const auto absent = dir_ / "absent" / "deeper" / "file";
    CliRun run = Bankcheck(command + Quoted(absent));
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.err, "bankcheck: error: cannot write " + absent.string() + ": its folder " +
                           absent.parent_path().string() +
                           " does not exist; create it first; the file was not written\n");
    EXPECT_FALSE(std::filesystem::exists(dir_ / "absent"));
    run = Bankcheck(command + Quoted(dir_ / "out"));
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr("not a regular file"));
    EXPECT_TRUE(std::filesystem::is_directory(dir_ / "out"));
  }
}

}  // namespace
}  // namespace bankcheck
