// The CUPTI side of a CounterSession. Call order (CUDA 13, see the research note):
//   once per process:  cuptiProfilerInitialize -> cuptiDeviceGetChipName -> host object + config
//                      image for the metric set (no CUDA context needed: PrepareCounterSession()
//                      runs this on a background thread) -> cuptiRangeProfilerEnable(ctx)
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
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <optional>

#include "bankcheck/error.h"
#include "bankcheck/gpu_probe.h"
#include "bankcheck/metrics.h"
#include "cupti_config.h"
#include "cupti_errors.h"

namespace bankcheck {

namespace {

std::string Demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                   std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(mangled);
}

struct LaunchInfo {
  std::string mangled;
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;
};

// Launches seen by the callback while a session records. Touched only from CUPTI's callback and
// the session, under the mutex.
struct LaunchLog {
  std::mutex mutex;
  bool recording = false;
  std::vector<LaunchInfo> launches;
};
LaunchLog& Log() {
  static LaunchLog log;
  return log;
}

constexpr CUpti_CallbackId kLaunchCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

void CUPTIAPI OnDriverCall(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                           const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite != CUPTI_API_ENTER) return;
  LaunchInfo launch;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchKernel_params*>(info->functionParams);
      launch.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      launch.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      launch.dynamic_shared_bytes = p->sharedMemBytes;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(info->functionParams);
      const CUlaunchConfig* c = p->config;
      launch.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
      launch.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
      launch.dynamic_shared_bytes = c->sharedMemBytes;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(info->functionParams);
      launch.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      launch.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      launch.dynamic_shared_bytes = p->sharedMemBytes;
      break;
    }
    default:
      return;
  }
  // symbolName is valid only inside the callback: copy it.
  launch.mangled = info->symbolName != nullptr ? info->symbolName : "<unknown kernel>";
  LaunchLog& log = Log();
  std::lock_guard<std::mutex> lock(log.mutex);
  if (log.recording) log.launches.push_back(std::move(launch));
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

// Everything that lives across sessions: CUPTI initialization, the chip's host object and config
// image for the current metric set, the range profiler enabled on the current context.
class Profiler {
 public:
  // The host side: CUPTI initialized, the chip's name, the launch callbacks and the config image.
  // Needs a usable GPU but no CUDA context, so it may run on another thread than the sessions.
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
    BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, enable);
    enable.ctx = context_;
    BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerEnable(&enable));
    range_profiler_ = enable.pRangeProfilerObject;
    replay_ = replay;
    trace.Step("cuptiRangeProfilerEnable");
  }
  bool enabled() const { return range_profiler_ != nullptr; }

  ~Profiler() { Release(); }

  CUpti_RangeProfiler_Object* range_profiler() const { return range_profiler_; }
  // The chip's metric names, loaded on first use: only extra metrics need checking, and loading
  // them costs tens of milliseconds.
  const MetricCatalog& catalog() {
    if (!catalog_) catalog_ = std::make_unique<MetricCatalog>(chip_);
    return *catalog_;
  }
  // Checks the names after CoreMetrics() in `metrics` (the core ones are known to be valid).
  void ValidateExtraMetrics(const std::vector<std::string>& metrics) {
    if (metrics.size() <= CoreMetrics().size()) return;
    catalog().Validate({metrics.begin() + static_cast<std::ptrdiff_t>(CoreMetrics().size()), metrics.end()});
  }

  const std::vector<std::string>& metrics() const { return metrics_; }
  SessionOptions::Replay replay() const { return replay_; }

  // The config image for `metrics` (extra metrics validated against the chip first). Before Enable
  // only: once enabled, the range profiler keeps the configuration it started with.
  void UseMetrics(const std::vector<std::string>& metrics) {
    ValidateExtraMetrics(metrics);
    config_ = std::make_unique<internal::HostConfig>(chip_, metrics);
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
  const std::vector<const char*>& metric_names() const { return config_->metric_names(); }
  CUpti_Profiler_Host_Object* host() const { return config_->host(); }

 private:
  // CUPTI initialized, the chip's name, the launch callbacks, the config image for `metrics`.
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
    BANKCHECK_CUPTI_CHECK(
        cuptiSubscribe(&subscriber_, reinterpret_cast<CUpti_CallbackFunc>(&OnDriverCall), nullptr));
    // Only the launch functions: every other driver call stays free of the callback.
    for (const CUpti_CallbackId id : kLaunchCallbacks) {
      BANKCHECK_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id));
    }
    trace.Step("chip name, launch callbacks");
    UseMetrics(metrics);
    trace.Step("config image");
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
    if (subscriber_ != nullptr) cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
    if (initialized_) {
      BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params, deinit);
      cuptiProfilerDeInitialize(&deinit);
      initialized_ = false;
    }
  }

  int device_ = 0;
  CUcontext context_ = nullptr;
  bool initialized_ = false;
  std::string chip_;
  std::unique_ptr<MetricCatalog> catalog_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  CUpti_RangeProfiler_Object* range_profiler_ = nullptr;
  std::unique_ptr<internal::HostConfig> config_;
  std::vector<std::string> metrics_;
  SessionOptions::Replay replay_ = SessionOptions::Replay::kKernel;
  std::vector<uint8_t> counter_data_;
  size_t counter_data_ranges_ = 0;
};

