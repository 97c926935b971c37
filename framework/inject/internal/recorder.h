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

#include "core/internal/run_cases.h"
#include "cuda/internal/launch_observer.h"

namespace bankcheck::internal {

class Recorder : public LaunchObserver {
 public:
  // Error(kBadInput) for a bad pattern in `settings`.
  Recorder(RunSettings settings, std::unique_ptr<Measurer> measurer);

  void OnLaunch(CUcontext context, const char* mangled, const std::string& nvtx_range) override;
  void OnContextDestroy(CUcontext context) override;
  // The process is exiting: finishes what is measuring, writes (a process that launched nothing
  // says so with an empty file) and shuts the measurer down.
  void AtExit();

 private:
  bool Matches(const char* mangled, const std::string& nvtx_range);
  void Start(CUcontext context);
  void Finish();
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
  uint64_t matched_ = 0;
  bool done_ = false;  // the limit was reached, measuring failed, or the process is exiting
  std::string error_;
};

}  // namespace bankcheck::internal
