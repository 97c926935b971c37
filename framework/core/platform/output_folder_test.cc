// OutputFolder, the folder every writer writes into: only folders of root or the caller (or named
// trusted), only links nobody else can have planted, and what is written lands in the folder that
// was checked.

#include "core/platform/output_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "bankcheck/core/error.h"
#include "core/platform/file_io.h"
#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_support::ReadFile;

class OutputFolderTest : public testing_support::TempDirTest {
 protected:
  void TearDown() override {
    ::unsetenv("BANKCHECK_SAFE_DIRECTORIES");
    TempDirTest::TearDown();
  }
  // The error of `action`; fails the test when it does not throw.
  template <typename Action>
  static std::string ErrorOf(Action action) {
    try {
      action();
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "did not fail";
    return "";
  }

  // Gives `path` to the user nobody (65534); false when this process may not (not root).
  static bool GiveAway(const std::filesystem::path& path) { return ::chown(path.c_str(), 65534, 65534) == 0; }
};

// A build reached through a link of the caller's (a linked checkout, home or scratch folder):
// followed, wherever the link is on the way and whatever its target's spelling.
TEST_F(OutputFolderTest, ALinkOfTheCallerOnTheWayIsFollowed) {
  std::filesystem::create_directories(dir_ / "real" / "sub");
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "link");
  std::filesystem::create_directory_symlink("real/./sub/..", dir_ / "relative");  // relative target
  std::filesystem::create_directory_symlink(dir_ / "link", dir_ / "link-to-link");
  for (const auto& path : {dir_ / "link" / "out.md", dir_ / "link" / "sub" / "out.md",
                           dir_ / "relative" / "rel.md", dir_ / "link-to-link" / "sub" / "twice.md"}) {
    SCOPED_TRACE(path);
    WriteFileAtomically(path, "x");
  }
  EXPECT_EQ(ReadFile(dir_ / "real" / "out.md"), "x");
  EXPECT_EQ(ReadFile(dir_ / "real" / "sub" / "out.md"), "x");
  EXPECT_EQ(ReadFile(dir_ / "real" / "rel.md"), "x");
  EXPECT_EQ(ReadFile(dir_ / "real" / "sub" / "twice.md"), "x");
  CreateOutputFolders(dir_ / "link" / "sub" / "new" / "cases");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "real" / "sub" / "new" / "cases"));
  { const ExclusiveFileLock lock(dir_ / "link" / "sub" / ".lock"); }
  EXPECT_TRUE(std::filesystem::is_regular_file(dir_ / "real" / "sub" / ".lock"));
  // A link to a folder not made yet: made where the link leads.
  std::filesystem::create_directory_symlink(dir_ / "real" / "later", dir_ / "dangling");
  CreateOutputFolders(dir_ / "dangling" / "cases");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "real" / "later" / "cases"));
  // The file itself is never a link (file_io_test.cc), nor is what a link leads to written through.
  std::filesystem::create_symlink(dir_ / "real" / "out.md", dir_ / "real" / "file-link.md");
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(dir_ / "link" / "file-link.md", "y"); }),
              HasSubstr("symbolic link"));
  EXPECT_EQ(ReadFile(dir_ / "real" / "out.md"), "x");
}

