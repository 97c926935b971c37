// The GPU probe behind the stand-in runtime's answers (docs/emulate.md, "The stand-in CUDA
// runtime"): run on the sm_90 GPU the baselines name, it writes what that GPU answers, which the
// stand-in then answers from (runtime/data/). Nothing there is typed by hand.
//   device_probe device   every cudaDeviceAttr (attributes.inc) and every number field of
//                         cudaDeviceProp (properties.inc), with the device, driver and runtime
//                         that answered: runtime/data/sm_90_device.inc
//   device_probe answers  the errors of copies and sets past an allocation's end, of events, of
//                         queries; cudaFuncGetAttributes and the occupancy calculator of the
//                         runtime test's kernels (cudaOccupancyMaxPotentialBlockSize,
//                         cudaOccupancyAvailableDynamicSMemPerBlock, with a carve-out set):
//                         runtime/data/sm_90_answers.inc
//   device_probe module <far|inside>  cuModuleLoadData of a crafted image (crafted_images.h),
//                         one per process: the driver may not survive it
// Built with the runtime test's kernels' object, so that their SASS is the same:
// `cmake --build build --target bankcheck_device_probe` (framework/emulated_runtime/CMakeLists.txt).

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "emulated_runtime/crafted_images.h"
#include "emulated_runtime/runtime_test_kernels.h"

namespace {

void Answer(const std::string& name, long long value) {
  std::printf("BANKCHECK_GPU_ANSWER(\"%s\", %lld)\n", name.c_str(), value);
}

// The device, the driver's CUDA version, the runtime's, and the kernel module's version line.
void MeasuredOn(const char* what) {
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  char kernel_module[256] = "unknown";
  if (FILE* version = std::fopen("/proc/driver/nvidia/version", "r")) {
    if (std::fgets(kernel_module, sizeof kernel_module, version) == nullptr) std::strcpy(kernel_module, "?");
    std::fclose(version);
    kernel_module[std::strcspn(kernel_module, "\n")] = '\0';
  }
  std::printf("// Measured by framework/emulated_runtime/device_probe/device_probe.cu (%s); do not edit.\n",
              what);
  std::printf("BANKCHECK_MEASURED_ON(\"%s\", %d, %d, \"%s\")\n", prop.name, driver, runtime, kernel_module);
}

int Device() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 1;
  MeasuredOn("device");
#define BANKCHECK_ATTRIBUTE(name)                                                                    \
  {                                                                                                  \
    int value = 0;                                                                                   \
    const cudaError_t error = cudaDeviceGetAttribute(&value, name, 0);                               \
    if (error == cudaSuccess)                                                                        \
      std::printf("BANKCHECK_DEVICE_ATTRIBUTE(%s, %d, %d)\n", #name, static_cast<int>(name), value); \
    else                                                                                             \
      std::printf("BANKCHECK_DEVICE_ATTRIBUTE_REFUSED(%s, %d, %d)\n", #name, static_cast<int>(name), \
                  static_cast<int>(error));                                                          \
    cudaGetLastError();                                                                              \
  }
#include "attributes.inc"
#undef BANKCHECK_ATTRIBUTE
#define BANKCHECK_PROPERTY(field) \
  std::printf("BANKCHECK_DEVICE_PROPERTY(%s, %llu)\n", #field, static_cast<unsigned long long>(prop.field));
#define BANKCHECK_PROPERTY_ARRAY(field, n)                                      \
  for (int i = 0; i < n; ++i)                                                   \
    std::printf("BANKCHECK_DEVICE_PROPERTY_ELEMENT(%s, %d, %llu)\n", #field, i, \
                static_cast<unsigned long long>(prop.field[i]));
#include "properties.inc"
#undef BANKCHECK_PROPERTY
#undef BANKCHECK_PROPERTY_ARRAY
  // The answer to an attribute that is none (past every cudaDeviceAttr), and to another device.
  int value = 0;
  std::printf("BANKCHECK_DEVICE_ATTRIBUTE_UNKNOWN(%d)\n",
              static_cast<int>(cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(100000), 0)));
  cudaGetLastError();
  std::printf("BANKCHECK_DEVICE_OTHER(%d)\n",
              static_cast<int>(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 1)));
  cudaGetLastError();
  return 0;
}

