// libbankcheck_inject.so: what `bankcheck run` (docs/run.md) loads into the program it runs. The
// CUDA driver loads it from CUDA_INJECTION64_PATH while it initializes and calls
// InitializeInjection(), which makes the Recorder (recorder.h) and has the launch callbacks tell it
// of launches; NVTX loads it from NVTX_INJECTION64_PATH at the program's first NVTX call (often
// before CUDA initializes) and calls InitializeInjectionNvtx2(), from which ranges are followed.
// The CUDA layer is reached through its launch-observer interface alone
// (cuda/internal/launch_observer.h).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>

#include "bankcheck/cuda/gpu_probe.h"
#include "core/records/run_cases.h"
#include "cuda/internal/launch_observer.h"
#include "inject/internal/recorder.h"

#define BANKCHECK_EXPORT extern "C" __attribute__((visibility("default")))

namespace bankcheck::internal {
namespace {

// Made once, in InitializeInjection; never destroyed (callbacks may come during exit).
Recorder* recorder = nullptr;

void AtExit() { recorder->AtExit(); }

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
    recorder = new Recorder(*settings, CounterSessionMeasurer());
    ObserveLaunches(recorder);
    std::atexit(&AtExit);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bankcheck: error: cannot measure this process: %s\n", e.what());
    return 0;
  }
}

// Called by NVTX at the program's first NVTX call (NVTX_INJECTION64_PATH), maybe before CUDA
// initializes: the ranges are followed from this call on.
BANKCHECK_EXPORT int InitializeInjectionNvtx2(bankcheck::internal::NvtxExportTableGetter get_export_table) {
  return bankcheck::internal::FollowNvtxRangesFrom(get_export_table);
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
