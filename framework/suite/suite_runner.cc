#include "suite/internal/suite_runner.h"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "bankcheck/baseline.h"
#include "bankcheck/case_selection.h"
#include "bankcheck/counter_session.h"
#include "bankcheck/error.h"
#include "bankcheck/gpu_probe.h"
#include "bankcheck/testing.h"
#include "core/internal/environment.h"
#include "core/internal/file_io.h"
#include "suite/internal/record_command.h"

namespace bankcheck::suites {

namespace {

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

bool MatchesAny(const std::string& name, const std::string& patterns) {
  for (const std::string& pattern : Split(patterns, ':'))
    if (!pattern.empty() && fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

// The whole file open as `fd`, from its start.
std::string ReadAll(int fd) {
  std::string text;
  std::array<char, 4096> buffer{};
  ssize_t n = 0;
  while ((n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(text.size()))) > 0)
    text.append(buffer.data(), static_cast<size_t>(n));
  return text;
}

// Runs `program` with `args` as a supervised child; returns its wait status.
int RunChild(const std::string& program, const std::vector<std::string>& args, const std::string& progress) {
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::setenv("BANKCHECK_SUPERVISED", "1", 1);
    ::setenv("BANKCHECK_PROGRESS_FILE", progress.c_str(), 1);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    std::perror("bankcheck: cannot start the suite's child process");
    std::_Exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// The args for one child: the caller's, with --gtest_output's file made unique per child after
// the first, and the filter naming `tests`.
std::vector<std::string> ChildArgs(const std::vector<std::string>& args,
                                   const std::vector<std::string>& tests, int child) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (arg.rfind("--gtest_filter=", 0) == 0) continue;
    if (child > 1 && arg.rfind("--gtest_output=", 0) == 0) {
      const size_t dot = arg.rfind('.');
      out.push_back(arg.substr(0, dot) + "-part" + std::to_string(child) +
                    (dot == std::string::npos ? "" : arg.substr(dot)));
      continue;
    }
    out.push_back(arg);
  }
  std::string filter;
  for (const std::string& test : tests) filter += (filter.empty() ? "" : ":") + test;
  out.push_back("--gtest_filter=" + filter);
  return out;
}

}  // namespace

bool MatchesGtestFilter(const std::string& name, const std::string& filter) {
  const size_t dash = filter.find('-');
  const std::string positive = filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  return (positive.empty() || MatchesAny(name, positive)) && !MatchesAny(name, negative);
}

std::string CasePatternsFromEnvironment() {
  const char* value = std::getenv("BANKCHECK_CASES");
  const std::string patterns = value == nullptr ? "" : value;
  CheckCaseSelection(patterns, "BANKCHECK_CASES");
  return patterns;
}

std::vector<const KernelCase*> SelectCases(const std::vector<const KernelCase*>& cases,
                                           const std::string& patterns) {
  std::vector<const KernelCase*> selected;
  for (const KernelCase* c : cases)
    if (MatchesCasePatterns(c->name, patterns)) selected.push_back(c);
  return selected;
}

std::string Shard::Describe() const {
  return "shard " + std::to_string(index + 1) + " of " + std::to_string(total) +
         " (GTEST_SHARD_INDEX=" + std::to_string(index) + ", GTEST_TOTAL_SHARDS=" + std::to_string(total) +
         ")";
}

Shard ShardFromEnvironment() {
  const auto number = [](const char* variable) -> std::optional<long> {
    const char* value = std::getenv(variable);
    if (value == nullptr) return std::nullopt;
    const std::string text = value;
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
      throw Error(ErrorKind::kBadInput, std::string(variable) + "='" + text +
                                            "' is not a whole number: give GTEST_SHARD_INDEX from 0 to "
                                            "GTEST_TOTAL_SHARDS - 1 (GoogleTest's sharding)");
    return std::stol(text);
  };
  const std::optional<long> total = number("GTEST_TOTAL_SHARDS");
  const std::optional<long> index = number("GTEST_SHARD_INDEX");
  Shard shard;
  if (total && index) {
    if (*total < 1 || *index >= *total)
      throw Error(ErrorKind::kBadInput,
                  "GTEST_SHARD_INDEX=" + std::to_string(*index) +
                      " with GTEST_TOTAL_SHARDS=" + std::to_string(*total) +
                      ": give a total of at least 1 and an index from 0 to the total - 1");
    shard = {static_cast<int>(*index), static_cast<int>(*total)};
  }
  const std::string status = AbsolutePathFromEnvironment("GTEST_SHARD_STATUS_FILE");
  if (!status.empty()) AppendToFile(status, "");
  for (const char* variable : {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "GTEST_SHARD_STATUS_FILE"})
    ::unsetenv(variable);
  return shard;
}

std::vector<std::string> SelectCaseTests(const std::vector<const KernelCase*>& cases,
                                         const std::string& test_prefix, const std::string& topic,
                                         const std::string& patterns, const std::string& filter,
                                         const Shard& shard) {
  std::vector<std::string> tests;
  int position = 0;
  for (const KernelCase* c : SelectCases(cases, patterns)) {
    const std::string test = GtestNameForCase(test_prefix, c->name).Full();
    if (!MatchesGtestFilter(test, filter)) continue;
    const bool in_shard = position++ % shard.total == shard.index;
    if (in_shard && (topic.empty() || c->topic() == topic)) tests.push_back(test);
  }
  return tests;
}

std::string CaseTestNameClash(const std::vector<const KernelCase*>& cases, const std::string& test_prefix) {
  std::map<std::string, std::string> case_of_test;
  for (const KernelCase* c : cases) {
    const std::string test = GtestNameForCase(test_prefix, c->name).Full();
    const auto [it, added] = case_of_test.emplace(test, c->name);
    if (!added) {
      return "the cases \"" + it->second + "\" and \"" + c->name + "\" would both be the test " + test +
             ": rename one (GoogleTest names keep A-Z a-z 0-9 _ / of a case name, and make '_' of the rest)";
    }
  }
  return "";
}

std::vector<std::string> Topics(const std::vector<const KernelCase*>& cases) {
  std::set<std::string> topics;
  for (const KernelCase* c : cases) topics.insert(c->topic());
  return {topics.begin(), topics.end()};
}

std::vector<FinishedCase> ParseProgress(const std::string& text) {
  std::vector<FinishedCase> finished;
  for (const std::string& line : Split(text, '\n')) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) finished.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return finished;
}