// Copies and sets into, and out of, a 4096-byte allocation that another follows.
void Bounds() {
  char *a = nullptr, *b = nullptr, *small = nullptr;
  cudaMalloc(&a, 4096);
  cudaMalloc(&b, 4096);
  cudaMalloc(&small, 1000);
  static char host[1 << 16];
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  const auto answer = [](const char* name, cudaError_t error) {
    Answer(name, error);
    Answer(std::string(name) + ".last_error", cudaGetLastError());
  };
  answer("memcpy.htod.4096", cudaMemcpy(a, host, 4096, cudaMemcpyHostToDevice));
  answer("memcpy.htod.4097", cudaMemcpy(a, host, 4097, cudaMemcpyHostToDevice));
  answer("memcpy.htod.8192", cudaMemcpy(a, host, 8192, cudaMemcpyHostToDevice));
  answer("memcpy.htod.offset_4095_2", cudaMemcpy(a + 4095, host, 2, cudaMemcpyHostToDevice));
  answer("memcpy.htod.1000_into_1000", cudaMemcpy(small, host, 1000, cudaMemcpyHostToDevice));
  answer("memcpy.htod.1001_into_1000", cudaMemcpy(small, host, 1001, cudaMemcpyHostToDevice));
  answer("memcpy.htod.1024_into_1000", cudaMemcpy(small, host, 1024, cudaMemcpyHostToDevice));
  answer("memcpy.dtoh.8192", cudaMemcpy(host, a, 8192, cudaMemcpyDeviceToHost));
  answer("memcpy.dtod.dst_8192", cudaMemcpy(a + 4096 - 8, small, 16, cudaMemcpyDeviceToDevice));
  answer("memcpy.dtod.src_8192", cudaMemcpy(small, a + 4096 - 8, 16, cudaMemcpyDeviceToDevice));
  answer("memcpy.default.htod_8192", cudaMemcpy(a, host, 8192, cudaMemcpyDefault));
  answer("memcpy.default.dtoh_8192", cudaMemcpy(host, a, 8192, cudaMemcpyDefault));
  answer("memcpy.htod.host_destination", cudaMemcpy(host, host + 8192, 16, cudaMemcpyHostToDevice));
  answer("memcpy.dtoh.host_source", cudaMemcpy(host, host + 8192, 16, cudaMemcpyDeviceToHost));
  answer("memcpy.htoh", cudaMemcpy(host, host + 8192, 16, cudaMemcpyHostToHost));
  answer("memcpy.kind_7", cudaMemcpy(a, host, 16, static_cast<cudaMemcpyKind>(7)));
  answer("memcpy.null_destination", cudaMemcpy(nullptr, host, 16, cudaMemcpyHostToDevice));
  answer("memcpy.freed", [&] {
    char* freed = nullptr;
    cudaMalloc(&freed, 4096);
    cudaFree(freed);
    return cudaMemcpy(freed, host, 16, cudaMemcpyHostToDevice);
  }());
  answer("memcpyasync.htod.8192", cudaMemcpyAsync(a, host, 8192, cudaMemcpyHostToDevice, stream));
  answer("memcpyasync.dtoh.8192", cudaMemcpyAsync(host, a, 8192, cudaMemcpyDeviceToHost, stream));
  answer("memset.4096", cudaMemset(a, 1, 4096));
  answer("memset.4097", cudaMemset(a, 1, 4097));
  answer("memset.8192", cudaMemset(a, 1, 8192));
  answer("memset.1024_into_1000", cudaMemset(small, 1, 1024));
  answer("memset.host", cudaMemset(host, 1, 16));
  answer("memsetasync.8192", cudaMemsetAsync(a, 1, 8192, stream));
  answer("memset2d.past_end", cudaMemset2D(a, 1024, 1, 1024, 5));
  answer("memcpy2d.past_end", cudaMemcpy2D(a, 1024, host, 1024, 1024, 5, cudaMemcpyHostToDevice));
  answer("stream_synchronize", cudaStreamSynchronize(stream));
  cudaStreamDestroy(stream);
}

