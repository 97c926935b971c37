#include "cuda/internal/gpu_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "bankcheck/core/error.h"
#include "core/platform/test_support.h"

namespace bankcheck::internal {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_support::ExpectUntouched;
using testing_support::MakeVictim;
using testing_support::ModeOf;
using testing_support::ReadFile;
using testing_support::Victim;

class GpuCounterLockTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    locks_ = dir_ / "locks";
    ::setenv("BANKCHECK_LOCK_DIR", locks_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("BANKCHECK_LOCK_DIR");
    ::unsetenv("BANKCHECK_GPU_LOCK_TIMEOUT");
    TempDirTest::TearDown();
  }
  // The lock folder as bankcheck creates it.
  void CreateLockFolder() const {
    std::filesystem::create_directory(locks_);
    std::filesystem::permissions(locks_, std::filesystem::perms(01777));
  }
  // The error of taking the lock of GPU 0000:3b:00.0 in `mode`; fails the test when it is taken.
  static Error ErrorOfTaking(GpuCounterLock::Mode mode = GpuCounterLock::Mode::kExclusive) {
    try {
      GpuCounterLock lock("0000:3b:00.0", std::chrono::milliseconds(0), mode);
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "the lock was taken";
    return Error(ErrorKind::kBadInput, "");
  }
  std::filesystem::path locks_;
  const std::string lock_name_ = "bankcheck-gpu-0000-3b-00-0.lock";
};

TEST_F(GpuCounterLockTest, ASecondHolderWaitsThenFailsNamingTheFirst) {
  auto first = std::make_unique<GpuCounterLock>("0000:3b:00.0", std::chrono::milliseconds(0));
  EXPECT_EQ(first->path(), (locks_ / lock_name_).string());
  try {
    GpuCounterLock second("0000:3b:00.0", std::chrono::milliseconds(100));
    ADD_FAILURE() << "the lock was taken twice";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kProfilerBusy);
    EXPECT_THAT(e.what(), HasSubstr("(pid " + std::to_string(::getpid()) + ")"));
    EXPECT_THAT(e.what(), HasSubstr("BANKCHECK_GPU_LOCK_TIMEOUT"));
  }
  // Another GPU has its own lock.
  EXPECT_NO_THROW(GpuCounterLock("0000:3c:00.0", std::chrono::milliseconds(0)));
  first.reset();
  EXPECT_NO_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(0)));
}

TEST_F(GpuCounterLockTest, SharedHoldersCoexistAndKeepAnExclusiveOneWaiting) {
  using Mode = GpuCounterLock::Mode;
  auto first = std::make_unique<GpuCounterLock>("0000:3b:00.0", std::chrono::milliseconds(0), Mode::kShared);
  auto second = std::make_unique<GpuCounterLock>("0000:3b:00.0", std::chrono::milliseconds(0), Mode::kShared);
  EXPECT_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(50)), Error);
  // An upgrade waits for the other shared holder too, and gets the lock once it is gone.
  EXPECT_THROW(first->MakeExclusive(std::chrono::milliseconds(50)), Error);
  first = std::make_unique<GpuCounterLock>("0000:3b:00.0", std::chrono::milliseconds(0), Mode::kShared);
  second.reset();
  first->MakeExclusive(std::chrono::milliseconds(0));
  EXPECT_EQ(first->mode(), Mode::kExclusive);
  EXPECT_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(50), Mode::kShared), Error);
  first.reset();
  EXPECT_NO_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(0)));
}

TEST_F(GpuCounterLockTest, AnExclusiveWaiterGoesBeforeLaterSharedOnes) {
  using Mode = GpuCounterLock::Mode;
  auto reader = std::make_unique<GpuCounterLock>("0000:3b:00.0", std::chrono::milliseconds(0), Mode::kShared);
  std::unique_ptr<GpuCounterLock> writer;
  std::thread waiting(
      [&] { writer = std::make_unique<GpuCounterLock>("0000:3b:00.0", std::chrono::seconds(10)); });
  // Once the writer waits at the gate, a new shared holder waits too (without the gate it would
  // join the reader and keep the writer waiting).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool queued = false;
  while (!queued && std::chrono::steady_clock::now() < until) {
    try {
      GpuCounterLock late("0000:3b:00.0", std::chrono::milliseconds(50), Mode::kShared);
    } catch (const Error&) {
      queued = true;
    }
  }
  EXPECT_TRUE(queued) << "a later shared holder went before the waiting exclusive one";
  reader.reset();
  waiting.join();
  ASSERT_NE(writer, nullptr);
  EXPECT_EQ(writer->mode(), Mode::kExclusive);
  EXPECT_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(50), Mode::kShared), Error);
  writer.reset();
  EXPECT_NO_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(0), Mode::kShared));
}

