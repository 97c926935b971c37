// The stand-in CUDA runtime of a kernel suite's emulated program (docs/emulate.md): the entry
// points that nvcc's host code, the suite's cases and bankcheck itself call, defined here in place
// of cudart's, on the CPU. Each one the program links is here deliberately:
//   registration (nvcc's start-up code)   fatbins and host stub -> mangled name (launch_capture.h)
//   launches                              recorded while a session counts, emulated at its end
//   memory                                host memory: cudaMalloc is zeroed anonymous pages, up to
//                                         the measured device's memory; copies and memsets are
//                                         memmove and memset, within allocations (CheckCopy)
//   streams, synchronization, profiler    no-ops in order (nothing runs asynchronously)
//   device queries                        one usable device, "bankcheck emulated sm_90", answering
//                                         from the measured table (device_table.cc)
//   kernels' attributes, occupancy        kernel_attributes.cc; events: events.cc
//   graphs, stream capture                graphs.cc; the driver's entry points: driver_api.cc
// Device memory is followed as known or unknown (emulate/internal/global_memory.h): what the host
// copies or sets there is known to the launches recorded after it. Everything else the program
// links (launch attributes other than clusters, __managed__ variables) answers cudaErrorNotSupported
// and notes "not emulated: <call>", which makes the running case skip with that reason: never a
// silent success.

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "emulate/internal/limits.h"
#include "emulated_runtime/internal/device_table.h"
#include "emulated_runtime/internal/launch_capture.h"

namespace bankcheck::emulate::runtime {
namespace {
thread_local cudaError_t t_last_error = cudaSuccess;
}  // namespace

cudaError_t Fail(cudaError_t error) {
  t_last_error = error;
  return error;
}

cudaError_t NotEmulated(const std::string& what) {
  TheCapture().NoteNotEmulated("not emulated: " + what);
  return Fail(cudaErrorNotSupported);
}

}  // namespace bankcheck::emulate::runtime

namespace {

using bankcheck::emulate::runtime::Fail;
using bankcheck::emulate::runtime::GraphNode;
using bankcheck::emulate::runtime::LaunchRequest;
using bankcheck::emulate::runtime::NotEmulated;
using bankcheck::emulate::runtime::t_last_error;
using bankcheck::emulate::runtime::TheCapture;
using namespace bankcheck::emulate::internal;  // sm_90's launch and shared-memory limits

bankcheck::Dim3 ToDim3(dim3 d) { return {d.x, d.y, d.z}; }

// The launch configurations of <<<...>>>, pushed by the caller and popped by the host stub.
struct CallConfiguration {
  dim3 grid, block;
  size_t shared = 0;
  void* stream = nullptr;
};
thread_local std::vector<CallConfiguration> t_configurations;

cudaError_t Launch(const void* function, dim3 grid, dim3 block, void** args, size_t shared, void* stream,
                   const char* via, dim3 cluster = dim3(1, 1, 1)) {
  LaunchRequest request;
  request.cluster = ToDim3(cluster);
  request.stream = stream;
  request.function = function;
  request.grid = ToDim3(grid);
  request.block = ToDim3(block);
  request.dynamic_shared_bytes = shared;
  request.args = args;
  const cudaError_t error = TheCapture().Launch(request, via);
  return error == cudaSuccess ? cudaSuccess : Fail(error);
}

// Allocations and their sizes, so that cudaFree can tell its pointers from others, and the total
// held, which may not pass the emulated device's memory.
std::mutex g_allocations_mutex;
std::map<void*, size_t>& Allocations() {
  static auto* allocations = new std::map<void*, size_t>;
  return *allocations;
}
size_t g_allocated = 0;

// Where a range of `bytes` at `pointer` lies: in no allocation of cudaMalloc's (host memory), within
// one, or starting in one and running past its end.
enum class Range { kHost, kDevice, kPastEnd };
Range RangeOf(const void* pointer, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_allocations_mutex);
  auto found = Allocations().upper_bound(const_cast<void*>(pointer));
  if (found == Allocations().begin()) return Range::kHost;
  --found;
  const size_t offset =
      static_cast<size_t>(static_cast<const char*>(pointer) - static_cast<char*>(found->first));
  if (offset >= found->second) return Range::kHost;
  return bytes <= found->second - offset ? Range::kDevice : Range::kPastEnd;
}
bool IsDevice(const void* pointer) { return RangeOf(pointer, 1) != Range::kHost; }
// The measured device's memory (device_table.h), which cudaMalloc holds no more than.
size_t DeviceMemory() { return bankcheck::emulate::runtime::DeviceProperties().totalGlobalMem; }

}  // namespace

