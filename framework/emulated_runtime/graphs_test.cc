// Graphs, stream capture and known device memory in the stand-in runtime, with the host stubs of
// runtime_test_kernels.cu and a double for the evaluator.

#include "emulated_runtime/internal/graphs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/runtime_test_kernels.h"

namespace bankcheck::emulate::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kParamsKernel[] = "_ZN7emutest12ParamsKernelEPKfPfiNS_4PairEc";
constexpr char kNoParamsKernel[] = "_ZN7emutest14NoParamsKernelEv";

// Both kernels, ParamsKernel with the layout its host ABI gives; each launch 2 loads per block;
// ParamsKernel writes global memory, NoParamsKernel does not.
class GraphFatbinEmulator final : public FatbinEmulator {
 public:
  GraphFatbinEmulator() {
    kernels_[kParamsKernel].params = {{0, 0, 8}, {1, 8, 8}, {2, 16, 4}, {3, 24, 16}, {4, 40, 1}};
    kernels_[kNoParamsKernel];
  }
  const KernelInfo* Describe(const void* /*fatbin*/, const std::string& mangled) override {
    const auto found = kernels_.find(mangled);
    return found == kernels_.end() ? nullptr : &found->second;
  }
  Emulation Emulate(const void* /*fatbin*/, const LaunchToEmulate& launch) override {
    LaunchRecord record;
    InstructionCounts row;
    row.pc_offset = 0x40;
    row.opcode = "LDS";
    row.executions = row.wavefronts = row.ideal_wavefronts = launch.grid.x * 2;
    record.instructions = {row};
    SetSassCounts({}, {}, record);
    record.loads() = {row.executions, row.wavefronts, row.ideal_wavefronts, Provenance::kExact};
    Emulation emulation;
    emulation.record = record;
    return emulation;
  }
  bool MayWriteGlobal(const void* /*fatbin*/, const std::string& mangled) override {
    return mangled == kParamsKernel;
  }

 private:
  std::map<std::string, KernelInfo> kernels_;
};

class GraphsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TheCapture().SetEmulator(std::make_unique<GraphFatbinEmulator>());
    TheCapture().Abandon();
    TheCapture().TakeNotEmulated();
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&flags_, 64), cudaSuccess);
    ASSERT_EQ(cudaMemset(flags_, 0, 64), cudaSuccess);
  }
  void TearDown() override {
    TheCapture().Abandon();
    cudaFree(flags_);
    cudaStreamDestroy(stream_);
  }
  static cudaError_t LaunchParams(dim3 grid, cudaStream_t stream) {
    const float* in = nullptr;
    float* out = nullptr;
    int n = 1;
    emutest::Pair pair{2, 3.0};
    char c = 'c';
    void* args[] = {&in, &out, &n, &pair, &c};
    return cudaLaunchKernel(emutest::ParamsKernelStub(), grid, dim3(32), args, 0, stream);
  }
  static cudaError_t LaunchNoParams(dim3 grid, cudaStream_t stream) {
    return cudaLaunchKernel(emutest::NoParamsKernelStub(), grid, dim3(32), nullptr, 0, stream);
  }
  unsigned char Flag(int i) const { return static_cast<unsigned char*>(flags_)[i]; }
  cudaStream_t stream_ = nullptr;
  void* flags_ = nullptr;
};

