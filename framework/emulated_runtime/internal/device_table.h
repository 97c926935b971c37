#pragma once
// The device the stand-in runtime answers for (docs/emulate.md, "The stand-in CUDA runtime"): the
// sm_90 GPU the baselines name, as the GPU probe (runtime/device_probe) measured it into
// runtime/data/sm_90_device.inc. Every device query answers from this one table; nothing in it is
// typed by hand.

#include <cuda_runtime_api.h>

namespace bankcheck::emulate::runtime {

// Who answered the probe.
struct MeasuredOn {
  const char* device;         // cudaDeviceProp::name
  int driver;                 // cudaDriverGetVersion
  int runtime;                // cudaRuntimeGetVersion of the probe
  const char* kernel_module;  // /proc/driver/nvidia/version's first line
};
const MeasuredOn& Measured();

// cudaGetDeviceProperties: the measured properties, but named "bankcheck emulated sm_90" (and no
// UUID), so that results say the device was emulated.
const cudaDeviceProp& DeviceProperties();

// cudaDeviceGetAttribute of device 0: cudaSuccess with the measured value, or the error the GPU
// answered for it (for a number that is no attribute, the GPU's answer to such a number).
cudaError_t DeviceAttribute(int attribute, int* value);
// The GPU's answer to a query of a device other than 0.
cudaError_t OtherDeviceError();

}  // namespace bankcheck::emulate::runtime
