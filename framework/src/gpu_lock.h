#pragma once
// One process at a time reads a GPU's counters: CUPTI profiles a device for one process only, so
// concurrent test processes (ctest -j without a resource spec) would fail each other. While one
// process has the range profiler enabled, another's cuptiRangeProfilerStart fails with
// CUPTI_ERROR_HARDWARE_BUSY (measured on the H100: with a lock held only during sessions, 16 of 18
// GPU tests failed so under ctest -j8). So a process holds an advisory lock on its GPU while its
// range profiler is enabled (from its first session to the profiler's release);
// other processes wait for it, up to a bound, and then fail saying who holds it. A child of the
// holder (a death test's child, a program a test runs and waits for) shares its parent's lock.

#include <chrono>
#include <string>

namespace bankcheck::internal {

class GpuCounterLock {
 public:
  // Waits for the lock of the GPU at `pci_bus_id`. Throws Error(kProfilerBusy) after `timeout`,
  // naming the process that holds it. The lock file lives in BANKCHECK_LOCK_DIR (default /tmp).
  GpuCounterLock(const std::string& pci_bus_id, std::chrono::milliseconds timeout);
  ~GpuCounterLock();
  GpuCounterLock(const GpuCounterLock&) = delete;
  GpuCounterLock& operator=(const GpuCounterLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// BANKCHECK_GPU_LOCK_TIMEOUT (seconds), else 600: long enough for another test process to finish.
std::chrono::milliseconds GpuLockTimeout();

}  // namespace bankcheck::internal
