#include "cuda/internal/profiler.h"

#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "cuda/internal/cupti_errors.h"
#include "cuda/internal/step_trace.h"

namespace bankcheck::internal {
namespace {

using CuCtxGetCurrentFn = CUresult (*)(CUcontext*);

// cuptiRangeProfilerEnable, retried for a few seconds on the errors it returns while the
// process that held the lock before this one is still tearing its profiler down: on the H100
// a test process that took the lock straight after another's exit once got
// CUPTI_ERROR_INVALID_CONTEXT for its first cases (ci/test.sh -L gpu).
CUpti_RangeProfiler_Object* EnableRangeProfiler(CUcontext context) {
  constexpr auto kGiveUpAfter = std::chrono::seconds(5);
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::milliseconds(20);
  for (int attempt = 1;; ++attempt) {
    BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, enable);
    enable.ctx = context;
    const CUptiResult status = cuptiRangeProfilerEnable(&enable);
    if (status == CUPTI_SUCCESS) {
      if (attempt > 1) std::fprintf(stderr, "bankcheck: the range profiler started on attempt %d\n", attempt);
      return enable.pRangeProfilerObject;
    }
    const bool transient = status == CUPTI_ERROR_INVALID_CONTEXT || status == CUPTI_ERROR_HARDWARE_BUSY;
    if (!transient || std::chrono::steady_clock::now() - start > kGiveUpAfter)
      throw CuptiFailure(status, "cuptiRangeProfilerEnable(&enable)");
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

}  // namespace

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

Profiler::Profiler(const std::vector<std::string>& metrics) {
  try {
    SetUp(metrics);
  } catch (...) {
    Release();  // a half set-up CUPTI would refuse the next session
    throw;
  }
}

Profiler::~Profiler() { Release(); }

void Profiler::Enable(SessionOptions::Replay replay) {
  StepTrace trace;
  context_ = CurrentContext();
  trace.Step("CUDA context");
  if (!gpu_lock_)
    gpu_lock_ = std::make_unique<GpuCounterLock>(ProbeGpu().pci_bus_id, GpuLockTimeout(),
                                                 GpuCounterLock::Mode::kShared);
  trace.Step("GPU counter lock (shared)");
  range_profiler_ = EnableRangeProfiler(context_);
  replay_ = replay;
  trace.Step("cuptiRangeProfilerEnable");
}

void Profiler::LockExclusively() {
  StepTrace trace;
  const std::chrono::milliseconds timeout = GpuLockTimeout();
  if (!gpu_lock_) {
    gpu_lock_ = std::make_unique<GpuCounterLock>(ProbeGpu().pci_bus_id, timeout);
  } else if (gpu_lock_->mode() != GpuCounterLock::Mode::kExclusive) {
    try {
      gpu_lock_->MakeExclusive(timeout);
    } catch (...) {
      gpu_lock_.reset();  // it let go of its shared lock: the next session takes the lock anew
      throw;
    }
  }
  trace.Step("GPU counter lock (exclusive)");
}

const MetricCatalog& Profiler::catalog() {
  if (!catalog_) catalog_ = std::make_unique<MetricCatalog>(chip_);
  return *catalog_;
}

void Profiler::ValidateExtraMetrics(const std::vector<std::string>& metrics) {
  std::vector<std::string> extra;
  for (const std::string& name : metrics)
    if (!IsKindMetric(name)) extra.push_back(name);
  if (!extra.empty()) catalog().Validate(extra);
}

void Profiler::UseMetrics(const std::vector<std::string>& metrics) {
  ValidateExtraMetrics(metrics);
  std::vector<std::string> available;
  for (const std::string& name : metrics)
    if (!IsKindMetric(name) || catalog().IsValid(name)) available.push_back(name);
  config_ = std::make_unique<HostConfig>(chip_, available);
  metrics_ = metrics;
}

std::vector<uint8_t>& Profiler::CounterData(size_t max_ranges) {
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

void Profiler::SetUp(const std::vector<std::string>& metrics) {
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

void Profiler::Release() {
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

}  // namespace bankcheck::internal