namespace bankcheck::emulate::runtime {

cudaError_t CheckSet(const void* pointer, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  return pointer != nullptr && RangeOf(pointer, bytes) == Range::kDevice ? cudaSuccess
                                                                         : cudaErrorInvalidValue;
}

cudaError_t CheckCopy(const void* destination, const void* source, size_t bytes, cudaMemcpyKind kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (bytes == 0) return cudaSuccess;
  if (destination == nullptr || source == nullptr) return cudaErrorInvalidValue;
  // Each end: device memory when `kind` says so, and whatever it is, a range that starts in an
  // allocation ends in it. Host memory has no end the runtime knows (nor has it on the GPU).
  const auto valid = [&](const void* pointer, bool device) {
    const Range range = RangeOf(pointer, bytes);
    return range == Range::kDevice || (range == Range::kHost && !device);
  };
  const bool to_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool from_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  return valid(destination, to_device) && valid(source, from_device) ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace bankcheck::emulate::runtime

// nvcc's host code: registration and the <<<...>>> launch sequence (crt/host_runtime.h).
extern "C" {

void** __cudaRegisterFatBinary(void* wrapper) {
  // __fatBinC_Wrapper_t (fatbinary_section.h): magic, version, the fatbin, ...
  struct Wrapper {
    int magic;
    int version;
    const unsigned long long* data;
    void* filename_or_fatbins;
  };
  return TheCapture().RegisterFatbin(static_cast<const Wrapper*>(wrapper)->data);
}

void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}

void __cudaUnregisterFatBinary(void** /*handle*/) {}

void __cudaRegisterFunction(void** handle, const char* host_function, char* /*device_function*/,
                            const char* device_name, int /*thread_limit*/, uint3* /*tid*/, uint3* /*bid*/,
                            dim3* /*block*/, dim3* /*grid*/, int* /*warp_size*/) {
  TheCapture().RegisterFunction(handle, host_function, device_name);
}

// A __device__ variable: its host shadow is all the program has; copies to and from symbols are
// not emulated (none is linked).
void __cudaRegisterVar(void** /*handle*/, char* /*host_var*/, char* /*device_address*/,
                       const char* /*device_name*/, int /*ext*/, size_t /*size*/, int /*constant*/,
                       int /*global*/) {}

// The managed-memory runtime's module set-up, which every translation unit's stub file references
// (nvcc's __nv_init_managed_rt_with_module; an unoptimized build keeps it): a `__managed__`
// variable's first use calls it. Managed memory is not emulated.
char __cudaInitModule(void** /*handle*/) {
  NotEmulated("__cudaInitModule (__managed__ variables)");
  return 0;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
  t_configurations.push_back({grid, block, shared, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  if (t_configurations.empty()) return Fail(cudaErrorMissingConfiguration);
  const CallConfiguration configuration = t_configurations.back();
  t_configurations.pop_back();
  *grid = configuration.grid;
  *block = configuration.block;
  *shared = configuration.shared;
  *static_cast<void**>(stream) = configuration.stream;
  return cudaSuccess;
}

// The handle of a kernel is its host stub: launches look kernels up by it either way.
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* function) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(function));
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                               cudaStream_t stream) {
  return Launch(reinterpret_cast<const void*>(kernel), grid, block, args, shared, stream,
                "a <<<...>>> launch");
}

}  // extern "C"

