#include "cuda/internal/process_state.h"

#include <cstdlib>
#include <system_error>
#include <utility>

#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/cuda/metrics.h"
#include "cuda/internal/profiler_host_library.h"
#include "cuda/internal/stream_capture.h"

namespace bankcheck::internal {
namespace {
// Made before main and destroyed after ShutdownProfiler, which is registered with atexit later.
ProcessState g_process;
}  // namespace

ProcessState& TheProcessState() { return g_process; }

void ProcessState::RegisterShutdownAtExit() {
  if (!shutdown_registered_) std::atexit(&ShutdownProfiler);
  shutdown_registered_ = true;
}

Profiler& ProcessState::GetProfiler(const std::vector<std::string>& metrics, SessionOptions::Replay replay) {
  std::unique_ptr<Profiler>& slot = profiler_;
  // A failed preparation throws here, with the error the session would have met itself.
  if (prepare_failure_) std::rethrow_exception(std::exchange(prepare_failure_, nullptr));
  if (slot && !slot->enabled() && slot->metrics() != metrics) slot->UseMetrics(metrics);
  if (slot && (slot->metrics() != metrics || (slot->enabled() && slot->replay() != replay))) {
    slot->ValidateExtraMetrics(metrics);  // an unknown name must not cost the working profiler
    slot.reset();
  }
  if (!slot) {
    if (host_library_.valid()) host_library_.get();
    slot = std::make_unique<Profiler>(metrics);  // checks for a usable GPU first
    RegisterShutdownAtExit();
    // Here, where CUDA may be called: a capture begun before the callbacks were subscribed is seen.
    TheStreamCaptures().FindQuery();
  }
  if (!callbacks_) callbacks_ = std::make_unique<LaunchCallbacks>();
  if (!slot->enabled()) slot->Enable(replay);
  return *slot;
}

Profiler& ProcessState::EnabledProfiler() {
  if (profiler_ && profiler_->enabled()) return *profiler_;
  return GetProfiler(CoreMetrics(), SessionOptions::Replay::kKernel);
}

void ProcessState::LoseContext(const std::string& what) {
  profiler_.reset();
  poisoned_by = what;
}

std::unique_ptr<SassCounting> ProcessState::ProfilableInstantiation(CUcontext context) {
  if (context == nullptr) return nullptr;
  try {
    MutexLock lock(mutex);
    // A failed set-up stays for the first session to report.
    if (session_active || prepare_failure_ || !poisoned_by.empty()) return nullptr;
    Profiler& enabled = EnabledProfiler();
    return std::make_unique<SassCounting>(context, enabled.device(), enabled.chip());
  } catch (const std::exception&) {
    return nullptr;  // the graph is reported as unmeasurable if a session launches it
  }
}

void ProcessState::Prepare() {
  MutexLock lock(mutex);
  if (callbacks_ || profiler_ || prepare_failure_ || !poisoned_by.empty() || !ProbeGpu().usable()) return;
  RegisterShutdownAtExit();
  // The launch callbacks on this thread, before the test creates its CUDA context. No CUPTI call
  // runs beside CUDA work: CUPTI's set-up on a background thread while the test's thread created
  // its context left CUPTI refusing that context for good in 3 of 964 processes on the H100
  // (cuptiRangeProfilerEnable: CUPTI_ERROR_INVALID_CONTEXT, also after initializing CUPTI again
  // or detaching it); its initialization on a thread beside the GPU probe's cudaGetDeviceCount
  // crashed 4 GPU test processes (signal 11) in 10 runs of ctest -j8 -L gpu.
  try {
    callbacks_ = std::make_unique<LaunchCallbacks>();
  } catch (...) {
    prepare_failure_ = std::current_exception();
    return;
  }
  // Only the library's loading runs beside the context's creation; the first session does the rest
  // of the set-up after it. Beside cudaGetDeviceCount it would gain nothing: the two take turns
  // (benchmarks/README.md).
  try {
    host_library_ = std::async(std::launch::async, [] { LoadProfilerHostLibrary(); });
  } catch (const std::system_error&) {
    // No thread to be had: CUPTI loads the library when the first session initializes it.
  }
}

void ProcessState::SubscribeForInjection() {
  MutexLock lock(mutex);
  shutdown_registered_ = true;  // the injection shuts down itself, after writing what it measured
  if (!callbacks_) callbacks_ = std::make_unique<LaunchCallbacks>();
}

void ProcessState::Shutdown() {
  MutexLock lock(mutex);
  prepare_failure_ = nullptr;  // nothing was set up; a session would have reported it
  if (host_library_.valid()) host_library_.get();
  profiler_.reset();
  callbacks_.reset();
}

}  // namespace bankcheck::internal