TEST_F(GraphsTest, CapturedWorkRunsWhenTheGraphIsLaunchedOneRecordPerKernelNode) {
  TheCapture().Start();
  ASSERT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), cudaErrorIllegalState);
  ASSERT_EQ(LaunchParams(dim3(4), stream_), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(flags_, 0x5A, 64, stream_), cudaSuccess);
  ASSERT_EQ(LaunchNoParams(dim3(5), stream_), cudaSuccess);
  ASSERT_EQ(LaunchNoParams(dim3(7), nullptr), cudaSuccess);  // another stream: runs
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream_, &graph), cudaSuccess);
  EXPECT_EQ(TheCapture().Recorded().size(), 1u) << "captured launches do not run";
  EXPECT_EQ(Flag(0), 0) << "nor do captured memsets";
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream_), cudaSuccess);
  EXPECT_EQ(Flag(63), 0x5A);
  const std::vector<LaunchToEmulate> recorded = TheCapture().Recorded();
  ASSERT_EQ(recorded.size(), 3u);
  EXPECT_EQ(recorded[1].mangled, kParamsKernel);
  EXPECT_EQ(recorded[1].param_bytes.size(), 41u) << "the arguments' bytes, taken at capture";
  const std::vector<LaunchRecord> records = TheCapture().Finish();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].loads().instructions, 14u);
  EXPECT_EQ(records[1].mangled_kernel, kParamsKernel);
  EXPECT_EQ(records[1].loads().instructions, 8u);
  EXPECT_EQ(records[2].mangled_kernel, kNoParamsKernel);
  EXPECT_TRUE(records[2].graph_kernels.empty());
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST_F(GraphsTest, OneKernelInTwoNodesIsOneRecordOfTheGraphLaunch) {
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(LaunchNoParams(dim3(5), stream_), cudaSuccess);
  ASSERT_EQ(LaunchNoParams(dim3(3), stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamEndCapture(stream_, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);  // before the session, as a set-up
  TheCapture().Start();
  ASSERT_EQ(cudaGraphLaunch(exec, stream_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream_), cudaSuccess);
  const std::vector<LaunchRecord> records = TheCapture().Finish();
  ASSERT_EQ(records.size(), 2u) << "one per graph launch";
  const LaunchRecord& record = records[0];
  EXPECT_THAT(record.kernel, HasSubstr("CUDA graph [emutest::NoParamsKernel(), emutest::NoParamsKernel()]"));
  EXPECT_THAT(record.graph_kernels, ElementsAre("emutest::NoParamsKernel()", "emutest::NoParamsKernel()"));
  EXPECT_EQ(record.grid, (Dim3{5, 1, 1})) << "the first node's";
  EXPECT_EQ(record.loads().instructions, 16u);
  ASSERT_EQ(record.instructions.size(), 1u) << "the kernel's rows added up over its nodes";
  EXPECT_EQ(record.instructions[0].executions, 16u);
  EXPECT_EQ(record.attributed_launches, 1u);
  EXPECT_EQ(record.counted_by, CountedBy::kEmulated);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST(GraphLaunchRecordsTest, AGraphRecordSumsTheNodesTmaTotalsAndKeepsWhatANodeCouldNotCount) {
  // Two nodes of one kernel: one record. TMA's global reads are launch totals, on no row; a kind a
  // node could not count is not counted for the graph, with the node's reason.
  LaunchRecord node;
  node.kernel = "k()";
  node.mangled_kernel = "_Z1kv";
  PerKind<KindCounts> sums;
  sums[MemoryKind::kGlobalTmaLoad] = {1, 128, 0};
  SetEmulatedCounts(sums, node);
  LaunchRecord unknown = node;
  unknown.not_counted[MemoryKind::kGlobalLoad] = true;
  unknown.notes = {"global memory not counted: a load from memory feeds the address of LDG.E at pc 0x0090"};
  const std::vector<LaunchRecord> graph = GraphLaunchRecords({node, unknown});
  ASSERT_EQ(graph.size(), 1u);
  EXPECT_EQ(graph[0].kinds[MemoryKind::kGlobalTmaLoad], (KindCounts{2, 256, 0, Provenance::kNotMeasured}));
  EXPECT_FALSE(graph[0].not_counted[MemoryKind::kGlobalTmaLoad]);
  EXPECT_TRUE(graph[0].not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_THAT(graph[0].notes, ElementsAre(HasSubstr("feeds the address of LDG.E")));
}

TEST_F(GraphsTest, ExplicitGraphsWithChildGraphsAndUpdates) {
  cudaGraph_t child = nullptr, parent = nullptr, other = nullptr;
  ASSERT_EQ(cudaGraphCreate(&child, 0), cudaSuccess);
  cudaKernelNodeParams kernel{};
  kernel.func = const_cast<void*>(emutest::NoParamsKernelStub());
  kernel.gridDim = dim3(2);
  kernel.blockDim = dim3(32);
  cudaGraphNode_t first = nullptr, set = nullptr, node = nullptr;
  ASSERT_EQ(cudaGraphAddKernelNode(&first, child, nullptr, 0, &kernel), cudaSuccess);
  cudaMemsetParams memset{};
  memset.dst = flags_;
  memset.value = 0x7;
  memset.elementSize = 4;
  memset.width = 4;
  memset.height = 1;
  ASSERT_EQ(cudaGraphAddMemsetNode(&set, child, &first, 1, &memset), cudaSuccess);
  ASSERT_EQ(cudaGraphCreate(&parent, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphAddChildGraphNode(&node, parent, nullptr, 0, child), cudaSuccess);
  EXPECT_EQ(cudaGraphAddMemsetNode(&set, parent, &first, 1, &memset), cudaErrorInvalidValue)
      << "a dependency of another graph";
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, parent, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphCreate(&other, 0), cudaSuccess);
  cudaGraphExecUpdateResultInfo info{};
  EXPECT_EQ(cudaGraphExecUpdate(exec, other, &info), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
  TheCapture().Start();
  ASSERT_EQ(cudaGraphLaunch(exec, stream_), cudaSuccess);
  uint32_t word = 0;
  std::memcpy(&word, static_cast<char*>(flags_) + 12, 4);
  EXPECT_EQ(word, 7u) << "4-byte elements";
  EXPECT_EQ(Flag(16), 0);
  EXPECT_TRUE(TheCapture().Memory().Known(reinterpret_cast<uintptr_t>(flags_), 16))
      << "a memset after the kernel, in order";
  const std::vector<LaunchRecord> records = TheCapture().Finish();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].grid, (Dim3{2, 1, 1}));
  for (cudaGraph_t made : {child, parent, other}) cudaGraphDestroy(made);
  cudaGraphExecDestroy(exec);
}

TEST_F(GraphsTest, ALaunchReadsTheDeviceMemoryAsItWasWhenItWasMade) {
  const uint64_t flags = reinterpret_cast<uintptr_t>(flags_);
  std::vector<unsigned char> host(64, 3);
  ASSERT_EQ(cudaMemcpy(flags_, host.data(), 64, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_TRUE(TheCapture().Memory().Known(flags, 64));
  ASSERT_EQ(LaunchParams(dim3(1), nullptr), cudaSuccess);  // outside a session: not read, anything
  EXPECT_FALSE(TheCapture().Memory().Known(flags, 64));
  ASSERT_EQ(cudaMemcpy(flags_, host.data(), 64, cudaMemcpyHostToDevice), cudaSuccess);
  TheCapture().Start();
  ASSERT_EQ(LaunchNoParams(dim3(1), nullptr), cudaSuccess);  // writes no global memory
  EXPECT_TRUE(TheCapture().Memory().Known(flags, 64));
  host.assign(64, 9);
  ASSERT_EQ(cudaMemcpy(flags_, host.data(), 64, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(LaunchParams(dim3(1), nullptr), cudaSuccess);
  EXPECT_FALSE(TheCapture().Memory().Known(flags, 64)) << "after a launch that may write global memory";
  const std::vector<LaunchToEmulate> recorded = TheCapture().Recorded();
  ASSERT_EQ(recorded.size(), 2u);
  unsigned char first = 0, second = 0;
  ASSERT_TRUE(recorded[0].memory->Read(flags + 5, 1, &first));
  ASSERT_TRUE(recorded[1].memory->Read(flags + 5, 1, &second));
  EXPECT_EQ(first, 3) << "its snapshot kept what the host overwrote later";
  EXPECT_EQ(second, 9);
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
