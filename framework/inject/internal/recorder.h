#pragma once
// What `bankcheck run`'s injection library does in a measured process (docs/run.md): a launch
// observer (cuda/internal/launch_observer.h) that starts a measurement at the process's first
// kernel launch (no CUDA call may be made while the driver initializes, and a context exists by
// then), and finishes it, writing its records to <BANKCHECK_RUN_DIR>/process-<pid>.json, when its
// context is about to be destroyed, when --max-launches matching launches were measured, or at
// exit, whichever comes first; a launch after a context's destruction starts another. Every write
// replaces the file atomically with all that was measured so far, so a later failure keeps what
// came before; a failure to measure is written beside it (process-<pid>.error) and ends measuring.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/records/run_cases.h"
#include "cuda/internal/launch_observer.h"

namespace bankcheck::internal {

class Recorder : public LaunchObserver {
 public:
  // Error(kBadInput) for a bad pattern in `settings`.
  Recorder(RunSettings settings, std::unique_ptr<Measurer> measurer);

  // With RunSettings::measure_once, a launch whose configuration (ObservedLaunch::configuration)
  // was seen before in this process is a repeat: it runs unmeasured (a measurement running is
  // finished first, unwritten) and adds to the repeats of the record of its configuration's first
  // launch (a RepeatsNote in its notes), whose case stands for it; it does not count towards
  // --max-launches. The next launch of a new configuration starts another measurement.
  // A launch that runs unmeasured (ObservedLaunch::unmeasurable) and matches ends measuring with its
  // reason (Fail), making no CUDA call.
  void OnLaunch(const ObservedLaunch& launch) override;
  bool WantsConfigurations() const override { return settings_.measure_once; }
  void OnContextDestroy(CUcontext context) override;
  // The process is exiting: finishes what is measuring, writes (a process that launched nothing
  // says so with an empty file) and shuts the measurer down.
  void AtExit();

 private:
  bool Matches(const char* mangled, const std::string& nvtx_range);
  void Start(CUcontext context);
  // Ends the measurement running and keeps its records; writes them unless `write` is false.
  void Finish(bool write = true);
  void Fail(const std::string& why);
  void Write();

  std::mutex mutex_;
  const RunSettings settings_;
  const LaunchFilter filter_;
  const std::unique_ptr<Measurer> measurer_;
  std::unordered_map<std::string, std::string> kernel_names_;  // demangled, by mangled name
  std::unique_ptr<Measurement> measurement_;
  CUcontext measured_context_ = nullptr;
  std::vector<LaunchRecord> records_;  // of the measurements finished so far
  RunMetadata metadata_;               // taken when the first measurement starts
  bool written_ = false;
  // --measure-once: each configuration's first launch (its process_launch), and the repeats of each
  // first launch. At most kMaxConfigurations are remembered; later new ones are measured every time.
  static constexpr size_t kMaxConfigurations = 100000;
  std::unordered_map<std::string, uint64_t> first_launch_of_;
  std::unordered_map<uint64_t, uint64_t> repeats_of_;
  bool unwritten_ = false;  // records or repeats not in the process's file yet
  uint64_t matched_ = 0;
  bool done_ = false;  // the limit was reached, measuring failed, or the process is exiting
  std::string error_;
};

}  // namespace bankcheck::internal
