// Events in the stand-in runtime (docs/emulate.md, "The stand-in CUDA runtime"). Nothing runs on a
// device, so no device time passes: the stand-in's clock advances by one microsecond at each
// cudaEventRecord, so that an elapsed time is the same every run, positive between events recorded
// in that order, and plainly not a measurement (a launcher's printed times stay printable). Events
// are complete once recorded (nothing runs asynchronously). Refused as the GPU refuses them, with its
// codes (runtime/data/sm_90_answers.inc): the time of an event never recorded, or made with
// cudaEventDisableTiming. Interprocess events are not emulated, nor events in a stream being captured
// (on the GPU they join other streams to the capture, which the stand-in's capture does not follow).

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "emulated_runtime/internal/launch_capture.h"

namespace {

using bankcheck::emulate::runtime::Fail;
using bankcheck::emulate::runtime::NotEmulated;
using bankcheck::emulate::runtime::TheCapture;

struct Event {
  unsigned int flags = 0;
  uint64_t recorded_at = 0;  // in microseconds of the stand-in's clock; 0: never recorded
};
std::atomic<uint64_t> g_clock_us{0};

Event* EventOf(cudaEvent_t event) { return reinterpret_cast<Event*>(event); }

}  // namespace

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (event == nullptr) return Fail(cudaErrorInvalidValue);
  if ((flags & cudaEventInterprocess) != 0)
    return NotEmulated("cudaEventCreateWithFlags(cudaEventInterprocess)");
  if ((flags & ~(cudaEventBlockingSync | cudaEventDisableTiming)) != 0) return Fail(cudaErrorInvalidValue);
  *event = reinterpret_cast<cudaEvent_t>(new Event{flags, 0});
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (event == nullptr) return Fail(cudaErrorInvalidResourceHandle);
  if (TheCapture().Capturing(stream)) return NotEmulated("cudaEventRecord into a stream being captured");
  EventOf(event)->recorded_at = ++g_clock_us;
  return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if (flags != cudaEventRecordDefault) return NotEmulated("cudaEventRecordWithFlags with flags");
  return cudaEventRecord(event, stream);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  return event == nullptr ? Fail(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event == nullptr ? Fail(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int /*flags*/) {
  if (event == nullptr) return Fail(cudaErrorInvalidResourceHandle);
  if (TheCapture().Capturing(stream)) return NotEmulated("cudaStreamWaitEvent in a stream being captured");
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return Fail(cudaErrorInvalidValue);
  if (start == nullptr || end == nullptr) return Fail(cudaErrorInvalidResourceHandle);
  const Event &from = *EventOf(start), &to = *EventOf(end);
  if (((from.flags | to.flags) & cudaEventDisableTiming) != 0 || from.recorded_at == 0 || to.recorded_at == 0)
    return Fail(cudaErrorInvalidResourceHandle);
  *ms = static_cast<float>(static_cast<double>(to.recorded_at) - static_cast<double>(from.recorded_at)) /
        1000.0f;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (event == nullptr) return Fail(cudaErrorInvalidResourceHandle);
  delete EventOf(event);
  return cudaSuccess;
}
