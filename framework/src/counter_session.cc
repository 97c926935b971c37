// The CUPTI side of a CounterSession. Two ways to count (SessionOptions::Counters):
//   kSassMetrics:   SASS patching enabled for the session; the launch callback synchronizes after
//                   each launch and reads what its instructions counted (sass_metrics.h). Needs the
//                   range profiler enabled (below) but starts no range-profiler session.
//   kRangeProfiler: a range-profiler session. Call order (CUDA 13, see the research note):
//   once per process:  launch callbacks (PrepareCounterSession(): before the context exists) ->
//                      cuptiProfilerInitialize -> cuptiDeviceGetChipName -> host object + config
//                      image for the metric set -> cuptiRangeProfilerEnable(ctx), all on the
//                      first session's thread, after the context exists
//   per session:       CounterDataImageInitialize -> SetConfig(auto range, kernel replay) -> Start
//                      ... launches ... Stop -> DecodeData -> EvaluateToGpuValues per range
// The process-wide part is kept between sessions (it costs hundreds of milliseconds).
// Kernel names and launch shapes come from a callback on the driver's launch functions: auto
// range gives one range per launch, in launch order, so range i is the i-th recorded launch.

#include "bankcheck/counter_session.h"

// generated_cuda_meta.h (the driver functions' parameter structs) names the legacy _v1 types,
// which cuda.h declares only for its own internal build.
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cxxabi.h>
#include <generated_cuda_meta.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include "bankcheck/error.h"
#include "bankcheck/gpu_probe.h"
#include "bankcheck/metrics.h"
#include "cupti_config.h"
#include "cupti_errors.h"
#include "gpu_lock.h"
#include "graph_nodes.h"
#include "profiler_host_library.h"
#include "sass_metrics.h"

namespace bankcheck {

namespace {

std::string Demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                   std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(mangled);
}

// A kernel launch, or a graph launch with the kernel nodes of its graph (shape: the first node's).
struct LaunchInfo : internal::KernelShape {
  bool graph = false;
  std::vector<internal::KernelShape> graph_kernels;
  // A graph launch whose executable graph CUDA runs without the profiler's instrumentation beyond
  // its first kernel node: it was instantiated before the launch callbacks were subscribed.
  bool graph_unmeasurable = false;
  // Why this launch cannot be counted exactly ("" when it can): it ran in a CUDA context other than
  // the measured one and that context could not be patched, or a range-profiler session measures
  // another context.
  std::string context_unmeasurable;
  CUstream stream = nullptr;  // as launched (for telling a captured launch from a real one)
  // kSassMetrics: what the launch's instructions counted, by mangled kernel name, once read.
  std::map<std::string, internal::KindSums> sass;
  bool counted = false;
};

using StreamIsCapturingFn = CUresult (*)(CUstream, CUstreamCaptureStatus*);

// Launches seen by the callback while a session records. Touched only from CUPTI's callback and
// the session, under the mutex.
struct LaunchLog {
  std::mutex mutex;
  bool recording = false;
  std::vector<LaunchInfo> launches;
  // Every executable graph instantiated since the callbacks were subscribed: its kernel nodes, and
  // whether it was instantiated with the profiler's instrumentation on (ProfilableInstantiation).
  struct GraphExec {
    std::vector<internal::KernelShape> kernels;
    bool measurable = false;
  };
  std::map<CUgraphExec, GraphExec> graphs;
  // cuStreamIsCapturing: a launch into a stream being captured does not run (it becomes a node).
  StreamIsCapturingFn stream_is_capturing = nullptr;

  bool Captured(CUstream stream) const {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    return stream_is_capturing != nullptr && stream_is_capturing(stream, &status) == CUDA_SUCCESS &&
           status != CU_STREAM_CAPTURE_STATUS_NONE;
  }

  // kSassMetrics: counts each recorded launch as it returns (nullptr: a range-profiler session).
  internal::SassCounting* sass = nullptr;
  bool awaiting_exit = false;  // a launch was recorded at its entry and is not counted yet
  // kSassMetrics: launches from several host threads run one at a time, each from its entry to its
  // counting at its exit, so that what a synchronization reads belongs to that launch alone.
  std::atomic<bool> serialize{false};
  std::mutex serial;
  bool launch_failed = false;  // a synchronization after a launch failed: count nothing more
  std::string sass_error;      // why reading the counts after a launch failed

  // The context a range-profiler session measures (null for SASS counting, which patches each
  // context a kernel is launched in).
  CUcontext measured_context = nullptr;

  void Start(internal::SassCounting* counting = nullptr, CUcontext range_profiled = nullptr) {
    std::lock_guard<std::mutex> lock(mutex);
    measured_context = range_profiled;
    launches.clear();
    recording = true;
    sass = counting;
    serialize = counting != nullptr;
    awaiting_exit = launch_failed = false;
    sass_error.clear();
  }
  // Stops recording and returns what was recorded.
  std::vector<LaunchInfo> Stop() {
    std::lock_guard<std::mutex> lock(mutex);
    recording = false;
    sass = nullptr;
    serialize = false;
    awaiting_exit = false;
    return std::move(launches);
  }
  // Records `launch`, launched in `context` (under the mutex).
  void Add(LaunchInfo launch, CUcontext context) {
    if (sass != nullptr) {
      try {
        sass->Watch(context);
      } catch (const std::exception& e) {
        launch.context_unmeasurable = std::string("its CUDA context could not be patched: ") + e.what();
      }
    } else if (context != nullptr && measured_context != nullptr && context != measured_context) {
      launch.context_unmeasurable =
          "it ran in a CUDA context other than the one the range profiler measures (the primary "
          "context); count it through SASS metrics (the default), which patch every context";
    }
    launches.push_back(std::move(launch));
    awaiting_exit = sass != nullptr;
  }
  // At a launch function's exit: waits for the launch just recorded and reads what it counted. A
  // failure is kept for Finish(), which reports it with the kernel's name (a callback cannot throw).
  void CountLaunch() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!awaiting_exit) return;
    awaiting_exit = false;
    if (sass == nullptr || launch_failed || !sass_error.empty()) return;
    if (cudaDeviceSynchronize() != cudaSuccess) {
      launch_failed = true;
      return;
    }
    try {
      launches.back().sass = sass->Take();
      launches.back().counted = true;
    } catch (const std::exception& e) {
      sass_error = e.what();
    }
  }
};
LaunchLog g_launch_log;

// The functions that launch work the session records.
constexpr CUpti_CallbackId kLaunchFunctions[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};
// The functions that make and destroy the executable graphs it names.
constexpr CUpti_CallbackId kGraphFunctions[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy,
};