std::mutex& ProfilerMutex() {
  static std::mutex mutex;
  return mutex;
}
std::unique_ptr<Profiler>& ProfilerSlot() {
  static std::unique_ptr<Profiler> profiler;
  return profiler;
}
// The host side being built on a background thread by PrepareCounterSession(), until the first
// session (or ShutdownProfiler) takes it.
std::future<std::unique_ptr<Profiler>>& PreparedProfiler() {
  static std::future<std::unique_ptr<Profiler>> prepared;
  return prepared;
}
// ShutdownProfiler at exit, registered once CUDA is initialized (ProbeGpu() has run): after the
// CUDA runtime's own exit handler, so it runs first.
void RegisterShutdownAtExit() {
  static const bool registered = (std::atexit(&ShutdownProfiler), true);
  (void)registered;
}
// Set once a kernel fault has left this process's CUDA context unusable: what faulted.
std::string& PoisonedBy() {
  static std::string what;
  return what;
}

bool& SessionActiveFlag() {
  static bool active = false;
  return active;
}

// The process-wide profiler, configured for `metrics` and `replay`. A different metric set or
// replay mode rebuilds it: the range profiler keeps the configuration it was enabled with
// (changing the config image in place, or kernel replay after user replay, made CUPTI 13.0
// segfault on the H100).
Profiler& GetProfiler(const std::vector<std::string>& metrics, SessionOptions::Replay replay) {
  std::unique_ptr<Profiler>& slot = ProfilerSlot();
  // A failed preparation throws here, with the error the session would have met itself.
  if (PreparedProfiler().valid()) slot = PreparedProfiler().get();
  if (slot && !slot->enabled() && slot->metrics() != metrics) slot->UseMetrics(metrics);
  if (slot && (slot->metrics() != metrics || (slot->enabled() && slot->replay() != replay))) {
    slot->ValidateExtraMetrics(metrics);  // an unknown name must not cost the working profiler
    slot.reset();
  }
  if (!slot) {
    slot = std::make_unique<Profiler>(metrics);
    RegisterShutdownAtExit();
  }
  if (!slot->enabled()) slot->Enable(replay);
  return *slot;
}

}  // namespace

struct CounterSession::State {
  SessionOptions options;
  std::vector<std::string> metrics;
  bool recording = false;
  StepTrace trace;
  // Replay::kUser: runs the launches again for each further pass.
  std::function<void()> rerun;
};

