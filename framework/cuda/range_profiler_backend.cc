// kRangeProfiler (counting_backend.h): a CUPTI range-profiler session. Auto range gives one range
// per launch, in launch order, so range i is the i-th launch the launch log recorded.

#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <algorithm>
#include <string>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/metrics.h"
#include "cuda/internal/counting_backend.h"
#include "cuda/internal/cupti_errors.h"
#include "cuda/internal/launch_checks.h"
#include "cuda/internal/launch_log.h"
#include "cuda/internal/launch_records.h"
#include "cuda/internal/profiler.h"

namespace bankcheck::internal {
namespace {

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
  TheLaunchLog().Start(nullptr, profiler.context());
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
  start.pRangeProfilerObject = profiler.range_profiler();
  if (const CUptiResult status = cuptiRangeProfilerStart(&start); status != CUPTI_SUCCESS) {
    TheLaunchLog().Stop();
    throw CuptiFailure(status, "cuptiRangeProfilerStart");
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

// Stops the range-profiler pass in progress (after a failed launch).
void StopRangeProfiler(const Profiler& profiler) {
  BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
  stop.pRangeProfilerObject = profiler.range_profiler();
  cuptiRangeProfilerStop(&stop);
}

// Replay::kUser: runs the launches again for each pass CUPTI still needs; `stop` holds the state
// of the last cuptiRangeProfilerStop.
void RunRemainingPasses(ProcessState& process, Profiler& profiler, CUpti_RangeProfiler_Stop_Params& stop,
                        const std::function<void()>& rerun, const std::vector<LaunchInfo>& launches)
    BANKCHECK_REQUIRES(process.mutex) {
  for (int pass = 2; !stop.isAllPassSubmitted; ++pass) {
    if (!rerun || pass > 16) {
      throw Error(ErrorKind::kCupti, "CUPTI asked for replay pass " + std::to_string(pass) +
                                         " but the session has no launches to run again");
    }
    StartPass(profiler);
    rerun();
    cudaError_t status = cudaDeviceSynchronize();
    if (status == cudaSuccess) status = cudaGetLastError();
    const size_t pass_launches = TheLaunchLog().Stop().size();
    if (status != cudaSuccess)
      FailWithKernelFault(process, status, launches, [&] { StopRangeProfiler(profiler); });
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

class RangeProfilerBackend final : public CountingBackend {
 public:
  RangeProfilerBackend(const SessionOptions& options, StepTrace& trace) : options_(options), trace_(trace) {}

  void Start(ProcessState& process) override BANKCHECK_REQUIRES(process.mutex) {
    Profiler& profiler = process.GetProfiler(SessionMetrics(options_), options_.replay);
    profiler.LockExclusively();
    trace_.Step("profiler ready");
    std::vector<uint8_t>& counter_data = profiler.CounterData(options_.max_launches);
    trace_.Step("counter data image initialized");
    SetRangeProfilerConfig(profiler, options_, counter_data);
    trace_.Step("config set");
    StartPass(profiler);
    trace_.Step("started");
  }

  std::vector<LaunchRecord> Finish(ProcessState& process, const std::function<void()>& rerun) override
      BANKCHECK_REQUIRES(process.mutex) {
    const std::vector<LaunchInfo> launches = TheLaunchLog().Stop();
    Profiler& profiler = *process.profiler();
    SynchronizeLaunches(process, launches, [&] { StopRangeProfiler(profiler); });
    trace_.Step("launches, replayed and synchronized");

    BANKCHECK_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
    stop.pRangeProfilerObject = profiler.range_profiler();
    BANKCHECK_CUPTI_CHECK(cuptiRangeProfilerStop(&stop));
    RefuseUnmeasurable(launches, /*sass=*/false);  // after the stop: the next session can start
    RunRemainingPasses(process, profiler, stop, rerun, launches);
    const std::vector<LaunchInfo> ranged = DecodeRanges(profiler, options_.max_launches, launches);
    trace_.Step("stopped and decoded");
    std::vector<LaunchRecord> records = EvaluateRanges(profiler, ranged);
    trace_.Step("evaluated");
    return records;
  }

  void Abandon(ProcessState& process) override BANKCHECK_REQUIRES(process.mutex) {
    if (const Profiler* profiler = process.profiler()) StopRangeProfiler(*profiler);
    TheLaunchLog().Stop();
  }

 private:
  SessionOptions options_;
  StepTrace& trace_;
};

}  // namespace

std::unique_ptr<CountingBackend> MakeRangeProfilerBackend(const SessionOptions& options, StepTrace& trace) {
  return std::make_unique<RangeProfilerBackend>(options, trace);
}

}  // namespace bankcheck::internal