TEST_F(GpuCounterLockTest, DescendantsOfTheHolderShareTheLock) {
  GpuCounterLock held("0000:3b:00.0", std::chrono::milliseconds(0));
  // A child takes the lock; so does a grandchild (a test running the suite, whose supervisor runs
  // the cases in children), also while another process waits at the gate.
  const auto take = [] {
    try {
      GpuCounterLock shared("0000:3b:00.0", std::chrono::milliseconds(0), GpuCounterLock::Mode::kShared);
      return 0;
    } catch (...) {
      return 1;
    }
  };
  const auto wait_for = [](pid_t pid) {
    int status = 0;
    return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 2;
  };
  const pid_t child = ::fork();
  if (child == 0) std::_Exit(take());
  EXPECT_EQ(wait_for(child), 0) << "the child could not share its parent's lock";
  // Another holder-to-be waits at the gate for the next second.
  std::thread queued([] { EXPECT_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::seconds(1)), Error); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const pid_t middle = ::fork();
  if (middle == 0) {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) std::_Exit(take());
    std::_Exit(wait_for(grandchild));
  }
  EXPECT_EQ(wait_for(middle), 0) << "the grandchild could not share its grandparent's lock";
  queued.join();
}

TEST_F(GpuCounterLockTest, TimeoutComesFromTheEnvironment) {
  ::unsetenv("BANKCHECK_GPU_LOCK_TIMEOUT");
  EXPECT_EQ(GpuLockTimeout(), std::chrono::seconds(600));
  ::setenv("BANKCHECK_GPU_LOCK_TIMEOUT", "2.5", 1);
  EXPECT_EQ(GpuLockTimeout(), std::chrono::milliseconds(2500));
  ::setenv("BANKCHECK_GPU_LOCK_TIMEOUT", "86400", 1);
  EXPECT_EQ(GpuLockTimeout(), std::chrono::hours(24));
  ::setenv("BANKCHECK_GPU_LOCK_TIMEOUT", "0", 1);
  EXPECT_EQ(GpuLockTimeout(), std::chrono::milliseconds(0));
  // Not a number, not finite, or out of range (once cast to an undefined count of milliseconds).
  for (const char* value : {"soon", "inf", "nan", "1e300", "1e10", "86401", "-1", "5s"}) {
    ::setenv("BANKCHECK_GPU_LOCK_TIMEOUT", value, 1);
    try {
      GpuLockTimeout();
      ADD_FAILURE() << value << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      EXPECT_THAT(e.what(), AllOf(HasSubstr("BANKCHECK_GPU_LOCK_TIMEOUT"), HasSubstr("from 0 to 86400"),
                                  HasSubstr(std::string("'") + value + "'")));
    }
  }
}

TEST_F(GpuCounterLockTest, AnUnwritableFolderSaysWhatToSet) {
  ::setenv("BANKCHECK_LOCK_DIR", "/nonexistent/bankcheck", 1);
  EXPECT_THAT(ErrorOfTaking().what(), HasSubstr("BANKCHECK_LOCK_DIR"));
}

TEST_F(GpuCounterLockTest, CreatesASharedStickyFolderAndFilesOthersCanOpen) {
  const testing_support::ScopedUmask umask(077);
  GpuCounterLock lock("0000:3b:00.0", std::chrono::milliseconds(0));
  EXPECT_EQ(ModeOf(locks_), 01777u);
  EXPECT_EQ(ModeOf(locks_ / lock_name_), 0644u);
  EXPECT_EQ(ModeOf(locks_ / (lock_name_ + ".gate")), 0644u);
  // The lock file holds nothing; the holder's pid is in its own file, removed on release.
  const auto holder = locks_ / (lock_name_ + ".holder." + std::to_string(::getpid()));
  EXPECT_EQ(ReadFile(locks_ / lock_name_), "");
  EXPECT_TRUE(std::filesystem::is_regular_file(holder));
}