bool CounterSession::Active() {
  std::lock_guard<std::mutex> lock(ProfilerMutex());
  return SessionActiveFlag();
}

CounterSession::CounterSession(SessionOptions options) : state_(std::make_unique<State>()) {
  std::lock_guard<std::mutex> lock(ProfilerMutex());
  if (SessionActiveFlag()) {
    throw Error(ErrorKind::kNestedSession,
                "a CounterSession is already active in this process. Sessions cannot be nested or run "
                "concurrently (the GPU has one set of counters): finish the first one before starting "
                "another.");
  }
  if (!PoisonedBy().empty()) {
    throw Error(ErrorKind::kKernelFault,
                "an earlier kernel fault in this process (" + PoisonedBy() +
                    ") left its CUDA context unusable; CUDA needs a new process. Run "
                    "each test in its own process (ctest does).");
  }
  if (options.max_launches == 0) {
    throw Error(ErrorKind::kBadInput, "SessionOptions::max_launches must be at least 1");
  }
  state_->options = std::move(options);
  state_->metrics = CoreMetrics();
  for (const std::string& extra : state_->options.extra_metrics) {
    if (std::find(state_->metrics.begin(), state_->metrics.end(), extra) == state_->metrics.end())
      state_->metrics.push_back(extra);
  }
  Profiler& profiler = GetProfiler(state_->metrics, state_->options.replay);
  state_->trace.Step("profiler ready");
  std::vector<uint8_t>& counter_data = profiler.CounterData(state_->options.max_launches);
  state_->trace.Step("counter data image initialized");

  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, config);
  config.pRangeProfilerObject = profiler.range_profiler();
  config.configSize = profiler.config_image().size();
  config.pConfig = profiler.config_image().data();
  config.counterDataImageSize = counter_data.size();
  config.pCounterDataImage = counter_data.data();
  config.range = CUPTI_AutoRange;
  config.replayMode =
      state_->options.replay == SessionOptions::Replay::kUser ? CUPTI_UserReplay : CUPTI_KernelReplay;
  // Kernel replay makes each launch a pass of its own: one range per pass. A larger value costs
  // every launch time in proportion (on the H100, 42 launches in one session: 10.8 ms per launch
  // with 42 ranges per pass, 4.0 ms with 1). User replay runs all the launches in each pass.
  config.maxRangesPerPass =
      state_->options.replay == SessionOptions::Replay::kUser ? state_->options.max_launches : 1;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&config));
  state_->trace.Step("config set");

  {
    std::lock_guard<std::mutex> log_lock(Log().mutex);
    Log().launches.clear();
    Log().recording = true;
  }
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
  start.pRangeProfilerObject = profiler.range_profiler();
  if (const CUptiResult status = cuptiRangeProfilerStart(&start); status != CUPTI_SUCCESS) {
    std::lock_guard<std::mutex> log_lock(Log().mutex);
    Log().recording = false;
    throw internal::CuptiFailure(status, "cuptiRangeProfilerStart");
  }
  state_->recording = true;
  SessionActiveFlag() = true;
  state_->trace.Step("started");
}

CounterSession::~CounterSession() {
  if (!state_ || !state_->recording) return;
  std::lock_guard<std::mutex> lock(ProfilerMutex());
  if (ProfilerSlot()) {
    BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
    stop.pRangeProfilerObject = ProfilerSlot()->range_profiler();
    cuptiRangeProfilerStop(&stop);
  }
  std::lock_guard<std::mutex> log_lock(Log().mutex);
  Log().recording = false;
  SessionActiveFlag() = false;
}

