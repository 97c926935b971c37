// RunProgram runs a program by its argument vector, no shell between: what it is given reaches it
// verbatim. ExecutableFromEnvironment takes only an absolute path to an executable.

#include "subprocess.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "bankcheck/error.h"
#include "test_support.h"

namespace bankcheck::internal {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

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

class ExecutableFromEnvironmentTest : public testing_support::TempDirTest {
 protected:
  void TearDown() override {
    ::unsetenv("BANKCHECK_TEST_PROGRAM");
    TempDirTest::TearDown();
  }
  static std::string ErrorFor(const std::string& value) {
    ::setenv("BANKCHECK_TEST_PROGRAM", value.c_str(), 1);
    try {
      ExecutableFromEnvironment("BANKCHECK_TEST_PROGRAM");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      return e.what();
    }
    ADD_FAILURE() << value << " was accepted";
    return "";
  }
};

TEST_F(ExecutableFromEnvironmentTest, TakesAnAbsolutePathToAnExecutableOnly) {
  ::unsetenv("BANKCHECK_TEST_PROGRAM");
  EXPECT_EQ(ExecutableFromEnvironment("BANKCHECK_TEST_PROGRAM"), "");
  ::setenv("BANKCHECK_TEST_PROGRAM", "/bin/echo", 1);
  EXPECT_EQ(ExecutableFromEnvironment("BANKCHECK_TEST_PROGRAM"), "/bin/echo");
  EXPECT_THAT(ErrorFor("nvdisasm"), AllOf(HasSubstr("BANKCHECK_TEST_PROGRAM='nvdisasm'"),
                                          HasSubstr("not an absolute path"), HasSubstr("unset")));
  EXPECT_THAT(ErrorFor("/nonexistent/nvdisasm"), HasSubstr("does not exist"));
  EXPECT_THAT(ErrorFor(dir_.string()), HasSubstr("not a regular file"));
  testing_support::WriteFile(dir_ / "plain", "");
  EXPECT_THAT(ErrorFor((dir_ / "plain").string() + "' -c 'x"), HasSubstr("does not exist"));
  EXPECT_THAT(ErrorFor((dir_ / "plain").string()), HasSubstr("not executable"));
}

}  // namespace
}  // namespace bankcheck::internal
