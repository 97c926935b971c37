#pragma once
// The process-wide CUPTI profiler that both ways of counting stand on. Order (CUDA 13, see the
// research note): cuptiProfilerInitialize -> cuptiDeviceGetChipName -> host object + config image
// for the metric set -> cuptiRangeProfilerEnable(ctx), all on the first session's thread, after
// the context exists. Kept between sessions (it costs hundreds of milliseconds): process_state.h.

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/metrics.h"
#include "cuda/internal/cupti_config.h"
#include "cuda/internal/gpu_lock.h"

namespace bankcheck::internal {

// The current CUDA context (created if needed), through the runtime's driver entry point: linking
// libcuda directly would stop the binaries from starting on machines without a driver.
CUcontext CurrentContext();

// Everything that lives across sessions: CUPTI initialization, the chip's host object and config
// image for the current metric set, the range profiler enabled on the current context.
class Profiler {
 public:
  // The host side: CUPTI's profiler initialized, the chip's name and the config image. Needs a
  // usable GPU but no CUDA context.
  explicit Profiler(const std::vector<std::string>& metrics);
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Enables the range profiler on the calling thread's CUDA context (creating it if needed), for
  // sessions that replay with `replay`. Once per Profiler.
  void Enable(SessionOptions::Replay replay);
  bool enabled() const { return range_profiler_ != nullptr; }

  // The GPU to this process alone, for a range-profiler session (its hardware counters).
  void LockExclusively();

  CUpti_RangeProfiler_Object* range_profiler() const { return range_profiler_; }
  CUcontext context() const { return context_; }
  int device() const { return device_; }
  const std::string& chip() const { return chip_; }
  // The chip's metric names, loaded on first use: only extra metrics need checking, and loading
  // them costs tens of milliseconds.
  const MetricCatalog& catalog();
  // Checks the names in `metrics` that are not the kind table's (those are known names).
  void ValidateExtraMetrics(const std::vector<std::string>& metrics);

  // The metric set as the session asked for it; what is configured leaves out the kind metrics
  // this chip does not have (their kinds are then recorded as unsupported).
  const std::vector<std::string>& metrics() const { return metrics_; }
  SessionOptions::Replay replay() const { return replay_; }

  // The config image for `metrics` (extra metrics validated against the chip first). Before Enable
  // only: once enabled, the range profiler keeps the configuration it started with.
  void UseMetrics(const std::vector<std::string>& metrics);

  // A counter data image for `max_ranges` launches, initialized (it must be, before every session).
  std::vector<uint8_t>& CounterData(size_t max_ranges);

  const std::vector<uint8_t>& config_image() const { return config_->image(); }
  // The image of the running or last session, as CUPTI filled it.
  const std::vector<uint8_t>& counter_data() const { return counter_data_; }
  // The configured metrics (available on this chip), as CUPTI takes them.
  const std::vector<const char*>& metric_names() const { return config_->metric_names(); }
  CUpti_Profiler_Host_Object* host() const { return config_->host(); }

 private:
  // CUPTI's profiler initialized, the chip's name, the config image for `metrics`.
  void SetUp(const std::vector<std::string>& metrics);
  // Best effort: errors here have nowhere to go.
  void Release();

  int device_ = 0;
  std::unique_ptr<GpuCounterLock> gpu_lock_;
  CUcontext context_ = nullptr;
  bool initialized_ = false;
  std::string chip_;
  std::unique_ptr<MetricCatalog> catalog_;
  CUpti_RangeProfiler_Object* range_profiler_ = nullptr;
  std::unique_ptr<HostConfig> config_;
  std::vector<std::string> metrics_;
  SessionOptions::Replay replay_ = SessionOptions::Replay::kKernel;
  std::vector<uint8_t> counter_data_;
  size_t counter_data_ranges_ = 0;
};

}  // namespace bankcheck::internal
