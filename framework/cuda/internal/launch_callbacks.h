#pragma once
// CUPTI's callbacks on the driver's launch, graph and stream-capture functions and on module loads,
// for the whole process: they decode each call's parameters into the launch log (launch_log.h) and
// follow captures (stream_capture.h).

#include <cuda.h>
#include <cupti_callbacks.h>

namespace bankcheck::internal {

class LaunchObserver;
// `bankcheck run`'s injection (launch_observer.h), told of launches and context teardowns. Set before
// LaunchCallbacks subscribes (the callbacks read it without a lock).
void SetLaunchObserver(LaunchObserver* observer);

// The subscription, for as long as this lives. Made before the test
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