// The runtime API, as cuda_runtime_api.h declares it.

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                             cudaStream_t stream) {
  return Launch(func, grid, block, args, shared, stream, "cudaLaunchKernel");
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (config == nullptr) return Fail(cudaErrorInvalidValue);
  // A cluster dimension is emulated; other attributes change how a launch runs (cooperative
  // launch, priorities, ...) and are not.
  dim3 cluster(1, 1, 1);
  for (unsigned i = 0; i < config->numAttrs && config->attrs != nullptr; ++i) {
    const cudaLaunchAttribute& attribute = config->attrs[i];
    if (attribute.id != cudaLaunchAttributeClusterDimension)
      return NotEmulated("cudaLaunchKernelExC with launch attribute " + std::to_string(attribute.id) +
                         " (only cudaLaunchAttributeClusterDimension is emulated)");
    cluster = dim3(attribute.val.clusterDim.x, attribute.val.clusterDim.y, attribute.val.clusterDim.z);
  }
  return Launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
                "cudaLaunchKernelExC", cluster);
}

cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
  if (TheCapture().Find(func) == nullptr) return Fail(cudaErrorInvalidDeviceFunction);
  // The dynamic shared memory size and the non-portable cluster size permit launches
  // (Capture::Launch refuses more); the carve-out is answered back by cudaFuncGetAttributes
  // (kernel_attributes.cc); a required cluster shape would change how launches run, which is not
  // followed; other attributes change only how fast a kernel runs.
  if (attr == cudaFuncAttributeRequiredClusterWidth)
    return NotEmulated("cudaFuncSetAttribute(cudaFuncAttributeRequiredClusterWidth)");
  if (attr == cudaFuncAttributeRequiredClusterHeight)
    return NotEmulated("cudaFuncSetAttribute(cudaFuncAttributeRequiredClusterHeight)");
  if (attr == cudaFuncAttributeRequiredClusterDepth)
    return NotEmulated("cudaFuncSetAttribute(cudaFuncAttributeRequiredClusterDepth)");
  if (attr == cudaFuncAttributeNonPortableClusterSizeAllowed) {
    const cudaError_t error = TheCapture().SetNonPortableClusterSize(func, value != 0);
    return error == cudaSuccess ? cudaSuccess : Fail(error);
  }
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
    const cudaError_t error = TheCapture().SetCarveout(func, value);
    return error == cudaSuccess ? cudaSuccess : Fail(error);
  }
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;
  const cudaError_t error = TheCapture().SetMaxDynamicShared(func, value);
  return error == cudaSuccess ? cudaSuccess : Fail(error);
}

cudaError_t cudaMalloc(void** pointer, size_t size) {
  if (pointer == nullptr) return Fail(cudaErrorInvalidValue);
  // More than the device has fails as on the GPU, before any arithmetic on the size could wrap.
  if (size > DeviceMemory()) return Fail(cudaErrorMemoryAllocation);
  // Page-aligned (cudaMalloc's are 256-byte aligned) and zeroed, so that an emulated run is the same
  // every time; anonymous pages are zero until written, so memory the program never touches costs
  // the host nothing.
  const size_t length = size == 0 ? 1 : size;
  {
    std::lock_guard<std::mutex> lock(g_allocations_mutex);
    if (length > DeviceMemory() - g_allocated) return Fail(cudaErrorMemoryAllocation);
    g_allocated += length;
  }
  void* memory =
      ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  std::lock_guard<std::mutex> lock(g_allocations_mutex);
  if (memory == MAP_FAILED) {
    g_allocated -= length;
    return Fail(cudaErrorMemoryAllocation);
  }
  Allocations()[memory] = length;
  TheCapture().Memory().Allocate(reinterpret_cast<uintptr_t>(memory), length);
  *pointer = memory;
  return cudaSuccess;
}

