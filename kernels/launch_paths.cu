// The launch paths a real program takes besides <<<>>> from one thread: kernels launched from
// several host threads at once, a module compiled at run time with NVRTC and loaded with
// cuModuleLoadData (as Triton and CuPy do), and a kernel launched in a CUDA context the program
// created itself (cuCtxCreate, as some libraries do). Each kernel is the same 2-way pattern: 256
// threads store smem[tid * 2] and read a neighbour's slot, 8 LDS and 8 STS of 16 wavefronts each
// (PathStride2's lines say so; the run-time compiled kernel's launches, whose source is a string).
// Driver functions are reached through the runtime's entry points, so the suite still starts on
// machines without a driver. docs/counters.md says how each path is counted.

#include <cuda.h>
#include <cudaTypedefs.h>
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = 256;

__global__ void PathStride2(const float* in, float* out) {
  __shared__ float buf[kThreads * 2];
  const unsigned tid = threadIdx.x;
  buf[tid * 2] = in[tid];  // bankcheck: 2-way
  __syncthreads();
  out[tid] = buf[((tid + 1) % kThreads) * 2];  // bankcheck: 2-way
}

// The same kernel as source for NVRTC.
constexpr const char* kRuntimeSource = R"(
extern "C" __global__ void runtime_stride2(const float* in, float* out) {
  __shared__ float buf[512];
  const unsigned tid = threadIdx.x;
  buf[tid * 2] = in[tid];
  __syncthreads();
  out[tid] = buf[((tid + 1) % 256) * 2];
}
)";

// The run-time compiled kernel's lines are in a string, compiled from no file a line annotation
// could be in: its launches state the 2-way pattern as a whole.
void Expect2Way(KernelCase& c) {
  c.expect[MemoryKind::kSharedLoad].ways = 2;
  c.expect[MemoryKind::kSharedStore].ways = 2;
}

// What PathStride2 (and the run-time compiled kernel) writes for `in`.
std::vector<float> Expected(const std::vector<float>& in) {
  std::vector<float> out(kThreads);
  for (unsigned i = 0; i < kThreads; ++i) out[i] = in[(i + 1) % kThreads];
  return out;
}

void RegisterFourHostThreads() {
  KernelCase c;
  c.name = "launch_paths/four_host_threads";
  c.description =
      "four host threads, each launching the 2-way kernel five times on its own stream, in one measurement";
  c.run = [](CaseContext& ctx) {
    constexpr int kHostThreads = 4, kLaunchesPerThread = 5;
    const std::vector<float> in = RandomIntegerFloats(kThreads, 0x7A1u);
    const DeviceBuffer<float> d_in(in);
    std::deque<DeviceBuffer<float>> outs;  // DeviceBuffer cannot move
    for (int t = 0; t < kHostThreads; ++t) {
      outs.emplace_back(kThreads);
      outs.back().Fill(0xFF);
    }
    ctx.Measure([&] {
      std::vector<std::thread> threads;
      for (int t = 0; t < kHostThreads; ++t) {
        threads.emplace_back([&, t] {
          cudaStream_t stream = nullptr;
          BANKCHECK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
          // One kernel in every thread: the order in which the threads' launches run differs from
          // run to run, and the records (one per launch, each its own launch's counts) must not.
          for (int i = 0; i < kLaunchesPerThread; ++i)
            PathStride2<<<1, kThreads, 0, stream>>>(d_in.get(), outs[t].get());
          BANKCHECK_CUDA_CHECK(cudaStreamSynchronize(stream));
          BANKCHECK_CUDA_CHECK(cudaStreamDestroy(stream));
        });
      }
      for (std::thread& thread : threads) thread.join();
    });
    EXPECT_EQ(ctx.records().size(), size_t{kHostThreads * kLaunchesPerThread}) << "one record per launch";
    for (int t = 0; t < kHostThreads; ++t)
      ExpectVectorsEqual(outs[t].ToHost(), Expected(in), "thread output");
  };
  RegisterKernelCase(std::move(c));
}

template <typename Fn>
Fn Driver(const char* name, int version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult query{};
  BANKCHECK_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &query));
  if (fn == nullptr || query != cudaDriverEntryPointSuccess)
    throw Error(ErrorKind::kCuda, std::string("the CUDA driver has no ") + name);
  return reinterpret_cast<Fn>(fn);
}

