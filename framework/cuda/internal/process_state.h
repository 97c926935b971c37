#pragma once
// What the counter session keeps for the whole process: the launch callbacks, the profiler
// (profiler.h), whether a session is active and whether a kernel fault has lost the CUDA context.
// One object, its members under its mutex: the lock rules are in the declarations
// (thread_annotations.h).

#include <cuda.h>

#include <exception>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/cuda/counter_session.h"
#include "cuda/internal/launch_callbacks.h"
#include "cuda/internal/profiler.h"
#include "cuda/internal/sass_metrics.h"
#include "cuda/internal/thread_annotations.h"

namespace bankcheck::internal {

class ProcessState {
 public:
  Mutex mutex;
  // Whether a session (or AttributeInstructions) is measuring: one at a time, since the GPU has one
  // set of counters.
  bool session_active BANKCHECK_GUARDED_BY(mutex) = false;
  // Set once a kernel fault has left this process's CUDA context unusable: what faulted.
  std::string poisoned_by BANKCHECK_GUARDED_BY(mutex);

  // The process-wide profiler, configured for `metrics` and `replay`. A different metric set or
  // replay mode rebuilds it: the range profiler keeps the configuration it was enabled with
  // (changing the config image in place, or kernel replay after user replay, made CUPTI 13.0
  // segfault on the H100).
  Profiler& GetProfiler(const std::vector<std::string>& metrics, SessionOptions::Replay replay)
      BANKCHECK_REQUIRES(mutex);
  // The process-wide profiler with its range profiler enabled, whatever its metric set: what SASS
  // counting and attribution need (the SASS Metrics API recorded only the first kernel in a process
  // whose range profiler had not been enabled: docs/counters.md).
  Profiler& EnabledProfiler() BANKCHECK_REQUIRES(mutex);
  // The profiler as it is now (null when none is set up).
  Profiler* profiler() BANKCHECK_REQUIRES(mutex) { return profiler_.get(); }
  // A kernel fault has left the CUDA context unusable: the profiler is torn down and later sessions
  // fail at once, naming `what` faulted.
  void LoseContext(const std::string& what) BANKCHECK_REQUIRES(mutex);

  // Instrumentation switched on around a graph's instantiation (or update) outside a session, on
  // the calling thread's context: CUDA runs an executable graph instantiated without it
  // uninstrumented beyond its first kernel node, in both counting modes, whatever happens later
  // (upload, update, relaunch); one instantiated with it counts every node in every later session
  // (H100, driver 580.159.04: docs/counters.md, "CUDA graphs"). Null when the profiler cannot be
  // set up (the graph is then reported as unmeasurable when measured).
  std::unique_ptr<SassCounting> ProfilableInstantiation(CUcontext context) BANKCHECK_EXCLUDES(mutex);

  // `bankcheck run`'s injection (ObserveLaunches, launch_observer.h), while the driver
  // initializes (no CUDA call may be made there): subscribes the callbacks, and leaves
  // ShutdownProfiler to the injection's own exit handler, which finishes its session first. Throws
  // bankcheck::Error when CUPTI refuses.
  void SubscribeForInjection() BANKCHECK_EXCLUDES(mutex);

  // PrepareCounterSession's and ShutdownProfiler's work (counter_session.h).
  void Prepare() BANKCHECK_EXCLUDES(mutex);
  void Shutdown() BANKCHECK_EXCLUDES(mutex);

 private:
  // ShutdownProfiler at exit, registered once CUDA is initialized (ProbeGpu() has run): after the
  // CUDA runtime's own exit handler, so it runs first.
  void RegisterShutdownAtExit() BANKCHECK_REQUIRES(mutex);

  std::unique_ptr<LaunchCallbacks> callbacks_ BANKCHECK_GUARDED_BY(mutex);
  // Prepare()'s load of libnvperf_host.so, running while the test creates its context; the first
  // Profiler waits for it.
  std::future<void> host_library_ BANKCHECK_GUARDED_BY(mutex);
  std::unique_ptr<Profiler> profiler_ BANKCHECK_GUARDED_BY(mutex);
  // Why Prepare()'s set-up failed, until the first session reports it as its own.
  std::exception_ptr prepare_failure_ BANKCHECK_GUARDED_BY(mutex);
  bool shutdown_registered_ BANKCHECK_GUARDED_BY(mutex) = false;
};

// The process's state.
ProcessState& TheProcessState();

}  // namespace bankcheck::internal
