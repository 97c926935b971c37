// WriteFileAtomically, the one writer of every file bankcheck writes, and the folders it writes
// into: links planted at an output path or at a temporary name are never written through, modes
// are kept and never world-writable, and a failure leaves the old file and nothing else.

#include "core/platform/file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include "bankcheck/core/error.h"
#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_support::ExpectUntouched;
using testing_support::MakeVictim;
using testing_support::ModeOf;
using testing_support::ReadFile;
using testing_support::ScopedUmask;
using testing_support::TemporaryFilesUnder;
using testing_support::Victim;

class WriteFileAtomicallyTest : public testing_support::TempDirTest {
 protected:
  // WriteFileAtomically's error message; fails the test when it does not throw.
  static std::string ErrorOf(const std::filesystem::path& path, const std::string& content = "new\n") {
    try {
      WriteFileAtomically(path, content);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "writing " << path << " did not fail";
    return "";
  }
};

TEST_F(WriteFileAtomicallyTest, ReplacesTheFileAndLeavesNoTemporaryFile) {
  WriteFileAtomically(dir_ / "f.json", "first\n");
  WriteFileAtomically(dir_ / "f.json", "second\n");
  EXPECT_EQ(ReadFile(dir_ / "f.json"), "second\n");
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(WriteFileAtomicallyTest, RefusesASymbolicLinkAndLeavesItsTargetAlone) {
  const Victim victim = MakeVictim(dir_ / "victim");
  std::filesystem::create_symlink(victim.path, dir_ / "out.json");
  EXPECT_THAT(ErrorOf(dir_ / "out.json"), AllOf(HasSubstr((dir_ / "out.json").string()),
                                                HasSubstr("symbolic link"), HasSubstr("remove")));
  ExpectUntouched(victim);
  EXPECT_TRUE(std::filesystem::is_symlink(dir_ / "out.json"));
  // A dangling link would create its target: refused too.
  std::filesystem::create_symlink(dir_ / "created", dir_ / "dangling.json");
  EXPECT_THAT(ErrorOf(dir_ / "dangling.json"), HasSubstr("symbolic link"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "created"));
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(WriteFileAtomicallyTest, AHardLinkIsReplacedNotWrittenThrough) {
  const Victim victim = MakeVictim(dir_ / "victim");
  std::filesystem::create_hard_link(victim.path, dir_ / "out.json");
  WriteFileAtomically(dir_ / "out.json", "new\n");
  EXPECT_EQ(ReadFile(dir_ / "out.json"), "new\n");
  ExpectUntouched(victim);
}

TEST_F(WriteFileAtomicallyTest, LinksAtTheOldPredictableTemporaryNamesAreNotFollowed) {
  const Victim victim = MakeVictim(dir_ / "victim");
  const auto out = dir_ / "out.json";
  for (const std::string& suffix : {std::string(".tmp"), ".tmp." + std::to_string(::getpid())})
    std::filesystem::create_symlink(victim.path, out.string() + suffix);
  const Victim hard = MakeVictim(dir_ / "hard-victim");
  std::filesystem::create_hard_link(hard.path, out.string() + ".tmp.1");
  WriteFileAtomically(out, "new\n");
  EXPECT_EQ(ReadFile(out), "new\n");
  ExpectUntouched(victim);
  ExpectUntouched(hard);
}

TEST_F(WriteFileAtomicallyTest, AnExistingFileKeepsItsModeLessWorldWrite) {
  const auto out = dir_ / "private.json";
  WriteFileAtomically(out, "first\n");
  std::filesystem::permissions(out, std::filesystem::perms(0600));
  WriteFileAtomically(out, "second\n");
  EXPECT_EQ(ModeOf(out), 0600u);
  std::filesystem::permissions(out, std::filesystem::perms(0666));
  WriteFileAtomically(out, "third\n");
  EXPECT_EQ(ModeOf(out), 0664u);
  EXPECT_EQ(ReadFile(out), "third\n");
}

TEST_F(WriteFileAtomicallyTest, ANewFileIsNotWorldWritableEvenWithUmaskZero) {
  const ScopedUmask no_mask(0);
  WriteFileAtomically(dir_ / "new.json", "text\n");
  EXPECT_EQ(ModeOf(dir_ / "new.json"), 0644u);
}

TEST_F(WriteFileAtomicallyTest, RefusesWhatIsNotARegularFile) {
  std::filesystem::create_directories(dir_ / "taken" / "inside");
  EXPECT_THAT(ErrorOf(dir_ / "taken"), HasSubstr("not a regular file"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "taken" / "inside"));
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_THAT(ErrorOf(dir_ / "fifo"), HasSubstr("not a regular file"));
  EXPECT_TRUE(std::filesystem::is_fifo(dir_ / "fifo"));
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(WriteFileAtomicallyTest, AMissingFolderIsNamedAndNotCreated) {
  EXPECT_THAT(ErrorOf(dir_ / "absent" / "f.json"),
              AllOf(HasSubstr("its folder " + (dir_ / "absent").string() + " does not exist"),
                    HasSubstr("create it first")));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "absent"));
}

TEST_F(WriteFileAtomicallyTest, AFailedWriteLeavesTheOldFileAndNothingElse) {
  const auto out = dir_ / "f.json";
  WriteFileAtomically(out, "old\n");
  // Files may not grow past 8 bytes: the write of the temporary fails with EFBIG (not a signal).
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  rlimit small = old_limit;
  small.rlim_cur = 8;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string message = ErrorOf(out, std::string(100, 'x'));
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_THAT(message, AllOf(HasSubstr("cannot write " + out.string() + ": writing its temporary copy"),
                             HasSubstr("was left unchanged")));
  EXPECT_THAT(message, Not(HasSubstr(".tmp")));  // the user's path, never the internal name
  EXPECT_EQ(ReadFile(out), "old\n");
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

class CreateOutputFoldersTest : public testing_support::TempDirTest {};

TEST_F(CreateOutputFoldersTest, CreatesMissingFoldersNotWorldWritable) {
  const ScopedUmask no_mask(0);
  CreateOutputFolders(dir_ / "a" / "b");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "a" / "b"));
  EXPECT_EQ(ModeOf(dir_ / "a"), 0755u);
  EXPECT_EQ(ModeOf(dir_ / "a" / "b"), 0755u);
  CreateOutputFolders(dir_ / "a" / "b");  // already there: fine
}

TEST_F(CreateOutputFoldersTest, FollowsOnlyALinkNobodyElseCanHavePlantedAndRefusesAFile) {
  std::filesystem::create_directories(dir_ / "real");
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "link");
  CreateOutputFolders(dir_ / "link" / "cases");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "real" / "cases"));
  if (::lchown((dir_ / "link").c_str(), 65534, 65534) == 0) {  // root: the link given to another user
    EXPECT_THROW(CreateOutputFolders(dir_ / "link" / "more"), Error);
    EXPECT_FALSE(std::filesystem::exists(dir_ / "real" / "more"));
  }
  testing_support::WriteFile(dir_ / "file", "x");
  EXPECT_THROW(CreateOutputFolders(dir_ / "file"), Error);
  EXPECT_THROW(CreateOutputFolders(dir_ / "file" / "below"), Error);
}

