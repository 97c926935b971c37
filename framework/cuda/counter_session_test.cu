// GPU tests of the counter session: exactness against the research note's small-launch table,
// per-instruction attribution, graphs and repeatability at scale (its semantics and failure modes:
// counter_session_failures_test.cu). They skip with the reason on a machine without a usable GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/testing/matchers.h"
#include "bankcheck/testing/testing.h"
#include "counter_session_test_kernels.cuh"

namespace bankcheck {
namespace {

using gtest::Conflicts;
using gtest::LoadInstructions;
using gtest::LoadWays;
using gtest::MeasureLaunch;
using gtest::MeasureLaunches;
using gtest::StoreInstructions;
using gtest::StoreWays;
using test_kernels::DemoKernel;
using test_kernels::OneWarpStride;
using ::testing::AllOf;
using ::testing::HasSubstr;

// ---- Kernels from the research note's probes ------------------------------------------------

constexpr int kTransposeFirstLine = __LINE__;
template <int kPitch>
__global__ void Transpose32x32Block(const float* in, float* out, int n) {
  __shared__ float tile[32][kPitch];
  const int x = static_cast<int>(blockIdx.x * 32 + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * 32 + threadIdx.y);
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  const int tx = static_cast<int>(blockIdx.y * 32 + threadIdx.x);
  const int ty = static_cast<int>(blockIdx.x * 32 + threadIdx.y);
  out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
}
constexpr int kTransposeLastLine = __LINE__;

// 32x8 threads, four rows each (the research note's 4096x4096 probe).
__global__ void Transpose32x8Unpadded(const float* in, float* out, int n) {
  __shared__ float tile[32][32];
  const int x = static_cast<int>(blockIdx.x * 32 + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * 32 + threadIdx.y);
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  const int tx = static_cast<int>(blockIdx.y * 32 + threadIdx.x);
  const int ty = static_cast<int>(blockIdx.x * 32 + threadIdx.y);
  for (int j = 0; j < 32; j += 8) out[(ty + j) * n + tx] = tile[threadIdx.x][threadIdx.y + j];
}

// ---- Set-up: the preparation ---------------------------------------------------------------

TEST(CounterSessionGpuTest, PreparationCanBeRepeatedAndShutDownAtAnyPoint) {
  BANKCHECK_SKIP_WITHOUT_GPU();  // starts a preparation, or finds the profiler already set up
  DeviceBuffer<int> sink(256);
  const auto two_way = [&] { DemoKernel<2><<<1, 256>>>(sink.get()); };
  ShutdownProfiler();  // frees what was prepared
  PrepareCounterSession();
  PrepareCounterSession();  // already prepared: nothing more
  EXPECT_THAT(MeasureLaunch(two_way), AllOf(LoadWays(2), Conflicts(8, 8)));
  ShutdownProfiler();
  PrepareCounterSession();
  ShutdownProfiler();  // before any session used the preparation
  // With nothing prepared, the session sets CUPTI up by itself.
  EXPECT_THAT(MeasureLaunch(two_way), AllOf(LoadWays(2), Conflicts(8, 8)));
}

// ---- Exactness: the research note's small-launch table --------------------------------------

TEST(CounterSessionGpuTest, DemoKernelsMatchTheTable) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(256);
  const std::vector<LaunchRecord> r = MeasureLaunches([&] {
    DemoKernel<1><<<1, 256>>>(sink.get());
    DemoKernel<2><<<1, 256>>>(sink.get());
    DemoKernel<32><<<1, 256>>>(sink.get());
  });
  ASSERT_EQ(r.size(), 3u);
  EXPECT_THAT(r[0], AllOf(LoadInstructions(8), StoreInstructions(8), Conflicts(0, 0)));
  EXPECT_THAT(r[1], AllOf(LoadInstructions(8), StoreInstructions(8), Conflicts(8, 8)));
  EXPECT_THAT(r[2], AllOf(LoadInstructions(8), StoreInstructions(8), Conflicts(248, 248), LoadWays(32),
                          StoreWays(32)));
  EXPECT_EQ(r[2].loads().wavefronts, 256u);
  for (const LaunchRecord& record : r) {
    EXPECT_EQ(record.counted_by, CountedBy::kSassMetrics);
    std::printf("  %s\n", Summary(record).c_str());
  }
}

// The two ways to count give the same exact counts; the range profiler also reads the hardware
// counters, whose difference is the LDS/STS ideal (docs/counters.md). Their ideals differ only in
// where one of them has none: SASS metrics give the kinds the table marks sass_ideal_exact
// (shared atomics too), a range-profiler session the shared atomics' only on request.
TEST(CounterSessionGpuTest, SassMetricsAndTheRangeProfilerAgree) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(256);
  DeviceBuffer<float> in(64 * 64), out(64 * 64);
  in.Fill(0);
  const auto launches = [&] {
    DemoKernel<1><<<1, 256>>>(sink.get());
    DemoKernel<32><<<1, 256>>>(sink.get());
    for (int s : {2, 8}) OneWarpStride<<<1, 32>>>(sink.get(), s);
    Transpose32x32Block<32><<<dim3(2, 2), dim3(32, 32)>>>(in.get(), out.get(), 64);
    Transpose32x32Block<33><<<dim3(2, 2), dim3(32, 32)>>>(in.get(), out.get(), 64);
  };
  SessionOptions range_profiler;
  range_profiler.counters = SessionOptions::Counters::kRangeProfiler;
  const std::vector<LaunchRecord> sass = Measure(launches);
  const std::vector<LaunchRecord> ranged = Measure(launches, range_profiler);
  ASSERT_EQ(sass.size(), 6u);
  ASSERT_EQ(ranged.size(), sass.size());
  for (size_t i = 0; i < sass.size(); ++i) {
    EXPECT_EQ(sass[i].counted_by, CountedBy::kSassMetrics);
    EXPECT_EQ(ranged[i].counted_by, CountedBy::kRangeProfiler);
    EXPECT_EQ(sass[i].kernel, ranged[i].kernel);
    for (const MemoryKindInfo& kind : MemoryKinds()) {
      const KindCounts& a = sass[i].kinds[kind.kind];
      const KindCounts& b = ranged[i].kinds[kind.kind];
      const std::string where = "launch " + std::to_string(i) + ", " + kind.key +
                                "\n  sass metrics:   " + Summary(sass[i]) +
                                "\n  range profiler: " + Summary(ranged[i]);
      EXPECT_EQ(a.instructions, b.instructions) << where;
      EXPECT_EQ(a.wavefronts, b.wavefronts) << where;
      if (a.ideal_known() && b.ideal_known()) EXPECT_EQ(a.ideal_wavefronts, b.ideal_wavefronts) << where;
      EXPECT_EQ(a.ideal_known(), kind.wavefronts_metric != nullptr && kind.sass_ideal_exact) << where;
    }
    EXPECT_FALSE(ranged[i].hardware_differs()) << Summary(ranged[i]);
  }
  EXPECT_THAT(sass[1], AllOf(Conflicts(248, 248), LoadWays(32)));
  EXPECT_THAT(sass[4], LoadWays(32));
  EXPECT_THAT(sass[5], Conflicts(0, 0));
}

