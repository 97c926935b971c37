// kSassMetrics (counting_backend.h): SASS patching enabled for the session; the launch log's exit
// callback synchronizes after each launch and reads what its instructions counted (sass_metrics.h).

#include <algorithm>
#include <memory>
#include <string>

#include "bankcheck/core/error.h"
#include "core/records/demangle.h"
#include "cuda/internal/counting_backend.h"
#include "cuda/internal/launch_checks.h"
#include "cuda/internal/launch_log.h"
#include "cuda/internal/launch_records.h"
#include "cuda/internal/profiler.h"
#include "cuda/internal/sass_metrics.h"

namespace bankcheck::internal {
namespace {

class SassBackend final : public CountingBackend {
 public:
  SassBackend(StepTrace& trace, bool tables) : trace_(trace), tables_(tables) {}

  // Patching needs the range profiler enabled, not a range-profiler session (ProcessState).
  void Start(ProcessState& process) override BANKCHECK_REQUIRES(process.mutex) {
    Profiler& profiler = process.EnabledProfiler();
    trace_.Step("profiler ready");
    sass_ = std::make_unique<SassCounting>(profiler.context(), profiler.device(), profiler.chip());
    TheLaunchLog().Start(sass_.get());
    trace_.Step("SASS patching enabled");
  }

  std::vector<LaunchRecord> Finish(ProcessState& process, const std::function<void()>& /*rerun*/) override
      BANKCHECK_REQUIRES(process.mutex) {
    const std::string sass_error = TheLaunchLog().sass_error();
    const std::vector<LaunchInfo> launches = TheLaunchLog().Stop();
    // A kernel that faulted is the first launch left uncounted: name it, not the last launch.
    const auto uncounted =
        std::find_if(launches.begin(), launches.end(), [](const LaunchInfo& l) { return !l.counted; });
    const PerKind<bool> unsupported = sass_->unsupported();
    const PerKind<bool> not_counted = sass_->not_counted();
    try {
      SynchronizeLaunches(process,
                          {launches.begin(), uncounted == launches.end() ? uncounted : uncounted + 1},
                          [this] { sass_.reset(); });
    } catch (const Error& fault) {
      if (fault.kind() != ErrorKind::kKernelFault) throw;
      // What the launches before the failed one counted was read as each returned.
      std::vector<LaunchRecord> counted;
      for (auto launch = launches.begin(); launch != uncounted; ++launch)
        for (LaunchRecord& record : SassRecords(*launch, unsupported, not_counted, tables_))
          counted.push_back(std::move(record));
      throw KernelFaultAfterCounted(fault, std::move(counted));
    }
    sass_.reset();  // patching off: the launches after the session run at full speed
    trace_.Step("launches counted and synchronized");
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
      for (LaunchRecord& record : SassRecords(launch, unsupported, not_counted, tables_))
        records.push_back(std::move(record));
    }
    trace_.Step("records");
    return records;
  }

  void Abandon(ProcessState& /*process*/) override {
    TheLaunchLog().Stop();
    sass_.reset();
  }

 private:
  StepTrace& trace_;
  const bool tables_;
  // The patching that counts the launches, from Start to the end of Finish.
  std::unique_ptr<SassCounting> sass_;
};

}  // namespace

std::unique_ptr<CountingBackend> MakeSassBackend(StepTrace& trace, bool tables) {
  return std::make_unique<SassBackend>(trace, tables);
}

}  // namespace bankcheck::internal
