// Kernels launched through CUDA graphs, built explicitly (cudaGraphAddKernelNode) and by stream
// capture, each with a memset node between two kernel nodes that must not confuse the count.
// The two kernels share one pattern: 256 threads store smem[tid * 2] (stride 2 words: 2-way) and
// read a neighbour's slot (2-way; the neighbour, so that nvcc cannot forward the store), so any
// record of the graph launch is 2-way for loads and stores whether CUPTI measures the graph as one
// range or each kernel node as its own (docs/counters.md says which the H100 does).
// The graph is captured, instantiated and launched inside the measured lambda: bankcheck learns a
// graph's kernel nodes when it is instantiated, and a launch into a capturing stream is not run,
// so it is not recorded.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bankcheck/cuda_check.h"
#include "bankcheck/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = 256;
constexpr int kFlagBytes = 64;

template <int kScale>
__global__ void GraphStride2(const float* in, float* out) {
  __shared__ float buf[kThreads * 2];
  const unsigned tid = threadIdx.x;
  buf[tid * 2] = in[tid];
  __syncthreads();
  out[tid] = kScale * buf[((tid + 1) % kThreads) * 2];
}

void Expect2Way(KernelCase& c) {
  c.expect[SharedKind::kLoad].ways = 2;
  c.expect[SharedKind::kStore].ways = 2;
}

// The graph's input, the two kernels' outputs (poisoned) and the memset's target (zeroed).
struct GraphBuffers {
  explicit GraphBuffers(uint32_t seed)
      : in(RandomIntegerFloats(kThreads, seed)), d_in(in), out1(kThreads), out2(kThreads), flags(kFlagBytes) {
    out1.Fill(0xFF);
    out2.Fill(0xFF);
    flags.Fill(0);
  }

  // What the two kernels and the memset must have written.
  void Check() const {
    std::vector<float> expected1(kThreads), expected2(kThreads);
    for (unsigned i = 0; i < kThreads; ++i) {
      expected1[i] = 1.0f * in[(i + 1) % kThreads];
      expected2[i] = 3.0f * in[(i + 1) % kThreads];
    }
    ExpectVectorsEqual(out1.ToHost(), expected1, "first kernel node");
    ExpectVectorsEqual(out2.ToHost(), expected2, "second kernel node");
    ExpectVectorsEqual(flags.ToHost(), std::vector<unsigned char>(kFlagBytes, 0x5A), "memset node");
  }

  std::vector<float> in;
  DeviceBuffer<float> d_in, out1, out2;
  DeviceBuffer<unsigned char> flags;
};

// Every record of the graph launch names the two kernels.
void ExpectKernelsNamed(const std::vector<LaunchRecord>& records) {
  std::string names;
  for (const LaunchRecord& r : records) names += r.kernel + "\n";
  EXPECT_NE(names.find("GraphStride2<1>"), std::string::npos) << names;
  EXPECT_NE(names.find("GraphStride2<3>"), std::string::npos) << names;
}

void RegisterExplicitGraph() {
  KernelCase c;
  c.name = "graphs/explicit";
  c.description = "a graph built node by node: kernel, memset, kernel (2-way smem[tid * 2] in each kernel)";
  Expect2Way(c);
  c.run = [](CaseContext& ctx) {
    GraphBuffers b(0x6A1u);
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    ctx.Measure([&] {
      BANKCHECK_CUDA_CHECK(cudaGraphCreate(&graph, 0));
      const float* in_ptr = b.d_in.get();
      float* out_ptrs[2] = {b.out1.get(), b.out2.get()};
      void* args1[] = {&in_ptr, &out_ptrs[0]};
      void* args2[] = {&in_ptr, &out_ptrs[1]};
      cudaKernelNodeParams kernel{};
      kernel.gridDim = dim3(1);
      kernel.blockDim = dim3(kThreads);
      kernel.func = reinterpret_cast<void*>(&GraphStride2<1>);
      kernel.kernelParams = args1;
      cudaGraphNode_t first = nullptr, memset = nullptr, second = nullptr;
      BANKCHECK_CUDA_CHECK(cudaGraphAddKernelNode(&first, graph, nullptr, 0, &kernel));
      cudaMemsetParams set{};
      set.dst = b.flags.get();
      set.value = 0x5A;
      set.elementSize = 1;
      set.width = kFlagBytes;
      set.height = 1;
      BANKCHECK_CUDA_CHECK(cudaGraphAddMemsetNode(&memset, graph, &first, 1, &set));
      kernel.func = reinterpret_cast<void*>(&GraphStride2<3>);
      kernel.kernelParams = args2;
      BANKCHECK_CUDA_CHECK(cudaGraphAddKernelNode(&second, graph, &memset, 1, &kernel));
      BANKCHECK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      BANKCHECK_CUDA_CHECK(cudaGraphLaunch(exec, 0));
    });
    BANKCHECK_CUDA_CHECK(cudaDeviceSynchronize());
    b.Check();
    ExpectKernelsNamed(ctx.records());
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  };
  RegisterKernelCase(std::move(c));
}

void RegisterCapturedGraph() {
  KernelCase c;
  c.name = "graphs/stream_capture";
  c.description =
      "a graph captured from a stream: kernel, memset, kernel (2-way smem[tid * 2] in each kernel)";
  Expect2Way(c);
  c.run = [](CaseContext& ctx) {
    GraphBuffers b(0x6A2u);
    cudaStream_t stream = nullptr;
    BANKCHECK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    ctx.Measure([&] {
      // Captured launches become nodes and do not run: only the graph launch is measured.
      BANKCHECK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      GraphStride2<1><<<1, kThreads, 0, stream>>>(b.d_in.get(), b.out1.get());
      BANKCHECK_CUDA_CHECK(cudaMemsetAsync(b.flags.get(), 0x5A, kFlagBytes, stream));
      GraphStride2<3><<<1, kThreads, 0, stream>>>(b.d_in.get(), b.out2.get());
      BANKCHECK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
      BANKCHECK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      BANKCHECK_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    });
    BANKCHECK_CUDA_CHECK(cudaStreamSynchronize(stream));
    b.Check();
    ExpectKernelsNamed(ctx.records());
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
  };
  RegisterKernelCase(std::move(c));
}

BANKCHECK_REGISTER_CASES([] {
  RegisterExplicitGraph();
  RegisterCapturedGraph();
});

}  // namespace
}  // namespace bankcheck::kernels
