#pragma once
// One process at a time reads a GPU's hardware counters: with a lock held only during sessions,
// 16 of 18 GPU tests failed under ctest -j8 on the H100 (cuptiRangeProfilerStart:
// CUPTI_ERROR_HARDWARE_BUSY) while processes that had run a range-profiler session kept their
// profilers. Counting through CUPTI's SASS Metrics API reads no hardware counter (instrumented code
// in the process's own context): such processes counted exactly side by side under ctest -j8, and a
// range-profiler session ran beside one. So a process holds an advisory lock on its GPU from its
// first session to the profiler's release: shared while it only counts through SASS metrics,
// exclusive once it starts a range-profiler session. Other processes wait for a lock they cannot
// share, up to a bound, and then fail saying who holds it; one waiting for the lock exclusively
// goes before those that come for a shared lock after it (a gate file). A descendant of a holder
// (a death test's child, a program a test runs and waits for, and its children) shares the lock.
//
// The files live in a lock folder shared by every user of the machine (CI runners run jobs of
// several users, often as root, on files that pull requests bring; docs/security.md): default
// /tmp/bankcheck-locks (created 01777), or BANKCHECK_LOCK_DIR. The folder must be a real folder
// (not a link) owned by root or by this user, and sticky or writable by its owner alone, so that
// nobody else can remove or swap our files. In it, bankcheck-gpu-<bus id>.lock and .gate are
// flock(2)ed, never written (created 0644, used as found when they exist; links, hard-linked and
// non-regular files are refused), and each holder announces itself in a file of its own,
// <lock>.holder.<pid> (created exclusively, removed on release), whose name alone is read.
#include <sys/types.h>

#include <chrono>
#include <string>

namespace bankcheck::internal {

class GpuCounterLock {
 public:
  enum class Mode { kShared, kExclusive };
  // Waits for the lock of the GPU at `pci_bus_id` in `mode`. Throws Error(kProfilerBusy) after
  // `timeout`, naming the process that holds it; Error(kBadInput) saying what to do when the lock
  // folder or a file in it is refused.
  GpuCounterLock(const std::string& pci_bus_id, std::chrono::milliseconds timeout,
                 Mode mode = Mode::kExclusive);
  ~GpuCounterLock();
  GpuCounterLock(const GpuCounterLock&) = delete;
  GpuCounterLock& operator=(const GpuCounterLock&) = delete;

  const std::string& path() const { return path_; }
  Mode mode() const { return mode_; }
  // Turns a shared lock into an exclusive one, waiting as the constructor does (the shared lock is
  // let go first). Does nothing when already exclusive.
  void MakeExclusive(std::chrono::milliseconds timeout);

 private:
  // Takes the lock in mode_, through the gate; on return fd_ holds it (and our holder file says
  // so), or is -1 when an ancestor holds it (then we share it). Throws as the constructor says,
  // holding nothing then.
  void Acquire(std::chrono::milliseconds timeout);
  // flock(2) `operation` on `fd` until `deadline`: true once locked, false when an ancestor holds
  // the lock. Throws on failure.
  bool Wait(int fd, int operation, std::chrono::steady_clock::time_point deadline,
            std::chrono::milliseconds timeout);
  // Creates our holder file; removes it (only in the process that created it: a forked child
  // inherits this object).
  void AnnounceHolder();
  void WithdrawHolder();
  std::string HolderName(pid_t pid) const;  // "<lock name>.holder.<pid>"
  // Whether process `pid` holds the lock by its holder file: a regular file owned by the user who
  // runs `pid` (a file another user planted for someone else's pid does not count).
  bool HolderFileOf(pid_t pid) const;
  // The live holders' pids, from the holder files' names: "pid 12" or "pids 12, 13"; "" if none.
  std::string Holders() const;
  // Removes the holder files of processes that no longer exist (killed before they could).
  void RemoveStaleHolders() const;
  void CloseLock();

  std::string path_;
  std::string name_;  // of the lock file in the folder
  std::string pci_bus_id_;
  int folder_fd_ = -1;
  int fd_ = -1;
  pid_t holder_file_pid_ = 0;  // the process that created our holder file, 0 when there is none
  Mode mode_ = Mode::kExclusive;
};

// BANKCHECK_GPU_LOCK_TIMEOUT (seconds, a finite number from 0 to kMaxGpuLockTimeoutSeconds),
// else 600: long enough for another test process to finish. Error(kBadInput) on any other value.
inline constexpr double kMaxGpuLockTimeoutSeconds = 86400;
std::chrono::milliseconds GpuLockTimeout();

}  // namespace bankcheck::internal
