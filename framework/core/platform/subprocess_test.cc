// RunProgram runs a program by its argument vector, no shell between: what it is given reaches it
// verbatim.

#include "core/platform/subprocess.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

namespace bankcheck::internal {
namespace {

TEST(RunProgramTest, CapturesStandardOutputAndTheExitStatus) {
  const ProgramRun echo = RunProgram("/bin/echo", {"hello", "world"});
  EXPECT_TRUE(echo.started);
  EXPECT_EQ(echo.exit_status, 0);
  EXPECT_EQ(echo.output, "hello world\n");
  const ProgramRun failing = RunProgram("/bin/sh", {"-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(failing.started);
  EXPECT_EQ(failing.exit_status, 3);
  EXPECT_EQ(failing.output, "out\n");  // stderr is not captured
  const ProgramRun killed = RunProgram("/bin/sh", {"-c", "kill -9 $$"});
  EXPECT_EQ(killed.exit_status, 128 + 9);
}

TEST(RunProgramTest, FindsAProgramOnPathAndReportsOneThatIsMissing) {
  EXPECT_EQ(RunProgram("echo", {"on", "PATH"}).output, "on PATH\n");
  const ProgramRun missing = RunProgram("/nonexistent/bankcheck-no-such-program", {});
  EXPECT_FALSE(missing.started);
  EXPECT_EQ(missing.output, "");
  EXPECT_FALSE(RunProgram("bankcheck-no-such-program-on-path", {}).started);
}

TEST(RunProgramAttachedTest, GivesTheEnvironmentAndReturnsTheExitStatus) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("bankcheck_attached_" + std::to_string(::getpid()));
  const ProgramRun run =
      RunProgramAttached({"sh", "-c", "echo \"$GIVEN ${HOME-unset}\" > \"$1\"; exit 5", "sh", out.string()},
                         {"GIVEN=yes", "PATH=/usr/bin:/bin"});
  EXPECT_TRUE(run.started);
  EXPECT_EQ(run.exit_status, 5);
  EXPECT_EQ(run.output, "");  // its output is its own
  std::ifstream written(out);
  std::string line;
  std::getline(written, line);
  EXPECT_EQ(line, "yes unset") << "the program gets the given environment only";
  std::filesystem::remove(out);
  EXPECT_EQ(RunProgramAttached({"/bin/sh", "-c", "kill -9 $$"}, {}).exit_status, 128 + 9);
}

TEST(RunProgramAttachedTest, TheProgramGetsSigintWhileTheCallerIgnoresIt) {
  // The caller ignores SIGINT only while it waits: the program, sent it, ends by it.
  EXPECT_EQ(RunProgramAttached({"/bin/sh", "-c", "kill -INT $$; sleep 5"}, {}).exit_status, 128 + SIGINT);
  struct sigaction now {};
  ::sigaction(SIGINT, nullptr, &now);
  EXPECT_NE(now.sa_handler, SIG_IGN) << "the caller's disposition is restored";
}

TEST(RunProgramAttachedTest, SaysWhyAProgramCouldNotBeStarted) {
  const ProgramRun missing =
      RunProgramAttached({"bankcheck-no-such-program-on-path"}, {"PATH=/usr/bin:/bin"});
  EXPECT_FALSE(missing.started);
  EXPECT_EQ(missing.spawn_error, ENOENT);
  EXPECT_FALSE(RunProgramAttached({}, {}).started);
}

TEST(RunProgramTest, ShellMetacharactersReachTheProgramVerbatim) {
  const std::string argument = "a'b\" c; touch /tmp/bankcheck-pwned $(id) `id` | > * ~ \\ $HOME\n";
  const ProgramRun run = RunProgram("/usr/bin/printf", {"%s", argument});
  EXPECT_EQ(run.exit_status, 0);
  EXPECT_EQ(run.output, argument);
  EXPECT_FALSE(std::filesystem::exists("/tmp/bankcheck-pwned"));
}

}  // namespace
}  // namespace bankcheck::internal
