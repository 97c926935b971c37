#include "gpu_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "bankcheck/error.h"

namespace bankcheck::internal {
namespace {

using ::testing::HasSubstr;

class GpuCounterLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("bankcheck_gpu_lock_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    ::setenv("BANKCHECK_LOCK_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("BANKCHECK_LOCK_DIR");
    ::unsetenv("BANKCHECK_GPU_LOCK_TIMEOUT");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

TEST_F(GpuCounterLockTest, ASecondHolderWaitsThenFailsNamingTheFirst) {
  auto first = std::make_unique<GpuCounterLock>("0000:3b:00.0", std::chrono::milliseconds(0));
  EXPECT_EQ(first->path(), (dir_ / "bankcheck-gpu-0000-3b-00-0.lock").string());
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

TEST_F(GpuCounterLockTest, AChildOfTheHolderSharesTheLock) {
  GpuCounterLock held("0000:3b:00.0", std::chrono::milliseconds(0));
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      GpuCounterLock shared("0000:3b:00.0", std::chrono::milliseconds(0));
      std::_Exit(0);
    } catch (...) {
      std::_Exit(1);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not share its parent's lock";
}

TEST_F(GpuCounterLockTest, TimeoutComesFromTheEnvironment) {
  ::unsetenv("BANKCHECK_GPU_LOCK_TIMEOUT");
  EXPECT_EQ(GpuLockTimeout(), std::chrono::seconds(600));
  ::setenv("BANKCHECK_GPU_LOCK_TIMEOUT", "2.5", 1);
  EXPECT_EQ(GpuLockTimeout(), std::chrono::milliseconds(2500));
  ::setenv("BANKCHECK_GPU_LOCK_TIMEOUT", "soon", 1);
  EXPECT_THROW(GpuLockTimeout(), Error);
}

TEST_F(GpuCounterLockTest, AnUnwritableFolderSaysWhatToSet) {
  ::setenv("BANKCHECK_LOCK_DIR", "/nonexistent/bankcheck", 1);
  try {
    GpuCounterLock lock("0000:3b:00.0", std::chrono::milliseconds(0));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("BANKCHECK_LOCK_DIR"));
  }
}

}  // namespace
}  // namespace bankcheck::internal
