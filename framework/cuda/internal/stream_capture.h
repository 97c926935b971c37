#pragma once
// Stream capture and bankcheck's own CUDA calls. While a stream is being captured into a graph, CUDA
// forbids "potentially unsafe" calls (cudaMalloc, cudaFree, synchronizing calls): in the default
// global mode from every thread, in thread-local mode from the capturing thread; and a call that would
// wait for the capturing stream conflicts with it in every mode. Such a call fails and invalidates the
// program's capture, whose cudaStreamEndCapture then fails. Measuring makes such calls: making the
// CUDA context current (cudaFree(nullptr)), CUPTI's set-up, the synchronization after each measured
// launch. So the launch callbacks follow every capture sequence of the process, from its begin call to
// its end call, and bankcheck makes no CUDA call of its own while one is in progress, whatever its
// mode and thread: JudgeLaunch is that rule. The capture queries (cuStreamIsCapturing), made to
// follow captures, are allowed during a capture. Where bankcheck may call CUDA for a launch, from the
// launch's entry to the end of its synchronization at its exit, a capture beginning on another thread
// waits for that to end (a span, below), so that it cannot begin in the middle.

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>

namespace bankcheck::internal {

enum class CaptureVerdict {
  kFree,              // no capture in progress: bankcheck may call CUDA, the launch is measured
  kCaptured,          // into a stream being captured: it becomes a graph node and does not run now
  kCaptureElsewhere,  // it runs now, while a capture is in progress: it runs unmeasured, refused
};

// The rule, for a kernel or graph launch at the entry of its launch function: `stream_capturing`
// (its stream is being captured) and the capture sequences in progress in the process.
CaptureVerdict JudgeLaunch(bool stream_capturing, uint64_t captures_in_progress);

// Why a kCaptureElsewhere launch is not measured: what the session refuses it with, and what
// `bankcheck run` reports.
std::string CaptureInProgressReason();

using StreamIsCapturingFn = CUresult (*)(CUstream, CUstreamCaptureStatus*);
// cuStreamIsCapturing, looked up through the runtime (null when the driver lacks it): a CUDA call.
StreamIsCapturingFn FindStreamIsCapturing();

// The capture sequences in progress in the process, as the callbacks on the begin- and end-capture
// functions see them. Thread-safe.
class StreamCaptures {
 public:
  using QueryFinder = StreamIsCapturingFn (*)();
  explicit StreamCaptures(QueryFinder find = &FindStreamIsCapturing) : find_(find) {}

  // Finds the query (`find`), once: a CUDA call, so made only where one may be (the profiler's
  // set-up, and the entry of a begin-capture call while no capture is in progress).
  void FindQuery();

  // At the entry and exit of a begin-capture call. A capture counts from its begin call's entry (no
  // CUDA call is made from there on), after every span open has ended; the first one finds the query
  // before it.
  void BeginEntered();
  void BeginExited(CUresult result);
  // At the entry of cuStreamEndCapture on `stream`: whether a capture is to end (passed to EndExited
  // at the same call's exit, on the same thread).
  bool EndEntered(CUstream stream) const;
  // At its exit: the capture ended when the stream captures no more (also when it was invalidated).
  void EndExited(CUstream stream, bool was_capturing, CUresult result);

  uint64_t in_progress() const { return in_progress_.load(); }
  // Whether `stream` is being captured, as a launch into it sees it (false while the query is unknown:
  // before any capture began).
  bool Capturing(CUstream stream) const;
  CaptureVerdict Judge(CUstream launch_stream) const {
    return JudgeLaunch(Capturing(launch_stream), in_progress());
  }

  // Spans: where bankcheck may call CUDA for the calling thread. At a launch's entry: its verdict;
  // with kFree a span is open until LeaveSpan (at the launch's exit), and no capture begins before.
  CaptureVerdict EnterLaunchSpan(CUstream launch_stream);
  // At a graph instantiation's entry: true, with a span open until LeaveSpan, when no capture is in
  // progress.
  bool EnterSpan();
  void LeaveSpan();

 private:
  // Whether `stream` is being captured; nullopt while the query is unknown.
  std::optional<bool> Query(CUstream stream) const;

  const QueryFinder find_;
  std::atomic<StreamIsCapturingFn> query_{nullptr};
  std::atomic<uint64_t> in_progress_{0};
  std::once_flag found_;
  // Shared by each span, exclusive while a begin call counts its capture.
  std::shared_mutex spans_;
};

// The process's (the callbacks are process-wide).
StreamCaptures& TheStreamCaptures();

}  // namespace bankcheck::internal
