// libbankcheck_inject.so: what `bankcheck run` (docs/run.md) loads into the program it runs. The
// CUDA driver loads it from CUDA_INJECTION64_PATH while it initializes and calls
// InitializeInjection(); NVTX loads it from NVTX_INJECTION64_PATH and calls
// InitializeInjectionNvtx2(), which hands NVTX to CUPTI so that CUPTI's callbacks see the ranges.
//
// The counter session starts at the process's first kernel launch (no CUDA call may be made while
// the driver initializes, and a context exists by then), from the launch callback, and is finished
// (its records written to <BANKCHECK_RUN_DIR>/process-<pid>.json) when its context is about to be
// destroyed, when --max-launches matching launches were measured, or at exit, whichever comes
// first; a launch after a context's destruction starts another. Every write replaces the file
// atomically with all that was measured so far, so a later failure keeps what came before.

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "bankcheck/counter_session.h"
#include "bankcheck/error.h"
#include "bankcheck/gpu_probe.h"
#include "bankcheck/results.h"
#include "bankcheck/run_metadata.h"
#include "core/internal/file_io.h"
#include "core/internal/run_cases.h"
#include "cuda/internal/launch_callbacks.h"
#include "cuda/internal/launch_checks.h"
#include "cuda/internal/launch_records.h"
#include "cuda/internal/process_state.h"

#define BANKCHECK_EXPORT extern "C" __attribute__((visibility("default")))

namespace bankcheck::internal {
namespace {

class Recorder {
 public:
  explicit Recorder(RunSettings settings)
      : settings_(std::move(settings)), filter_(settings_.kernel_pattern, settings_.range_pattern) {}

  void OnLaunch(CUcontext context, const char* mangled, const std::string& nvtx_range) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_) return;
    if (settings_.max_launches != 0 && matched_ >= settings_.max_launches) {
      // The limit's last launch has been counted: the rest of the program runs unpatched.
      FinishSession();
      done_ = true;
      return;
    }
    if (Matches(mangled, nvtx_range)) ++matched_;
    if (!session_) StartSession(context);
  }

  void OnContextDestroy(CUcontext context) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (session_ && context == session_context_) FinishSession();
  }

  void AtExit() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (session_)
      FinishSession();
    else if (!written_)
      Write();  // a process that launched nothing says so
    done_ = true;
  }

 private:
  bool Matches(const char* mangled, const std::string& nvtx_range) {
    if (mangled == nullptr) return filter_.Matches("graph", nvtx_range);
    auto found = kernel_names_.find(mangled);
    if (found == kernel_names_.end()) found = kernel_names_.emplace(mangled, Demangle(mangled)).first;
    return filter_.Matches(found->second, nvtx_range);
  }

  void StartSession(CUcontext context) {
    try {
      SessionOptions options;
      options.attribute_instructions = settings_.attribute;
      session_ = std::make_unique<CounterSession>(options);
      session_context_ = context;
      // Now, while the probe's answer is alive: at exit its static may already be destroyed.
      if (metadata_.arch.empty()) {
        const GpuProbe& probe = ProbeGpu();
        metadata_ = DescribeRun(probe.device_name, probe.usable() ? probe.arch() : "", probe.driver_version,
                                probe.runtime_version);
      }
    } catch (const std::exception& e) {
      Fail(e.what());
    }
  }

  void FinishSession() {
    if (!session_) return;
    try {
      for (LaunchRecord& record : session_->Finish()) records_.push_back(std::move(record));
    } catch (const KernelFaultAfterCounted& fault) {
      // The launches before the fault were measured: they are written with the error.
      for (const LaunchRecord& record : fault.counted()) records_.push_back(record);
      Fail(fault.what());
    } catch (const std::exception& e) {
      Fail(e.what());
    }
    session_.reset();
    session_context_ = nullptr;
    Write();
  }

  // Measures no more, and says why: in the process's log for `bankcheck run`, and on stderr.
  void Fail(const std::string& why) {
    done_ = true;
    error_ = why;
    std::fprintf(stderr, "bankcheck run: %s\n", why.c_str());
    Write();
  }

  void Write() {
    const std::filesystem::path folder = settings_.output_dir;
    const std::string stem = "process-" + std::to_string(::getpid());
    try {
      RunResults results;
      results.metadata = metadata_;
      std::vector<LaunchRecord> reported;
      for (const LaunchRecord& record : records_)
        if (filter_.Matches(record.graph_kernels.empty() ? record.kernel : "graph", record.nvtx_range))
          reported.push_back(record);
      results.cases = RunCases(reported);
      WriteResults(folder / (stem + ".json"), results);
      written_ = true;
      if (!error_.empty()) WriteFileAtomically(folder / (stem + ".error"), error_ + "\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bankcheck run: could not write the results of process %d: %s\n", ::getpid(),
                   e.what());
    }
  }

  std::mutex mutex_;
  const RunSettings settings_;
  const LaunchFilter filter_;
  std::unordered_map<std::string, std::string> kernel_names_;  // demangled, by mangled name
  std::unique_ptr<CounterSession> session_;
  CUcontext session_context_ = nullptr;
  std::vector<LaunchRecord> records_;  // of the sessions finished so far
  RunMetadata metadata_;               // taken when the first session starts
  bool written_ = false;
  uint64_t matched_ = 0;
  bool done_ = false;  // the limit was reached, measuring failed, or the process is exiting
  std::string error_;
};