TEST(CounterSessionGpuTest, OneWarpStridesAreSWay) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(32);
  const std::vector<int> strides = {1, 2, 4, 8, 16, 32};
  const std::vector<LaunchRecord> r = MeasureLaunches([&] {
    for (int s : strides) OneWarpStride<<<1, 32>>>(sink.get(), s);
  });
  ASSERT_EQ(r.size(), strides.size());
  for (size_t i = 0; i < strides.size(); ++i) {
    const uint64_t s = static_cast<uint64_t>(strides[i]);
    EXPECT_THAT(r[i], AllOf(LoadInstructions(1), StoreInstructions(1), Conflicts(s - 1, s - 1)))
        << "stride " << s;
    EXPECT_EQ(r[i].loads().wavefronts, s);
  }
}

TEST(CounterSessionGpuTest, SmallTransposesMatchTheTable) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  const int n = 128;
  DeviceBuffer<float> in(static_cast<size_t>(n) * n);
  DeviceBuffer<float> out(static_cast<size_t>(n) * n);
  in.Fill(0);
  const std::vector<LaunchRecord> r = MeasureLaunches([&] {
    Transpose32x32Block<32><<<dim3(4, 4), dim3(32, 32)>>>(in.get(), out.get(), n);
    Transpose32x32Block<33><<<dim3(4, 4), dim3(32, 32)>>>(in.get(), out.get(), n);
  });
  ASSERT_EQ(r.size(), 2u);
  EXPECT_THAT(r[0], AllOf(LoadInstructions(512), StoreInstructions(512), Conflicts(15872, 0)));
  EXPECT_EQ(r[0].loads().wavefronts, 16384u);
  EXPECT_THAT(r[1], AllOf(LoadInstructions(512), StoreInstructions(512), Conflicts(0, 0)));
  EXPECT_EQ(r[0].grid, (Dim3{4, 4, 1}));
  EXPECT_EQ(r[0].block, (Dim3{32, 32, 1}));
  EXPECT_THAT(r[0].kernel, HasSubstr("Transpose32x32Block<32>"));
}

