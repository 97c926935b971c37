#pragma once
// The one interface between the CUDA layer and `bankcheck run`'s injection library
// (framework/inject): the injection implements LaunchObserver, is told of every launch and context
// teardown by the launch callbacks, and measures through a Measurer. Nothing else of the CUDA layer
// is reached from the injection, so its logic runs on the CPU against fakes of both
// (framework/inject/recorder_test.cc).

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/run_metadata.h"

namespace bankcheck::internal {

// A launch as the injection is told of it, at the entry of its launch function.
struct ObservedLaunch {
  CUcontext context = nullptr;
  const char* mangled = nullptr;  // the kernel; null for a graph launch
  std::string nvtx_range;         // the launching thread's NVTX range (nvtx_ranges.h)
  uint64_t process_launch = 0;    // LaunchRecord::process_launch
  // LaunchConfigurationKey (run_cases.h) when the observer WantsConfigurations; "" otherwise, for a
  // graph launch, for an unmeasurable one, and when the argument bytes cannot be read: such a launch
  // is never a repeat.
  std::string configuration;
  // Why this launch runs unmeasured ("" when it can be measured): a stream capture is in progress in
  // the process (stream_capture.h), and no CUDA call may be made for it, not even to finish a
  // measurement. Launches into a stream being captured are not told at all: they run as graph nodes.
  std::string unmeasurable;
};

// What the injection is told. Each call is made outside every lock of the counter session, so it
// may start or finish a measurement.
class LaunchObserver {
 public:
  virtual ~LaunchObserver() = default;
  // At the entry of every launch function (a kernel or graph launch) that runs now, before the launch
  // is recorded.
  virtual void OnLaunch(const ObservedLaunch& launch) = 0;
  // Whether OnLaunch needs each launch's configuration (reading the argument bytes costs a driver
  // call per parameter).
  virtual bool WantsConfigurations() const { return false; }
  // When a CUDA context is about to be destroyed, before a measurement's patching lets go of it.
  virtual void OnContextDestroy(CUcontext context) = 0;
};

// What a finished measurement gave: the records of the launches counted, and why it stopped early
// ("" when it did not). A kernel fault keeps the launches counted before it.
struct Measured {
  std::vector<LaunchRecord> records;
  std::string error;
};

// One measurement (a counter session), from its start to Finish.
class Measurement {
 public:
  virtual ~Measurement() = default;
  // Ends it: once only.
  virtual Measured Finish() = 0;
};

// How the observer measures.
class Measurer {
 public:
  virtual ~Measurer() = default;
  // Starts measuring the launches that follow, on the calling thread's context. Throws
  // bankcheck::Error when it cannot.
  virtual std::unique_ptr<Measurement> Start(bool attribute_instructions) = 0;
  // The GPU, driver and software, for the results; asked while a measurement runs.
  virtual RunMetadata Describe() = 0;
  // At the process's exit, after the last Finish.
  virtual void Shutdown() = 0;
};

// The readable name of a kernel OnLaunch is told of (its `mangled`, demangled; itself when it
// cannot be): what --kernel is matched against.
std::string KernelNameOf(const char* mangled);

// The counter session (counter_session.h) and the GPU probe behind a Measurer.
std::unique_ptr<Measurer> CounterSessionMeasurer();

// While the driver initializes (InitializeInjection: no CUDA call may be made there): subscribes
// the launch callbacks, which tell `observer` (never destroyed: callbacks may come during exit).
// Throws bankcheck::Error when CUPTI refuses.
void ObserveLaunches(LaunchObserver* observer);

// NVTX's injection entry (InitializeInjectionNvtx2), called at the program's first NVTX call,
// maybe before CUDA initializes: ranges are followed from there (nvtx_ranges.h). Returns 1, or 0
// when NVTX's interface is not one this code knows.
// NVTX's NvtxGetExportTableFunc_t.
using NvtxExportTableGetter = const void* (*)(uint32_t export_table_id);
int FollowNvtxRangesFrom(NvtxExportTableGetter get_export_table);

}  // namespace bankcheck::internal