// After `cd` into a link, a relative path and its absolute spelling are decided alike: by the
// path the shell shows ($PWD) when it names the current folder, else by getcwd()'s.
TEST_F(OutputFolderTest, RelativeAndAbsoluteSpellingsAreDecidedAlike) {
  std::filesystem::create_directories(dir_ / "real");
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "link");
  const std::filesystem::path before = std::filesystem::current_path();
  const char* old_pwd = std::getenv("PWD");
  const std::optional<std::string> saved_pwd =
      old_pwd != nullptr ? std::optional<std::string>(old_pwd) : std::nullopt;
  const auto in_link = [&](const std::function<void()>& action, bool pwd) {
    std::filesystem::current_path(dir_ / "link");
    if (pwd)
      ::setenv("PWD", (dir_ / "link").c_str(), 1);
    else
      ::unsetenv("PWD");
    std::string error;
    try {
      action();
    } catch (const Error& e) {
      error = e.what();
    }
    std::filesystem::current_path(before);
    if (saved_pwd)
      ::setenv("PWD", saved_pwd->c_str(), 1);
    else
      ::unsetenv("PWD");
    return error;
  };
  const auto relative = [] { WriteFileAtomically("rel.md", "r"); };
  const auto absolute = [&] { WriteFileAtomically(dir_ / "link" / "abs.md", "a"); };
  const auto up = [] { WriteFileAtomically("../real/up.md", "u"); };  // ".." of the folder reached
  for (const bool pwd : {true, false}) {
    SCOPED_TRACE(pwd ? "PWD names the link" : "no PWD");
    EXPECT_EQ(in_link(relative, pwd), "");
    EXPECT_EQ(in_link(absolute, pwd), "");
    EXPECT_EQ(in_link(up, pwd), "");
  }
  EXPECT_EQ(ReadFile(dir_ / "real" / "rel.md"), "r");
  EXPECT_EQ(ReadFile(dir_ / "real" / "abs.md"), "a");
  EXPECT_EQ(ReadFile(dir_ / "real" / "up.md"), "u");

  // The same link given to another user: refused in both spellings, as the shell shows the path.
  if (::lchown((dir_ / "link").c_str(), 65534, 65534) != 0)
    GTEST_SKIP() << "cannot give a link to another user (not root): " << std::strerror(errno);
  std::filesystem::remove(dir_ / "real" / "rel.md");
  const std::string refused = (dir_ / "link").string() + " is a symbolic link of another user (uid 65534)";
  EXPECT_THAT(in_link(relative, true), AllOf(HasSubstr("refusing to write rel.md (from the current folder, " +
                                                       (dir_ / "link").string()),
                                             HasSubstr(refused)));
  EXPECT_THAT(in_link(absolute, true), HasSubstr(refused));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "real" / "rel.md"));
  // Without $PWD the current folder is known only by its path without links, which passes.
  EXPECT_EQ(in_link(relative, false), "");
  EXPECT_EQ(ReadFile(dir_ / "real" / "rel.md"), "r");
}

// What another user could have planted is refused: their link in a sticky world-writable folder
// (their link in /tmp), and any link in a folder that others may write to and that is not sticky.
// Nothing is written where such a link leads.
TEST_F(OutputFolderTest, ALinkAnotherUserCouldHavePlantedIsRefused) {
  std::filesystem::create_directories(dir_ / "victim");
  const auto tmp = dir_ / "tmp";  // as /tmp: root's, world-writable, sticky
  std::filesystem::create_directory(tmp);
  ASSERT_EQ(::chmod(tmp.c_str(), 01777), 0);
  std::filesystem::create_directory_symlink(dir_ / "victim", tmp / "build");
  // Ours in /tmp: nobody else can remove or change it (the sticky bit), so it is followed.
  WriteFileAtomically(tmp / "build" / "ours.md", "x");
  EXPECT_EQ(ReadFile(dir_ / "victim" / "ours.md"), "x");
  std::filesystem::remove(dir_ / "victim" / "ours.md");

  // A folder of ours that others may write to: anyone could have replaced a link in it, so the
  // folder itself is refused before its link is read.
  for (const auto& [mode, shown] : {std::pair<mode_t, std::string>{0775, "0775"}, {0777, "0777"}}) {
    const auto open = dir_ / ("open-" + shown);
    std::filesystem::create_directory(open);
    ASSERT_EQ(::chmod(open.c_str(), mode), 0);
    std::filesystem::create_directory_symlink(dir_ / "victim", open / "build");
    EXPECT_THAT(ErrorOf([&] { CreateOutputFolders(open / "build" / "results" / "cases"); }),
                HasSubstr(open.string() + ": others may write to it (mode " + shown + ", not sticky)"));
  }
  if (::lchown((tmp / "build").c_str(), 65534, 65534) != 0)
    GTEST_SKIP() << "cannot give a link to another user (not root): " << std::strerror(errno);
  const std::string refused = (tmp / "build").string() + " is a symbolic link of another user (uid 65534)";
  EXPECT_THAT(
      ErrorOf([&] { WriteFileAtomically(tmp / "build" / "out.md", "x"); }),
      AllOf(HasSubstr("refusing to write " + (tmp / "build" / "out.md").string()), HasSubstr(refused)));
  EXPECT_THAT(ErrorOf([&] { CreateOutputFolders(tmp / "build" / "results" / "cases"); }), HasSubstr(refused));
  EXPECT_THAT(ErrorOf([&] { const ExclusiveFileLock lock(tmp / "build" / ".lock"); }), HasSubstr(refused));
  // Reached through a link of ours, their link is refused all the same.
  std::filesystem::create_directory_symlink(tmp, dir_ / "via");
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(dir_ / "via" / "build" / "out.md", "x"); }),
              HasSubstr(refused));
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "victim"));
}