#define BANKCHECK_CU_CHECK(call)                                                                \
  do {                                                                                          \
    const CUresult bankcheck_cu_status = (call);                                                \
    if (bankcheck_cu_status != CUDA_SUCCESS)                                                    \
      throw Error(ErrorKind::kCuda, std::string(#call) + " failed: CUresult " +                 \
                                        std::to_string(static_cast<int>(bankcheck_cu_status))); \
  } while (0)

// The driver functions these cases call.
struct DriverApi {
  PFN_cuCtxGetCurrent_v4000 ctx_get_current = Driver<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 4000);
  PFN_cuCtxGetDevice_v2000 ctx_get_device = Driver<PFN_cuCtxGetDevice_v2000>("cuCtxGetDevice", 2000);
  PFN_cuCtxCreate_v3020 ctx_create = Driver<PFN_cuCtxCreate_v3020>("cuCtxCreate", 3020);
  PFN_cuCtxDestroy_v4000 ctx_destroy = Driver<PFN_cuCtxDestroy_v4000>("cuCtxDestroy", 4000);
  PFN_cuCtxPushCurrent_v4000 ctx_push = Driver<PFN_cuCtxPushCurrent_v4000>("cuCtxPushCurrent", 4000);
  PFN_cuCtxPopCurrent_v4000 ctx_pop = Driver<PFN_cuCtxPopCurrent_v4000>("cuCtxPopCurrent", 4000);
  PFN_cuCtxSynchronize_v2000 ctx_synchronize = Driver<PFN_cuCtxSynchronize_v2000>("cuCtxSynchronize", 2000);
  PFN_cuModuleLoadData_v2000 module_load = Driver<PFN_cuModuleLoadData_v2000>("cuModuleLoadData", 2000);
  PFN_cuModuleUnload_v2000 module_unload = Driver<PFN_cuModuleUnload_v2000>("cuModuleUnload", 2000);
  PFN_cuModuleGetFunction_v2000 get_function =
      Driver<PFN_cuModuleGetFunction_v2000>("cuModuleGetFunction", 2000);
  PFN_cuLaunchKernel_v4000 launch = Driver<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 4000);
  PFN_cuMemAlloc_v3020 mem_alloc = Driver<PFN_cuMemAlloc_v3020>("cuMemAlloc", 3020);
  PFN_cuMemFree_v3020 mem_free = Driver<PFN_cuMemFree_v3020>("cuMemFree", 3020);
  PFN_cuMemcpyHtoD_v3020 copy_to_device = Driver<PFN_cuMemcpyHtoD_v3020>("cuMemcpyHtoD", 3020);
  PFN_cuMemcpyDtoH_v3020 copy_to_host = Driver<PFN_cuMemcpyDtoH_v3020>("cuMemcpyDtoH", 3020);
};

// kRuntimeSource compiled by NVRTC for the current device, as a cubin.
std::string CompileAtRunTime() {
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, kRuntimeSource, "runtime_stride2.cu", 0, nullptr, nullptr) !=
      NVRTC_SUCCESS)
    throw Error(ErrorKind::kCuda, "nvrtcCreateProgram failed");
  const std::string arch = "-arch=" + ProbeGpu().arch();
  const char* options[] = {arch.c_str(), "-lineinfo"};
  const nvrtcResult compiled = nvrtcCompileProgram(program, 2, options);
  size_t size = 0;
  std::string cubin;
  if (compiled == NVRTC_SUCCESS && nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS) {
    cubin.resize(size);
    if (nvrtcGetCUBIN(program, cubin.data()) != NVRTC_SUCCESS) cubin.clear();
  }
  nvrtcDestroyProgram(&program);
  if (cubin.empty())
    throw Error(ErrorKind::kCuda,
                std::string("NVRTC could not compile the kernel: ") + nvrtcGetErrorString(compiled));
  return cubin;
}