cudaError_t cudaFree(void* pointer) {
  if (pointer == nullptr) return cudaSuccess;
  size_t length = 0;
  {
    std::lock_guard<std::mutex> lock(g_allocations_mutex);
    const auto found = Allocations().find(pointer);
    if (found == Allocations().end()) return Fail(cudaErrorInvalidValue);
    length = found->second;
    Allocations().erase(found);
    g_allocated -= length;
  }
  TheCapture().Memory().Free(reinterpret_cast<uintptr_t>(pointer));  // before the pages go
  // As the GPU's cudaFree waits for the device: a launch whose outputs are being written ends first
  // (one made from now on sees the allocation gone).
  TheCapture().WaitForLaunches();
  ::munmap(pointer, length);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  const cudaError_t refused = bankcheck::emulate::runtime::CheckCopy(dst, src, count, kind);
  if (refused != cudaSuccess) return Fail(refused);
  if (count != 0) {
    // Device memory is host memory: what the model of it follows (known where the host wrote it)
    // is told by the addresses, whatever `kind` says.
    if (IsDevice(dst) && IsDevice(src)) {
      TheCapture().CopyDevice(dst, src, count);
    } else if (IsDevice(dst)) {
      TheCapture().WriteDevice(dst, count, true, [&] { std::memmove(dst, src, count); });
    } else {
      std::memmove(dst, src, count);
    }
  }
  // What the host reads back from the device, kernels' output among it (cudaMemcpyDefault may be
  // any direction: counted as a read-back, so that no output check is ever taken for a host check).
  if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDefault)
    TheCapture().NoteCopyToHost(src, count, IsDevice(src));
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  // Refused when called, as the GPU refuses it (a stream being captured takes no such node).
  const cudaError_t refused = bankcheck::emulate::runtime::CheckCopy(dst, src, count, kind);
  if (refused != cudaSuccess) return Fail(refused);
  GraphNode node;
  node.type = GraphNode::Type::kCopy;
  node.copy.destination = dst;
  node.copy.source = src;
  node.copy.bytes = count;
  node.copy.kind = kind;
  if (stream != nullptr && TheCapture().AddCaptured(stream, std::move(node))) return cudaSuccess;
  return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemset(void* pointer, int value, size_t count) {
  const cudaError_t refused = bankcheck::emulate::runtime::CheckSet(pointer, count);
  if (refused != cudaSuccess) return Fail(refused);
  if (count != 0) TheCapture().WriteDevice(pointer, count, true, [&] { std::memset(pointer, value, count); });
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* pointer, int value, size_t count, cudaStream_t stream) {
  const cudaError_t refused = bankcheck::emulate::runtime::CheckSet(pointer, count);
  if (refused != cudaSuccess) return Fail(refused);
  GraphNode node;
  node.type = GraphNode::Type::kMemset;
  node.memset.dst = pointer;
  node.memset.value = static_cast<unsigned>(value) & 0xffu;
  node.memset.elementSize = 1;
  node.memset.width = count;
  node.memset.height = 1;
  node.memset.pitch = count;
  if (stream != nullptr && TheCapture().AddCaptured(stream, std::move(node))) return cudaSuccess;
  return cudaMemset(pointer, value, count);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int /*flags*/) {
  if (stream == nullptr) return Fail(cudaErrorInvalidValue);
  // A distinct handle per stream; nothing is behind it.
  *stream = reinterpret_cast<cudaStream_t>(new char);
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete reinterpret_cast<char*>(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t /*stream*/) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }

cudaError_t cudaGetLastError() {
  const cudaError_t error = t_last_error;
  t_last_error = cudaSuccess;
  return error;
}

cudaError_t cudaPeekAtLastError() { return t_last_error; }

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return Fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return Fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : Fail(cudaErrorInvalidDevice); }

// No driver is there: 0, which results show as "unknown".
cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return Fail(cudaErrorInvalidValue);
  *version = 0;
  return cudaSuccess;
}

// The toolkit the program was built with.
cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return Fail(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorMissingConfiguration:
      return "cudaErrorMissingConfiguration";
    case cudaErrorInvalidDeviceFunction:
      return "cudaErrorInvalidDeviceFunction";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorNotSupported:
      return "cudaErrorNotSupported";
    default:
      return "cudaErrorUnknown";
  }
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorNotSupported:
      return "not emulated: the emulated program (no GPU) does not support this call";
    case cudaErrorInvalidDeviceFunction:
      return "invalid device function (no module registered it)";
    default:
      return "error in the emulated CUDA runtime";
  }
}
