// The supervisor of a kernel suite program's cases (suite_runner.h): children of this program run
// the cases, a fresh one after a case that lost its CUDA context, and, in the emulated program,
// several at once (CaseJobs).
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/testing/testing.h"
#include "core/platform/environment.h"
#include "core/platform/file_io.h"
#include "core/records/launch_emulation.h"
#include "suite/internal/case_runner.h"
#include "suite/internal/suite_runner.h"

extern char** environ;

namespace bankcheck::suites {

namespace {

// The whole file open as `fd`, from its start.
std::string ReadAll(int fd) {
  std::string text;
  std::array<char, 4096> buffer{};
  ssize_t n = 0;
  while ((n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(text.size()))) > 0)
    text.append(buffer.data(), static_cast<size_t>(n));
  return text;
}

// A file of our own under /tmp, open (O_CLOEXEC and `flags`) and read and emptied only through the
// returned descriptor, never reopened by name (a link swapped in for the name is never followed);
// -1 after printing why when it cannot be made.
int MakeTemporaryFile(const char* kind, int flags, std::string& name) {
  std::string path = std::string("/tmp/bankcheck-") + kind + "-XXXXXX";
  const int fd = ::mkostemp(path.data(), O_CLOEXEC | flags);
  if (fd < 0)
    std::perror((std::string("bankcheck: cannot create the ") + kind + " file").c_str());
  else
    name = path;
  return fd;
}

// Runs this program again with `args` as a supervised child whose stdout and stderr go to
// `output_fd` (the supervisor's own when it is -1); returns its wait status, -1 when it could not
// start. Everything the child needs is made before fork(): other supervising threads may hold
// locks, so between fork and exec the child only calls async-signal-safe functions.
int RunChild(const std::string& program, const std::vector<std::string>& args, const std::string& progress,
             int output_fd) {
  std::vector<std::string> arguments{program};
  arguments.insert(arguments.end(), args.begin(), args.end());
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string entry = *variable;
    if (entry.rfind("BANKCHECK_SUPERVISED=", 0) != 0 && entry.rfind("BANKCHECK_PROGRESS_FILE=", 0) != 0)
      environment.push_back(entry);
  }
  environment.push_back("BANKCHECK_SUPERVISED=1");
  environment.push_back("BANKCHECK_PROGRESS_FILE=" + progress);
  const auto pointers = [](std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (std::string& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
  };
  std::vector<char*> argv = pointers(arguments);
  std::vector<char*> envp = pointers(environment);
  static constexpr char kCannotStart[] = "bankcheck: cannot start the suite's child process\n";
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (output_fd >= 0 && (::dup2(output_fd, STDOUT_FILENO) < 0 || ::dup2(output_fd, STDERR_FILENO) < 0))
      ::_exit(127);
    ::execve("/proc/self/exe", argv.data(), envp.data());
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kCannotStart, sizeof kCannotStart - 1);
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// What the children of a run did, summed over them.
struct Outcome {
  int exit_code = 0;
  size_t skipped = 0;
  std::vector<std::string> without_baseline;  // skipped for want of a baseline (emulated)
};

class Supervisor {
 public:
  Supervisor(const std::string& program, const std::vector<std::string>& args, bool capture_output)
      : program_(program), args_(args), capture_output_(capture_output) {}

