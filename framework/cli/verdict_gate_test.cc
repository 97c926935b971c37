// One set of results, every entry point: report, report --baselines, compare, update-baselines
// --dry-run and run --baselines (with the stand-in injection library of run_command_test.cc) give
// the same exit status, because each decides with DecideCase (verdict.h). README's "When a case
// fails" table is the table the code reads.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/results.h"
#include "bankcheck/core/verdict.h"
#include "core/platform/test_support.h"
#include "core/records/run_cases.h"

#ifndef BANKCHECK_FAKE_INJECTION_PATH
#error "BANKCHECK_FAKE_INJECTION_PATH must name the stand-in injection library"
#endif

namespace bankcheck {
namespace {

using ::testing::HasSubstr;
using testing_support::CliRun;
using testing_support::Quoted;
using testing_support::ReadFile;
using testing_support::WriteFile;

// Six SGEMM launches, each in its NVTX range: six cases, named as `bankcheck run` names them.
std::vector<LaunchRecord> SixLaunches(uint64_t load_wavefronts = 64) {
  std::vector<LaunchRecord> launches;
  for (int i = 0; i < 6; ++i) {
    LaunchRecord record = testing_support::MakeRecord(load_wavefronts, 64, "sgemm");
    record.counted_by = CountedBy::kSassMetrics;
    record.hardware = {};
    record.nvtx_range = "sgemm/" + std::to_string(i);
    launches.push_back(record);
  }
  return launches;
}

class VerdictGateTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    std::filesystem::create_directories(dir_ / "scratch");
    std::filesystem::create_directories(dir_ / "baselines" / "sm_90");  // empty, as in a new consumer
  }

  CliRun Bankcheck(const std::string& arguments, const std::string& environment = "") {
    const std::string command = "cd " + Quoted(dir_) +
                                " && env -u CUDA_INJECTION64_PATH -u BANKCHECK_BASELINES_DIR "
                                "BANKCHECK_INJECTION_LIBRARY=" +
                                std::string(BANKCHECK_FAKE_INJECTION_PATH) + " " + environment + " " +
                                Quoted(BANKCHECK_CLI_PATH) + " " + arguments;
    const std::filesystem::path script = dir_ / "scratch" / "command.sh";
    WriteFile(script, command + "\n");
    return testing_support::RunCli("/bin/sh", Quoted(script), dir_ / "scratch");
  }

  // results.json as a suite run writes it: the cases of `launches`, each with `verdict` and `status`.
  void WriteSuiteResults(const std::vector<LaunchRecord>& launches, BaselineVerdict verdict,
                         CaseStatus status) {
    RunResults results;
    results.metadata = testing_support::MakeMetadata();
    results.cases = internal::RunCases(launches);
    for (auto& [name, result] : results.cases) {
      result.baseline = verdict;
      result.status = status;
    }
    WriteFile(dir_ / "results.json", SerializeResults(results));
  }

  // A program that writes `launches` as its process's file, as the injected library would.
  std::filesystem::path Program(const std::vector<LaunchRecord>& launches) {
    RunResults results;
    results.metadata = testing_support::MakeMetadata();
    results.cases = internal::RunCases(launches);
    WriteFile(dir_ / "program.json", SerializeResults(results));
    const std::filesystem::path script = dir_ / "program.sh";
    WriteFile(script,
              "#!/bin/sh\ncp " + Quoted(dir_ / "program.json") + " \"$BANKCHECK_RUN_DIR/process-$$.json\"\n");
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    return script;
  }

  void RecordBaselines(const std::vector<LaunchRecord>& launches) {
    std::vector<BaselineUpdate> updates;
    for (const auto& [name, result] : internal::RunCases(launches))
      updates.push_back({name, result.description, result.launches});
    UpdateBaselines(dir_ / "baselines", "sm_90", testing_support::MakeMetadata(), updates);
  }

  // Every entry point's exit status on results.json, the baselines folder and a program that
  // measures `measured`; `extra` goes to each (e.g. --allow-missing).
  std::map<std::string, int> ExitStatuses(const std::vector<LaunchRecord>& measured,
                                          const std::string& extra = "", bool with_update_baselines = true) {
    const std::string baselines = Quoted(dir_ / "baselines");
    std::map<std::string, std::string> commands = {
        {"report", "report results.json -o report.md " + extra},
        {"report --baselines", "report results.json --baselines " + baselines + " -o report-b.md " + extra},
        {"compare", "compare " + baselines + " results.json -o compare.md " + extra},
        {"run --baselines",
         "run --baselines " + baselines + " -o run.json " + extra + " -- " + Quoted(Program(measured))},
    };
    if (with_update_baselines)
      commands["update-baselines --dry-run"] =
          "update-baselines results.json --baselines " + baselines + " --dry-run";
    std::map<std::string, int> statuses;
    for (const auto& [entry, arguments] : commands) {
      const CliRun run = Bankcheck(arguments);
      statuses[entry] = run.exit_code;
      EXPECT_NE(run.exit_code, 2) << entry << ": " << run.err;
    }
    return statuses;
  }

