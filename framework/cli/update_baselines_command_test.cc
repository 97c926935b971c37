// Runs the built `bankcheck update-baselines` on results files in a temporary folder: the baseline
// files it writes, the summary it prints, and what it leaves alone.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"

#ifndef BANKCHECK_CLI_PATH
#error "BANKCHECK_CLI_PATH must name the bankcheck binary"
#endif

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_support::CliRun;
using testing_support::MakeBaselineFile;
using testing_support::MakeLine;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::Quoted;
using testing_support::ReadFile;
using testing_support::RunCli;
using testing_support::TemporaryFilesUnder;
using testing_support::WriteFile;

class UpdateBaselinesCommandTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ::unsetenv("BANKCHECK_BASELINES_DIR");
    baselines_ = dir_ / "baselines";
    transpose_file_ = baselines_ / "sm_90" / "transpose.json";
    reduce_file_ = baselines_ / "sm_90" / "reduce.json";
    // transpose.json: naive at 2048 load wavefronts (1984 conflicts), padded at 64; recorded
    // with an older driver than the run's.
    BaselineFile file = MakeBaselineFile();
    file.recorded_with.driver = "570.86.10";
    WriteFile(transpose_file_, SerializeBaselineFile(file));
  }
  void TearDown() override {
    ::unsetenv("BANKCHECK_BASELINES_DIR");
    TempDirTest::TearDown();
  }

  CliRun Bankcheck(const std::string& arguments) { return RunCli(BANKCHECK_CLI_PATH, arguments, dir_); }

  // A run in which transpose/naive regressed (4096 load wavefronts), transpose/padded matched,
  // reduce/new has no baseline, skipped/gpu was skipped and failed/early measured nothing.
  std::filesystem::path WriteRun(const std::string& arch = "sm_90") {
    RunResults results;
    results.metadata = MakeMetadata("2025-12-01T08:00:00Z");
    results.metadata.arch = arch;
    const auto add = [&results](const std::string& name, CaseStatus status,
                                std::vector<LaunchRecord> launches) {
      CaseResult& result = results.cases[name];
      result.name = name;
      result.description = "about " + name;
      result.status = status;
      result.launches = std::move(launches);
    };
    add("transpose/naive", CaseStatus::kFailed, {MakeRecord(4096)});
    add("transpose/padded", CaseStatus::kPassed, {MakeRecord(64)});
    add("reduce/new", CaseStatus::kFailed, {MakeRecord(128, 64, "reduce")});
    add("skipped/gpu", CaseStatus::kSkipped, {});
    results.cases["skipped/gpu"].messages = {"no GPU: the CUDA driver is not installed"};
    add("failed/early", CaseStatus::kFailed, {});
    const auto path = dir_ / "results.json";
    WriteResults(path, results);
    return path;
  }

  std::string Update(const std::filesystem::path& results, const std::string& more = "") {
    return "update-baselines " + Quoted(results) + " --baselines " + Quoted(baselines_) + more;
  }

  // Set with dir_, in SetUp.
  std::filesystem::path baselines_;
  std::filesystem::path transpose_file_;
  std::filesystem::path reduce_file_;
};