// Loads the run-time-compiled kernel into the current context, runs `measure` with a function
// that launches it on `in`/`out` (device pointers of that context), and checks what it wrote.
void RunRuntimeKernel(const DriverApi& cu, const std::string& cubin, CaseContext& ctx,
                      const std::function<void(const std::function<void()>&)>& measure) {
  const std::vector<float> in = RandomIntegerFloats(kThreads, 0x7A2u);
  CUmodule module = nullptr;
  BANKCHECK_CU_CHECK(cu.module_load(&module, cubin.data()));
  CUfunction function = nullptr;
  BANKCHECK_CU_CHECK(cu.get_function(&function, module, "runtime_stride2"));
  CUdeviceptr d_in = 0, d_out = 0;
  BANKCHECK_CU_CHECK(cu.mem_alloc(&d_in, kThreads * sizeof(float)));
  BANKCHECK_CU_CHECK(cu.mem_alloc(&d_out, kThreads * sizeof(float)));
  BANKCHECK_CU_CHECK(cu.copy_to_device(d_in, in.data(), kThreads * sizeof(float)));
  std::vector<float> poison(kThreads, -1.0f);
  BANKCHECK_CU_CHECK(cu.copy_to_device(d_out, poison.data(), kThreads * sizeof(float)));
  void* args[] = {&d_in, &d_out};
  measure(
      [&] { BANKCHECK_CU_CHECK(cu.launch(function, 1, 1, 1, kThreads, 1, 1, 0, nullptr, args, nullptr)); });
  BANKCHECK_CU_CHECK(cu.ctx_synchronize());
  std::vector<float> out(kThreads);
  BANKCHECK_CU_CHECK(cu.copy_to_host(out.data(), d_out, kThreads * sizeof(float)));
  ExpectVectorsEqual(out, Expected(in), "run-time compiled kernel");
  cu.mem_free(d_in);
  cu.mem_free(d_out);
  cu.module_unload(module);
  ASSERT_EQ(ctx.records().size(), 1u);
  EXPECT_EQ(ctx.records()[0].kernel, "runtime_stride2");
}

void RegisterRuntimeCompiled() {
  KernelCase c;
  c.name = "launch_paths/nvrtc_primary_context";
  c.description =
      "a kernel compiled at run time by NVRTC, loaded with cuModuleLoadData in the primary context";
  Expect2Way(c);
  c.run = [](CaseContext& ctx) {
    const DriverApi cu;
    BANKCHECK_CUDA_CHECK(cudaFree(nullptr));  // the primary context, current
    RunRuntimeKernel(cu, CompileAtRunTime(), ctx,
                     [&](const std::function<void()>& launch) { ctx.Measure(launch); });
  };
  RegisterKernelCase(std::move(c));
}

void RegisterOtherContext() {
  KernelCase c;
  c.name = "launch_paths/another_context";
  c.description = "a kernel loaded with cuModuleLoadData and launched in a context made with cuCtxCreate";
  Expect2Way(c);
  c.run = [](CaseContext& ctx) {
    if (!CountersDisabled() && CountersFor(SessionOptions{}) == SessionOptions::Counters::kRangeProfiler)
      GTEST_SKIP() << "a range-profiler session measures the primary context only and refuses this launch "
                      "(docs/counters.md, \"Other launch paths\"); SASS metrics, the default, count it";
    const DriverApi cu;
    BANKCHECK_CUDA_CHECK(cudaFree(nullptr));
    const std::string cubin = CompileAtRunTime();
    CUcontext primary = nullptr, own = nullptr;
    CUdevice device = 0;
    BANKCHECK_CU_CHECK(cu.ctx_get_current(&primary));
    BANKCHECK_CU_CHECK(cu.ctx_get_device(&device));
    BANKCHECK_CU_CHECK(cu.ctx_create(&own, 0, device));  // made current on this thread
    struct Restore {
      const DriverApi& cu;
      CUcontext own;
      ~Restore() {
        CUcontext popped = nullptr;
        cu.ctx_pop(&popped);
        cu.ctx_destroy(own);
      }
    } restore{cu, own};
    // Measured from the primary context, as a test would: the launch itself pushes its own.
    RunRuntimeKernel(cu, cubin, ctx, [&](const std::function<void()>& launch) {
      CUcontext popped = nullptr;
      BANKCHECK_CU_CHECK(cu.ctx_pop(&popped));
      ctx.Measure([&] {
        BANKCHECK_CU_CHECK(cu.ctx_push(own));
        launch();
        BANKCHECK_CU_CHECK(cu.ctx_synchronize());
        CUcontext back = nullptr;
        BANKCHECK_CU_CHECK(cu.ctx_pop(&back));
      });
      BANKCHECK_CU_CHECK(cu.ctx_push(own));
    });
  };
  RegisterKernelCase(std::move(c));
}

BANKCHECK_REGISTER_CASES([] {
  RegisterFourHostThreads();
  RegisterRuntimeCompiled();
  RegisterOtherContext();
});

}  // namespace
}  // namespace bankcheck::kernels