// A relative path is walked with the same checks, from the current folder's own path.
TEST_F(OutputFolderTest, ARelativePathIsWalkedFromTheCurrentFolder) {
  std::filesystem::create_directories(dir_ / "real");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  WriteFileAtomically("real/../real/out.md", "x");
  CreateOutputFolders("made/below");
  const std::string missing = ErrorOf([] { WriteFileAtomically("absent/out.md", "x"); });
  std::filesystem::current_path(before);
  EXPECT_EQ(ReadFile(dir_ / "real" / "out.md"), "x");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "made" / "below"));
  EXPECT_THAT(missing,
              AllOf(HasSubstr("cannot write absent/out.md (from the current folder, " + dir_.string()),
                    HasSubstr("does not exist")));
}

// Links that lead to each other, or more than the kernel's 40 on one path: refused, saying so.
TEST_F(OutputFolderTest, LoopsAndMoreThanFortyLinksAreRefused) {
  std::filesystem::create_directory_symlink(dir_ / "b", dir_ / "a");
  std::filesystem::create_directory_symlink(dir_ / "a", dir_ / "b");
  EXPECT_THAT(ErrorOf([&] { CreateOutputFolders(dir_ / "a" / "results"); }),
              AllOf(HasSubstr("more than 40 symbolic links on the way"), HasSubstr("loop")));
  std::filesystem::create_directories(dir_ / "real");
  // chain-N leads to chain-(N-1) ... chain-1 to real: chain-40 takes 40 links, chain-41 one more.
  for (int i = 1; i <= 41; ++i) {
    std::filesystem::create_directory_symlink(
        i == 1 ? dir_ / "real" : dir_ / ("chain-" + std::to_string(i - 1)),
        dir_ / ("chain-" + std::to_string(i)));
  }
  WriteFileAtomically(dir_ / "chain-40" / "out.md", "x");
  EXPECT_EQ(ReadFile(dir_ / "real" / "out.md"), "x");
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(dir_ / "chain-41" / "more.md", "x"); }),
              HasSubstr("more than 40 symbolic links on the way"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "real" / "more.md"));
}

// A folder of the caller's own (root's, when the test runs as root) that others may write to and
// that is not sticky: anyone could replace what is written there, so it is refused as another's
// would be, on the way and as the folder written to; sticky (as /tmp), it is accepted.
TEST_F(OutputFolderTest, AFolderOfTheCallerThatOthersMayWriteIsRefusedUnlessSticky) {
  for (const auto& [mode, shown] : {std::pair<mode_t, std::string>{0775, "0775"}, {0777, "0777"}}) {
    SCOPED_TRACE(shown);
    const auto open = dir_ / ("open-" + shown);
    std::filesystem::create_directories(open / "below");
    ASSERT_EQ(::chmod(open.c_str(), mode), 0);
    const std::string refused = open.string() + ": others may write to it (mode " + shown + ", not sticky)";
    EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(open / "out.md", "x"); }),
                AllOf(HasSubstr("refusing to write " + (open / "out.md").string()), HasSubstr(refused)));
    EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(open / "below" / "out.md", "x"); }), HasSubstr(refused));
    EXPECT_THAT(ErrorOf([&] { CreateOutputFolders(open / "results"); }), HasSubstr(refused));
    EXPECT_THAT(ErrorOf([&] { AppendToFile(open / "summary.md", "x"); }), HasSubstr(refused));
    EXPECT_FALSE(std::filesystem::exists(open / "out.md"));
    EXPECT_FALSE(std::filesystem::exists(open / "below" / "out.md"));
    EXPECT_FALSE(std::filesystem::exists(open / "results"));
    EXPECT_FALSE(std::filesystem::exists(open / "summary.md"));
    // Named trusted, it is used.
    ::setenv("BANKCHECK_SAFE_DIRECTORIES", open.c_str(), 1);
    WriteFileAtomically(open / "out.md", "x");
    ::unsetenv("BANKCHECK_SAFE_DIRECTORIES");
    EXPECT_EQ(ReadFile(open / "out.md"), "x");
  }
  const auto sticky = dir_ / "sticky";
  std::filesystem::create_directory(sticky);
  ASSERT_EQ(::chmod(sticky.c_str(), 01777), 0);
  WriteFileAtomically(sticky / "out.md", "x");
  EXPECT_EQ(ReadFile(sticky / "out.md"), "x");
}

