#include "bankcheck/cuda/gpu_probe.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/records/launch_emulation.h"

namespace bankcheck {

namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string CudaErrorText(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ", " + cudaGetErrorString(status);
}

constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;

}  // namespace

std::string GpuProbe::arch() const { return "sm_" + std::to_string(compute_major * 10 + compute_minor); }

bool ProfilingRestrictedToAdmins(const std::string& nvidia_params_text) {
  static const std::regex kLine(R"((^|\n)RmProfilingAdminOnly:\s*(\d+))");
  std::smatch match;
  return std::regex_search(nvidia_params_text, match, kLine) && match[2] != "0";
}

bool HasProfilingCapability(const std::string& proc_status_text) {
  static const std::regex kLine(R"((^|\n)CapEff:\s*([0-9a-fA-F]+))");
  std::smatch match;
  if (!std::regex_search(proc_status_text, match, kLine)) return false;
  const uint64_t caps = std::stoull(match[2].str(), nullptr, 16);
  return ((caps >> kCapSysAdmin) & 1) != 0 || ((caps >> kCapPerfmon) & 1) != 0;
}

std::string CounterPermissionAdvice() {
  return "The NVIDIA driver restricts GPU performance counters to admin users "
         "(RmProfilingAdminOnly: 1 in /proc/driver/nvidia/params). Fix one of: run as root; grant "
         "CAP_PERFMON or CAP_SYS_ADMIN (containers: --cap-add=SYS_ADMIN); or load the driver with "
         "`options nvidia NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d/ and reboot. "
         "See ci/README.md.";
}

GpuProbe ProbeGpuUncached() {
  GpuProbe probe;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice) {
    probe.state = status == cudaErrorNoDevice ? GpuProbe::State::kNoDevice : GpuProbe::State::kNoDriver;
    probe.reason =
        status == cudaErrorNoDevice
            ? "no CUDA device is visible (cudaGetDeviceCount: " + CudaErrorText(status) + ")"
            : "no NVIDIA driver is loaded on this machine (cudaGetDeviceCount: " + CudaErrorText(status) +
                  ")";
    return probe;
  }
  if (status != cudaSuccess) {
    probe.state = GpuProbe::State::kCudaError;
    probe.reason = "the CUDA runtime cannot use the GPU (cudaGetDeviceCount: " + CudaErrorText(status) + ")";
    return probe;
  }
  if (count == 0) {
    probe.state = GpuProbe::State::kNoDevice;
    probe.reason = "the NVIDIA driver reports no CUDA device (check CUDA_VISIBLE_DEVICES)";
    return probe;
  }
  cudaDeviceProp props{};
  cudaError_t detail = cudaGetDevice(&probe.device);
  if (detail == cudaSuccess) detail = cudaGetDeviceProperties(&props, probe.device);
  if (detail == cudaSuccess) detail = cudaDriverGetVersion(&probe.driver_version);
  if (detail == cudaSuccess) detail = cudaRuntimeGetVersion(&probe.runtime_version);
  if (detail != cudaSuccess) {
    probe.state = GpuProbe::State::kCudaError;
    probe.reason = "cannot query the CUDA device: " + CudaErrorText(detail);
    return probe;
  }
  probe.device_name = props.name;
  char bus_id[32];
  std::snprintf(bus_id, sizeof(bus_id), "%04x:%02x:%02x.0", static_cast<unsigned>(props.pciDomainID),
                static_cast<unsigned>(props.pciBusID), static_cast<unsigned>(props.pciDeviceID));
  probe.pci_bus_id = bus_id;
  probe.compute_major = props.major;
  probe.compute_minor = props.minor;

  // An emulated program (its stand-in runtime answered the calls above) reads no counters.
  const bool emulated = internal::EmulatedProgram();
  if (!emulated && ProfilingRestrictedToAdmins(ReadFile("/proc/driver/nvidia/params")) && geteuid() != 0 &&
      !HasProfilingCapability(ReadFile("/proc/self/status"))) {
    probe.state = GpuProbe::State::kCountersNotPermitted;
    probe.reason = "GPU performance counters are not permitted for this user. " + CounterPermissionAdvice();
    return probe;
  }
  probe.state = GpuProbe::State::kUsable;
  return probe;
}

const GpuProbe& ProbeGpu() {
  static const GpuProbe probe = ProbeGpuUncached();
  return probe;
}

}  // namespace bankcheck