// A link planted at the lock, gate or holder path is never followed: what it points at (standing
// for /etc/passwd) keeps its bytes and mode, and nothing is created through it.
TEST_F(GpuCounterLockTest, RefusesLinksPlantedAtTheLockAndGatePaths) {
  CreateLockFolder();
  const Victim victim = MakeVictim(dir_ / "victim");
  for (const std::string& name : {lock_name_, lock_name_ + ".gate"}) {
    SCOPED_TRACE(name);
    std::filesystem::create_symlink(victim.path, locks_ / name);
    EXPECT_THAT(ErrorOfTaking().what(),
                AllOf(HasSubstr((locks_ / name).string()), HasSubstr("symbolic link"), HasSubstr("remove")));
    EXPECT_THAT(ErrorOfTaking(GpuCounterLock::Mode::kShared).what(), HasSubstr("symbolic link"));
    std::filesystem::remove(locks_ / name);
    std::filesystem::create_hard_link(victim.path, locks_ / name);
    EXPECT_THAT(ErrorOfTaking().what(), AllOf(HasSubstr((locks_ / name).string()), HasSubstr("hard links")));
    std::filesystem::remove(locks_ / name);
    ExpectUntouched(victim);
    // A dangling link is not created through either.
    std::filesystem::create_symlink(dir_ / "created", locks_ / name);
    EXPECT_THAT(ErrorOfTaking().what(), HasSubstr("symbolic link"));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "created"));
    std::filesystem::remove(locks_ / name);
  }
  std::filesystem::remove(locks_ / lock_name_);
  ASSERT_EQ(::mkfifo((locks_ / lock_name_).c_str(), 0666), 0);
  EXPECT_THAT(ErrorOfTaking().what(), HasSubstr("not a regular file"));
}

TEST_F(GpuCounterLockTest, ALinkAtTheHolderFileIsReplacedNotFollowed) {
  CreateLockFolder();
  const Victim victim = MakeVictim(dir_ / "victim");
  const auto holder = locks_ / (lock_name_ + ".holder." + std::to_string(::getpid()));
  std::filesystem::create_symlink(victim.path, holder);
  {
    GpuCounterLock lock("0000:3b:00.0", std::chrono::milliseconds(0));
    EXPECT_FALSE(std::filesystem::is_symlink(holder));
  }
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(holder)));
  ExpectUntouched(victim);
}