// A folder of another user, even one that only its owner may write to: its owner could swap what
// bankcheck writes there; unless BANKCHECK_SAFE_DIRECTORIES names it. The cases below need root
// (to give a folder away) and skip without it.
TEST_F(OutputFolderTest, AFolderOfAnotherUserIsRefusedUnlessNamedTrusted) {
  const auto theirs = dir_ / "theirs";
  std::filesystem::create_directories(theirs / "sub");
  ::chmod(theirs.c_str(), 0755);
  if (!GiveAway(theirs))
    GTEST_SKIP() << "cannot give a folder to another user (not root): " << std::strerror(errno);
  const std::string owner = theirs.string() + ": it belongs to another user (uid 65534)";
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(theirs / "out.md", "x"); }), HasSubstr(owner));
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(theirs / "sub" / "out.md", "x"); }), HasSubstr(owner));
  EXPECT_THAT(ErrorOf([&] { CreateOutputFolders(theirs / "sm_90"); }), HasSubstr(owner));
  EXPECT_THAT(ErrorOf([&] { const ExclusiveFileLock lock(theirs / ".lock"); }), HasSubstr(owner));
  // Sticky (as /tmp) does not help a folder that is not root's.
  ::chmod(theirs.c_str(), 01777);
  EXPECT_THAT(ErrorOf([&] { CreateOutputFolders(theirs / "sm_90"); }), HasSubstr(owner));
  EXPECT_FALSE(std::filesystem::exists(theirs / "out.md"));
  EXPECT_FALSE(std::filesystem::exists(theirs / "sm_90"));
  EXPECT_FALSE(std::filesystem::exists(theirs / ".lock"));
  // The folder itself given away, under folders of ours.
  const auto given = dir_ / "given";
  std::filesystem::create_directories(given);
  ASSERT_TRUE(GiveAway(given));
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(given / "out.md", "x"); }),
              AllOf(HasSubstr(given.string() + ": it belongs to another user"),
                    HasSubstr("add " + given.string() + " to BANKCHECK_SAFE_DIRECTORIES")));

  // Trusted by name (as a GitHub `container:` job's workspace, laid out by another uid): the
  // folder itself, or "DIR/*" for it and every folder below it; its path without links.
  ::setenv("BANKCHECK_SAFE_DIRECTORIES", ("/elsewhere:" + given.string()).c_str(), 1);
  WriteFileAtomically(given / "out.md", "x");
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(theirs / "sub" / "out.md", "x"); }), HasSubstr(owner));
  ::setenv("BANKCHECK_SAFE_DIRECTORIES", (theirs.string() + "/*").c_str(), 1);
  WriteFileAtomically(theirs / "sub" / "out.md", "x");
  CreateOutputFolders(theirs / "sm_90");
  std::filesystem::create_directory_symlink(theirs, dir_ / "link");
  ::setenv("BANKCHECK_SAFE_DIRECTORIES", ((dir_ / "link").string() + "/*").c_str(), 1);
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(dir_ / "link" / "out.md", "x"); }), HasSubstr(owner));
  ::setenv("BANKCHECK_SAFE_DIRECTORIES", "relative/path", 1);
  EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(dir_ / "out.md", "x"); }),
              HasSubstr("BANKCHECK_SAFE_DIRECTORIES='relative/path' is not accepted"));
  ::unsetenv("BANKCHECK_SAFE_DIRECTORIES");
  EXPECT_EQ(ReadFile(given / "out.md"), "x");
  EXPECT_EQ(ReadFile(theirs / "sub" / "out.md"), "x");
}

// The swap race (renameat2(RENAME_EXCHANGE) of a folder on the way between the check and the
// write) is closed by construction: what is written is written on the descriptor of the folder
// that was checked, never by its path again. Swapping the path after opening changes nothing.
TEST_F(OutputFolderTest, WritesGoToTheFolderThatWasCheckedWhateverHappensToItsPath) {
  std::filesystem::create_directories(dir_ / "elsewhere");
  const OutputFolder folder = OutputFolder::Create(dir_ / "out" / "sm_90");
  std::filesystem::rename(dir_ / "out" / "sm_90", dir_ / "moved");
  std::filesystem::create_directory_symlink(dir_ / "elsewhere", dir_ / "out" / "sm_90");
  {
    const ExclusiveFileLock lock(folder, ".lock");
    WriteFileIn(folder, "topic.json", "{}\n");
  }
  EXPECT_EQ(ReadFile(dir_ / "moved" / "topic.json"), "{}\n");
  EXPECT_TRUE(std::filesystem::exists(dir_ / "moved" / ".lock"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "elsewhere"));
  EXPECT_TRUE(RemoveFileIn(folder, "topic.json"));
  EXPECT_FALSE(RemoveFileIn(folder, "topic.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "moved" / "topic.json"));
}

TEST_F(OutputFolderTest, WriteFileInTakesANameNotAPath) {
  const OutputFolder folder = OutputFolder::Create(dir_ / "out");
  std::filesystem::create_directories(dir_ / "other");
  EXPECT_THAT(ErrorOf([&] { WriteFileIn(folder, "../other/x", "x"); }),
              HasSubstr("names no file of the folder"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "other"));
}

}  // namespace
}  // namespace bankcheck
