#include "cuda/internal/stream_capture.h"

#include <cuda_runtime_api.h>

namespace bankcheck::internal {

CaptureVerdict JudgeLaunch(bool stream_capturing, uint64_t captures_in_progress) {
  if (stream_capturing) return CaptureVerdict::kCaptured;
  return captures_in_progress == 0 ? CaptureVerdict::kFree : CaptureVerdict::kCaptureElsewhere;
}

std::string CaptureInProgressReason() {
  return "it was launched while a stream capture was in progress in this process (a graph being "
         "captured on another stream or thread). Measuring calls CUDA at each launch (CUPTI's set-up, "
         "a synchronization), which a capture in progress forbids: the call would fail and invalidate "
         "the program's capture, so bankcheck makes none then and the launch ran unmeasured. Launch "
         "it when no capture is in progress, or measure the graph's launches (docs/counters.md, "
         "\"CUDA graphs\")";
}

StreamIsCapturingFn FindStreamIsCapturing() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult result{};
  if (cudaGetDriverEntryPointByVersion("cuStreamIsCapturing", &fn, 12000, cudaEnableDefault, &result) !=
          cudaSuccess ||
      result != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<StreamIsCapturingFn>(fn);
}

void StreamCaptures::FindQuery() {
  std::call_once(found_, [this] { query_.store(find_()); });
}

void StreamCaptures::BeginEntered() {
  // No span is open here, and no capture in progress when the first one looks the query up.
  std::unique_lock<std::shared_mutex> lock(spans_);
  if (in_progress_.load() == 0) FindQuery();
  ++in_progress_;
}

void StreamCaptures::BeginExited(CUresult result) {
  if (result != CUDA_SUCCESS) --in_progress_;
}

std::optional<bool> StreamCaptures::Query(CUstream stream) const {
  const StreamIsCapturingFn query = query_.load();
  if (query == nullptr) return std::nullopt;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  const CUresult result = query(stream, &status);
  // The legacy stream while a blocking stream is being captured: a launch into it would join (and
  // invalidate) that capture; it does not run as launched.
  if (result == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT) return true;
  return result == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool StreamCaptures::Capturing(CUstream stream) const { return Query(stream).value_or(false); }

bool StreamCaptures::EndEntered(CUstream stream) const { return Query(stream).value_or(true); }

void StreamCaptures::EndExited(CUstream stream, bool was_capturing, CUresult result) {
  if (!was_capturing) return;
  // Without the query: a successful end, and the end of an invalidated capture, end it.
  const bool still =
      Query(stream).value_or(result != CUDA_SUCCESS && result != CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  if (still) return;
  uint64_t count = in_progress_.load();
  while (count != 0 && !in_progress_.compare_exchange_weak(count, count - 1)) {
  }
}

CaptureVerdict StreamCaptures::EnterLaunchSpan(CUstream launch_stream) {
  spans_.lock_shared();
  const CaptureVerdict verdict = Judge(launch_stream);
  if (verdict != CaptureVerdict::kFree) spans_.unlock_shared();
  return verdict;
}

bool StreamCaptures::EnterSpan() {
  spans_.lock_shared();
  if (in_progress() == 0) return true;
  spans_.unlock_shared();
  return false;
}

void StreamCaptures::LeaveSpan() { spans_.unlock_shared(); }

StreamCaptures& TheStreamCaptures() {
  // Never destroyed: callbacks may come during exit.
  static StreamCaptures* const captures = new StreamCaptures();
  return *captures;
}

}  // namespace bankcheck::internal