// Made once, in InitializeInjection; never destroyed (callbacks may come during exit).
Recorder* recorder = nullptr;

void OnLaunch(CUcontext context, const char* mangled, const std::string& nvtx_range) {
  recorder->OnLaunch(context, mangled, nvtx_range);
}
void OnContextDestroy(CUcontext context) { recorder->OnContextDestroy(context); }
void AtExit() {
  recorder->AtExit();
  ShutdownProfiler();
}

}  // namespace
}  // namespace bankcheck::internal

// Called by the CUDA driver while it initializes (CUDA_INJECTION64_PATH); returns 1 on success.
// Nothing here may call CUDA.
BANKCHECK_EXPORT int InitializeInjection() {
  using namespace bankcheck::internal;
  if (recorder != nullptr) return 1;
  try {
    const std::optional<RunSettings> settings = RunSettings::FromEnvironment();
    if (!settings) {
      std::fprintf(stderr,
                   "bankcheck: libbankcheck_inject.so was loaded without `bankcheck run` "
                   "(BANKCHECK_RUN_DIR is not set); nothing is measured. Run the program as "
                   "`bankcheck run -- <program>`.\n");
      return 0;
    }
    recorder = new Recorder(*settings);
    SetInjectionHooks({&OnLaunch, &OnContextDestroy});
    TheProcessState().SubscribeForInjection();
    std::atexit(&AtExit);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bankcheck run: cannot measure this process: %s\n", e.what());
    return 0;
  }
}

// Called by NVTX when it initializes (NVTX_INJECTION64_PATH): NVTX's calls go to CUPTI, whose
// callbacks follow the ranges (cuda/internal/nvtx_ranges.h).
BANKCHECK_EXPORT int InitializeInjectionNvtx2(const void* get_export_table) {
  void* cupti = ::dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) return 0;
  using Initialize = int (*)(const void*);
  const auto initialize = reinterpret_cast<Initialize>(::dlsym(cupti, "InitializeInjectionNvtx2"));
  return initialize != nullptr ? initialize(get_export_table) : 0;
}

// For `bankcheck run` before it starts the program: 1 when this machine has a GPU whose counters
// this user may read; otherwise 0, with the reason (one line, NUL-terminated) in `reason`.
BANKCHECK_EXPORT int bankcheck_injection_probe(char* reason, size_t size) {
  const bankcheck::GpuProbe& probe = bankcheck::ProbeGpu();
  if (reason != nullptr && size > 0) {
    std::strncpy(reason, probe.reason.c_str(), size - 1);
    reason[size - 1] = '\0';
  }
  return probe.usable() ? 1 : 0;
}