bool IsGraphLaunch(CUpti_CallbackId id) {
  return id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

bool IsLaunchFunction(CUpti_CallbackId id) {
  return std::find(std::begin(kLaunchFunctions), std::end(kLaunchFunctions), id) !=
         std::end(kLaunchFunctions);
}

// At the exit of a graph instantiation: the new executable graph and the graph it was made from.
std::optional<std::pair<CUgraphExec, CUgraph>> Instantiated(CUpti_CallbackId id, const void* params) {
  const auto made = [](auto* p) -> std::optional<std::pair<CUgraphExec, CUgraph>> {
    if (p->phGraphExec == nullptr) return std::nullopt;
    return std::make_pair(*p->phGraphExec, p->hGraph);
  };
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate:
      return made(static_cast<const cuGraphInstantiate_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2:
      return made(static_cast<const cuGraphInstantiate_v2_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags:
      return made(static_cast<const cuGraphInstantiateWithFlags_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams:
      return made(static_cast<const cuGraphInstantiateWithParams_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz:
      return made(static_cast<const cuGraphInstantiateWithParams_ptsz_params*>(params));
    default:
      return std::nullopt;
  }
}

// At the exit of cuGraphExecUpdate: the executable graph and the graph it now runs.
std::optional<std::pair<CUgraphExec, CUgraph>> Updated(CUpti_CallbackId id, const void* params) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate: {
      const auto* p = static_cast<const cuGraphExecUpdate_params*>(params);
      return std::make_pair(p->hGraphExec, p->hGraph);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2: {
      const auto* p = static_cast<const cuGraphExecUpdate_v2_params*>(params);
      return std::make_pair(p->hGraphExec, p->hGraph);
    }
    default:
      return std::nullopt;
  }
}

bool MakesGraphExec(CUpti_CallbackId id) {
  return id != CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy &&
         std::find(std::begin(kGraphFunctions), std::end(kGraphFunctions), id) != std::end(kGraphFunctions);
}

// Instrumentation switched on around a graph's instantiation (or update) outside a session, on the
// calling thread's context: CUDA runs an executable graph instantiated without it uninstrumented
// beyond its first kernel node, in both counting modes, whatever happens later (upload, update,
// relaunch); one instantiated with it counts every node in every later session (H100, driver
// 580.159.04: docs/counters.md, "CUDA graphs"). Defined with the process state below; null when
// the profiler cannot be set up (the graph is then reported as unmeasurable when measured).
std::unique_ptr<internal::SassCounting> ProfilableInstantiation(CUcontext context);

// Graph instantiation, update, destruction and launch: what the log keeps of graphs.
void OnGraphCall(CUpti_CallbackId id, const CUpti_CallbackData& info) {
  // The instrumentation around an instantiation or update outside a session (this thread's).
  thread_local std::unique_ptr<internal::SassCounting> instrumented;
  thread_local bool measurable = false;
  if (MakesGraphExec(id)) {
    if (info.callbackSite == CUPTI_API_ENTER) {
      bool recording = false;
      {
        std::lock_guard<std::mutex> lock(g_launch_log.mutex);
        recording = g_launch_log.recording;
      }
      instrumented = recording ? nullptr : ProfilableInstantiation(info.context);
      measurable = recording || instrumented != nullptr;
      return;
    }
    instrumented.reset();
    if (*static_cast<const CUresult*>(info.functionReturnValue) != CUDA_SUCCESS) return;
    // Read the graph's nodes (driver calls) before taking the lock.
    if (const auto made = Instantiated(id, info.functionParams); made && made->first != nullptr) {
      LaunchLog::GraphExec exec{internal::KernelNodesOf(made->second), measurable};
      std::lock_guard<std::mutex> lock(g_launch_log.mutex);
      g_launch_log.graphs[made->first] = std::move(exec);
    } else if (const auto updated = Updated(id, info.functionParams)) {
      std::vector<internal::KernelShape> kernels = internal::KernelNodesOf(updated->second);
      std::lock_guard<std::mutex> lock(g_launch_log.mutex);
      LaunchLog::GraphExec& exec = g_launch_log.graphs[updated->first];
      exec.kernels = std::move(kernels);
      exec.measurable = exec.measurable && measurable;
    }
    return;
  }
  if (info.callbackSite == CUPTI_API_EXIT) return;
  if (id == CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy) {
    std::lock_guard<std::mutex> lock(g_launch_log.mutex);
    g_launch_log.graphs.erase(static_cast<const cuGraphExecDestroy_params*>(info.functionParams)->hGraphExec);
    return;
  }
  if (!IsGraphLaunch(id)) return;
  std::lock_guard<std::mutex> lock(g_launch_log.mutex);
  if (!g_launch_log.recording) return;
  // Both launch functions' parameters start with the executable graph.
  const CUgraphExec exec = static_cast<const cuGraphLaunch_params*>(info.functionParams)->hGraph;
  LaunchInfo launch;
  launch.graph = true;
  const auto found = g_launch_log.graphs.find(exec);
  launch.graph_unmeasurable = found == g_launch_log.graphs.end() || !found->second.measurable;
  if (found != g_launch_log.graphs.end()) launch.graph_kernels = found->second.kernels;
  if (!launch.graph_kernels.empty())
    static_cast<internal::KernelShape&>(launch) = launch.graph_kernels.front();
  g_launch_log.Add(std::move(launch), info.context);
}

// The shape of a kernel launch from a launch function's parameters; nullopt for other functions.
std::optional<LaunchInfo> LaunchShape(CUpti_CallbackId id, const void* params) {
  LaunchInfo launch;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchKernel_params*>(params);
      launch.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      launch.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      launch.dynamic_shared_bytes = p->sharedMemBytes;
      launch.stream = p->hStream;
      return launch;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* c = static_cast<const cuLaunchKernelEx_params*>(params)->config;
      launch.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
      launch.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
      launch.dynamic_shared_bytes = c->sharedMemBytes;
      launch.stream = c->hStream;
      return launch;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
      launch.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      launch.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      launch.dynamic_shared_bytes = p->sharedMemBytes;
      launch.stream = p->hStream;
      return launch;
    }
    default:
      return std::nullopt;
  }
}

void CUPTIAPI OnCuptiCallback(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                              const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    internal::OnModuleLoaded(data);  // for instruction attribution: source lines and opcodes
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    std::lock_guard<std::mutex> lock(g_launch_log.mutex);  // a session's patching lets go of it
    if (g_launch_log.sass != nullptr)
      g_launch_log.sass->Forget(static_cast<const CUpti_ResourceData*>(data)->context);
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  // Whether this thread holds g_launch_log.serial, from a launch's entry to its exit.
  thread_local bool holds_serial = false;
  if (IsLaunchFunction(id)) {
    if (info->callbackSite == CUPTI_API_ENTER && g_launch_log.serialize) {
      g_launch_log.serial.lock();
      holds_serial = true;
    }
    if (info->callbackSite == CUPTI_API_EXIT) {
      g_launch_log.CountLaunch();
      if (holds_serial) {
        holds_serial = false;
        g_launch_log.serial.unlock();
      }
      return;
    }
  }
  std::optional<LaunchInfo> launch =
      info->callbackSite == CUPTI_API_ENTER ? LaunchShape(id, info->functionParams) : std::nullopt;
  if (!launch) {
    OnGraphCall(id, *info);
    return;
  }
  // symbolName is valid only inside the callback: copy it.
  launch->mangled = info->symbolName != nullptr ? info->symbolName : "<unknown kernel>";
  std::lock_guard<std::mutex> lock(g_launch_log.mutex);
  if (g_launch_log.recording && !g_launch_log.Captured(launch->stream))
    g_launch_log.Add(std::move(*launch), info->context);
}

// BANKCHECK_TRACE_SESSION=1 prints how long each step of a session takes, on stderr: where the
// time of measuring goes.
class StepTrace {
 public:
  StepTrace() : enabled_(std::getenv("BANKCHECK_TRACE_SESSION") != nullptr), last_(Clock::now()) {}
  void Step(const char* name) {
    if (!enabled_) return;
    const Clock::time_point now = Clock::now();
    std::fprintf(stderr, "bankcheck trace: %-34s %9.3f ms\n", name,
                 std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point last_;
};

using CuCtxGetCurrentFn = CUresult (*)(CUcontext*);

// The current CUDA context, through the runtime's driver entry point: linking libcuda directly
// would stop the binaries from starting on machines without a driver.
CUcontext CurrentContext() {
  if (const cudaError_t status = cudaFree(nullptr); status != cudaSuccess) {
    throw Error(ErrorKind::kCuda, std::string("cannot create a CUDA context: ") + cudaGetErrorName(status));
  }
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult query{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &query) !=
          cudaSuccess ||
      fn == nullptr) {
    throw Error(ErrorKind::kCuda, "the CUDA driver has no cuCtxGetCurrent entry point");
  }
  CUcontext ctx = nullptr;
  if (reinterpret_cast<CuCtxGetCurrentFn>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
    throw Error(ErrorKind::kCuda, "cuCtxGetCurrent returned no context");
  }
  return ctx;
}

// CUPTI's callbacks on the driver's launch and graph functions and on module loads, for the whole
// process. Subscribed before the test creates its CUDA context (PrepareCounterSession), so that
// every module load is seen: instruction attribution looks up the loaded cubins.
class LaunchCallbacks {
 public:
  LaunchCallbacks() {
    BANKCHECK_CUPTI_CHECK(
        cuptiSubscribe(&subscriber_, reinterpret_cast<CUpti_CallbackFunc>(&OnCuptiCallback), nullptr));
    try {
      // Only the launch and graph functions: every other driver call stays free of the callback.
      for (const CUpti_CallbackId id : kLaunchFunctions)
        BANKCHECK_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id));
      for (const CUpti_CallbackId id : kGraphFunctions)
        BANKCHECK_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id));
      BANKCHECK_CUPTI_CHECK(
          cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED));
      BANKCHECK_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE,
                                                CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
    } catch (...) {
      cuptiUnsubscribe(subscriber_);
      throw;
    }
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult query{};
    std::lock_guard<std::mutex> lock(g_launch_log.mutex);
    if (cudaGetDriverEntryPointByVersion("cuStreamIsCapturing", &fn, 12000, cudaEnableDefault, &query) ==
        cudaSuccess)
      g_launch_log.stream_is_capturing = reinterpret_cast<StreamIsCapturingFn>(fn);
  }
  ~LaunchCallbacks() { cuptiUnsubscribe(subscriber_); }
  LaunchCallbacks(const LaunchCallbacks&) = delete;
  LaunchCallbacks& operator=(const LaunchCallbacks&) = delete;

 private:
  CUpti_SubscriberHandle subscriber_ = nullptr;
};

