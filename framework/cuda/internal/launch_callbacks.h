#pragma once
// CUPTI's callbacks on the driver's launch and graph functions and on module loads, for the whole
// process: they decode each call's parameters into the launch log (launch_log.h).

#include <cuda.h>
#include <cupti_callbacks.h>

#include <string>

namespace bankcheck::internal {

// What `bankcheck run`'s injection (framework/inject) does at points only the callbacks see. Each
// hook is called outside every lock of the counter session, so it may start or finish a session.
struct InjectionHooks {
  // At the entry of every launch function (a kernel or graph launch), before the launch log
  // records it: its context, its kernel (mangled; null for a graph launch) and NVTX range.
  void (*on_launch)(CUcontext context, const char* mangled, const std::string& nvtx_range) = nullptr;
  // When a CUDA context is about to be destroyed, before a session's patching lets go of it.
  void (*on_context_destroy)(CUcontext context) = nullptr;
};
// Set before LaunchCallbacks subscribes (the callbacks read them without a lock).
void SetInjectionHooks(InjectionHooks hooks);

// Looks up cuStreamIsCapturing for the launch log (which tells captured launches from real ones by
// it) once, through the CUDA runtime: not while the driver initializes, where an injection starts.
void FindStreamIsCapturing();

// The subscription, for as long as this lives. Also follows NVTX ranges (nvtx_ranges.h). Made before the test
// creates its CUDA context (PrepareCounterSession), so that every module load is seen: instruction
// attribution looks up the loaded cubins.
class LaunchCallbacks {
 public:
  LaunchCallbacks();
  ~LaunchCallbacks();
  LaunchCallbacks(const LaunchCallbacks&) = delete;
  LaunchCallbacks& operator=(const LaunchCallbacks&) = delete;

 private:
  CUpti_SubscriberHandle subscriber_ = nullptr;
};

}  // namespace bankcheck::internal