TEST_F(CreateOutputFoldersTest, RefusesAFolderOthersMayWriteThatAnotherUserOwns) {
  const auto shared = dir_ / "shared";
  std::filesystem::create_directory(shared);
  ::chmod(shared.c_str(), 0777);
  if (::chown(shared.c_str(), 65534, 65534) != 0)  // nobody
    GTEST_SKIP() << "cannot give a folder to another user (not root): " << std::strerror(errno);
  try {
    CreateOutputFolders(shared / "results");
    ADD_FAILURE() << "a world-writable folder of another user was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr(shared.string()), HasSubstr("another user")));
  }
  EXPECT_FALSE(std::filesystem::exists(shared / "results"));
}

class AppendToExistingFileTest : public testing_support::TempDirTest {};

TEST_F(AppendToExistingFileTest, AppendsButNeverCreatesNorFollowsALink) {
  testing_support::WriteFile(dir_ / "log", "a\n");
  EXPECT_TRUE(AppendToExistingFile(dir_ / "log", "b\n"));
  EXPECT_EQ(ReadFile(dir_ / "log"), "a\nb\n");
  EXPECT_FALSE(AppendToExistingFile(dir_ / "absent", "b\n"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "absent"));
  const Victim victim = MakeVictim(dir_ / "victim");
  std::filesystem::create_symlink(victim.path, dir_ / "link");
  EXPECT_FALSE(AppendToExistingFile(dir_ / "link", "b\n"));
  ExpectUntouched(victim);
}