// Everything that lives across sessions: CUPTI initialization, the chip's host object and config
// image for the current metric set, the range profiler enabled on the current context.
class Profiler {
 public:
  // The host side: CUPTI's profiler initialized, the chip's name and the config image. Needs a
  // usable GPU but no CUDA context.
  explicit Profiler(const std::vector<std::string>& metrics) {
    try {
      SetUp(metrics);
    } catch (...) {
      Release();  // a half set-up CUPTI would refuse the next session
      throw;
    }
  }

  // Enables the range profiler on the calling thread's CUDA context (creating it if needed), for
  // sessions that replay with `replay`. Once per Profiler.
  void Enable(SessionOptions::Replay replay) {
    StepTrace trace;
    context_ = CurrentContext();
    trace.Step("CUDA context");
    if (!gpu_lock_)
      gpu_lock_ = std::make_unique<internal::GpuCounterLock>(
          ProbeGpu().pci_bus_id, internal::GpuLockTimeout(), internal::GpuCounterLock::Mode::kShared);
    trace.Step("GPU counter lock (shared)");
    range_profiler_ = EnableRangeProfiler(context_);
    replay_ = replay;
    trace.Step("cuptiRangeProfilerEnable");
  }
  bool enabled() const { return range_profiler_ != nullptr; }

  // The GPU to this process alone, for a range-profiler session (its hardware counters).
  void LockExclusively() {
    StepTrace trace;
    const std::chrono::milliseconds timeout = internal::GpuLockTimeout();
    if (!gpu_lock_) {
      gpu_lock_ = std::make_unique<internal::GpuCounterLock>(ProbeGpu().pci_bus_id, timeout);
    } else if (gpu_lock_->mode() != internal::GpuCounterLock::Mode::kExclusive) {
      try {
        gpu_lock_->MakeExclusive(timeout);
      } catch (...) {
        gpu_lock_.reset();  // it let go of its shared lock: the next session takes the lock anew
        throw;
      }
    }
    trace.Step("GPU counter lock (exclusive)");
  }

  ~Profiler() { Release(); }

  CUpti_RangeProfiler_Object* range_profiler() const { return range_profiler_; }
  CUcontext context() const { return context_; }
  int device() const { return device_; }
  const std::string& chip() const { return chip_; }
  // The chip's metric names, loaded on first use: only extra metrics need checking, and loading
  // them costs tens of milliseconds.
  const MetricCatalog& catalog() {
    if (!catalog_) catalog_ = std::make_unique<MetricCatalog>(chip_);
    return *catalog_;
  }
  // Checks the names in `metrics` that are not the kind table's (those are known names).
  void ValidateExtraMetrics(const std::vector<std::string>& metrics) {
    std::vector<std::string> extra;
    for (const std::string& name : metrics)
      if (!IsKindMetric(name)) extra.push_back(name);
    if (!extra.empty()) catalog().Validate(extra);
  }

  // The metric set as the session asked for it; what is configured leaves out the kind metrics
  // this chip does not have (their kinds are then recorded as unsupported).
  const std::vector<std::string>& metrics() const { return metrics_; }
  SessionOptions::Replay replay() const { return replay_; }