void Events() {
  cudaEvent_t start = nullptr, end = nullptr, untimed = nullptr;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming);
  float ms = 0;
  Answer("event.query_never_recorded", cudaEventQuery(end));
  Answer("event.synchronize_never_recorded", cudaEventSynchronize(end));
  cudaEventRecord(start, nullptr);
  Answer("event.elapsed_end_never_recorded", cudaEventElapsedTime(&ms, start, end));
  cudaGetLastError();
  cudaEventRecord(untimed, nullptr);
  cudaEventSynchronize(untimed);
  Answer("event.elapsed_disable_timing", cudaEventElapsedTime(&ms, start, untimed));
  cudaGetLastError();
  Answer("event.elapsed_null", cudaEventElapsedTime(nullptr, start, start));
  cudaGetLastError();
  cudaEventRecord(end, nullptr);
  cudaEventSynchronize(end);
  Answer("event.elapsed", cudaEventElapsedTime(&ms, start, end));
  Answer("event.elapsed_reversed_negative", [&] {
    float back = 0;
    cudaEventElapsedTime(&back, end, start);
    return back < 0 ? 1 : 0;
  }());
  Answer("event.destroy", cudaEventDestroy(start));
}

void Kernel(const char* name, const void* function) {
  cudaFuncAttributes a{};
  const std::string k = std::string("kernel.") + name + ".";
  Answer(k + "get", cudaFuncGetAttributes(&a, function));
  Answer(k + "sharedSizeBytes", a.sharedSizeBytes);
  Answer(k + "constSizeBytes", a.constSizeBytes);
  Answer(k + "localSizeBytes", a.localSizeBytes);
  Answer(k + "maxThreadsPerBlock", a.maxThreadsPerBlock);
  Answer(k + "numRegs", a.numRegs);
  Answer(k + "ptxVersion", a.ptxVersion);
  Answer(k + "binaryVersion", a.binaryVersion);
  Answer(k + "cacheModeCA", a.cacheModeCA);
  Answer(k + "maxDynamicSharedSizeBytes", a.maxDynamicSharedSizeBytes);
  Answer(k + "preferredShmemCarveout", a.preferredShmemCarveout);
  Answer(k + "clusterDimMustBeSet", a.clusterDimMustBeSet);
  Answer(k + "requiredClusterWidth", a.requiredClusterWidth);
  Answer(k + "requiredClusterHeight", a.requiredClusterHeight);
  Answer(k + "requiredClusterDepth", a.requiredClusterDepth);
  Answer(k + "clusterSchedulingPolicyPreference", a.clusterSchedulingPolicyPreference);
  Answer(k + "nonPortableClusterSizeAllowed", a.nonPortableClusterSizeAllowed);
  for (const int block : {0, 1, 32, 33, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024, 1025})
    for (const size_t shared : {size_t{0}, size_t{1}, size_t{1024}, size_t{8000}, size_t{48 * 1024},
                                size_t{48 * 1024 + 1}, size_t{100 * 1024}}) {
      int blocks = -1;
      const cudaError_t error =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, block, shared);
      const std::string at =
          "occupancy." + std::string(name) + "." + std::to_string(block) + "." + std::to_string(shared);
      Answer(at, error == cudaSuccess ? blocks : -static_cast<int>(error));
      cudaGetLastError();
    }
}

