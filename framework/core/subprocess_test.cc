// RunProgram runs a program by its argument vector, no shell between: what it is given reaches it
// verbatim.

#include "core/internal/subprocess.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

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

TEST(RunProgramTest, ShellMetacharactersReachTheProgramVerbatim) {
  const std::string argument = "a'b\" c; touch /tmp/bankcheck-pwned $(id) `id` | > * ~ \\ $HOME\n";
  const ProgramRun run = RunProgram("/usr/bin/printf", {"%s", argument});
  EXPECT_EQ(run.exit_status, 0);
  EXPECT_EQ(run.output, argument);
  EXPECT_FALSE(std::filesystem::exists("/tmp/bankcheck-pwned"));
}

}  // namespace
}  // namespace bankcheck::internal
