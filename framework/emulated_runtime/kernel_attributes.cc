// A kernel's attributes and occupancy in the stand-in runtime (docs/emulate.md, "The stand-in CUDA
// runtime"): cudaFuncGetAttributes answers from the kernel's cubin metadata as the emulator reads
// it (kernel_metadata.cc: EIATTR_REGCOUNT, EIATTR_FRAME_SIZE, EIATTR_MAX_THREADS, the shared and
// constant sections) and the attributes the program set; the occupancy calculator is the
// toolkit's own (cuda_occupancy.h), fed those attributes and the measured device (device_table.h).

#include <cuda_occupancy.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "bankcheck/core/error.h"
#include "core/records/demangle.h"
#include "emulated_runtime/internal/device_table.h"
#include "emulated_runtime/internal/launch_capture.h"

namespace bankcheck::emulate::runtime {

cudaError_t Capture::Describe(const void* host_function, RegisteredKernel* kernel, KernelInfo* info) {
  std::string why;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = kernels_.find(host_function);
    if (found == kernels_.end()) return cudaErrorInvalidResourceHandle;  // the GPU's answer
    *kernel = found->second;
    if (!evaluator_) evaluator_ = MakeSassFatbinEmulator();
    try {
      const KernelInfo* described = evaluator_->Describe(kernel->fatbin, kernel->mangled);
      if (described != nullptr) {
        *info = *described;
        return cudaSuccess;
      }
      why = "its module has no sm_90 code of it";
    } catch (const Error& e) {
      why = e.what();
    }
  }
  NoteNotEmulated("not emulated: the attributes of " + bankcheck::internal::Demangle(kernel->mangled) + " (" +
                  why + ")");
  return cudaErrorNotSupported;
}

cudaError_t Capture::SetCarveout(const void* host_function, int percent) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = kernels_.find(host_function);
  if (found == kernels_.end()) return cudaErrorInvalidDeviceFunction;
  if (percent < -1 || percent > 100) return cudaErrorInvalidValue;
  found->second.preferred_carveout = percent;
  return cudaSuccess;
}

namespace {

// The toolkit's calculator over the measured device, with no carve-out preference.
cudaOccError Occupancy(const cudaFuncAttributes& attributes, int block_size, size_t dynamic_shared,
                       int* blocks) {
  const cudaOccDeviceProp properties(DeviceProperties());
  const cudaOccFuncAttributes occupancy(attributes);
  const cudaOccDeviceState state;
  cudaOccResult result{};
  const cudaOccError error = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &properties, &occupancy, &state,
                                                                     block_size, dynamic_shared);
  *blocks = result.activeBlocksPerMultiprocessor;
  return error;
}

