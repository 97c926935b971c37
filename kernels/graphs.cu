// Kernels launched through CUDA graphs, built explicitly (cudaGraphAddKernelNode) and by stream
// capture, each with a memset node between two kernel nodes that must not confuse the count.
// The two kernels share one pattern: 256 threads store smem[tid * 2] (stride 2 words: 2-way) and
// read a neighbour's slot (2-way; the neighbour, so that nvcc cannot forward the store), so any
// record of the graph launch is 2-way for loads and stores whether CUPTI measures the graph as one
// range or each kernel node as its own (docs/counters.md says which the H100 does).
// The first two cases capture, instantiate and launch the graph inside the measured lambda; the
// others build it in every other order a test does (before measuring, between two measurements,
// launched twice, the same kernel in two nodes, a child graph, an executable graph updated with
// cudaGraphExecUpdate). bankcheck learns a graph's kernel nodes when it is instantiated, and has
// CUDA instantiate it instrumented (docs/counters.md, "CUDA graphs"); a launch into a capturing
// stream is not run, so it is not recorded.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = 256;
constexpr int kFlagBytes = 64;

template <int kScale>
__global__ void GraphStride2(const float* in, float* out) {
  __shared__ float buf[kThreads * 2];
  const unsigned tid = threadIdx.x;
  buf[tid * 2] = in[tid];  // bankcheck: 2-way
  __syncthreads();
  out[tid] = kScale * buf[((tid + 1) % kThreads) * 2];  // bankcheck: 2-way
}

// Every record of a graph launch, one per kernel node or one for the graph, is 2-way: a statement
// about the launches as bankcheck records them, beside the kernel's lines.
void Expect2Way(KernelCase& c) {
  c.expect[MemoryKind::kSharedLoad].ways = 2;
  c.expect[MemoryKind::kSharedStore].ways = 2;
}

// The graph's input, the two kernels' outputs (poisoned) and the memset's target (zeroed).
struct GraphBuffers {
  explicit GraphBuffers(uint32_t seed)
      : in(RandomIntegerFloats(kThreads, seed)), d_in(in), out1(kThreads), out2(kThreads), flags(kFlagBytes) {
    out1.Fill(0xFF);
    out2.Fill(0xFF);
    flags.Fill(0);
  }