// ---- Per-instruction attribution (SASS Metrics API) ------------------------------------------

// The unpadded transpose twice and the padded one once. Counted through SASS metrics, each record
// holds its own launch's table, read with its counts; by the range profiler, a second run gives
// each record its kernel's table summed over that kernel's launches. Either way the sums equal the
// launch totals, and the costly instruction is an LDS of the transpose with its source line.
TEST(CounterSessionGpuTest, AttributedInstructionsAddUpToTheLaunchTotalsAndNameTheLine) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  const int n = 128;
  DeviceBuffer<float> in(static_cast<size_t>(n) * n);
  DeviceBuffer<float> out(static_cast<size_t>(n) * n);
  in.Fill(0);
  for (const auto counters :
       {SessionOptions::Counters::kSassMetrics, SessionOptions::Counters::kRangeProfiler}) {
    const bool per_launch = counters == SessionOptions::Counters::kSassMetrics;
    SCOPED_TRACE(per_launch ? "SASS metrics" : "range profiler");
    SessionOptions options;
    options.counters = counters;
    options.attribute_instructions = true;
    const std::vector<LaunchRecord> r = MeasureLaunches(
        [&] {
          Transpose32x32Block<32><<<dim3(4, 4), dim3(32, 32)>>>(in.get(), out.get(), n);
          Transpose32x32Block<33><<<dim3(4, 4), dim3(32, 32)>>>(in.get(), out.get(), n);
          Transpose32x32Block<32><<<dim3(4, 4), dim3(32, 32)>>>(in.get(), out.get(), n);
        },
        options);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].attributed_launches, per_launch ? 1u : 2u);
    EXPECT_EQ(r[1].attributed_launches, 1u);
    EXPECT_EQ(r[0].instructions, r[2].instructions);
    const std::vector<std::vector<LaunchRecord>> tables =
        per_launch ? std::vector<std::vector<LaunchRecord>>{{r[0]}, {r[1]}, {r[2]}}
                   : std::vector<std::vector<LaunchRecord>>{{r[0], r[2]}, {r[1]}};
    for (const std::vector<LaunchRecord>& launches : tables) {
      const PerKind<InstructionTotals> totals = TotalsByKind(launches[0].instructions);
      for (const MemoryKind kind : {MemoryKind::kSharedLoad, MemoryKind::kSharedStore}) {
        const KindCounts measured = SumCounts(launches, kind);
        EXPECT_EQ(totals[kind].executions, measured.instructions) << launches[0].kernel;
        EXPECT_EQ(totals[kind].wavefronts, measured.wavefronts) << launches[0].kernel;
        EXPECT_EQ(totals[kind].ideal_wavefronts, measured.ideal_wavefronts) << launches[0].kernel;
      }
    }
    ASSERT_FALSE(r[0].instructions.empty());
    const InstructionCounts& worst = r[0].instructions.front();
    EXPECT_EQ(worst.kind, MemoryKind::kSharedLoad);
    EXPECT_EQ(worst.excess(), (per_launch ? 1u : 2u) * 15872u);
    EXPECT_THAT(worst.opcode, ::testing::StartsWith("LDS"));
    EXPECT_THAT(worst.file, ::testing::EndsWith("counter_session_test.cu"));
    EXPECT_GT(worst.line, static_cast<uint32_t>(kTransposeFirstLine));
    EXPECT_LT(worst.line, static_cast<uint32_t>(kTransposeLastLine));
    for (const InstructionCounts& instruction : r[1].instructions) EXPECT_EQ(instruction.excess(), 0u);
  }
}