  // Runs `tests` to the end in children, one after another: a fresh child for the cases after one
  // that lost its CUDA context or was killed. Each child's output is printed whole when it ends
  // when capture_output (children running at once), else as it comes.
  Outcome Run(std::vector<std::string> pending) {
    Outcome outcome;
    std::string progress, output;
    const int progress_fd = MakeTemporaryFile("progress", 0, progress);
    // Appended to by the child (so that emptying it starts the next child's output at 0); unlinked
    // at once: the child writes through the descriptor it inherits.
    const int output_fd = capture_output_ ? MakeTemporaryFile("output", O_APPEND, output) : -1;
    if (!output.empty()) std::remove(output.c_str());
    if (progress_fd < 0 || (capture_output_ && output_fd < 0)) {
      outcome.exit_code = 1;
      pending.clear();
    }
    while (!pending.empty()) {
      if (::ftruncate(progress_fd, 0) != 0 || (output_fd >= 0 && ::ftruncate(output_fd, 0) != 0)) {
        std::perror("bankcheck: cannot empty the progress or output file");
        outcome.exit_code = 1;
        break;
      }
      const int status = RunChild(program_, ChildArgs(pending), progress, output_fd);
      std::string said = output_fd >= 0 ? ReadAll(output_fd) : "";
      std::set<std::string> done;
      for (const FinishedCase& f : ParseProgress(ReadAll(progress_fd))) {
        done.insert(f.test);
        outcome.skipped += f.status == "skipped" || f.status == kNoBaselineStatus;
        if (f.status == kNoBaselineStatus) outcome.without_baseline.push_back(f.test);
      }
      const auto finished = [&done](const std::string& test) { return done.count(test) > 0; };
      const bool lost = WIFEXITED(status) && WEXITSTATUS(status) == kContextLostExitCode;
      if (!lost && WIFEXITED(status)) {
        if (WEXITSTATUS(status) != 0) outcome.exit_code = 1;
        Say(said);
        break;
      }
      // The child ended early: after a case that lost the CUDA context, or killed by a signal in
      // the middle of one (which then failed).
      outcome.exit_code = 1;
      const auto next = std::find_if_not(pending.begin(), pending.end(), finished);
      const bool progressed = std::any_of(pending.begin(), pending.end(), finished);
      if ((!lost || !progressed) && next != pending.end()) {
        said += "bankcheck: " + *next + " killed its process (" +
                (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status)) : "no exit status") +
                "): failed.\n";
        done.insert(*next);
      }
      pending.erase(std::remove_if(pending.begin(), pending.end(), finished), pending.end());
      if (!pending.empty()) {
        said += "bankcheck: running the remaining " + std::to_string(pending.size()) +
                " case(s) in a fresh process (CUDA cannot recover a process after a kernel fault)\n";
      }
      Say(said);
    }
    if (progress_fd >= 0) {
      ::close(progress_fd);
      std::remove(progress.c_str());
    }
    if (output_fd >= 0) ::close(output_fd);
    return outcome;
  }

  // Prints `text` whole, between other children's outputs.
  void Say(const std::string& text) {
    if (text.empty()) return;
    const std::lock_guard<std::mutex> lock(say_);
    std::cout << text;
    std::cout.flush();
  }

 private:
  // The args for the next child: the caller's, with --gtest_output's file made unique per child
  // after the first, and the filter naming `tests`.
  std::vector<std::string> ChildArgs(const std::vector<std::string>& tests) {
    const int child = ++children_;
    std::vector<std::string> out;
    for (const std::string& arg : args_) {
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

  const std::string program_;
  const std::vector<std::string> args_;
  const bool capture_output_;
  std::atomic<int> children_{0};
  std::mutex say_;
};

}  // namespace

int CaseJobs(bool emulated, bool one_topic, const char* setting, unsigned hardware_threads) {
  if (!emulated) return 1;
  if (setting == nullptr || *setting == '\0')
    return one_topic ? 1 : static_cast<int>(std::max(1U, hardware_threads));
  const std::string text = setting;
  if (text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos || std::stoi(text) < 1 ||
      std::stoi(text) > 1024)
    throw Error(ErrorKind::kBadInput, "BANKCHECK_JOBS='" + text +
                                          "' is not a number of processes from 1 to 1024: give how many "
                                          "cases the emulated program runs at once, or unset it for one "
                                          "per hardware thread");
  return std::stoi(text);
}

std::vector<size_t> ChunkSizes(size_t tests, int jobs) {
  // About three chunks per process: each child pays the program's start (loading and disassembling
  // the kernels), and chunks taken as processes free up keep them busy to the end.
  const size_t processes = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(jobs), tests));
  const size_t size =
      processes == 1 ? tests : std::max<size_t>(1, (tests + 3 * processes - 1) / (3 * processes));
  std::vector<size_t> sizes;
  for (size_t left = tests; left > 0; left -= std::min(size, left)) sizes.push_back(std::min(size, left));
  return sizes;
}

