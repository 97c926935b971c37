// OutputFolder, the folder every writer writes into: no link on the way, only folders of root or
// the caller, and what is written lands in the folder that was checked.

#include "core/internal/output_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "bankcheck/error.h"
#include "core/internal/file_io.h"
#include "core/internal/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_support::ReadFile;

class OutputFolderTest : public testing_support::TempDirTest {
 protected:
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

// report -o dir/out.md with dir a link, or a link further up: refused, nothing written there.
TEST_F(OutputFolderTest, ALinkAnywhereOnThePathIsRefused) {
  std::filesystem::create_directories(dir_ / "real" / "sub");
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "link");
  for (const auto& path : {dir_ / "link" / "out.md", dir_ / "link" / "sub" / "out.md"}) {
    SCOPED_TRACE(path);
    EXPECT_THAT(ErrorOf([&] { WriteFileAtomically(path, "x"); }),
                AllOf(HasSubstr("refusing to write " + path.string()),
                      HasSubstr((dir_ / "link").string() + " is a symbolic link"), HasSubstr("realpath")));
  }
  EXPECT_THAT(ErrorOf([&] { CreateOutputFolders(dir_ / "link" / "sub" / "new"); }),
              HasSubstr("symbolic link"));
  EXPECT_THAT(ErrorOf([&] { const ExclusiveFileLock lock(dir_ / "link" / "sub" / ".lock"); }),
              HasSubstr("symbolic link"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "real" / "sub"));
  // The real path is fine.
  WriteFileAtomically(dir_ / "real" / "sub" / "out.md", "x");
  EXPECT_EQ(ReadFile(dir_ / "real" / "sub" / "out.md"), "x");
}

// A relative path is walked from the current folder, with the same checks.
TEST_F(OutputFolderTest, ARelativePathIsWalkedFromTheCurrentFolder) {
  std::filesystem::create_directories(dir_ / "real");
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "link");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  WriteFileAtomically("real/../real/out.md", "x");
  const std::string error = ErrorOf([] { WriteFileAtomically("link/out.md", "x"); });
  CreateOutputFolders("made/below");
  std::filesystem::current_path(before);
  EXPECT_EQ(ReadFile(dir_ / "real" / "out.md"), "x");
  EXPECT_THAT(error, HasSubstr("link is a symbolic link"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "made" / "below"));
}

// A folder of another user, even one that only its owner may write to: its owner could swap what
// bankcheck writes there. The cases below need root (to give a folder away) and skip without it.
TEST_F(OutputFolderTest, AFolderOfAnotherUserIsRefused) {
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
              HasSubstr(given.string() + ": it belongs to another user"));
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