// A graph whose two kernel nodes run the same kernel: counted through SASS metrics its launch is
// one record (the counts come by kernel function); the range profiler makes a range of each node.
TEST(CounterSessionGpuTest, AGraphRunningOneKernelTwiceIsOneRecordUnlessRangeProfiled) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> sink(256);
  cudaStream_t stream = nullptr;
  BANKCHECK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // Captured and instantiated inside the measured code, where bankcheck sees the instantiation.
  const auto launch = [&] {
    cudaGraph_t graph = nullptr;
    BANKCHECK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    DemoKernel<2><<<1, 256, 0, stream>>>(sink.get());
    BANKCHECK_CUDA_CHECK(cudaMemsetAsync(sink.get(), 0, 64, stream));
    DemoKernel<2><<<1, 256, 0, stream>>>(sink.get());
    BANKCHECK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;
    BANKCHECK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    BANKCHECK_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    BANKCHECK_CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  };
  const std::vector<LaunchRecord> sass = Measure(launch);
  ASSERT_EQ(sass.size(), 1u);
  EXPECT_EQ(sass[0].graph_kernels.size(), 2u);
  EXPECT_THAT(sass[0].kernel, HasSubstr("CUDA graph ["));
  EXPECT_THAT(sass[0], AllOf(LoadInstructions(16), StoreInstructions(16), Conflicts(16, 16)));
  SessionOptions range_profiler;
  range_profiler.counters = SessionOptions::Counters::kRangeProfiler;
  const std::vector<LaunchRecord> ranged = Measure(launch, range_profiler);
  ASSERT_EQ(ranged.size(), 2u);
  for (const LaunchRecord& node : ranged) EXPECT_THAT(node, AllOf(LoadInstructions(8), Conflicts(8, 8)));
  cudaStreamDestroy(stream);
}

// A graph built once in the fixture's set-up, before any test calls BANKCHECK_SKIP_WITHOUT_GPU,
// and launched in the tests: bankcheck::gtest_main set bankcheck up before any set-up ran
// (gtest::CounterSessionEnvironment), so every kernel node is counted, in both ways to count.
class GraphBuiltInSetUpTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!ProbeGpu().usable()) return;
    sink_ = new DeviceBuffer<int>(256);
    BANKCHECK_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    BANKCHECK_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    DemoKernel<2><<<1, 256, 0, stream_>>>(sink_->get());
    DemoKernel<32><<<1, 256, 0, stream_>>>(sink_->get());
    BANKCHECK_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    BANKCHECK_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0));
    cudaGraphDestroy(graph);  // the executable graph lives on
  }
  static void TearDownTestSuite() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    delete sink_;
  }
  static void Launch() {
    BANKCHECK_CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
    BANKCHECK_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  static void ExpectBothNodes(const std::vector<LaunchRecord>& records) {
    ASSERT_EQ(records.size(), 2u);
    EXPECT_THAT(records[0].kernel, HasSubstr("DemoKernel<2>"));
    EXPECT_THAT(records[0], AllOf(LoadInstructions(8), StoreInstructions(8), Conflicts(8, 8)));
    EXPECT_THAT(records[1].kernel, HasSubstr("DemoKernel<32>"));
    EXPECT_THAT(records[1], AllOf(LoadInstructions(8), StoreInstructions(8), Conflicts(248, 248)));
  }

  static DeviceBuffer<int>* sink_;
  static cudaStream_t stream_;
  static cudaGraphExec_t exec_;
};
DeviceBuffer<int>* GraphBuiltInSetUpTest::sink_ = nullptr;
cudaStream_t GraphBuiltInSetUpTest::stream_ = nullptr;
cudaGraphExec_t GraphBuiltInSetUpTest::exec_ = nullptr;