  // The config image for `metrics` (extra metrics validated against the chip first). Before Enable
  // only: once enabled, the range profiler keeps the configuration it started with.
  void UseMetrics(const std::vector<std::string>& metrics) {
    ValidateExtraMetrics(metrics);
    std::vector<std::string> available;
    for (const std::string& name : metrics)
      if (!IsKindMetric(name) || catalog().IsValid(name)) available.push_back(name);
    config_ = std::make_unique<internal::HostConfig>(chip_, available);
    metrics_ = metrics;
  }

  // A counter data image for `max_ranges` launches, initialized (it must be, before every session).
  std::vector<uint8_t>& CounterData(size_t max_ranges) {
    if (max_ranges != counter_data_ranges_) {
      BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, size);
      size.pRangeProfilerObject = range_profiler_;
      size.pMetricNames = const_cast<const char**>(config_->metric_names().data());
      size.numMetrics = config_->metric_names().size();
      size.maxNumOfRanges = max_ranges;
      size.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges);
      BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
      counter_data_.assign(size.counterDataSize, 0);
      counter_data_ranges_ = max_ranges;
    }
    BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init);
    init.pRangeProfilerObject = range_profiler_;
    init.counterDataSize = counter_data_.size();
    init.pCounterData = counter_data_.data();
    BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&init));
    return counter_data_;
  }

  const std::vector<uint8_t>& config_image() const { return config_->image(); }
  // The image of the running or last session, as CUPTI filled it.
  const std::vector<uint8_t>& counter_data() const { return counter_data_; }
  // The configured metrics (available on this chip), as CUPTI takes them.
  const std::vector<const char*>& metric_names() const { return config_->metric_names(); }
  CUpti_Profiler_Host_Object* host() const { return config_->host(); }

 private:
  // CUPTI's profiler initialized, the chip's name, the config image for `metrics`.
  void SetUp(const std::vector<std::string>& metrics) {
    const GpuProbe& probe = ProbeGpu();
    if (!probe.usable())
      throw Error(probe.state == GpuProbe::State::kCountersNotPermitted ? ErrorKind::kCountersNotPermitted
                                                                        : ErrorKind::kNoGpu,
                  probe.reason);
    device_ = probe.device;
    StepTrace trace;
    BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, init);
    BANKCHECK_CUPTI_CHECK(cuptiProfilerInitialize(&init));
    initialized_ = true;
    trace.Step("cuptiProfilerInitialize");
    BANKCHECK_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, chip);
    chip.deviceIndex = static_cast<size_t>(device_);
    BANKCHECK_CUPTI_CHECK(cuptiDeviceGetChipName(&chip));
    chip_ = chip.pChipName;
    trace.Step("chip name");
    UseMetrics(metrics);
    trace.Step("config image");
  }

  // cuptiRangeProfilerEnable, retried for a few seconds on the errors it returns while the
  // process that held the lock before this one is still tearing its profiler down: on the H100
  // a test process that took the lock straight after another's exit once got
  // CUPTI_ERROR_INVALID_CONTEXT for its first cases (ci/test.sh -L gpu).
  static CUpti_RangeProfiler_Object* EnableRangeProfiler(CUcontext context) {
    constexpr auto kGiveUpAfter = std::chrono::seconds(5);
    const auto start = std::chrono::steady_clock::now();
    auto pause = std::chrono::milliseconds(20);
    for (int attempt = 1;; ++attempt) {
      BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, enable);
      enable.ctx = context;
      const CUptiResult status = cuptiRangeProfilerEnable(&enable);
      if (status == CUPTI_SUCCESS) {
        if (attempt > 1)
          std::fprintf(stderr, "bankcheck: the range profiler started on attempt %d\n", attempt);
        return enable.pRangeProfilerObject;
      }
      const bool transient = status == CUPTI_ERROR_INVALID_CONTEXT || status == CUPTI_ERROR_HARDWARE_BUSY;
      if (!transient || std::chrono::steady_clock::now() - start > kGiveUpAfter)
        throw internal::CuptiFailure(status, "cuptiRangeProfilerEnable(&enable)");
      if (attempt == 1) {
        const char* name = nullptr;
        cuptiGetResultString(status, &name);
        std::fprintf(stderr, "bankcheck: cuptiRangeProfilerEnable returned %s; retrying for up to 5 s\n",
                     name != nullptr ? name : "an error");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(500));
    }
  }

  // Best effort: errors here have nowhere to go.
  void Release() {
    config_.reset();
    if (range_profiler_ != nullptr) {
      BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, disable);
      disable.pRangeProfilerObject = range_profiler_;
      cuptiRangeProfilerDisable(&disable);
      range_profiler_ = nullptr;
    }
    if (initialized_) {
      BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params, deinit);
      cuptiProfilerDeInitialize(&deinit);
      initialized_ = false;
    }
    gpu_lock_.reset();  // CUPTI is torn down: the next process may enable its range profiler
  }

  int device_ = 0;
  std::unique_ptr<internal::GpuCounterLock> gpu_lock_;
  CUcontext context_ = nullptr;
  bool initialized_ = false;
  std::string chip_;
  std::unique_ptr<MetricCatalog> catalog_;
  CUpti_RangeProfiler_Object* range_profiler_ = nullptr;
  std::unique_ptr<internal::HostConfig> config_;
  std::vector<std::string> metrics_;
  SessionOptions::Replay replay_ = SessionOptions::Replay::kKernel;
  std::vector<uint8_t> counter_data_;
  size_t counter_data_ranges_ = 0;
};

// What this file keeps for the whole process, under `mutex`.
struct ProcessState {
  std::mutex mutex;
  std::unique_ptr<LaunchCallbacks> callbacks;
  // PrepareCounterSession()'s load of libnvperf_host.so, running while the test creates its
  // context; the first Profiler waits for it.
  std::future<void> host_library;
  std::unique_ptr<Profiler> profiler;
  // Why PrepareCounterSession()'s set-up failed, until the first session reports it as its own.
  std::exception_ptr prepare_failure;
  // Set once a kernel fault has left this process's CUDA context unusable: what faulted.
  std::string poisoned_by;
  bool session_active = false;
  bool shutdown_registered = false;

  // ShutdownProfiler at exit, registered once CUDA is initialized (ProbeGpu() has run): after the
  // CUDA runtime's own exit handler, so it runs first.
  void RegisterShutdownAtExit() {
    if (!shutdown_registered) std::atexit(&ShutdownProfiler);
    shutdown_registered = true;
  }
};
ProcessState g_process;

