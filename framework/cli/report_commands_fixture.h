#pragma once
// The fixture of the tests that run the built `bankcheck` binary's report, compare, merge-results
// and lines commands (report_commands_test.cc, report_commands_lines_test.cc): a temporary folder,
// the binary run in it, and results files written there.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"

#ifndef BANKCHECK_CLI_PATH
#error "BANKCHECK_CLI_PATH must name the bankcheck binary"
#endif

namespace bankcheck::testing_support {

class ReportCommandsTest : public testing_support::TempDirTest {
 protected:
  // The commands read BANKCHECK_BASELINES_DIR: none unless a test sets it.
  void SetUp() override {
    TempDirTest::SetUp();
    ::unsetenv("BANKCHECK_BASELINES_DIR");
  }
  void TearDown() override {
    ::unsetenv("BANKCHECK_BASELINES_DIR");
    TempDirTest::TearDown();
  }

  CliRun Bankcheck(const std::string& arguments) { return RunCli(BANKCHECK_CLI_PATH, arguments, dir_); }

  std::filesystem::path WriteRun(const std::string& file_name, uint64_t load_wavefronts) {
    RunResults results;
    results.metadata = MakeMetadata();
    CaseResult& result = results.cases["transpose/naive"];
    result.name = "transpose/naive";
    result.launches = {MakeRecord(load_wavefronts)};
    result.baseline = BaselineVerdict::kMatch;
    const auto path = dir_ / file_name;
    WriteResults(path, results);
    return path;
  }

  // transpose/naive: two attributed launches of one kernel; transpose/padded: one attributed
  // launch; reduce/plain: none.
  std::filesystem::path WriteAttributedRun() {
    RunResults results;
    results.metadata = MakeMetadata();
    const auto add = [&results](const std::string& name, std::vector<LaunchRecord> launches) {
      CaseResult& result = results.cases[name];
      result.name = name;
      result.launches = std::move(launches);
    };
    add("transpose/naive", {WithInstructions(MakeRecord(2048), 2), WithInstructions(MakeRecord(2048), 2)});
    add("transpose/padded",
        {MakeRecord(64, 64, "untouched"), WithInstructions(MakeRecord(64, 64, "padded"))});
    add("reduce/plain", {MakeRecord(64)});
    const auto path = dir_ / "results.json";
    WriteResults(path, results);
    return path;
  }
};

}  // namespace bankcheck::testing_support