TEST_F(GraphBuiltInSetUpTest, EveryNodeIsCountedThroughSassMetrics) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  ExpectBothNodes(Measure(Launch));
  ExpectBothNodes(Measure(Launch));  // and again: nothing about the graph changed
}

TEST_F(GraphBuiltInSetUpTest, EveryNodeIsCountedByTheRangeProfiler) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  SessionOptions range_profiler;
  range_profiler.counters = SessionOptions::Counters::kRangeProfiler;
  ExpectBothNodes(Measure(Launch, range_profiler));
}

// ---- Exactness at scale: identical over three consecutive sessions ---------------------------

TEST(CounterSessionGpuTest, LargeTransposeIsIdenticalOverThreeRuns) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  const int n = 4096;
  DeviceBuffer<float> in(static_cast<size_t>(n) * n);
  DeviceBuffer<float> out(static_cast<size_t>(n) * n);
  in.Fill(0);
  std::vector<LaunchRecord> runs;
  for (int run = 0; run < 3; ++run) {
    runs.push_back(MeasureLaunch(
        [&] { Transpose32x8Unpadded<<<dim3(128, 128), dim3(32, 8)>>>(in.get(), out.get(), n); }));
    const LaunchRecord& r = runs.back();
    std::printf("  run %d: exact ld %llu wf / %llu conflicts, st %llu wf\n", run + 1,
                static_cast<unsigned long long>(r.loads().wavefronts),
                static_cast<unsigned long long>(r.loads().conflicts()),
                static_cast<unsigned long long>(r.stores().wavefronts));
  }
  EXPECT_EQ(runs[0].loads().wavefronts, 16777216u);
  EXPECT_EQ(runs[0].loads().instructions, 524288u);
  EXPECT_EQ(runs[0].stores().wavefronts, 524288u);
  EXPECT_EQ(runs[0].loads().conflicts(), 16252928u);
  for (int run = 1; run < 3; ++run) {
    EXPECT_EQ(runs[run].loads(), runs[0].loads());
    EXPECT_EQ(runs[run].stores(), runs[0].stores());
  }
  // The range profiler: the same exact counts, and hardware readings that read high at scale.
  SessionOptions range_profiler;
  range_profiler.counters = SessionOptions::Counters::kRangeProfiler;
  const LaunchRecord r =
      MeasureLaunch([&] { Transpose32x8Unpadded<<<dim3(128, 128), dim3(32, 8)>>>(in.get(), out.get(), n); },
                    range_profiler);
  std::printf("  range profiler: hardware ld %llu wf / %llu conflicts, st %llu wf / %llu conflicts\n",
              static_cast<unsigned long long>(r.hardware[MemoryKind::kSharedLoad].wavefronts),
              static_cast<unsigned long long>(r.hardware[MemoryKind::kSharedLoad].bank_conflicts),
              static_cast<unsigned long long>(r.hardware[MemoryKind::kSharedStore].wavefronts),
              static_cast<unsigned long long>(r.hardware[MemoryKind::kSharedStore].bank_conflicts));
  EXPECT_EQ(r.loads(), runs[0].loads());
  EXPECT_EQ(r.stores(), runs[0].stores());
  EXPECT_GE(r.hardware[MemoryKind::kSharedLoad].wavefronts, r.loads().wavefronts);
}

}  // namespace
}  // namespace bankcheck