TEST_F(UpdateBaselinesCommandTest, RecordsEveryChangedCaseAndSaysWhat) {
  const CliRun run = Bankcheck(Update(WriteRun()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, IsEmpty());

  const BaselineFile transpose = ReadBaselineFile(transpose_file_);
  EXPECT_EQ(transpose.cases.at("transpose/naive").launches.at(0).loads().wavefronts, 4096u);
  EXPECT_EQ(transpose.cases.at("transpose/naive").description, "about transpose/naive");
  EXPECT_EQ(transpose.cases.at("transpose/padded").description, "padded tile") << "a match is left as it was";
  EXPECT_EQ(transpose.recorded_with.driver, "580.65.06") << "the run's software";
  EXPECT_EQ(transpose.recorded_with.date, "2025-12-01T08:00:00Z") << "when the counts were measured";
  const BaselineFile reduce = ReadBaselineFile(reduce_file_);
  EXPECT_THAT(reduce.cases, ElementsAre(::testing::Key("reduce/new")));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "baselines" / "sm_90" / "skipped.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "baselines" / "sm_90" / "failed.json"));
  EXPECT_THAT(TemporaryFilesUnder(baselines_), IsEmpty());

  EXPECT_THAT(
      run.out,
      AllOf(HasSubstr("Updating the sm_90 baselines in " + (baselines_ / "sm_90").string()),
            HasSubstr("baseline    case             conflicts       wavefronts\n"),
            HasSubstr("missing     reduce/new       - -> 64         - -> 192\n"),
            HasSubstr("regression  transpose/naive  1,984 -> 4,032  2,112 -> 4,160\n"),
            HasSubstr("total       2 cases          1,984 -> 4,096  2,112 -> 4,352\n"),
            HasSubstr("Recording 2 of 5 cases: 1 regression, 0 improvement, 0 changed, 1 missing; "
                      "1 unchanged, 2 left alone."),
            HasSubstr("left alone: failed/early (no measured launch in the results: the case did not get to "
                      "measure)"),
            HasSubstr("left alone: skipped/gpu (skipped: no GPU: the CUDA driver is not installed)"),
            HasSubstr(transpose_file_.string() +
                      " was recorded with other GPU software (driver 570.86.10 -> 580.65.06)"),
            HasSubstr("Wrote:\n  " + reduce_file_.string() + "\n  " + transpose_file_.string() + "\n")));
  EXPECT_THAT(run.out, Not(HasSubstr("Dry run")));

  // Once recorded, the same results change nothing.
  const std::string recorded = ReadFile(transpose_file_);
  const CliRun again = Bankcheck(Update(dir_ / "results.json"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, AllOf(HasSubstr("No case differs from its baseline."), Not(HasSubstr("Wrote:")),
                               HasSubstr("Recording 0 of 5 cases"), Not(HasSubstr("other GPU software"))));
  EXPECT_EQ(ReadFile(transpose_file_), recorded);
  EXPECT_EQ(Bankcheck(Update(dir_ / "results.json", " --dry-run")).exit_code, 0);
}

// An entry recorded before baselines kept lines gets them from results that have them, though its
// counts match; one whose lines then differ is recorded by the verdict, as any difference.
TEST_F(UpdateBaselinesCommandTest, AnEntryWithoutLinesGetsThemAndALineDifferenceIsRecorded) {
  LineRecord line =
      MakeLine("kernels/transpose.cu", 31, "out[i] = tile[x][y];", MemoryKind::kSharedLoad, 64, 64, 64);
  RunResults results;
  results.metadata = MakeMetadata("2025-12-01T08:00:00Z");
  results.metadata.arch = "sm_90";
  CaseResult& padded = results.cases["transpose/padded"];
  padded.name = "transpose/padded";
  padded.description = "padded tile";
  padded.launches = {MakeRecord(64)};
  padded.launches[0].lines = std::vector<LineRecord>{line};
  const std::filesystem::path path = dir_ / "results.json";
  WriteResults(path, results);

  CliRun run = Bankcheck(Update(path));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("match (+ lines)  transpose/padded"),
                             HasSubstr("0 missing, 1 given per-line counts; 0 unchanged")));
  EXPECT_TRUE(HasLineData(ReadBaselineFile(transpose_file_).cases.at("transpose/padded").launches));
  EXPECT_THAT(Bankcheck(Update(path)).out, HasSubstr("No case differs from its baseline."));

  // Conflicts moved to the line with the same launch totals: a regression at the line, recorded.
  padded.launches[0].lines->at(0).wavefronts = 128;
  padded.launches[0].lines->at(0).ideal_wavefronts = 32;
  WriteResults(path, results);
  run = Bankcheck(Update(path, " --dry-run"));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, HasSubstr("Would record 1 of 1 cases: 1 regression"));
}

// --dry-run exits 1 when some case would be recorded (it fails against the files: verdict.h), as
// `report --baselines` does; 0 when nothing differs.
TEST_F(UpdateBaselinesCommandTest, DryRunPrintsTheSameSummaryAndWritesNothing) {
  const std::string before = ReadFile(transpose_file_);
  const CliRun run = Bankcheck(Update(WriteRun(), " --dry-run"));
  ASSERT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(ReadFile(transpose_file_), before);
  EXPECT_FALSE(std::filesystem::exists(reduce_file_));
  EXPECT_THAT(TemporaryFilesUnder(baselines_), IsEmpty());
  EXPECT_THAT(
      run.out,
      AllOf(HasSubstr("Dry run: nothing is written."),
            HasSubstr("regression  transpose/naive  1,984 -> 4,032"), HasSubstr("Would record 2 of 5 cases"),
            HasSubstr("Would write:\n  " + reduce_file_.string() + "\n  " + transpose_file_.string() + "\n"),
            Not(HasSubstr("Wrote:"))));
}