// The process-wide profiler, configured for `metrics` and `replay`. A different metric set or
// replay mode rebuilds it: the range profiler keeps the configuration it was enabled with
// (changing the config image in place, or kernel replay after user replay, made CUPTI 13.0
// segfault on the H100). Called under g_process.mutex.
Profiler& GetProfiler(const std::vector<std::string>& metrics, SessionOptions::Replay replay) {
  std::unique_ptr<Profiler>& slot = g_process.profiler;
  // A failed preparation throws here, with the error the session would have met itself.
  if (g_process.prepare_failure) std::rethrow_exception(std::exchange(g_process.prepare_failure, nullptr));
  if (slot && !slot->enabled() && slot->metrics() != metrics) slot->UseMetrics(metrics);
  if (slot && (slot->metrics() != metrics || (slot->enabled() && slot->replay() != replay))) {
    slot->ValidateExtraMetrics(metrics);  // an unknown name must not cost the working profiler
    slot.reset();
  }
  if (!slot) {
    if (g_process.host_library.valid()) g_process.host_library.get();
    slot = std::make_unique<Profiler>(metrics);  // checks for a usable GPU first
    g_process.RegisterShutdownAtExit();
  }
  if (!g_process.callbacks) g_process.callbacks = std::make_unique<LaunchCallbacks>();
  if (!slot->enabled()) slot->Enable(replay);
  return *slot;
}

// The process-wide profiler with its range profiler enabled, whatever its metric set: what SASS
// counting and attribution need (the SASS Metrics API recorded only the first kernel in a process
// whose range profiler had not been enabled: docs/counters.md). Called under g_process.mutex.
Profiler& EnabledProfiler() {
  if (g_process.profiler && g_process.profiler->enabled()) return *g_process.profiler;
  return GetProfiler(CoreMetrics(), SessionOptions::Replay::kKernel);
}

std::unique_ptr<internal::SassCounting> ProfilableInstantiation(CUcontext context) {
  if (context == nullptr) return nullptr;
  try {
    std::lock_guard<std::mutex> lock(g_process.mutex);
    // A failed set-up stays for the first session to report.
    if (g_process.session_active || g_process.prepare_failure || !g_process.poisoned_by.empty())
      return nullptr;
    Profiler& profiler = EnabledProfiler();
    return std::make_unique<internal::SassCounting>(context, profiler.device(), profiler.chip());
  } catch (const std::exception&) {
    return nullptr;  // the graph is reported as unmeasurable if a session launches it
  }
}

// Whether `launch` ran a kernel (or a graph's kernel node) that may launch kernels from the device.
bool MayLaunchFromDevice(const LaunchInfo& launch) {
  if (internal::MayLaunchFromDevice(launch.mangled)) return true;
  return std::any_of(
      launch.graph_kernels.begin(), launch.graph_kernels.end(),
      [](const internal::KernelShape& node) { return internal::MayLaunchFromDevice(node.mangled); });
}

// Refuses what a session saw run but cannot count exactly, naming it and what to do instead.
// `sass`: the session counted through SASS metrics, which count no kernel launched from the device.
void RefuseUnmeasurable(const std::vector<LaunchInfo>& launches, bool sass) {
  for (size_t i = 0; i < launches.size(); ++i) {
    if (sass && MayLaunchFromDevice(launches[i])) {
      throw Error(ErrorKind::kUnmeasurable,
                  "launch " + std::to_string(i + 1) + " of the session ('" +
                      Demangle(launches[i].mangled.c_str()) +
                      "') is a kernel of a module that launches kernels from the device (dynamic "
                      "parallelism), and CUPTI's SASS Metrics API counts no device-launched kernel, so "
                      "its counts would miss them. Measure it with SessionOptions::counters = "
                      "kRangeProfiler (c.session.counters in a kernel case): its record then includes "
                      "the kernels it launched, as ncu's does (docs/counters.md).");
    }
    if (!launches[i].context_unmeasurable.empty()) {
      throw Error(ErrorKind::kUnmeasurable,
                  "launch " + std::to_string(i + 1) + " of the session ('" +
                      Demangle(launches[i].mangled.c_str()) +
                      "') cannot be counted exactly: " + launches[i].context_unmeasurable);
    }
    if (!launches[i].graph_unmeasurable) continue;
    throw Error(ErrorKind::kUnmeasurable,
                "launch " + std::to_string(i + 1) +
                    " of the session is a CUDA graph instantiated before bankcheck was set up in this "
                    "process; CUDA runs such a graph without the profiler's instrumentation beyond its "
                    "first kernel node, so its counts would be incomplete. Set bankcheck up before the "
                    "graph is instantiated: link bankcheck::gtest_main (it does so before any test), or "
                    "call BANKCHECK_SKIP_WITHOUT_GPU() or bankcheck::PrepareCounterSession() first "
                    "(docs/counters.md, \"CUDA graphs\").");
  }
}

// Auto range (one range per launch, in launch order) with the session's replay mode.
void SetRangeProfilerConfig(Profiler& profiler, const SessionOptions& options,
                            std::vector<uint8_t>& counter_data) {
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, config);
  config.pRangeProfilerObject = profiler.range_profiler();
  config.configSize = profiler.config_image().size();
  config.pConfig = profiler.config_image().data();
  config.counterDataImageSize = counter_data.size();
  config.pCounterDataImage = counter_data.data();
  config.range = CUPTI_AutoRange;
  const bool user = options.replay == SessionOptions::Replay::kUser;
  config.replayMode = user ? CUPTI_UserReplay : CUPTI_KernelReplay;
  // Kernel replay makes each launch a pass of its own: one range per pass. A larger value costs
  // every launch time in proportion (on the H100, 42 launches in one session: 10.8 ms per launch
  // with 42 ranges per pass, 4.0 ms with 1). User replay runs all the launches in each pass.
  config.maxRangesPerPass = user ? options.max_launches : 1;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&config));
}

// Starts a range-profiler pass with the launch log recording.
void StartPass(Profiler& profiler) {
  g_launch_log.Start(nullptr, profiler.context());
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
  start.pRangeProfilerObject = profiler.range_profiler();
  if (const CUptiResult status = cuptiRangeProfilerStart(&start); status != CUPTI_SUCCESS) {
    g_launch_log.Stop();
    throw internal::CuptiFailure(status, "cuptiRangeProfilerStart");
  }
}

// The metric names of a session: the kind table's (with the requested hardware pairs), then the
// extra metrics not already among them.
std::vector<std::string> SessionMetrics(const SessionOptions& options) {
  std::vector<std::string> metrics = KindMetrics(options.hardware_ideal);
  for (const std::string& extra : options.extra_metrics) {
    if (std::find(metrics.begin(), metrics.end(), extra) == metrics.end()) metrics.push_back(extra);
  }
  return metrics;
}

}  // namespace

struct CounterSession::State {
  SessionOptions options;
  std::vector<std::string> metrics;
  bool recording = false;
  StepTrace trace;
  // Replay::kUser: runs the launches again for each further pass.
  std::function<void()> rerun;
  // kSassMetrics: the patching that counts the launches (null for a range-profiler session).
  std::unique_ptr<internal::SassCounting> sass;
};

bool CounterSession::Active() {
  std::lock_guard<std::mutex> lock(g_process.mutex);
  return g_process.session_active;
}

