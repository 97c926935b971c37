#include "cuda/internal/launch_observer.h"

#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "core/records/demangle.h"
#include "cuda/internal/launch_callbacks.h"
#include "cuda/internal/launch_checks.h"
#include "cuda/internal/launch_records.h"
#include "cuda/internal/nvtx_ranges.h"
#include "cuda/internal/process_state.h"

namespace bankcheck::internal {
namespace {

class CounterSessionMeasurement : public Measurement {
 public:
  explicit CounterSessionMeasurement(const SessionOptions& options) : session_(options) {}

  Measured Finish() override {
    Measured measured;
    try {
      measured.records = session_.Finish();
    } catch (const KernelFaultAfterCounted& fault) {
      measured.records = fault.counted();
      measured.error = fault.what();
    } catch (const std::exception& e) {
      measured.error = e.what();
    }
    return measured;
  }

 private:
  CounterSession session_;
};

class CounterSessionMeasurerImpl : public Measurer {
 public:
  std::unique_ptr<Measurement> Start(bool attribute_instructions) override {
    SessionOptions options;
    options.attribute_instructions = attribute_instructions;
    return std::make_unique<CounterSessionMeasurement>(options);
  }

  RunMetadata Describe() override {
    const GpuProbe& probe = ProbeGpu();
    return DescribeRun(probe.device_name, probe.usable() ? probe.arch() : "", probe.driver_version,
                       probe.runtime_version);
  }

  void Shutdown() override { ShutdownProfiler(); }
};

}  // namespace

std::string KernelNameOf(const char* mangled) { return Demangle(mangled); }

std::unique_ptr<Measurer> CounterSessionMeasurer() { return std::make_unique<CounterSessionMeasurerImpl>(); }

void ObserveLaunches(LaunchObserver* observer) {
  SetLaunchObserver(observer);
  TheProcessState().SubscribeForInjection();
}

int FollowNvtxRangesFrom(NvtxExportTableGetter get_export_table) {
  return FollowNvtxRanges(get_export_table);
}

}  // namespace bankcheck::internal
