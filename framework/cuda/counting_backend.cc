#include "cuda/internal/counting_backend.h"

#include <string>

#include "bankcheck/core/error.h"
#include "core/records/launch_emulation.h"

namespace bankcheck::internal {
namespace {

// kEmulated: the program's LaunchEmulation (core/records/launch_emulation.h) counts the session;
// nothing of CUPTI, the driver or `process` beyond its lock is touched.
class EmulatedBackend final : public CountingBackend {
 public:
  EmulatedBackend(const SessionOptions& options, LaunchEmulation& emulation)
      : options_(options), emulation_(emulation) {}

  void Start(ProcessState& /*process*/) override {
    // Hardware readings have no SASS to be derived from.
    if (!options_.extra_metrics.empty())
      throw Error(ErrorKind::kNotEmulated, "not emulated: extra metrics (" + options_.extra_metrics.front() +
                                               ", ...) are hardware counter readings");
    if (!options_.hardware_ideal.empty())
      throw Error(ErrorKind::kNotEmulated,
                  std::string("not emulated: a hardware-read ideal (SessionOptions::hardware_ideal, ") +
                      InfoOf(options_.hardware_ideal.front()).label + ")");
    emulation_.Start();
  }
  std::vector<LaunchRecord> Finish(ProcessState& /*process*/,
                                   const std::function<void()>& /*rerun*/) override {
    return emulation_.Finish();
  }
  void Abandon(ProcessState& /*process*/) override { emulation_.Abandon(); }

 private:
  const SessionOptions options_;
  LaunchEmulation& emulation_;
};

}  // namespace

CountingBackend::~CountingBackend() = default;

std::unique_ptr<CountingBackend> MakeCountingBackend(const SessionOptions& options, StepTrace& trace) {
  const SessionOptions::Counters counters = CountersFor(options);
  if (counters == SessionOptions::Counters::kEmulated)
    return std::make_unique<EmulatedBackend>(options, *InstalledLaunchEmulation());
  if (counters == SessionOptions::Counters::kSassMetrics)
    return MakeSassBackend(trace, options.attribute_instructions);
  return MakeRangeProfilerBackend(options, trace);
}

}  // namespace bankcheck::internal