// cudaFuncGetAttributes of a registered kernel; cudaErrorNotSupported (noted) for one whose
// metadata lacks what it answers.
cudaError_t Attributes(const void* function, cudaFuncAttributes* attributes) {
  RegisteredKernel kernel;
  KernelInfo info;
  const cudaError_t described = TheCapture().Describe(function, &kernel, &info);
  if (described != cudaSuccess) return described;
  if (info.registers < 0)
    return NotEmulated("the attributes of " + bankcheck::internal::Demangle(kernel.mangled) +
                       " (its cubin has no EIATTR_REGCOUNT)");
  if (info.virtual_arch == 0)
    return NotEmulated("the attributes of " + bankcheck::internal::Demangle(kernel.mangled) +
                       " (its cubin names no virtual architecture, its ptxVersion)");
  // On sm_90 a kernel's shared section holds the driver's reserved part too (ParamsKernel's 1280
  // bytes for 256 of __shared__), and when it always does was not decided: not answered.
  if (info.static_shared_bytes != 0)
    return NotEmulated("the attributes of " + bankcheck::internal::Demangle(kernel.mangled) +
                       " (its static shared memory: how much of its shared section the driver reserves was "
                       "not decided)");
  if (info.module_constants != 0)
    return NotEmulated("the attributes of " + bankcheck::internal::Demangle(kernel.mangled) +
                       " (its module has __constant__ variables, whose size was not measured)");
  const cudaDeviceProp& device = DeviceProperties();
  cudaFuncAttributes& a = *attributes;
  a = cudaFuncAttributes{};
  a.sharedSizeBytes = info.static_shared_bytes;
  a.constSizeBytes = 0;
  a.localSizeBytes = info.frame_bytes;
  a.numRegs = info.registers;
  a.ptxVersion = static_cast<int>(info.virtual_arch);
  a.binaryVersion = device.major * 10 + device.minor;  // the emulator reads only sm_90 code
  a.cacheModeCA = 0;
  a.maxDynamicSharedSizeBytes =
      kernel.max_dynamic_shared >= 0
          ? static_cast<int>(kernel.max_dynamic_shared)
          : static_cast<int>(device.sharedMemPerBlock) -
                static_cast<int>(std::min<size_t>(a.sharedSizeBytes, device.sharedMemPerBlock));
  a.preferredShmemCarveout = kernel.preferred_carveout;
  const bool compiled = info.explicit_cluster &&
                        info.compiled_cluster.x * info.compiled_cluster.y * info.compiled_cluster.z > 1;
  a.clusterDimMustBeSet = info.explicit_cluster && !compiled;
  a.requiredClusterWidth = compiled ? static_cast<int>(info.compiled_cluster.x) : 0;
  a.requiredClusterHeight = compiled ? static_cast<int>(info.compiled_cluster.y) : 0;
  a.requiredClusterDepth = compiled ? static_cast<int>(info.compiled_cluster.z) : 0;
  a.nonPortableClusterSizeAllowed = kernel.non_portable_cluster ? 1 : 0;
  // The most threads a block may have: the device's, the kernel's bound, and what its registers
  // allow one block on a multiprocessor (the calculator's rule).
  int most = device.maxThreadsPerBlock;
  if (info.max_threads != 0) most = std::min(most, static_cast<int>(info.max_threads));
  a.maxThreadsPerBlock = most;
  for (int threads = most; threads > 0; threads -= device.warpSize) {
    int blocks = 0;
    if (Occupancy(a, threads, 0, &blocks) == CUDA_OCC_SUCCESS && blocks > 0) break;
    a.maxThreadsPerBlock = threads - device.warpSize;
  }
  return cudaSuccess;
}

}  // namespace
}  // namespace bankcheck::emulate::runtime

using bankcheck::emulate::runtime::Fail;

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* function) {
  if (attributes == nullptr) return Fail(cudaErrorInvalidValue);
  const cudaError_t error = bankcheck::emulate::runtime::Attributes(function, attributes);
  return error == cudaSuccess ? cudaSuccess : Fail(error);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* function,
                                                                   int block_size, size_t dynamic_shared,
                                                                   unsigned int flags) {
  if (blocks == nullptr || (flags & ~cudaOccupancyDisableCachingOverride) != 0)
    return Fail(cudaErrorInvalidValue);
  cudaFuncAttributes attributes{};
  const cudaError_t error = bankcheck::emulate::runtime::Attributes(function, &attributes);
  if (error != cudaSuccess) return Fail(error);
  // The GPU's occupancy with a carve-out preference was not measured (device_probe): refused.
  if (attributes.preferredShmemCarveout != -1)
    return bankcheck::emulate::runtime::NotEmulated(
        "the occupancy of a kernel with a preferred shared memory carve-out (the GPU's answers with one "
        "were not measured)");
  if (bankcheck::emulate::runtime::Occupancy(attributes, block_size, dynamic_shared, blocks) !=
      CUDA_OCC_SUCCESS)
    return Fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* function, int block_size,
                                                          size_t dynamic_shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, function, block_size, dynamic_shared,
                                                                cudaOccupancyDefault);
}

// The calculator's other questions are refused, each naming itself, rather than answered unchecked:
// the clusters' answers were not measured (device_probe), and the available dynamic shared memory's
// answers (data/sm_90_answers.inc, available_smem.*) are too few to fix a rule.
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* /*size*/, const void* /*function*/,
                                                      int /*blocks*/, int /*block_size*/) {
  return bankcheck::emulate::runtime::NotEmulated(
      "cudaOccupancyAvailableDynamicSMemPerBlock (the stand-in has no rule for it: the GPU's 30 answers "
      "measured by the probe give one value below the 48 KiB default, too few to derive one)");
}

cudaError_t cudaOccupancyMaxPotentialClusterSize(int* /*size*/, const void* /*function*/,
                                                 const cudaLaunchConfig_t* /*config*/) {
  return bankcheck::emulate::runtime::NotEmulated(
      "cudaOccupancyMaxPotentialClusterSize (its answers were not measured on the GPU)");
}

cudaError_t cudaOccupancyMaxActiveClusters(int* /*clusters*/, const void* /*function*/,
                                           const cudaLaunchConfig_t* /*config*/) {
  return bankcheck::emulate::runtime::NotEmulated(
      "cudaOccupancyMaxActiveClusters (its answers were not measured on the GPU)");
}
