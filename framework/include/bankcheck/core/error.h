#pragma once
// The one exception type bankcheck throws. Every message says what happened and what to do.

#include <stdexcept>
#include <string>

namespace bankcheck {

enum class ErrorKind {
  kNoGpu,                 // no driver, no device: tests skip (or fail with BANKCHECK_REQUIRE_GPU=1)
  kCountersNotPermitted,  // the driver restricts performance counters to admin users
  kProfilerBusy,          // another profiler (ncu, nsys, a second session) holds the counters
  kUnsupportedDevice,     // CUPTI cannot profile this GPU
  kTooManyLaunches,       // more launches than the counter image was sized for
  kNestedSession,         // a counter session is already active in this process
  kKernelFault,           // a kernel failed while it was measured
  kUnmeasurable,   // work that ran but cannot be counted exactly (e.g. a graph instantiated before set-up)
  kUnknownMetric,  // a metric name the running chip does not have
  kBadInput,       // malformed file or argument
  kCupti,          // any other CUPTI failure
  kCuda,           // any other CUDA runtime failure
  kNotEmulated,    // emulated (no GPU): a launch or CUDA call the emulator cannot decide; the case skips
  kToolMissing,    // emulated: cuobjdump or nvdisasm cannot be run; the case skips (fails with
                   // BANKCHECK_REQUIRE_EMULATION=1)
};

const char* ErrorKindName(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace bankcheck