int SuperviseCases(const std::string& program, const std::vector<std::string>& args,
                   const std::vector<std::string>& tests, bool one_topic) {
  const int jobs = CaseJobs(internal::EmulatedProgram(), one_topic, std::getenv("BANKCHECK_JOBS"),
                            std::thread::hardware_concurrency());
  const std::vector<size_t> sizes = ChunkSizes(tests.size(), jobs);
  const size_t processes = std::min(sizes.size(), static_cast<size_t>(jobs));
  Supervisor supervisor(program, args, /*capture_output=*/processes > 1);
  Outcome total;
  if (processes <= 1) {
    total = supervisor.Run(tests);
  } else {
    supervisor.Say("bankcheck: running " + std::to_string(tests.size()) + " cases in " +
                   std::to_string(sizes.size()) + " groups, " + std::to_string(processes) +
                   " processes at a time (BANKCHECK_JOBS)\n");
    std::mutex taking;
    size_t next_chunk = 0, next_test = 0;
    std::vector<std::thread> lanes;
    for (size_t lane = 0; lane < processes; ++lane) {
      lanes.emplace_back([&] {
        for (;;) {
          std::vector<std::string> chunk;
          {
            const std::lock_guard<std::mutex> lock(taking);
            if (next_chunk == sizes.size()) return;
            const auto first = tests.begin() + static_cast<std::ptrdiff_t>(next_test);
            chunk.assign(first, first + static_cast<std::ptrdiff_t>(sizes[next_chunk]));
            next_test += sizes[next_chunk++];
          }
          const Outcome outcome = supervisor.Run(chunk);
          const std::lock_guard<std::mutex> lock(taking);
          total.exit_code = std::max(total.exit_code, outcome.exit_code);
          total.skipped += outcome.skipped;
          total.without_baseline.insert(total.without_baseline.end(), outcome.without_baseline.begin(),
                                        outcome.without_baseline.end());
        }
      });
    }
    for (std::thread& lane : lanes) lane.join();
  }
  if (total.exit_code == 0 && !tests.empty() && total.skipped == tests.size()) {
    // A recording asked for records nothing here: a skip would read as green to ctest.
    if (BaselineRecording()) {
      std::cout << "bankcheck: error: BANKCHECK_UPDATE_BASELINES="
                << std::getenv("BANKCHECK_UPDATE_BASELINES")
                << " recorded nothing: every case was skipped (each one's skip above says why); record "
                   "where the cases run (a GPU for measured counts)\n";
      return 1;
    }
    std::cout << "bankcheck: every case was skipped\n";
    return gtest::kAllSkippedExitCode;
  }
  // A case without a baseline checked nothing: the test is not Passed for the others' sake, but
  // skipped as a topic without any baseline is, each case's skip above saying how to record it.
  if (total.exit_code == 0 && !total.without_baseline.empty()) {
    std::sort(total.without_baseline.begin(), total.without_baseline.end());
    const size_t n = total.without_baseline.size();
    std::cout << "bankcheck: skipped: " << n << (n == 1 ? " case of " : " cases of ") << tests.size()
              << (n == 1 ? " has" : " have") << " no baseline, so this test checked only the others:";
    for (const std::string& test : total.without_baseline) std::cout << " " << test;
    std::cout << " (each one's skip above prints the command that records its baseline)\n";
    return gtest::kAllSkippedExitCode;
  }
  return total.exit_code;
}

namespace {
class ChildListener : public ::testing::EmptyTestEventListener {
 public:
  explicit ChildListener(std::string progress) : progress_(std::move(progress)) {}

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& result = *info.result();
    const char* status = result.Skipped()
                             ? (SkippedForWantOfABaseline(result) ? kNoBaselineStatus : "skipped")
                         : result.Failed() ? "failed"
                                           : "passed";
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
  // The emulated program's case skipped as its baseline is missing (case_checks.cc records the
  // verdict as the property "baseline" before it skips).
  static bool SkippedForWantOfABaseline(const ::testing::TestResult& result) {
    for (int i = 0; i < result.test_property_count(); ++i) {
      const ::testing::TestProperty& property = result.GetTestProperty(i);
      if (std::string(property.key()) == "baseline" &&
          property.value() == std::string(BaselineVerdictName(BaselineVerdict::kMissing)))
        return true;
    }
    return false;
  }

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
