#pragma once
// Runs the fault demo program (suites/fault_demo_cases.cu, path BANKCHECK_FAULT_DEMO), recording
// into an empty baselines folder, for the tests of the suite runner. Its output: stdout and stderr.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace bankcheck::suites {

struct DemoRun {
  std::string output;
  int exit_code = -1;
};

// `environment`: more "NAME=value " assignments before the command; `args`: its arguments.
inline DemoRun RunFaultDemo(const std::string& environment = "", const std::string& args = "") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("bankcheck_fault_demo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "baselines");
  // Recording into an empty folder: the passing cases pass (with no baseline they would fail as
  // MISSING), a failing case is not recorded.
  // Not sharded as the calling test program may be (GoogleTest's variables): `environment` says.
  const std::string command =
      "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX -u GTEST_SHARD_STATUS_FILE "
      "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR='" +
      (dir / "baselines").string() + "' BANKCHECK_RESULTS_DIR='" + (dir / "results").string() + "' " +
      environment + "'" + BANKCHECK_FAULT_DEMO + "' " + args + " 2>&1";
  DemoRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[4096];
  while (pipe != nullptr && std::fgets(buffer, sizeof(buffer), pipe) != nullptr) run.output += buffer;
  const int status = pipe != nullptr ? ::pclose(pipe) : -1;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::filesystem::remove_all(dir);
  return run;
}

}  // namespace bankcheck::suites
