#include "gpu_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

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
