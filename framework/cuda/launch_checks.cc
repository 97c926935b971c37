#include "cuda/internal/launch_checks.h"

#include <algorithm>
#include <string>

#include "bankcheck/core/error.h"
#include "core/records/demangle.h"
#include "cuda/internal/launch_records.h"
#include "cuda/internal/sass_metrics.h"

namespace bankcheck::internal {
namespace {

// Whether `launch` ran a kernel (or a graph's kernel node) that may launch kernels from the device.
bool LaunchesFromDevice(const LaunchInfo& launch) {
  if (MayLaunchFromDevice(launch.mangled)) return true;
  return std::any_of(launch.graph_kernels.begin(), launch.graph_kernels.end(),
                     [](const KernelShape& node) { return MayLaunchFromDevice(node.mangled); });
}

}  // namespace

void RefuseUnmeasurable(const std::vector<LaunchInfo>& launches, bool sass) {
  for (size_t i = 0; i < launches.size(); ++i) {
    if (sass && LaunchesFromDevice(launches[i])) {
      throw Error(ErrorKind::kUnmeasurable,
                  "launch " + std::to_string(i + 1) + " of the session ('" +
                      Demangle(launches[i].mangled.c_str()) +
                      "') is a kernel of a module that launches kernels from the device (dynamic "
                      "parallelism), and CUPTI's SASS Metrics API counts no device-launched kernel, so "
                      "its counts would miss them. Measure it with SessionOptions::counters = "
                      "kRangeProfiler (c.session.counters in a kernel case): its record then includes "
                      "the kernels it launched, as ncu's does (docs/counters.md).");
    }
    if (!launches[i].context_unmeasurable.empty()) {
      throw Error(ErrorKind::kUnmeasurable,
                  "launch " + std::to_string(i + 1) + " of the session ('" +
                      Demangle(launches[i].mangled.c_str()) +
                      "') cannot be counted exactly: " + launches[i].context_unmeasurable);
    }
    if (!launches[i].graph_unmeasurable) continue;
    throw Error(ErrorKind::kUnmeasurable,
                "launch " + std::to_string(i + 1) +
                    " of the session is a CUDA graph instantiated before bankcheck was set up in this "
                    "process, or while a stream capture was in progress (when bankcheck makes no CUDA "
                    "call); CUDA runs such a graph without the profiler's instrumentation beyond its "
                    "first kernel node, so its counts would be incomplete. Set bankcheck up before the "
                    "graph is instantiated: link bankcheck::gtest_main (it does so before any test), or "
                    "call BANKCHECK_SKIP_WITHOUT_GPU() or bankcheck::PrepareCounterSession() first; "
                    "instantiate it when no capture is in progress (docs/counters.md, \"CUDA graphs\").");
  }
}

void FailWithKernelFault(ProcessState& process, cudaError_t status, const std::vector<LaunchInfo>& launches,
                         const std::function<void()>& stop_counting) {
  std::string which = "a kernel launched in the session";
  if (!launches.empty()) {
    const LaunchInfo& last = launches.back();
    which = "kernel '" + Demangle(last.mangled.c_str()) + "' (launch " + std::to_string(launches.size()) +
            " of the session, grid " + ToString(last.grid) + ", block " + ToString(last.block) + ")";
  }
  const std::string error = std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
  stop_counting();
  cudaGetLastError();
  if (cudaDeviceSynchronize() == cudaSuccess) {
    throw Error(ErrorKind::kKernelFault,
                which + " failed while it was measured: " + error +
                    ". The session was stopped; later sessions in this process work.");
  }
  process.LoseContext(which + ": " + error);
  throw Error(
      ErrorKind::kKernelFault,
      which + " faulted while it was measured: " + error +
          ". The counter session was torn down. CUDA cannot recover a process from a fault inside a "
          "kernel, so later GPU work in this process fails; ctest runs each test in its own process, "
          "so the next test is unaffected. Run this test under compute-sanitizer to find the faulting "
          "access.");
}

void SynchronizeLaunches(ProcessState& process, const std::vector<LaunchInfo>& launches,
                         const std::function<void()>& stop_counting) {
  cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) status = cudaGetLastError();
  if (status != cudaSuccess) FailWithKernelFault(process, status, launches, stop_counting);
}

}  // namespace bankcheck::internal