  static std::map<std::string, int> All(int status, bool with_update_baselines = true) {
    std::map<std::string, int> all = {
        {"report", status}, {"report --baselines", status}, {"compare", status}, {"run --baselines", status}};
    if (with_update_baselines) all["update-baselines --dry-run"] = status;
    return all;
  }
};

// The example: six cases a consumer suite failed as MISSING (its sm_90/ folder empty). Every
// entry point fails them; report says why.
TEST_F(VerdictGateTest, SixMissingBaselinesFailEverywhere) {
  WriteSuiteResults(SixLaunches(), BaselineVerdict::kMissing, CaseStatus::kFailed);
  EXPECT_EQ(ExitStatuses(SixLaunches()), All(1));
  EXPECT_THAT(ReadFile(dir_ / "report.md"), HasSubstr("**6 cases fail: 6 missing.**"));
  EXPECT_THAT(ReadFile(dir_ / "report-b.md"), HasSubstr("**6 cases fail: 6 missing.**"));
  EXPECT_THAT(ReadFile(dir_ / "compare.md"), HasSubstr("**6 cases fail: 6 missing.**"));
}

TEST_F(VerdictGateTest, EverythingMatchingPassesEverywhere) {
  RecordBaselines(SixLaunches());
  WriteSuiteResults(SixLaunches(), BaselineVerdict::kMatch, CaseStatus::kPassed);
  EXPECT_EQ(ExitStatuses(SixLaunches()), All(0));
  EXPECT_THAT(ReadFile(dir_ / "report.md"), HasSubstr("No case fails."));
}

// An improvement is a difference from the baseline: strict, as the suite is, everywhere.
TEST_F(VerdictGateTest, AnImprovementFailsEverywhere) {
  RecordBaselines(SixLaunches(128));
  WriteSuiteResults(SixLaunches(64), BaselineVerdict::kImprovement, CaseStatus::kFailed);
  EXPECT_EQ(ExitStatuses(SixLaunches(64)), All(1));
}

// --allow-missing lets a missing baseline pass wherever it is given; without it the same results
// fail. (update-baselines records missing cases whatever the flag: not asked here.)
TEST_F(VerdictGateTest, AllowMissingPassesMissingBaselinesEverywhere) {
  // What `run --baselines --allow-missing` writes: measured, no baseline, not failed.
  WriteSuiteResults(SixLaunches(), BaselineVerdict::kMissing, CaseStatus::kPassed);
  EXPECT_EQ(ExitStatuses(SixLaunches(), "--allow-missing", false), All(0, false));
  EXPECT_EQ(ExitStatuses(SixLaunches(), "", false), All(1, false));
}

TEST_F(VerdictGateTest, EachCommandsHelpStatesItsExitStatuses) {
  for (const char* command : {"report", "compare", "run", "update-baselines", "merge-results", "lines",
                              "annotate", "annotations", "predict", "explain"}) {
    const CliRun run = Bankcheck(std::string(command) + " --help");
    EXPECT_EQ(run.exit_code, 0) << command;
    EXPECT_THAT(run.out, HasSubstr("Exit status")) << command;
  }
  for (const char* command : {"report", "compare"}) {
    const CliRun run = Bankcheck(std::string(command) + " --help");
    EXPECT_THAT(run.out, HasSubstr("--allow-missing")) << command;
    EXPECT_THAT(run.out, HasSubstr("Exit status: 0 no case fails; 1 some case fails")) << command;
  }
  const CliRun run = Bankcheck("run --help");
  EXPECT_THAT(run.out, HasSubstr("--allow-missing"));
  EXPECT_THAT(run.out, HasSubstr("Usage: "));
  EXPECT_EQ(run.out.find("Usage:"), run.out.rfind("Usage:")) << "one usage line:\n" << run.out;
  EXPECT_THAT(run.out, HasSubstr("run [OPTIONS] -- COMMAND [ARGS...]"));
}

// README.md's "When a case fails" table is VerdictTable(), row for row.
TEST_F(VerdictGateTest, TheReadmeTableIsTheCodesTable) {
  const std::string readme = ReadFile(BANKCHECK_README_PATH);
  const size_t section = readme.find("## When a case fails");
  ASSERT_NE(section, std::string::npos) << "README.md has no '## When a case fails' section";
  const std::string text = readme.substr(section, readme.find("\n## ", section + 1) - section);
  for (const VerdictRow& row : VerdictTable()) {
    const std::string expected = std::string("| `") + CaseVerdictName(row.verdict) + "` | " + row.when +
                                 " | " + (row.fails ? "fails" : "passes") + " | " +
                                 (row.fails_with_allow_missing ? "fails" : "passes") + " |";
    EXPECT_THAT(text, HasSubstr(expected));
  }
}

}  // namespace
}  // namespace bankcheck