int SuperviseCases(const std::string& program, const std::vector<std::string>& args,
                   const std::vector<std::string>& tests) {
  char progress_template[] = "/tmp/bankcheck-progress-XXXXXX";
  const int fd = ::mkostemp(progress_template, O_CLOEXEC);
  if (fd < 0) {
    std::perror("bankcheck: cannot create the progress file");
    return 1;
  }
  // Kept open and read and emptied through its descriptor, never reopened by name (a link swapped
  // in for the name is never followed); children append to it by name (AppendToExistingFile).
  const std::string progress = progress_template;
  std::vector<std::string> pending = tests;
  int exit_code = 0;
  size_t skipped = 0;
  for (int child = 1; !pending.empty(); ++child) {
    if (::ftruncate(fd, 0) != 0) {
      std::perror("bankcheck: cannot empty the progress file");
      exit_code = 1;
      break;
    }
    const int status = RunChild(program, ChildArgs(args, pending, child), progress);
    std::set<std::string> done;
    for (const FinishedCase& f : ParseProgress(ReadAll(fd))) {
      done.insert(f.test);
      skipped += f.status == "skipped";
    }
    const auto finished = [&done](const std::string& test) { return done.count(test) > 0; };
    const bool lost = WIFEXITED(status) && WEXITSTATUS(status) == kContextLostExitCode;
    if (!lost && WIFEXITED(status)) {
      if (WEXITSTATUS(status) != 0) exit_code = 1;
      break;
    }
    // The child ended early: after a case that lost the CUDA context, or killed by a signal in
    // the middle of one (which then failed).
    exit_code = 1;
    const auto next = std::find_if_not(pending.begin(), pending.end(), finished);
    const bool progressed = std::any_of(pending.begin(), pending.end(), finished);
    if ((!lost || !progressed) && next != pending.end()) {
      std::cout << "bankcheck: " << *next << " killed its process ("
                << (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status)) : "no exit status")
                << "): failed.\n";
      done.insert(*next);
    }
    pending.erase(std::remove_if(pending.begin(), pending.end(), finished), pending.end());
    if (!pending.empty()) {
      std::cout << "bankcheck: running the remaining " << pending.size()
                << " case(s) in a fresh process (CUDA cannot recover a process after a kernel fault)\n";
    }
  }
  ::close(fd);
  std::remove(progress.c_str());
  if (exit_code == 0 && !tests.empty() && skipped == tests.size()) {
    std::cout << "bankcheck: every case was skipped\n";
    return gtest::kAllSkippedExitCode;
  }
  return exit_code;
}

namespace {
class ChildListener : public ::testing::EmptyTestEventListener {
 public:
  explicit ChildListener(std::string progress) : progress_(std::move(progress)) {}

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& result = *info.result();
    const char* status = result.Skipped() ? "skipped" : result.Failed() ? "failed" : "passed";
    AppendToExistingFile(progress_,
                         std::string(status) + "\t" + info.test_suite_name() + "." + info.name() + "\n");
    if (ContextLost()) {
      std::cout << "bankcheck: " << info.test_suite_name() << "." << info.name()
                << " left the CUDA context unusable; this process stops here.\n";
      std::cout.flush();
      std::fflush(nullptr);
      std::_Exit(kContextLostExitCode);
    }
  }

 private:
  // A kernel fault is sticky: the session records it, and otherwise a second synchronize still
  // reports it (a non-sticky error is cleared by the first).
  static bool ContextLost() {
    if (CudaContextLost()) return true;
    if (!ProbeGpu().usable()) return false;
    return cudaDeviceSynchronize() != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess;
  }

  std::string progress_;
};
}  // namespace

void InstallChildListener() {
  const std::string progress = AbsolutePathFromEnvironment("BANKCHECK_PROGRESS_FILE");
  if (progress.empty()) return;
  // Before the default printer: GoogleTest calls the end events in reverse order, so the
  // printer's result line for a case comes out before this listener may end the process.
  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  ::testing::TestEventListener* printer = listeners.Release(listeners.default_result_printer());
  listeners.Append(new ChildListener(progress));
  if (printer != nullptr) listeners.Append(printer);
}

}  // namespace bankcheck::suites
