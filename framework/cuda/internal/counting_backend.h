#pragma once
// The two ways a counter session counts (SessionOptions::Counters), behind one interface; each
// back end is a file of its own:
//   sass_backend.cc            kSassMetrics: SASS patching enabled for the session; the launch
//                              callback synchronizes after each launch and reads what its
//                              instructions counted (sass_metrics.h). Needs the range profiler
//                              enabled but starts no range-profiler session.
//   range_profiler_backend.cc  kRangeProfiler: a range-profiler session, per session
//                              CounterDataImageInitialize -> SetConfig(auto range, kernel replay)
//                              -> Start ... launches ... Stop -> DecodeData -> EvaluateToGpuValues
//                              per range.
// Either way the launch log (launch_log.h) names the launches, in launch order.
// A third, kEmulated, is the emulated program's LaunchEmulation (core/records/launch_emulation.h,
// the interface that layers without CUDA can use), adapted in counting_backend.cc.

#include <functional>
#include <memory>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/cuda/counter_session.h"
#include "cuda/internal/process_state.h"
#include "cuda/internal/step_trace.h"
#include "cuda/internal/thread_annotations.h"

namespace bankcheck::internal {

class CountingBackend {
 public:
  virtual ~CountingBackend();
  // Sets counting up and starts the launch log recording. Throws bankcheck::Error when the
  // counters cannot be read.
  virtual void Start(ProcessState& process) BANKCHECK_REQUIRES(process.mutex) = 0;
  // Stops counting, synchronizes, and returns one record per launch, in launch order; `rerun` runs
  // the launches again (Measure with Replay::kUser; empty otherwise). Throws Error(kKernelFault)
  // naming the kernel when a launch failed.
  virtual std::vector<LaunchRecord> Finish(ProcessState& process, const std::function<void()>& rerun)
      BANKCHECK_REQUIRES(process.mutex) = 0;
  // Stops counting, dropping what was counted (a session destroyed without Finish).
  virtual void Abandon(ProcessState& process) BANKCHECK_REQUIRES(process.mutex) = 0;
};

// The back end that CountersFor(options) names; `trace` outlives it.
std::unique_ptr<CountingBackend> MakeCountingBackend(const SessionOptions& options, StepTrace& trace);

// `tables`: each record gets its launch's per-instruction table (SessionOptions::attribute_instructions).
std::unique_ptr<CountingBackend> MakeSassBackend(StepTrace& trace, bool tables);
std::unique_ptr<CountingBackend> MakeRangeProfilerBackend(const SessionOptions& options, StepTrace& trace);

}  // namespace bankcheck::internal