namespace {

// One record from a range's metric values (ordered as `metrics`: CoreMetrics() first).
LaunchRecord MakeRecord(const LaunchInfo& launch, const std::vector<std::string>& metrics,
                        const std::vector<double>& values) {
  LaunchRecord record;
  record.mangled_kernel = launch.mangled;
  record.kernel = Demangle(launch.mangled.c_str());
  record.grid = launch.grid;
  record.block = launch.block;
  record.dynamic_shared_bytes = launch.dynamic_shared_bytes;
  auto value = [&](const char* name) {
    return values[static_cast<size_t>(std::find(metrics.begin(), metrics.end(), name) - metrics.begin())];
  };
  record.loads =
      DeriveSharedCounts(value(metric::kSharedLoadInstructions), value(metric::kSharedLoadWavefronts),
                         value(metric::kHardwareLoadWavefronts), value(metric::kHardwareLoadConflicts));
  record.stores =
      DeriveSharedCounts(value(metric::kSharedStoreInstructions), value(metric::kSharedStoreWavefronts),
                         value(metric::kHardwareStoreWavefronts), value(metric::kHardwareStoreConflicts));
  record.hardware_loads = {static_cast<uint64_t>(value(metric::kHardwareLoadWavefronts)),
                           static_cast<uint64_t>(value(metric::kHardwareLoadConflicts))};
  record.hardware_stores = {static_cast<uint64_t>(value(metric::kHardwareStoreWavefronts)),
                            static_cast<uint64_t>(value(metric::kHardwareStoreConflicts))};
  for (size_t i = CoreMetrics().size(); i < metrics.size(); ++i) record.extra_metrics[metrics[i]] = values[i];
  AddConsistencyNotes(record);
  return record;
}

// A launch failed while measured. A failure to launch (a bad configuration) is cleared by
// cudaGetLastError and the context stays usable. A fault inside a kernel is sticky: the CUDA
// runtime documents that the process must be restarted, so the session is torn down and later
// sessions in this process fail at once with the reason (ctest runs each test in its own
// process, so the next test is unaffected).
[[noreturn]] void FailWithKernelFault(cudaError_t status, const std::vector<LaunchInfo>& launches) {
  std::string which = "a kernel launched in the session";
  if (!launches.empty()) {
    const LaunchInfo& last = launches.back();
    which = "kernel '" + Demangle(last.mangled.c_str()) + "' (launch " + std::to_string(launches.size()) +
            " of the session, grid " + ToString(last.grid) + ", block " + ToString(last.block) + ")";
  }
  const std::string error = std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
  stop.pRangeProfilerObject = ProfilerSlot()->range_profiler();
  cuptiRangeProfilerStop(&stop);
  cudaGetLastError();
  if (cudaDeviceSynchronize() == cudaSuccess) {
    throw Error(ErrorKind::kKernelFault,
                which + " failed while it was measured: " + error +
                    ". The session was stopped; later sessions in this process work.");
  }
  ProfilerSlot().reset();
  PoisonedBy() = which + ": " + error;
  throw Error(
      ErrorKind::kKernelFault,
      which + " faulted while it was measured: " + error +
          ". The counter session was torn down. CUDA cannot recover a process from a fault inside a "
          "kernel, so later GPU work in this process fails; ctest runs each test in its own process, "
          "so the next test is unaffected. Run this test under compute-sanitizer to find the faulting "
          "access.");
}

}  // namespace

