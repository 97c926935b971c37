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

#include <chrono>
#include <string>

namespace bankcheck::internal {

class GpuCounterLock {
 public:
  enum class Mode { kShared, kExclusive };
  // Waits for the lock of the GPU at `pci_bus_id` in `mode`. Throws Error(kProfilerBusy) after
  // `timeout`, naming the process that holds it. The lock file lives in BANKCHECK_LOCK_DIR
  // (default /tmp).
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
  // Takes the lock in mode_, through the gate; on return fd_ holds it, or is -1 when an ancestor
  // holds it (then we share it). Throws as the constructor says.
  void Acquire(std::chrono::milliseconds timeout);
  // flock(2) `operation` on `fd` until `deadline`: true once locked, false when an ancestor holds
  // the lock. Closes fd_ and throws on failure.
  bool Wait(int fd, int operation, std::chrono::steady_clock::time_point deadline,
            std::chrono::milliseconds timeout);

  std::string path_;
  std::string pci_bus_id_;
  int fd_ = -1;
  Mode mode_ = Mode::kExclusive;
};

// BANKCHECK_GPU_LOCK_TIMEOUT (seconds), else 600: long enough for another test process to finish.
std::chrono::milliseconds GpuLockTimeout();

}  // namespace bankcheck::internal
