// Each environment variable bankcheck reads is checked: a value it cannot use is an error naming
// the variable, its value and what it accepts.

#include "core/platform/environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "bankcheck/core/error.h"
#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr const char* kVariable = "BANKCHECK_TEST_VARIABLE";

class EnvironmentTest : public testing_support::TempDirTest {
 protected:
  void TearDown() override {
    ::unsetenv(kVariable);
    TempDirTest::TearDown();
  }
  // The error of `read` with the variable set to `value`; fails the test when there is none.
  template <typename Reader>
  static std::string ErrorFor(Reader read, const std::string& value) {
    ::setenv(kVariable, value.c_str(), 1);
    try {
      read(kVariable);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      EXPECT_THAT(e.what(),
                  AllOf(HasSubstr(std::string(kVariable) + "='" + value + "'"), HasSubstr("unset")));
      return e.what();
    }
    ADD_FAILURE() << value << " was accepted";
    return "";
  }
  template <typename Reader>
  static auto Read(Reader read, const char* value) {
    ::setenv(kVariable, value, 1);
    return read(kVariable);
  }
};

TEST_F(EnvironmentTest, FlagsAreOnOrOffAndNothingElse) {
  ::unsetenv(kVariable);
  EXPECT_FALSE(FlagFromEnvironment(kVariable));
  for (const char* on : {"1", "true", "yes", "on", "ON", "True"})
    EXPECT_TRUE(Read(FlagFromEnvironment, on)) << on;
  for (const char* off : {"", "0", "false", "no", "off", "OFF"})
    EXPECT_FALSE(Read(FlagFromEnvironment, off)) << off;
  for (const char* other : {"2", "enabled", " 1", "1\n"})
    EXPECT_THAT(ErrorFor(FlagFromEnvironment, other), HasSubstr("on/off switch"));
}

TEST_F(EnvironmentTest, PathsAreAbsoluteWithoutControlCharacters) {
  ::unsetenv(kVariable);
  EXPECT_EQ(AbsolutePathFromEnvironment(kVariable), "");
  EXPECT_EQ(Read(AbsolutePathFromEnvironment, "/work/main"), "/work/main");
  for (const char* refused : {"work/main", "./x", "/work\nmain", "/a\tb"})
    EXPECT_THAT(ErrorFor(AbsolutePathFromEnvironment, refused), HasSubstr("absolute path"));
}

TEST_F(EnvironmentTest, PathListsAreAbsolutePathsSeparatedByColons) {
  ::unsetenv(kVariable);
  EXPECT_TRUE(AbsolutePathListFromEnvironment(kVariable).empty());
  EXPECT_TRUE(Read(AbsolutePathListFromEnvironment, "").empty());
  EXPECT_EQ(Read(AbsolutePathListFromEnvironment, "/__w/*::/srv/ci/"),
            (std::vector<std::string>{"/__w/*", "/srv/ci/"}));
  for (const char* refused : {"/a:b", "./x", "/a:/b\nc", "~/x"}) {
    EXPECT_THAT(ErrorFor(AbsolutePathListFromEnvironment, refused),
                AllOf(HasSubstr("absolute paths separated by ':'"), HasSubstr("is not one")));
  }
}

TEST_F(EnvironmentTest, ExecutablesAreAbsolutePathsToExecutableFiles) {
  ::unsetenv(kVariable);
  EXPECT_EQ(ExecutableFromEnvironment(kVariable), "");
  EXPECT_EQ(Read(ExecutableFromEnvironment, "/bin/echo"), "/bin/echo");
  EXPECT_THAT(ErrorFor(ExecutableFromEnvironment, "nvdisasm"), HasSubstr("absolute path"));
  EXPECT_THAT(ErrorFor(ExecutableFromEnvironment, "/nonexistent/nvdisasm"), HasSubstr("does not exist"));
  EXPECT_THAT(ErrorFor(ExecutableFromEnvironment, dir_.string()), HasSubstr("not a regular file"));
  testing_support::WriteFile(dir_ / "plain", "");
  EXPECT_THAT(ErrorFor(ExecutableFromEnvironment, (dir_ / "plain").string() + "' -c 'x"),
              HasSubstr("does not exist"));
  EXPECT_THAT(ErrorFor(ExecutableFromEnvironment, (dir_ / "plain").string()), HasSubstr("not executable"));
}

TEST_F(EnvironmentTest, LabelsAreShortAndPlain) {
  ::unsetenv(kVariable);
  EXPECT_EQ(LabelFromEnvironment(kVariable), "");
  EXPECT_EQ(Read(LabelFromEnvironment, "ec82507"), "ec82507");
  EXPECT_EQ(Read(LabelFromEnvironment, "v1.2+dirty/main_x-y"), "v1.2+dirty/main_x-y");
  for (const char* refused : {"abc`rm -rf`", "a b", "<img>", "x\ny", "[a](b)"})
    EXPECT_THAT(ErrorFor(LabelFromEnvironment, refused), HasSubstr("A-Z a-z 0-9"));
  EXPECT_THAT(ErrorFor(LabelFromEnvironment, std::string(101, 'a')), HasSubstr("1 to 100"));
}

}  // namespace
}  // namespace bankcheck