std::vector<LaunchRecord> CounterSession::Finish() {
  if (!state_->recording) throw Error(ErrorKind::kBadInput, "CounterSession::Finish() called twice");
  std::lock_guard<std::mutex> lock(ProfilerMutex());
  state_->recording = false;
  SessionActiveFlag() = false;
  std::vector<LaunchInfo> launches;
  {
    std::lock_guard<std::mutex> log_lock(Log().mutex);
    Log().recording = false;
    launches.swap(Log().launches);
  }
  Profiler& profiler = *ProfilerSlot();
  cudaError_t launch_status = cudaDeviceSynchronize();
  if (launch_status == cudaSuccess) launch_status = cudaGetLastError();
  if (launch_status != cudaSuccess) FailWithKernelFault(launch_status, launches);
  state_->trace.Step("launches, replayed and synchronized");

  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
  stop.pRangeProfilerObject = profiler.range_profiler();
  BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerStop(&stop));
  // User replay: the launches run again for each further pass, and must be the same launches.
  for (int pass = 2; !stop.isAllPassSubmitted; ++pass) {
    if (!state_->rerun || pass > 16) {
      throw Error(ErrorKind::kCupti, "CUPTI asked for replay pass " + std::to_string(pass) +
                                         " but the session has no launches to run again");
    }
    {
      std::lock_guard<std::mutex> log_lock(Log().mutex);
      Log().launches.clear();
      Log().recording = true;
    }
    BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
    start.pRangeProfilerObject = profiler.range_profiler();
    BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerStart(&start));
    state_->rerun();
    cudaError_t pass_status = cudaDeviceSynchronize();
    if (pass_status == cudaSuccess) pass_status = cudaGetLastError();
    size_t pass_launches = 0;
    {
      std::lock_guard<std::mutex> log_lock(Log().mutex);
      Log().recording = false;
      pass_launches = Log().launches.size();
    }
    if (pass_status != cudaSuccess) FailWithKernelFault(pass_status, launches);
    BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerStop(&stop));
    if (pass_launches != launches.size()) {
      throw Error(ErrorKind::kBadInput,
                  "with Replay::kUser the launches ran " + std::to_string(launches.size()) +
                      " kernels in the first pass and " + std::to_string(pass_launches) + " in pass " +
                      std::to_string(pass) + ": user replay needs the same launches every time");
    }
  }
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, decode);
  decode.pRangeProfilerObject = profiler.range_profiler();
  BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&decode));
  state_->trace.Step("stopped and decoded");

  const size_t max_launches = state_->options.max_launches;
  if (decode.numOfRangeDropped > 0 || launches.size() > max_launches) {
    throw Error(ErrorKind::kTooManyLaunches,
                "the session saw " + std::to_string(launches.size()) +
                    " kernel launches but its counter image "
                    "holds " +
                    std::to_string(max_launches) + " (" + std::to_string(decode.numOfRangeDropped) +
                    " dropped). Raise SessionOptions::max_launches or measure fewer launches per session.");
  }

  const std::vector<uint8_t>& counter_data = profiler.counter_data();
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info));
  if (info.numTotalRanges != launches.size()) {
    throw Error(ErrorKind::kCupti,
                "CUPTI recorded " + std::to_string(info.numTotalRanges) + " ranges for " +
                    std::to_string(launches.size()) +
                    " kernel launches; cannot tell which counts belong to which launch. "
                    "Launch kernels only through cudaLaunchKernel/<<<>>>/cuLaunchKernel(Ex).");
  }

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
    records.push_back(MakeRecord(launches[range], state_->metrics, values));
  }
  state_->trace.Step("evaluated");
  return records;
}

std::vector<LaunchRecord> Measure(const std::function<void()>& launches, const SessionOptions& options) {
  CounterSession session(options);
  if (options.replay == SessionOptions::Replay::kUser) session.state_->rerun = launches;
  launches();
  return session.Finish();
}

void PrepareCounterSession() {
  std::lock_guard<std::mutex> lock(ProfilerMutex());
  if (ProfilerSlot() || PreparedProfiler().valid() || !PoisonedBy().empty() || !ProbeGpu().usable()) return;
  PreparedProfiler() =
      std::async(std::launch::async, [] { return std::make_unique<Profiler>(CoreMetrics()); });
  RegisterShutdownAtExit();
}

void ShutdownProfiler() {
  std::lock_guard<std::mutex> lock(ProfilerMutex());
  if (PreparedProfiler().valid()) {
    try {
      PreparedProfiler().get();  // waits, then frees what was prepared
    } catch (const std::exception&) {
      // Nothing was set up; a session would have reported the error.
    }
  }
  ProfilerSlot().reset();
}

}  // namespace bankcheck