  // What the two kernels (GraphStride2<first> and <second>) and the memset must have written.
  void Check(float first = 1.0f, float second = 3.0f) const {
    std::vector<float> expected1(kThreads), expected2(kThreads);
    for (unsigned i = 0; i < kThreads; ++i) {
      expected1[i] = first * in[(i + 1) % kThreads];
      expected2[i] = second * in[(i + 1) % kThreads];
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

// A stream-captured graph of GraphStride2<kFirst> then GraphStride2<kSecond>, instantiated: what a
// test builds once in its set-up and launches later. Destroys both graphs with itself.
template <int kFirst, int kSecond>
struct CapturedPair {
  explicit CapturedPair(GraphBuffers& b) {
    BANKCHECK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    BANKCHECK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    GraphStride2<kFirst><<<1, kThreads, 0, stream>>>(b.d_in.get(), b.out1.get());
    BANKCHECK_CUDA_CHECK(cudaMemsetAsync(b.flags.get(), 0x5A, kFlagBytes, stream));
    GraphStride2<kSecond><<<1, kThreads, 0, stream>>>(b.d_in.get(), b.out2.get());
    BANKCHECK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    BANKCHECK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  }
  ~CapturedPair() {
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
  }
  CapturedPair(const CapturedPair&) = delete;
  CapturedPair& operator=(const CapturedPair&) = delete;
  void Launch() const { BANKCHECK_CUDA_CHECK(cudaGraphLaunch(exec, stream)); }
  void Synchronize() const { BANKCHECK_CUDA_CHECK(cudaStreamSynchronize(stream)); }

  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
};

// Registers graphs/<name>: a 2-way graph case whose run is `run`.
void RegisterGraphCase(const char* name, const char* description, std::function<void(CaseContext&)> run) {
  KernelCase c;
  c.name = std::string("graphs/") + name;
  c.description = description;
  Expect2Way(c);
  c.run = std::move(run);
  RegisterKernelCase(std::move(c));
}

void RegisterGraphsBuiltOutsideTheMeasurement() {
  RegisterGraphCase("built_before_measuring",
                    "a captured graph instantiated before the measurement and launched inside it",
                    [](CaseContext& ctx) {
                      GraphBuffers b(0x6A3u);
                      const CapturedPair<1, 3> graph(b);
                      ctx.Measure([&] { graph.Launch(); });
                      graph.Synchronize();
                      b.Check();
                      ExpectKernelsNamed(ctx.records());
                    });
  RegisterGraphCase("launched_twice",
                    "a graph instantiated before measuring, launched twice in one measurement",
                    [](CaseContext& ctx) {
                      GraphBuffers b(0x6A4u);
                      const CapturedPair<1, 3> graph(b);
                      ctx.Measure([&] {
                        graph.Launch();
                        graph.Launch();
                      });
                      graph.Synchronize();
                      b.Check();
                      EXPECT_EQ(ctx.records().size(), 4u) << "one record per kernel node and launch";
                    });
  RegisterGraphCase("built_between_measurements",
                    "a graph instantiated after a first measurement and launched in a second",
                    [](CaseContext& ctx) {
                      GraphBuffers b(0x6A5u);
                      ctx.Measure([&] { GraphStride2<1><<<1, kThreads>>>(b.d_in.get(), b.out1.get()); });
                      const CapturedPair<1, 3> graph(b);
                      ctx.Measure([&] { graph.Launch(); });
                      graph.Synchronize();
                      b.Check();
                      EXPECT_EQ(ctx.records().size(), 3u) << "the kernel, then each kernel node";
                    });
  RegisterGraphCase("same_kernel_twice",
                    "one kernel in both nodes of a graph built before measuring: one record, both nodes",
                    [](CaseContext& ctx) {
                      GraphBuffers b(0x6A6u);
                      const CapturedPair<1, 1> graph(b);
                      ctx.Measure([&] { graph.Launch(); });
                      graph.Synchronize();
                      b.Check(1.0f, 1.0f);
                      if (CountersFor(SessionOptions{}) == SessionOptions::Counters::kRangeProfiler) {
                        // A range per node (BANKCHECK_COUNTERS=range-profiler): a record each.
                        EXPECT_EQ(ctx.records().size(), 2u) << "a record per kernel node";
                        return;
                      }
                      ASSERT_EQ(ctx.records().size(), 1u) << "nodes that run one kernel cannot be told apart";
                      EXPECT_EQ(ctx.records()[0].graph_kernels.size(), 2u) << ctx.records()[0].kernel;
                    });
  RegisterGraphCase(
      "child_graph", "a graph whose one node is a child graph of two kernel nodes, built before",
      [](CaseContext& ctx) {
        GraphBuffers b(0x6A7u);
        const CapturedPair<1, 3> child(b);
        cudaGraph_t parent = nullptr;
        cudaGraphExec_t exec = nullptr;
        BANKCHECK_CUDA_CHECK(cudaGraphCreate(&parent, 0));
        cudaGraphNode_t node = nullptr;
        BANKCHECK_CUDA_CHECK(cudaGraphAddChildGraphNode(&node, parent, nullptr, 0, child.graph));
        BANKCHECK_CUDA_CHECK(cudaGraphInstantiate(&exec, parent, 0));
        ctx.Measure([&] { BANKCHECK_CUDA_CHECK(cudaGraphLaunch(exec, child.stream)); });
        child.Synchronize();
        b.Check();
        ExpectKernelsNamed(ctx.records());
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(parent);
      });
  RegisterGraphCase("exec_update",
                    "an executable graph updated with cudaGraphExecUpdate before measuring: the new kernels",
                    [](CaseContext& ctx) {
                      GraphBuffers b(0x6A8u);
                      const CapturedPair<5, 7> old_graph(b);
                      const CapturedPair<1, 3> new_graph(b);
                      cudaGraphExecUpdateResultInfo info{};
                      BANKCHECK_CUDA_CHECK(cudaGraphExecUpdate(old_graph.exec, new_graph.graph, &info));
                      ctx.Measure([&] { old_graph.Launch(); });
                      old_graph.Synchronize();
                      b.Check();
                      ExpectKernelsNamed(ctx.records());
                    });
}

BANKCHECK_REGISTER_CASES([] {
  RegisterExplicitGraph();
  RegisterCapturedGraph();
  RegisterGraphsBuiltOutsideTheMeasurement();
});

}  // namespace
}  // namespace bankcheck::kernels