class ExclusiveFileLockTest : public testing_support::TempDirTest {
 protected:
  // The error of locking `path`; fails the test when it is locked.
  static std::string ErrorOf(const std::filesystem::path& path) {
    try {
      const ExclusiveFileLock lock(path);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "locking " << path << " did not fail";
    return "";
  }
};

TEST_F(ExclusiveFileLockTest, CreatesAnEmptyLockFileAndUsesAnExistingOneAsFound) {
  const ScopedUmask umask(0);
  { const ExclusiveFileLock lock(dir_ / ".lock"); }
  EXPECT_EQ(ModeOf(dir_ / ".lock"), 0644u);
  EXPECT_EQ(ReadFile(dir_ / ".lock"), "");
  testing_support::WriteFile(dir_ / "other.lock", "kept\n");
  ::chmod((dir_ / "other.lock").c_str(), 0600);
  { const ExclusiveFileLock lock(dir_ / "other.lock"); }
  EXPECT_EQ(ReadFile(dir_ / "other.lock"), "kept\n");
  EXPECT_EQ(ModeOf(dir_ / "other.lock"), 0600u);
}

// The baselines folder's .lock (baseline update and prune): a link planted there is never
// followed, nor a second name of another file used.
TEST_F(ExclusiveFileLockTest, RefusesALinkAHardLinkOrANonRegularFile) {
  const Victim victim = MakeVictim(dir_ / "victim");
  const auto lock = dir_ / "sm_90" / ".lock";
  std::filesystem::create_directories(lock.parent_path());
  std::filesystem::create_symlink(victim.path, lock);
  EXPECT_THAT(ErrorOf(lock),
              AllOf(HasSubstr(lock.string()), HasSubstr("symbolic link"), HasSubstr("remove")));
  std::filesystem::remove(lock);
  std::filesystem::create_symlink(dir_ / "created", lock);  // dangling: nothing is created through it
  EXPECT_THAT(ErrorOf(lock), HasSubstr("symbolic link"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "created"));
  std::filesystem::remove(lock);
  std::filesystem::create_hard_link(victim.path, lock);
  EXPECT_THAT(ErrorOf(lock), AllOf(HasSubstr(lock.string()), HasSubstr("2 hard links")));
  std::filesystem::remove(lock);
  ExpectUntouched(victim);
  std::filesystem::create_directory(lock);
  EXPECT_THAT(ErrorOf(lock), HasSubstr("not a regular file"));
}

class AppendToFileTest : public testing_support::TempDirTest {
 protected:
  std::string ErrorOf(const std::filesystem::path& path) {
    try {
      AppendToFile(path, "b\n");
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(AppendToFileTest, AppendsToAnExistingFileAndCreatesAMissingOne) {
  testing_support::WriteFile(dir_ / "summary.md", "a\n");
  AppendToFile(dir_ / "summary.md", "b\n");
  EXPECT_EQ(ReadFile(dir_ / "summary.md"), "a\nb\n");
  AppendToFile(dir_ / "new.md", "c\n");
  EXPECT_EQ(ReadFile(dir_ / "new.md"), "c\n");
  EXPECT_EQ(std::filesystem::status(dir_ / "new.md").permissions() & std::filesystem::perms::others_write,
            std::filesystem::perms::none);
}

TEST_F(AppendToFileTest, RefusesLinksAndWhatIsNotARegularFile) {
  const Victim victim = MakeVictim(dir_ / "victim");
  std::filesystem::create_symlink(victim.path, dir_ / "link");
  EXPECT_THAT(ErrorOf(dir_ / "link"), AllOf(HasSubstr((dir_ / "link").string()), HasSubstr("symbolic link")));
  std::filesystem::create_hard_link(victim.path, dir_ / "hard");
  EXPECT_THAT(ErrorOf(dir_ / "hard"), HasSubstr("hard links"));
  ExpectUntouched(victim);
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_THAT(ErrorOf(dir_ / "fifo"), HasSubstr("refusing to append to"));
  std::filesystem::create_directory(dir_ / "folder");
  EXPECT_THAT(ErrorOf(dir_ / "folder"), HasSubstr("refusing to append to"));
  EXPECT_THAT(ErrorOf(dir_ / "missing" / "x.md"), HasSubstr("does not exist; create it first"));
}

}  // namespace
}  // namespace bankcheck
