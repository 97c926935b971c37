#pragma once
// Is there a GPU whose counters this process may read? Answered with the CUDA runtime and
// /proc alone: no CUPTI call happens here, because on a machine without a driver some CUPTI
// calls crash instead of returning an error. In a kernel suite's emulated program the stand-in
// runtime answers: one usable "emulated sm_90" device (docs/emulate.md).

#include <string>

namespace bankcheck {

struct GpuProbe {
  enum class State {
    kUsable,
    kNoDriver,              // cudaGetDeviceCount: cudaErrorInsufficientDriver / cudaErrorNoDevice-like
    kNoDevice,              // driver present, zero devices visible
    kCountersNotPermitted,  // RmProfilingAdminOnly=1 and neither root nor CAP_SYS_ADMIN/CAP_PERFMON
    kCudaError,             // anything else the runtime reported
  };
  State state = State::kNoDriver;
  std::string reason;       // one line for a person; empty when usable
  int device = 0;           // the current device when usable
  std::string device_name;  // e.g. "NVIDIA H100 80GB HBM3"
  std::string pci_bus_id;   // "0000:3b:00.0": names the physical GPU whatever CUDA_VISIBLE_DEVICES says
  int compute_major = 0;
  int compute_minor = 0;
  int driver_version = 0;   // as cudaDriverGetVersion reports it, e.g. 13000
  int runtime_version = 0;  // cudaRuntimeGetVersion

  bool usable() const { return state == State::kUsable; }
  std::string arch() const;  // "sm_90"
};

// Probes once per process and caches the answer (the GPU does not come and go mid-run).
const GpuProbe& ProbeGpu();

// The uncached probe, and its pieces, for tests.
GpuProbe ProbeGpuUncached();

// Whether the NVIDIA driver's module parameters restrict profiling to admins, from the text of
// /proc/driver/nvidia/params ("RmProfilingAdminOnly: 1").
bool ProfilingRestrictedToAdmins(const std::string& nvidia_params_text);

// Whether the effective capability mask (CapEff in /proc/self/status, hex) holds CAP_SYS_ADMIN
// or CAP_PERFMON.
bool HasProfilingCapability(const std::string& proc_status_text);

// The advice printed whenever counters are not permitted.
std::string CounterPermissionAdvice();

}  // namespace bankcheck