TEST_F(UpdateBaselinesCommandTest, RecordsOnlyTheCasesThatMatchCase) {
  const std::string before = ReadFile(transpose_file_);
  const CliRun run = Bankcheck(Update(WriteRun(), " --case 'reduce/*'"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ReadFile(transpose_file_), before);
  EXPECT_TRUE(std::filesystem::exists(reduce_file_));
  EXPECT_THAT(run.out, AllOf(HasSubstr("Recording 1 of 5 cases"), HasSubstr("4 not matching --case"),
                             Not(HasSubstr("transpose/naive"))));
}

TEST_F(UpdateBaselinesCommandTest, CaseTakesGlobsAsBankcheckCasesDoes) {
  // A regular expression's '^...' or '(a|b)' are plain characters of a glob; '*/naive' is the
  // glob that the regular expression engine refused ("Mismatched '(' and ')'").
  const CliRun run = Bankcheck(Update(WriteRun(), " --case '*/naive,reduce/ne?'"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("Recording 2 of 5 cases"), HasSubstr("3 not matching --case")));
  const CliRun none = Bankcheck(Update(WriteRun(), " --case '^reduce/'"));
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_THAT(none.out, HasSubstr("5 not matching --case"));
}

TEST_F(UpdateBaselinesCommandTest, ALongCaseNameIsRefusedNotMatchedByRecursion) {
  // std::regex's '(a|b)*c' recursed once per character of this name and crashed (SIGSEGV).
  RunResults results;
  results.metadata = MakeMetadata();
  results.metadata.arch = "sm_90";
  const std::string name = "t/" + std::string(200'000, 'a');
  results.cases[name].name = name;
  results.cases[name].launches = {MakeRecord(64)};
  WriteResults(dir_ / "long.json", results);
  const CliRun run = Bankcheck(Update(dir_ / "long.json", " --case '(a|b)*c'"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("a case name of 200002 bytes"));
}

TEST_F(UpdateBaselinesCommandTest, RecordsIntoANewArchFolder) {
  const CliRun run = Bankcheck(Update(WriteRun("sm_80")));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const BaselineFile transpose = ReadBaselineFile(baselines_ / "sm_80" / "transpose.json");
  EXPECT_EQ(transpose.arch, "sm_80");
  EXPECT_EQ(transpose.cases.size(), 2u) << "every measured case is missing there";
  EXPECT_THAT(run.out, HasSubstr("3 missing; 0 unchanged"));
}

TEST_F(UpdateBaselinesCommandTest, TakesTheFolderFromTheEnvironment) {
  ::setenv("BANKCHECK_BASELINES_DIR", baselines_.c_str(), 1);
  const CliRun run = Bankcheck("update-baselines " + Quoted(WriteRun()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(std::filesystem::exists(reduce_file_));
}

TEST_F(UpdateBaselinesCommandTest, RefusesResultsWithoutAnArchitecture) {
  const std::string before = ReadFile(transpose_file_);
  const CliRun run = Bankcheck(Update(WriteRun("")));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, AllOf(HasSubstr("bankcheck: error: "), HasSubstr("names no GPU architecture"),
                             HasSubstr("run the suite on a GPU")));
  EXPECT_THAT(run.out, IsEmpty());
  EXPECT_EQ(ReadFile(transpose_file_), before);
}

TEST_F(UpdateBaselinesCommandTest, LeavesEmulatedCasesAloneSayingWhy) {
  RunResults results;
  results.metadata = MakeMetadata("2025-12-01T08:00:00Z");
  CaseResult& result = results.cases["reduce/new"];
  result.name = "reduce/new";
  result.status = CaseStatus::kFailed;
  result.launches = {MakeRecord(128, 64, "reduce")};
  result.launches[0].counted_by = CountedBy::kEmulated;
  const auto path = dir_ / "emulated.json";
  WriteResults(path, results);
  for (const std::string dry_run : {"", " --dry-run"}) {
    const CliRun run = Bankcheck(Update(path, dry_run));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_THAT(run.out,
                AllOf(HasSubstr("No case to record."), HasSubstr(" 0 of 1 cases"), HasSubstr("1 left alone"),
                      HasSubstr("left alone: reduce/new (its counts were derived by the emulator"),
                      HasSubstr("or these as first baselines with --emulated")));
    EXPECT_FALSE(std::filesystem::exists(reduce_file_));
  }
}

// --emulated records derived counts as first baselines, marked as derived per launch and in the file's
// recorded_with; never over a measured baseline, and never measured counts.
TEST_F(UpdateBaselinesCommandTest, RecordsDerivedCountsAsFirstBaselinesOnlyWhenAsked) {
  RunResults results;
  results.metadata = MakeMetadata("2025-12-01T08:00:00Z");
  for (const std::string name : {"reduce/new", "transpose/naive"}) {
    CaseResult& result = results.cases[name];
    result.name = name;
    result.status = CaseStatus::kFailed;
    result.launches = {MakeRecord(128, 64, "k")};
    result.launches[0].counted_by = CountedBy::kEmulated;
  }
  const auto path = dir_ / "emulated.json";
  WriteResults(path, results);
  const std::string transpose_before = ReadFile(transpose_file_);
  const CliRun run = Bankcheck(Update(path, " --emulated"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, AllOf(HasSubstr("Recording 1 of 2 cases"),
                             HasSubstr("left alone: transpose/naive (its baseline was measured on a GPU")));
  EXPECT_EQ(ReadFile(transpose_file_), transpose_before);
  const std::string written = ReadFile(reduce_file_);
  EXPECT_THAT(written, AllOf(HasSubstr("\"counters\": \"emulated\""), HasSubstr("\"recorded_with\"")));
  const BaselineSet loaded = BaselineSet::Load(baselines_, "sm_90");
  ASSERT_NE(loaded.Find("reduce/new"), nullptr);
  EXPECT_TRUE(IsDerived(loaded.Find("reduce/new")->launches));
  ASSERT_NE(loaded.RecordedWith("reduce/new"), nullptr);
  EXPECT_EQ(loaded.RecordedWith("reduce/new")->counters, "emulated");
  EXPECT_FALSE(IsDerived(loaded.Find("transpose/naive")->launches));

  // Measured results with --emulated: refused case by case.
  const CliRun measured = Bankcheck(Update(WriteRun(), " --emulated --dry-run"));
  EXPECT_THAT(measured.out,
              HasSubstr("first baselines (--emulated) take the emulated program's derived counts"));
}

// The emulated program skips a case without a baseline (its derived counts kept, the verdict
// "missing"), and a case it could not decide (no launch): --emulated records the first as a first
// baseline and leaves the second alone with its reason, as a CPU gate's first run needs.
TEST_F(UpdateBaselinesCommandTest, RecordsEmulatedCasesSkippedForWantOfABaseline) {
  RunResults results;
  results.metadata = MakeMetadata("2025-12-01T08:00:00Z");
  CaseResult& missing = results.cases["reduce/new"];
  missing.name = "reduce/new";
  missing.status = CaseStatus::kSkipped;
  missing.baseline = BaselineVerdict::kMissing;
  missing.messages = {"MISSING: case \"reduce/new\" has no baseline"};
  missing.launches = {MakeRecord(128, 64, "reduce")};
  missing.launches[0].counted_by = CountedBy::kEmulated;
  CaseResult& undecided = results.cases["reduce/device_launch"];
  undecided.name = "reduce/device_launch";
  undecided.status = CaseStatus::kSkipped;
  undecided.messages = {"not decided: a kernel launched from the device is not emulated"};
  const auto path = dir_ / "emulated.json";
  WriteResults(path, results);
  const CliRun dry = Bankcheck(Update(path, " --emulated --dry-run"));
  EXPECT_EQ(dry.exit_code, 1) << dry.out << dry.err;
  const CliRun run = Bankcheck(Update(path, " --emulated"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              AllOf(HasSubstr("Recording 1 of 2 cases: 0 regression, 0 improvement, 0 changed, 1 missing"),
                    HasSubstr("left alone: reduce/device_launch (skipped: not decided: a kernel "
                              "launched from the device is not emulated)")));
  const BaselineSet loaded = BaselineSet::Load(baselines_, "sm_90");
  ASSERT_NE(loaded.Find("reduce/new"), nullptr);
  EXPECT_TRUE(IsDerived(loaded.Find("reduce/new")->launches));
  EXPECT_EQ(loaded.Find("reduce/device_launch"), nullptr);
  // Recorded, the same results have nothing left to record.
  EXPECT_EQ(Bankcheck(Update(path, " --emulated --dry-run")).exit_code, 0);
}

TEST_F(UpdateBaselinesCommandTest, RefusesBadInputAndWritesNothing) {
  const std::filesystem::path results = WriteRun();
  CliRun run = Bankcheck("update-baselines " + Quoted(results));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: give --baselines DIR"));

  run = Bankcheck(Update(results, " --case ','"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: --case=',' holds no pattern"));

  WriteFile(transpose_file_, "{not json");
  run = Bankcheck(Update(results));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("transpose.json:1:3: invalid JSON"));
  EXPECT_FALSE(std::filesystem::exists(reduce_file_)) << "nothing is written when a file cannot be read";
  EXPECT_EQ(ReadFile(transpose_file_), "{not json");
}

}  // namespace
}  // namespace bankcheck