void Kernels() {
  Kernel("ParamsKernel", emutest::ParamsKernelStub());
  Kernel("NoParamsKernel", emutest::NoParamsKernelStub());
  Kernel("ManyRegistersKernel", emutest::ManyRegistersKernelStub());
  int not_a_kernel = 0;
  cudaFuncAttributes a{};
  Answer("kernel.not_a_kernel", cudaFuncGetAttributes(&a, &not_a_kernel));
  cudaGetLastError();
  Answer("kernel.set_max_dynamic_100k",
         cudaFuncSetAttribute(emutest::ParamsKernelStub(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                              100 * 1024));
  Kernel("ParamsKernel_100k", emutest::ParamsKernelStub());
  for (const auto& [name, function] :
       {std::pair{"NoParamsKernel", emutest::NoParamsKernelStub()},
        std::pair{"ManyRegistersKernel", emutest::ManyRegistersKernelStub()}}) {
    int min_grid = 0, block = 0;
    Answer(std::string("potential_block.") + name + ".get",
           cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, function, 0, 0));
    Answer(std::string("potential_block.") + name + ".block", block);
    Answer(std::string("potential_block.") + name + ".min_grid", min_grid);
    for (const int blocks : {1, 2, 4, 32})
      for (const int threads : {32, 256, 1024}) {
        size_t bytes = 0;
        const cudaError_t error =
            cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, function, blocks, threads);
        Answer("available_smem." + std::string(name) + "." + std::to_string(blocks) + "." +
                   std::to_string(threads),
               error == cudaSuccess ? static_cast<long long>(bytes) : -static_cast<long long>(error));
        cudaGetLastError();
      }
  }
  // The occupancy with a carve-out preference (ParamsKernel's, reset to none afterwards).
  for (const int carveout : {0, 25, 50, 100}) {
    cudaFuncSetAttribute(emutest::ParamsKernelStub(), cudaFuncAttributePreferredSharedMemoryCarveout,
                         carveout);
    for (const int block : {32, 256, 1024})
      for (const size_t shared : {size_t{0}, size_t{8000}, size_t{48 * 1024}, size_t{100 * 1024}}) {
        int blocks = -1;
        const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, emutest::ParamsKernelStub(), block, shared);
        Answer("occupancy_carveout." + std::to_string(carveout) + "." + std::to_string(block) + "." +
                   std::to_string(shared),
               error == cudaSuccess ? blocks : -static_cast<int>(error));
        cudaGetLastError();
      }
  }
  cudaFuncSetAttribute(emutest::ParamsKernelStub(), cudaFuncAttributePreferredSharedMemoryCarveout, -1);
  int value = 0;
  Answer("attribute.device_1", cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 1));
  cudaGetLastError();
  Answer("attribute.number_0", cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(0), 0));
  cudaGetLastError();
  Answer("attribute.number_100000", cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(100000), 0));
  cudaGetLastError();
  Answer("attribute.null", cudaDeviceGetAttribute(nullptr, cudaDevAttrWarpSize, 0));
  cudaGetLastError();
}

int Module(const std::string& which) {
  cuInit(0);
  CUdevice device = 0;
  CUcontext context = nullptr;
  cuDeviceGet(&device, 0);
  cuDevicePrimaryCtxRetain(&context, device);
  cuCtxSetCurrent(context);
  const std::string image =
      which == "far" ? emutest::ElfHeaderOnly(0xf0000000u, 1) : emutest::ElfHeaderOnly(0x10, 3);
  CUmodule module = nullptr;
  std::fflush(stdout);
  Answer("module." + which, cuModuleLoadData(&module, emutest::BeforeAGuardPage(image)));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "device") return Device();
  if (what == "module" && argc > 2) return Module(argv[2]);
  if (what != "answers") {
    std::fprintf(stderr, "usage: device_probe device|answers|module far|inside\n");
    return 2;
  }
  MeasuredOn("answers");
  Bounds();
  Events();
  Kernels();
  return 0;
}
