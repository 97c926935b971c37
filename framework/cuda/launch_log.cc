#include "cuda/internal/launch_log.h"

#include <cuda_runtime_api.h>

#include <exception>
#include <utility>

namespace bankcheck::internal {

void LaunchLog::Start(SassCounting* counting, CUcontext range_profiled) {
  MutexLock lock(mutex_);
  measured_context_ = range_profiled;
  launches_.clear();
  recording_ = true;
  sass_ = counting;
  serialize_ = counting != nullptr;
  awaiting_exit_ = launch_failed_ = false;
  sass_error_.clear();
}

std::vector<LaunchInfo> LaunchLog::Stop() {
  MutexLock lock(mutex_);
  recording_ = false;
  sass_ = nullptr;
  serialize_ = false;
  awaiting_exit_ = false;
  return std::move(launches_);
}

bool LaunchLog::recording() {
  MutexLock lock(mutex_);
  return recording_;
}

std::string LaunchLog::sass_error() {
  MutexLock lock(mutex_);
  return sass_error_;
}

void LaunchLog::Add(LaunchInfo launch, CUcontext context) {
  if (!launch.context_unmeasurable.empty()) {
    // Launched while a capture was in progress: no CUDA call (no patching, no synchronization at its
    // exit); the session refuses it.
    launches_.push_back(std::move(launch));
    awaiting_exit_ = false;
    return;
  }
  if (sass_ != nullptr) {
    try {
      sass_->Watch(context);
    } catch (const std::exception& e) {
      launch.context_unmeasurable = std::string("its CUDA context could not be patched: ") + e.what();
    }
  } else if (context != nullptr && measured_context_ != nullptr && context != measured_context_) {
    launch.context_unmeasurable =
        "it ran in a CUDA context other than the one the range profiler measures (the primary "
        "context); count it through SASS metrics (the default), which patch every context";
  }
  launches_.push_back(std::move(launch));
  awaiting_exit_ = sass_ != nullptr;
}

void LaunchLog::RecordLaunch(LaunchInfo launch, CUcontext context) {
  MutexLock lock(mutex_);
  if (recording_) Add(std::move(launch), context);
}

void LaunchLog::RecordGraphLaunch(CUgraphExec exec, CUcontext context, const LaunchInfo& origin) {
  MutexLock lock(mutex_);
  if (!recording_) return;
  LaunchInfo launch;
  launch.graph = true;
  launch.nvtx_range = origin.nvtx_range;
  launch.process_launch = origin.process_launch;
  launch.context_unmeasurable = origin.context_unmeasurable;
  const auto found = graphs_.find(exec);
  launch.graph_unmeasurable = found == graphs_.end() || !found->second.measurable;
  if (found != graphs_.end()) launch.graph_kernels = found->second.kernels;
  if (!launch.graph_kernels.empty()) static_cast<KernelShape&>(launch) = launch.graph_kernels.front();
  Add(std::move(launch), context);
}

void LaunchLog::CountLaunch() {
  MutexLock lock(mutex_);
  if (!awaiting_exit_) return;
  awaiting_exit_ = false;
  if (sass_ == nullptr || launch_failed_ || !sass_error_.empty()) return;
  if (cudaDeviceSynchronize() != cudaSuccess) {
    launch_failed_ = true;
    return;
  }
  try {
    launches_.back().sass = sass_->Take();
    launches_.back().counted = true;
  } catch (const std::exception& e) {
    sass_error_ = e.what();
  }
}

namespace {
// Whether this thread holds serial_, from a launch's entry to its exit.
thread_local bool holds_serial = false;
// A namespace-scope object, made before main and destroyed after ShutdownProfiler (registered with
// atexit later) has unsubscribed the callbacks that write it.
LaunchLog g_launch_log;
}  // namespace

// serial_ is locked in a launch's entry callback and unlocked in its exit callback, two calls on
// the same thread: the analysis sees one function at a time.
void LaunchLog::EnterLaunch() BANKCHECK_NO_THREAD_SAFETY_ANALYSIS {
  if (!serialize_) return;
  serial_.Lock();
  holds_serial = true;
}

void LaunchLog::ExitLaunch() BANKCHECK_NO_THREAD_SAFETY_ANALYSIS {  // see EnterLaunch
  CountLaunch();
  if (!holds_serial) return;
  holds_serial = false;
  serial_.Unlock();
}

void LaunchLog::AddGraph(CUgraphExec exec, GraphExec graph) {
  MutexLock lock(mutex_);
  graphs_[exec] = std::move(graph);
}

void LaunchLog::UpdateGraph(CUgraphExec exec, std::vector<KernelShape> kernels, bool measurable) {
  MutexLock lock(mutex_);
  GraphExec& graph = graphs_[exec];
  graph.kernels = std::move(kernels);
  graph.measurable = graph.measurable && measurable;
}

void LaunchLog::ForgetGraph(CUgraphExec exec) {
  MutexLock lock(mutex_);
  graphs_.erase(exec);
}

void LaunchLog::ForgetContext(CUcontext context) {
  MutexLock lock(mutex_);
  if (sass_ != nullptr) sass_->Forget(context);
}

LaunchLog& TheLaunchLog() { return g_launch_log; }

}  // namespace bankcheck::internal