CounterSession::CounterSession(SessionOptions options) : state_(std::make_unique<State>()) {
  std::lock_guard<std::mutex> lock(g_process.mutex);
  if (g_process.session_active) {
    throw Error(ErrorKind::kNestedSession,
                "a CounterSession is already active in this process. Sessions cannot be nested or run "
                "concurrently (the GPU has one set of counters): finish the first one before starting "
                "another.");
  }
  if (!g_process.poisoned_by.empty()) {
    throw Error(ErrorKind::kKernelFault,
                "an earlier kernel fault in this process (" + g_process.poisoned_by +
                    ") left its CUDA context unusable; CUDA needs a new process. Run "
                    "each test in its own process (ctest does).");
  }
  if (options.max_launches == 0) {
    throw Error(ErrorKind::kBadInput, "SessionOptions::max_launches must be at least 1");
  }
  state_->options = std::move(options);
  if (CountersFor(state_->options) == SessionOptions::Counters::kSassMetrics) {
    Profiler& profiler = EnabledProfiler();
    state_->trace.Step("profiler ready");
    state_->sass =
        std::make_unique<internal::SassCounting>(profiler.context(), profiler.device(), profiler.chip());
    g_launch_log.Start(state_->sass.get());
    state_->recording = true;
    g_process.session_active = true;
    state_->trace.Step("SASS patching enabled");
    return;
  }
  state_->metrics = SessionMetrics(state_->options);
  Profiler& profiler = GetProfiler(state_->metrics, state_->options.replay);
  profiler.LockExclusively();
  state_->trace.Step("profiler ready");
  std::vector<uint8_t>& counter_data = profiler.CounterData(state_->options.max_launches);
  state_->trace.Step("counter data image initialized");
  SetRangeProfilerConfig(profiler, state_->options, counter_data);
  state_->trace.Step("config set");
  StartPass(profiler);
  state_->recording = true;
  g_process.session_active = true;
  state_->trace.Step("started");
}

CounterSession::~CounterSession() {
  if (!state_ || !state_->recording) return;
  std::lock_guard<std::mutex> lock(g_process.mutex);
  if (g_process.profiler && !state_->sass) {
    BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
    stop.pRangeProfilerObject = g_process.profiler->range_profiler();
    cuptiRangeProfilerStop(&stop);
  }
  g_launch_log.Stop();
  state_->sass.reset();
  g_process.session_active = false;
}

namespace {

// A record of `launch` without counts: its kernel (or a graph launch's kernels) and shape.
LaunchRecord RecordOf(const LaunchInfo& launch) {
  LaunchRecord record;
  record.mangled_kernel = launch.mangled;
  record.kernel = Demangle(launch.mangled.c_str());
  if (launch.graph) {
    // One range for the whole graph launch: its counts are those of all its kernel nodes.
    record.mangled_kernel.clear();
    for (const internal::KernelShape& node : launch.graph_kernels) {
      record.graph_kernels.push_back(Demangle(node.mangled.c_str()));
      record.mangled_kernel += (record.mangled_kernel.empty() ? "" : ",") + node.mangled;
    }
    record.kernel = GraphLaunchName(record.graph_kernels);
  }
  record.grid = launch.grid;
  record.block = launch.block;
  record.dynamic_shared_bytes = launch.dynamic_shared_bytes;
  return record;
}

// One record from a range's values of the configured metrics.
LaunchRecord MakeRecord(const LaunchInfo& launch, const std::vector<const char*>& names,
                        const std::vector<double>& values) {
  LaunchRecord record = RecordOf(launch);
  MetricValues by_name;
  for (size_t i = 0; i < names.size(); ++i) {
    by_name[names[i]] = values[i];
    if (!IsKindMetric(names[i])) record.extra_metrics[names[i]] = values[i];
  }
  SetSharedCounts(by_name, record);
  AddConsistencyNotes(record);
  if (!launch.graph && internal::MayLaunchFromDevice(launch.mangled))
    record.notes.push_back(
        "the counts include the kernels it launched from the device (dynamic parallelism), as ncu's do");
  return record;
}

// A kernel node of a graph as a launch of its own.
LaunchInfo NodeLaunch(const internal::KernelShape& node) {
  LaunchInfo info;
  static_cast<internal::KernelShape&>(info) = node;
  return info;
}

// The launches as CUPTI made ranges of them: as recorded when there is one range per launch (a
// graph launch then is one range), or with each graph launch replaced by its kernel nodes when
// there is one range per kernel node.
std::vector<LaunchInfo> LaunchesForRanges(const std::vector<LaunchInfo>& launches, size_t ranges) {
  if (ranges == launches.size()) return launches;
  std::vector<LaunchInfo> expanded;
  for (const LaunchInfo& launch : launches) {
    if (!launch.graph) {
      expanded.push_back(launch);
      continue;
    }
    for (const internal::KernelShape& node : launch.graph_kernels) expanded.push_back(NodeLaunch(node));
  }
  return expanded;
}

// kSassMetrics: the records of one launch from what its instructions counted. A kernel launch
// gives one record. A graph launch gives one per kernel node, in node order, when its nodes run
// different kernels (what each kernel counted is then its node's); when a kernel runs in several
// nodes, or an unnamed one ran, the counts cannot be told apart by node, and the graph launch
// gives one record with them all (docs/counters.md).
std::vector<LaunchRecord> SassRecords(const LaunchInfo& launch, const PerKind<bool>& unsupported) {
  const auto record_with = [&](const LaunchInfo& info, const std::vector<const internal::KindSums*>& sums) {
    LaunchRecord record = RecordOf(info);
    internal::KindSums total;
    for (const internal::KindSums* part : sums)
      for (const SharedKindInfo& kind : SharedKinds()) total[kind.kind] += (*part)[kind.kind];
    SetSassCounts(total, unsupported, record);
    AddConsistencyNotes(record);
    return record;
  };
  std::vector<const internal::KindSums*> all;
  for (const auto& [kernel, sums] : launch.sass) all.push_back(&sums);
  if (!launch.graph) return {record_with(launch, all)};
  std::set<std::string> node_kernels;
  for (const internal::KernelShape& node : launch.graph_kernels) node_kernels.insert(node.mangled);
  bool by_node = node_kernels.size() == launch.graph_kernels.size() && !node_kernels.empty();
  for (const auto& [kernel, sums] : launch.sass) by_node = by_node && node_kernels.count(kernel) != 0;
  if (!by_node) return {record_with(launch, all)};
  std::vector<LaunchRecord> records;
  for (const internal::KernelShape& node : launch.graph_kernels) {
    const auto found = launch.sass.find(node.mangled);
    std::vector<const internal::KindSums*> sums;
    if (found != launch.sass.end()) sums.push_back(&found->second);
    records.push_back(record_with(NodeLaunch(node), sums));
  }
  return records;
}

// A launch failed while measured. A failure to launch (a bad configuration) is cleared by
// cudaGetLastError and the context stays usable. A fault inside a kernel is sticky: the CUDA
// runtime documents that the process must be restarted, so the session is torn down and later
// sessions in this process fail at once with the reason (ctest runs each test in its own
// process, so the next test is unaffected). `stop_counting` ends the session's counting first.
// Called under g_process.mutex.
[[noreturn]] void FailWithKernelFault(cudaError_t status, const std::vector<LaunchInfo>& launches,
                                      const std::function<void()>& stop_counting) {
  std::string which = "a kernel launched in the session";
  if (!launches.empty()) {
    const LaunchInfo& last = launches.back();
    which = "kernel '" + Demangle(last.mangled.c_str()) + "' (launch " + std::to_string(launches.size()) +
            " of the session, grid " + ToString(last.grid) + ", block " + ToString(last.block) + ")";
  }
  const std::string error = std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
  stop_counting();
  cudaGetLastError();
  if (cudaDeviceSynchronize() == cudaSuccess) {
    throw Error(ErrorKind::kKernelFault,
                which + " failed while it was measured: " + error +
                    ". The session was stopped; later sessions in this process work.");
  }
  g_process.profiler.reset();
  g_process.poisoned_by = which + ": " + error;
  throw Error(
      ErrorKind::kKernelFault,
      which + " faulted while it was measured: " + error +
          ". The counter session was torn down. CUDA cannot recover a process from a fault inside a "
          "kernel, so later GPU work in this process fails; ctest runs each test in its own process, "
          "so the next test is unaffected. Run this test under compute-sanitizer to find the faulting "
          "access.");
}

// Stops the range-profiler pass in progress (after a failed launch).
void StopRangeProfiler() {
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
  stop.pRangeProfilerObject = g_process.profiler->range_profiler();
  cuptiRangeProfilerStop(&stop);
}

// Waits for the launches of a pass; a failed one ends the session with the kernel named.
void SynchronizeLaunches(const std::vector<LaunchInfo>& launches,
                         const std::function<void()>& stop_counting) {
  cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) status = cudaGetLastError();
  if (status != cudaSuccess) FailWithKernelFault(status, launches, stop_counting);
}

