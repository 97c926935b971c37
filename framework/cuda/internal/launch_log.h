#pragma once
// The launch log: the launches that CUPTI's callbacks (launch_callbacks.h) see while a counter
// session records, with the executable graphs they may launch. The callbacks write it from any
// host thread, the session reads it; its lock rules are in its declarations (thread_annotations.h).

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cuda/internal/graph_nodes.h"
#include "cuda/internal/sass_metrics.h"
#include "cuda/internal/thread_annotations.h"

namespace bankcheck::internal {

// A kernel launch, or a graph launch with the kernel nodes of its graph (shape: the first node's).
struct LaunchInfo : KernelShape {
  bool graph = false;
  std::vector<KernelShape> graph_kernels;
  // A graph launch whose executable graph CUDA runs without the profiler's instrumentation beyond
  // its first kernel node: it was instantiated before the launch callbacks were subscribed, or while
  // a stream capture was in progress (stream_capture.h).
  bool graph_unmeasurable = false;
  // Why this launch cannot be counted exactly ("" when it can): it ran in a CUDA context other than
  // the measured one and that context could not be patched, or a range-profiler session measures
  // another context, or it ran while a stream capture was in progress (stream_capture.h: no CUDA call
  // was made for it).
  std::string context_unmeasurable;
  CUstream stream = nullptr;  // as launched (for telling a captured launch from one that runs)
  // Where the program launched it (LaunchRecord::nvtx_range and process_launch).
  std::string nvtx_range;
  uint64_t process_launch = 0;
  // kSassMetrics: what the launch's instructions counted, by mangled kernel name, once read.
  KernelSass sass;
  bool counted = false;
};

// An executable graph instantiated since the callbacks were subscribed: its kernel nodes, and
// whether it was instantiated with the profiler's instrumentation on (ProfilableInstantiation).
struct GraphExec {
  std::vector<KernelShape> kernels;
  bool measurable = false;
};

// Launches seen by the callbacks while a session records, and the graphs they may launch. Every
// member but the serialization is under `mutex_`, taken by each public function.
class LaunchLog {
 public:
  // Starts recording: counted launch by launch through `counting` (kSassMetrics), or, without it,
  // by a range-profiler session on `range_profiled`.
  void Start(SassCounting* counting = nullptr, CUcontext range_profiled = nullptr) BANKCHECK_EXCLUDES(mutex_);
  // Stops recording and returns what was recorded.
  std::vector<LaunchInfo> Stop() BANKCHECK_EXCLUDES(mutex_);
  bool recording() BANKCHECK_EXCLUDES(mutex_);
  // Why reading the counts after a launch failed ("" when none did).
  std::string sass_error() BANKCHECK_EXCLUDES(mutex_);

  // A kernel launch in `context`, recorded while recording. The callbacks tell it of launches that run
  // (not of those into a stream being captured, which become graph nodes); one that runs while a
  // capture is in progress comes with its context_unmeasurable set (stream_capture.h) and is recorded
  // as it is, without a CUDA call, for the session to refuse.
  void RecordLaunch(LaunchInfo launch, CUcontext context) BANKCHECK_EXCLUDES(mutex_);
  // A launch of the executable graph `exec` in `context`, recorded while recording; `origin` gives
  // its nvtx_range, process_launch and context_unmeasurable (as for RecordLaunch).
  void RecordGraphLaunch(CUgraphExec exec, CUcontext context, const LaunchInfo& origin)
      BANKCHECK_EXCLUDES(mutex_);

  // A launch function's entry and exit (any host thread). kSassMetrics: launches from several host
  // threads run one at a time, each from its entry to its counting at its exit, so that what a
  // synchronization reads belongs to that launch alone; at the exit the launch just recorded is
  // waited for and what it counted read. A failure is kept for the session, which reports it with
  // the kernel's name (a callback cannot throw).
  void EnterLaunch() BANKCHECK_EXCLUDES(mutex_);
  void ExitLaunch() BANKCHECK_EXCLUDES(mutex_);

  void AddGraph(CUgraphExec exec, GraphExec graph) BANKCHECK_EXCLUDES(mutex_);
  // `exec` now runs `kernels`; it stays measurable only if this update was made measurable too.
  void UpdateGraph(CUgraphExec exec, std::vector<KernelShape> kernels, bool measurable)
      BANKCHECK_EXCLUDES(mutex_);
  void ForgetGraph(CUgraphExec exec) BANKCHECK_EXCLUDES(mutex_);
  // `context` is being destroyed: a session's patching lets go of it.
  void ForgetContext(CUcontext context) BANKCHECK_EXCLUDES(mutex_);

 private:
  // Records `launch`, launched in `context`.
  void Add(LaunchInfo launch, CUcontext context) BANKCHECK_REQUIRES(mutex_);
  void CountLaunch() BANKCHECK_EXCLUDES(mutex_);

  Mutex mutex_;
  bool recording_ BANKCHECK_GUARDED_BY(mutex_) = false;
  std::vector<LaunchInfo> launches_ BANKCHECK_GUARDED_BY(mutex_);
  std::map<CUgraphExec, GraphExec> graphs_ BANKCHECK_GUARDED_BY(mutex_);
  // kSassMetrics: counts each recorded launch as it returns (nullptr: a range-profiler session).
  SassCounting* sass_ BANKCHECK_GUARDED_BY(mutex_) = nullptr;
  bool awaiting_exit_ BANKCHECK_GUARDED_BY(mutex_) = false;  // recorded at its entry, not counted yet
  bool launch_failed_ BANKCHECK_GUARDED_BY(mutex_) = false;  // a synchronization failed: count no more
  std::string sass_error_ BANKCHECK_GUARDED_BY(mutex_);
  // The context a range-profiler session measures (null for SASS counting, which patches each
  // context a kernel is launched in).
  CUcontext measured_context_ BANKCHECK_GUARDED_BY(mutex_) = nullptr;

  // kSassMetrics: whether launches are serialized, and the lock a launch holds from its entry to its
  // exit (EnterLaunch, ExitLaunch).
  std::atomic<bool> serialize_{false};
  Mutex serial_;
};

// The process's launch log (the callbacks are process-wide).
LaunchLog& TheLaunchLog();

}  // namespace bankcheck::internal
