#pragma once
// What both counting back ends (counting_backend.h) refuse or fail on once a session's launches
// have run: launches that cannot be counted exactly, and launches that failed.

#include <cuda_runtime_api.h>

#include <functional>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/launch_record.h"
#include "cuda/internal/launch_log.h"
#include "cuda/internal/process_state.h"
#include "cuda/internal/thread_annotations.h"

namespace bankcheck::internal {

// The Error(kKernelFault) of a SASS-metrics session whose launches before the failed one were
// counted: their records, for a caller that keeps what was measured (the launch observer's
// Measurer, launch_observer.h, hands them to `bankcheck run`'s injection); every other caller sees
// the Error it is.
class KernelFaultAfterCounted : public Error {
 public:
  KernelFaultAfterCounted(const Error& fault, std::vector<LaunchRecord> counted)
      : Error(fault), counted_(std::move(counted)) {}
  const std::vector<LaunchRecord>& counted() const { return counted_; }

 private:
  std::vector<LaunchRecord> counted_;
};

// Refuses what a session saw run but cannot count exactly, naming it and what to do instead.
// `sass`: the session counted through SASS metrics, which count no kernel launched from the device.
void RefuseUnmeasurable(const std::vector<LaunchInfo>& launches, bool sass);

// Waits for the launches of a pass; a failed one ends the session with the kernel named
// (FailWithKernelFault).
void SynchronizeLaunches(ProcessState& process, const std::vector<LaunchInfo>& launches,
                         const std::function<void()>& stop_counting) BANKCHECK_REQUIRES(process.mutex);

// A launch failed while measured. A failure to launch (a bad configuration) is cleared by
// cudaGetLastError and the context stays usable. A fault inside a kernel is sticky: the CUDA
// runtime documents that the process must be restarted, so the session is torn down and later
// sessions in this process fail at once with the reason (ctest runs each test in its own
// process, so the next test is unaffected). `stop_counting` ends the session's counting first.
[[noreturn]] void FailWithKernelFault(ProcessState& process, cudaError_t status,
                                      const std::vector<LaunchInfo>& launches,
                                      const std::function<void()>& stop_counting)
    BANKCHECK_REQUIRES(process.mutex);

}  // namespace bankcheck::internal