// Replay::kUser: runs the launches again for each pass CUPTI still needs; `stop` holds the state
// of the last cuptiRangeProfilerStop.
void RunRemainingPasses(Profiler& profiler, CUpti_RangeProfiler_Stop_Params& stop,
                        const std::function<void()>& rerun, const std::vector<LaunchInfo>& launches) {
  for (int pass = 2; !stop.isAllPassSubmitted; ++pass) {
    if (!rerun || pass > 16) {
      throw Error(ErrorKind::kCupti, "CUPTI asked for replay pass " + std::to_string(pass) +
                                         " but the session has no launches to run again");
    }
    StartPass(profiler);
    rerun();
    cudaError_t status = cudaDeviceSynchronize();
    if (status == cudaSuccess) status = cudaGetLastError();
    const size_t pass_launches = g_launch_log.Stop().size();
    if (status != cudaSuccess) FailWithKernelFault(status, launches, StopRangeProfiler);
    BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerStop(&stop));
    if (pass_launches != launches.size()) {
      throw Error(ErrorKind::kBadInput,
                  "with Replay::kUser the launches ran " + std::to_string(launches.size()) +
                      " kernels in the first pass and " + std::to_string(pass_launches) + " in pass " +
                      std::to_string(pass) + ": user replay needs the same launches every time");
    }
  }
}

// Decodes the counter data and returns the launches its ranges belong to, one per range.
std::vector<LaunchInfo> DecodeRanges(Profiler& profiler, size_t max_launches,
                                     const std::vector<LaunchInfo>& launches) {
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, decode);
  decode.pRangeProfilerObject = profiler.range_profiler();
  BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&decode));
  if (decode.numOfRangeDropped > 0 || launches.size() > max_launches) {
    throw Error(ErrorKind::kTooManyLaunches,
                "the session saw " + std::to_string(launches.size()) +
                    " kernel launches but its counter image holds " + std::to_string(max_launches) + " (" +
                    std::to_string(decode.numOfRangeDropped) +
                    " dropped). Raise SessionOptions::max_launches or measure fewer launches per session.");
  }
  const std::vector<uint8_t>& counter_data = profiler.counter_data();
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info));
  std::vector<LaunchInfo> ranged = LaunchesForRanges(launches, info.numTotalRanges);
  if (info.numTotalRanges != ranged.size()) {
    throw Error(ErrorKind::kCupti,
                "CUPTI recorded " + std::to_string(info.numTotalRanges) + " ranges for " +
                    std::to_string(launches.size()) +
                    " kernel and graph launches; cannot tell which counts belong to which launch. Launch "
                    "kernels through cudaLaunchKernel/<<<>>>/cuLaunchKernel(Ex) or cudaGraphLaunch, and "
                    "instantiate graphs after the GPU check (BANKCHECK_SKIP_WITHOUT_GPU) so their kernels "
                    "are known.");
  }
  return ranged;
}

// One record per range, in launch order.
std::vector<LaunchRecord> EvaluateRanges(Profiler& profiler, const std::vector<LaunchInfo>& launches) {
  const std::vector<uint8_t>& counter_data = profiler.counter_data();
  const std::vector<const char*>& names = profiler.metric_names();
  std::vector<LaunchRecord> records;
  records.reserve(launches.size());
  std::vector<double> values(names.size());
  for (size_t range = 0; range < launches.size(); ++range) {
    BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, evaluate);
    evaluate.pHostObject = profiler.host();
    evaluate.pCounterDataImage = counter_data.data();
    evaluate.counterDataImageSize = counter_data.size();
    evaluate.rangeIndex = range;
    evaluate.ppMetricNames = const_cast<const char**>(names.data());
    evaluate.numMetrics = names.size();
    evaluate.pMetricValues = values.data();
    BANKCHECK_CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&evaluate));
    records.push_back(MakeRecord(launches[range], names, values));
  }
  return records;
}

}  // namespace

std::vector<LaunchRecord> CounterSession::Finish() {
  if (!state_->recording) throw Error(ErrorKind::kBadInput, "CounterSession::Finish() called twice");
  std::lock_guard<std::mutex> lock(g_process.mutex);
  state_->recording = false;
  g_process.session_active = false;
  if (state_->sass) return FinishSass();
  const std::vector<LaunchInfo> launches = g_launch_log.Stop();
  Profiler& profiler = *g_process.profiler;
  SynchronizeLaunches(launches, StopRangeProfiler);
  state_->trace.Step("launches, replayed and synchronized");
  RefuseUnmeasurable(launches, /*sass=*/false);

  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
  stop.pRangeProfilerObject = profiler.range_profiler();
  BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerStop(&stop));
  RunRemainingPasses(profiler, stop, state_->rerun, launches);
  const std::vector<LaunchInfo> ranged = DecodeRanges(profiler, state_->options.max_launches, launches);
  state_->trace.Step("stopped and decoded");
  std::vector<LaunchRecord> records = EvaluateRanges(profiler, ranged);
  state_->trace.Step("evaluated");
  return records;
}