// Holder files are trusted by name only, and only when owned by the user who runs the pid they
// name: a file planted for this process's parent does not make it share a lock that another
// process holds, and the message names that holder alone.
TEST_F(GpuCounterLockTest, HolderFilesOfOthersAreNotTrusted) {
  CreateLockFolder();
  int ready[2];
  int done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    GpuCounterLock lock("0000:3b:00.0", std::chrono::milliseconds(0));
    char byte = 1;
    if (::write(ready[1], &byte, 1) != 1 || ::read(done[0], &byte, 1) < 0) std::_Exit(1);
    std::_Exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  // Planted: bogus names, and (as root) a file owned by user nobody for this process's pid.
  testing_support::WriteFile(locks_ / (lock_name_ + ".holder.99999999999"), "1\n");
  testing_support::WriteFile(locks_ / (lock_name_ + ".holder.x1"), "1\n");
  const passwd* nobody = ::getpwnam("nobody");
  if (::geteuid() == 0 && nobody != nullptr) {
    const auto planted = locks_ / (lock_name_ + ".holder." + std::to_string(::getpid()));
    testing_support::WriteFile(planted, std::to_string(::getpid()) + "\n");
    ASSERT_EQ(::chown(planted.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  }
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      GpuCounterLock lock("0000:3b:00.0", std::chrono::milliseconds(0));
    } catch (const Error& e) {
      std::_Exit(std::string(e.what()).find("(pid " + std::to_string(holder) + ")") != std::string::npos ? 0
                                                                                                         : 3);
    }
    std::_Exit(2);  // shared a lock that its parent does not hold
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "exit " << WEXITSTATUS(status)
      << ": 2 = took the lock, 3 = the message did not name the holder alone";
  ASSERT_EQ(::write(done[1], &byte, 1), 1);
  ASSERT_EQ(::waitpid(holder, &status, 0), holder);
  for (const int fd : {ready[0], ready[1], done[0], done[1]}) ::close(fd);
}

// A lock file that another user created is used as found: flock needs no more than reading it.
TEST_F(GpuCounterLockTest, UsesAnotherUsersLockFileWithoutChangingIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give the lock file to user nobody";
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user nobody on this machine";
  CreateLockFolder();
  for (const std::string& name : {lock_name_, lock_name_ + ".gate"}) {
    testing_support::WriteFile(locks_ / name, "nobody's\n");
    ASSERT_EQ(::chmod((locks_ / name).c_str(), 0600), 0);
    ASSERT_EQ(::chown((locks_ / name).c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  }
  { GpuCounterLock shared("0000:3b:00.0", std::chrono::milliseconds(0), GpuCounterLock::Mode::kShared); }
  {
    GpuCounterLock exclusive("0000:3b:00.0", std::chrono::milliseconds(0));
    EXPECT_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(0)), Error);
  }
  for (const std::string& name : {lock_name_, lock_name_ + ".gate"}) {
    struct stat status {};
    ASSERT_EQ(::lstat((locks_ / name).c_str(), &status), 0);
    EXPECT_EQ(ReadFile(locks_ / name), "nobody's\n");
    EXPECT_EQ(status.st_mode & 07777, 0600u);
    EXPECT_EQ(status.st_uid, nobody->pw_uid);
  }
}

TEST_F(GpuCounterLockTest, RefusesAPlantedLinkAndAnOpenOrForeignLockFolder) {
  // The lock folder reached as every output folder is (output_folder.h): a link of ours is
  // followed, on the way or at the folder itself; another user's is not.
  const std::filesystem::path real = dir_ / "real";
  std::filesystem::create_directory(real);
  std::filesystem::permissions(real, std::filesystem::perms(01777));
  std::filesystem::create_directory_symlink(real, locks_);
  EXPECT_NO_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(0)));
  EXPECT_TRUE(std::filesystem::is_regular_file(real / lock_name_));
  std::filesystem::create_directory_symlink(dir_, dir_ / "linked-tmp");
  ::setenv("BANKCHECK_LOCK_DIR", (dir_ / "linked-tmp" / "real").c_str(), 1);
  EXPECT_NO_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(0)));
  ::setenv("BANKCHECK_LOCK_DIR", locks_.c_str(), 1);
  std::filesystem::remove_all(real);
  std::filesystem::create_directory(real);
  std::filesystem::permissions(real, std::filesystem::perms(01777));
  if (::lchown(locks_.c_str(), 65534, 65534) == 0) {  // root: the link given to another user
    EXPECT_THAT(ErrorOfTaking().what(),
                AllOf(HasSubstr(locks_.string() + " is a symbolic link of another user"),
                      HasSubstr("BANKCHECK_LOCK_DIR")));
    EXPECT_TRUE(std::filesystem::is_empty(real));
  }
  std::filesystem::remove(locks_);

  std::filesystem::create_directory(locks_);
  std::filesystem::permissions(locks_, std::filesystem::perms(0777));  // not sticky
  EXPECT_THAT(ErrorOfTaking().what(), HasSubstr("not sticky"));
  EXPECT_TRUE(std::filesystem::is_empty(locks_));
  EXPECT_EQ(ModeOf(locks_), 0777u);  // refused, not repaired
  // A folder of ours that nobody else may write to is fine too.
  std::filesystem::permissions(locks_, std::filesystem::perms(0700));
  EXPECT_NO_THROW(GpuCounterLock("0000:3b:00.0", std::chrono::milliseconds(0)));
  std::filesystem::remove_all(locks_);

  testing_support::WriteFile(locks_, "");
  EXPECT_THAT(ErrorOfTaking().what(), HasSubstr("not a folder"));
  std::filesystem::remove(locks_);

  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give the lock folder to user nobody";
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user nobody on this machine";
  CreateLockFolder();
  ASSERT_EQ(::chown(locks_.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  EXPECT_THAT(ErrorOfTaking().what(), HasSubstr("belongs to another user"));
  EXPECT_TRUE(std::filesystem::is_empty(locks_));
}

}  // namespace
}  // namespace bankcheck::internal