// Called under g_process.mutex, the session no longer active.
std::vector<LaunchRecord> CounterSession::FinishSass() {
  std::string sass_error;
  {
    std::lock_guard<std::mutex> lock(g_launch_log.mutex);
    sass_error = g_launch_log.sass_error;
  }
  const std::vector<LaunchInfo> launches = g_launch_log.Stop();
  // A kernel that faulted is the first launch left uncounted: name it, not the last launch.
  const auto uncounted =
      std::find_if(launches.begin(), launches.end(), [](const LaunchInfo& l) { return !l.counted; });
  SynchronizeLaunches({launches.begin(), uncounted == launches.end() ? uncounted : uncounted + 1},
                      [this] { state_->sass.reset(); });
  const PerKind<bool> unsupported = state_->sass->unsupported();
  state_->sass.reset();  // patching off: the launches after the session run at full speed
  state_->trace.Step("launches counted and synchronized");
  if (!sass_error.empty())
    throw Error(ErrorKind::kCupti, "reading a launch's SASS metrics failed: " + sass_error);
  RefuseUnmeasurable(launches, /*sass=*/true);
  std::vector<LaunchRecord> records;
  for (const LaunchInfo& launch : launches) {
    if (!launch.counted) {
      throw Error(ErrorKind::kCupti, "a launch of '" + Demangle(launch.mangled.c_str()) +
                                         "' was recorded but its SASS metrics were not read; measure it "
                                         "with SessionOptions::Counters::kRangeProfiler");
    }
    for (LaunchRecord& record : SassRecords(launch, unsupported)) records.push_back(std::move(record));
  }
  state_->trace.Step("records");
  return records;
}

std::vector<LaunchRecord> Measure(const std::function<void()>& launches, const SessionOptions& options) {
  std::vector<LaunchRecord> records;
  {
    CounterSession session(options);
    if (options.replay == SessionOptions::Replay::kUser) session.state_->rerun = launches;
    launches();
    records = session.Finish();
  }
  if (options.attribute_instructions) AttachInstructions(AttributeInstructions(launches), records);
  return records;
}

KernelInstructions AttributeInstructions(const std::function<void()>& launches) {
  CUcontext context = nullptr;
  int device = 0;
  std::string chip;
  {
    std::lock_guard<std::mutex> lock(g_process.mutex);
    if (g_process.session_active)
      throw Error(ErrorKind::kNestedSession, "AttributeInstructions called while a CounterSession is active");
    if (!g_process.poisoned_by.empty())
      throw Error(ErrorKind::kKernelFault, "an earlier kernel fault in this process (" +
                                               g_process.poisoned_by + ") left its CUDA context unusable");
    Profiler& profiler = EnabledProfiler();
    context = profiler.context();
    device = profiler.device();
    chip = profiler.chip();
    g_process.session_active = true;
  }
  struct Inactive {
    ~Inactive() {
      std::lock_guard<std::mutex> lock(g_process.mutex);
      g_process.session_active = false;
    }
  } inactive;
  return internal::AttributeInstructions(context, device, chip, launches);
}

void AttachInstructions(const KernelInstructions& instructions, std::vector<LaunchRecord>& records) {
  std::map<std::string, uint32_t> launches_of;
  for (const LaunchRecord& record : records)
    if (record.graph_kernels.empty()) ++launches_of[record.mangled_kernel];
  for (LaunchRecord& record : records) {
    if (!record.graph_kernels.empty()) continue;  // a graph's nodes are attributed by kernel, not here
    const auto found = instructions.find(record.mangled_kernel);
    record.instructions = found != instructions.end() ? found->second : std::vector<InstructionCounts>{};
    record.attributed_launches = launches_of[record.mangled_kernel];
  }
}

bool CudaContextLost() {
  std::lock_guard<std::mutex> lock(g_process.mutex);
  return !g_process.poisoned_by.empty();
}

bool CountersDisabled() {
  const char* value = std::getenv("BANKCHECK_COUNTERS");
  return value != nullptr && std::string(value) == "off";
}

SessionOptions::Counters CountersFor(const SessionOptions& options) {
  using Counters = SessionOptions::Counters;
  const char* value = std::getenv("BANKCHECK_COUNTERS");
  const std::string forced = value != nullptr ? value : "";
  if (!forced.empty() && forced != "sass" && forced != "range-profiler" && forced != "off") {
    throw Error(ErrorKind::kBadInput,
                "BANKCHECK_COUNTERS is '" + forced +
                    "'; use sass (the default), range-profiler, or off (measure nothing)");
  }
  if (forced == "range-profiler" || !options.extra_metrics.empty() || !options.hardware_ideal.empty())
    return Counters::kRangeProfiler;
  return options.counters;
}

void PrepareCounterSession() {
  if (CountersDisabled()) return;
  std::lock_guard<std::mutex> lock(g_process.mutex);
  if (g_process.callbacks || g_process.profiler || g_process.prepare_failure ||
      !g_process.poisoned_by.empty() || !ProbeGpu().usable())
    return;
  g_process.RegisterShutdownAtExit();
  // The launch callbacks on this thread, before the test creates its CUDA context. No CUPTI call
  // runs beside CUDA work: CUPTI's set-up on a background thread while the test's thread created
  // its context left CUPTI refusing that context for good in 3 of 964 processes on the H100
  // (cuptiRangeProfilerEnable: CUPTI_ERROR_INVALID_CONTEXT, also after initializing CUPTI again
  // or detaching it); its initialization on a thread beside the GPU probe's cudaGetDeviceCount
  // crashed 4 GPU test processes (signal 11) in 10 runs of ctest -j8 -L gpu.
  try {
    g_process.callbacks = std::make_unique<LaunchCallbacks>();
  } catch (...) {
    g_process.prepare_failure = std::current_exception();
    return;
  }
  // Only the library's loading runs beside the context's creation; the first session does the rest
  // of the set-up after it. Beside cudaGetDeviceCount it would gain nothing: the two take turns
  // (benchmarks/README.md).
  try {
    g_process.host_library = std::async(std::launch::async, [] { internal::LoadProfilerHostLibrary(); });
  } catch (const std::system_error&) {
    // No thread to be had: CUPTI loads the library when the first session initializes it.
  }
}

void ShutdownProfiler() {
  std::lock_guard<std::mutex> lock(g_process.mutex);
  g_process.prepare_failure = nullptr;  // nothing was set up; a session would have reported it
  if (g_process.host_library.valid()) g_process.host_library.get();
  g_process.profiler.reset();
  g_process.callbacks.reset();
}

}  // namespace bankcheck
