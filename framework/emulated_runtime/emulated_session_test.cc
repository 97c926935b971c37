// The framework above the stand-in runtime, in a program made as a kernel suite's emulated program
// is (BANKCHECK_EMULATED: the CUDA layer without cudart): sessions count through the emulation,
// the GPU probe sees the emulated device, output checks skip, and CUPTI is never reached.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "bankcheck/testing/testing.h"
#include "emulate/internal/limits.h"
#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/runtime_test_kernels.h"

namespace bankcheck::emulate::runtime {
namespace {

using ::testing::HasSubstr;

// Decides every launch of the two test kernels (no parameters are read), or none.
class FakeFatbinEmulator final : public FatbinEmulator {
 public:
  explicit FakeFatbinEmulator(bool decide) : decide_(decide) {}
  const KernelInfo* Describe(const void* /*fatbin*/, const std::string& mangled) override {
    KernelInfo& info = kernels_[mangled];
    info.mangled = mangled;
    return &info;
  }
  Emulation Emulate(const void* /*fatbin*/, const LaunchToEmulate& launch) override {
    Emulation emulation;
    if (!decide_) {
      emulation.undecided =
          Undecided{"a branch on a value loaded from global memory", 0x80, "BRA", "k.cu", 7};
      return emulation;
    }
    LaunchRecord record;
    record.stores().instructions = launch.grid.x;
    record.stores().wavefronts = 2 * launch.grid.x;
    record.stores().ideal_wavefronts = launch.grid.x;
    InstructionCounts row;
    row.pc_offset = 0x40;
    row.kind = MemoryKind::kSharedStore;
    row.executions = launch.grid.x;
    row.wavefronts = 2 * launch.grid.x;
    row.ideal_wavefronts = launch.grid.x;
    record.instructions = {row};
    emulation.record = record;
    return emulation;
  }
  // From now on every launch's outputs are `outputs` (the default: none computed).
  void ComputeAs(ComputedOutputs outputs) { outputs_ = std::move(outputs); }
  ComputedOutputs ComputeOutputs(const void* fatbin, const LaunchToEmulate& launch) override {
    return outputs_ ? *outputs_ : FatbinEmulator::ComputeOutputs(fatbin, launch);
  }

 private:
  std::optional<ComputedOutputs> outputs_;
  bool decide_;
  std::map<std::string, KernelInfo> kernels_;
};

class EmulatedSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TheCapture().SetEmulator(std::make_unique<FakeFatbinEmulator>(true));
    TheCapture().TakeNotEmulated();
  }
};

TEST_F(EmulatedSessionTest, TheProbeSeesOneUsableEmulatedSm90) {
  const GpuProbe& probe = ProbeGpu();
  ASSERT_TRUE(probe.usable()) << probe.reason;
  EXPECT_EQ(probe.arch(), "sm_90");
  EXPECT_EQ(probe.device_name, "bankcheck emulated sm_90");
  EXPECT_NO_THROW(PrepareCounterSession());  // nothing of CUPTI is set up
}

TEST_F(EmulatedSessionTest, MeasureCountsThroughTheEmulationWithTables) {
  EXPECT_EQ(CountersFor(SessionOptions{}), SessionOptions::Counters::kEmulated);
  const std::vector<LaunchRecord> records = gtest::MeasureLaunches([] {
    emutest::LaunchNoParams();
    emutest::LaunchParams(nullptr, nullptr, 0, {0, 0.0}, 'c', dim3(5), dim3(64), 0);
  });
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].counted_by, CountedBy::kEmulated);
  EXPECT_EQ(records[0].kernel, "emutest::NoParamsKernel()");
  EXPECT_EQ(records[0].stores().wavefronts, 6u);
  EXPECT_EQ(records[1].grid, (Dim3{5, 1, 1}));
  ASSERT_EQ(records[1].instructions.size(), 1u);
  EXPECT_EQ(records[1].attributed_launches, 1u);
  // A case's context accumulates them as on the GPU.
  CaseContext context;
  context.Measure([] { emutest::LaunchNoParams(); });
  context.Measure([] { emutest::LaunchNoParams(); });
  EXPECT_EQ(context.records().size(), 2u);
}

TEST_F(EmulatedSessionTest, AnUndecidedLaunchThrowsNotEmulatedWithItsLine) {
  TheCapture().SetEmulator(std::make_unique<FakeFatbinEmulator>(false));
  try {
    Measure([] { emutest::LaunchNoParams(); });
    FAIL() << "an undecided launch gave records";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotEmulated);
    EXPECT_THAT(e.what(), HasSubstr("(k.cu:7)"));
  }
  EXPECT_THAT(TheCapture().TakeNotEmulated(), HasSubstr("BRA at pc 0x80"));
  EXPECT_FALSE(CounterSession::Active());
}

TEST_F(EmulatedSessionTest, HardwareReadingsAreNotEmulated) {
  SessionOptions options;
  options.extra_metrics = {"smsp__inst_executed.sum"};
  try {
    Measure([] { emutest::LaunchNoParams(); }, options);
    FAIL() << "extra metrics were emulated";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotEmulated);
    EXPECT_THAT(e.what(), HasSubstr("extra metrics"));
  }
  EXPECT_FALSE(CounterSession::Active());
}

TEST_F(EmulatedSessionTest, OtherCountersAreRefusedInTheEmulatedProgram) {
  ASSERT_EQ(setenv("BANKCHECK_COUNTERS", "sass", 1), 0);
  EXPECT_THROW(CountersFor(SessionOptions{}), Error);
  ASSERT_EQ(setenv("BANKCHECK_COUNTERS", "off", 1), 0);
  EXPECT_FALSE(CountersDisabled());  // refused when a session starts, not run unmeasured
  EXPECT_THROW(CountersFor(SessionOptions{}), Error);
  ASSERT_EQ(setenv("BANKCHECK_COUNTERS", "emulate", 1), 0);
  EXPECT_EQ(CountersFor(SessionOptions{}), SessionOptions::Counters::kEmulated);
  ASSERT_EQ(unsetenv("BANKCHECK_COUNTERS"), 0);
}

TEST_F(EmulatedSessionTest, OutputChecksSkipSayingWhyWhereTheBytesReadBackWereNotComputed) {
  TheCapture().BeginCase();
  int* device = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device), 64), cudaSuccess);
  const std::vector<int> in(16, 7);
  std::vector<int> out(16);
  ASSERT_EQ(cudaMemcpy(device, in.data(), 64, cudaMemcpyHostToDevice), cudaSuccess);
  // Outside a session as inside one, a launch's outputs are computed where the evaluator can; this one
  // computes none, so the launch may have written any device memory.
  emutest::LaunchNoParams();
  ASSERT_EQ(cudaMemcpy(out.data(), device, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_THAT(TheCapture().OutputNotComputed(),
              HasSubstr("a launch may write global memory, and its stores were not computed "
                        "[emutest::NoParamsKernel()]"));
  ::testing::internal::CaptureStdout();
  EXPECT_TRUE(gtest::SkipOutputCheck("transposed matrix"));
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "  note: emulated: the kernel did not run, its output is not checked: transposed matrix\n");

  // Bytes the host wrote after the launch are known: what is read back is what the GPU would hold.
  TheCapture().BeginCase();
  emutest::LaunchNoParams();
  ASSERT_EQ(cudaMemcpy(device, in.data(), 64, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(out.data(), device, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(TheCapture().OutputNotComputed(), "");
  EXPECT_FALSE(gtest::SkipOutputCheck("copied input"));
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

TEST_F(EmulatedSessionTest, ComputedOutputsAreWhatIsReadBackAndTheirCountsTheLaunchRecord) {
  uint8_t* device = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device), 64), cudaSuccess);
  auto fake = std::make_unique<FakeFatbinEmulator>(true);
  ComputedOutputs outputs;
  outputs.written[static_cast<uint64_t>(reinterpret_cast<uintptr_t>(device)) + 8] = {1, 2, 3, 4};
  outputs.record = LaunchRecord{};
  outputs.record->stores().instructions = 99;  // not what Emulate would say: the run's own counts
  fake->ComputeAs(outputs);
  FakeFatbinEmulator* computing = fake.get();
  TheCapture().SetEmulator(std::move(fake));
  TheCapture().BeginCase();
  ASSERT_EQ(cudaMemset(device, 0, 64), cudaSuccess);
  const std::vector<LaunchRecord> records = gtest::MeasureLaunches([] { emutest::LaunchNoParams(); });
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].stores().instructions, 99u);
  EXPECT_EQ(records[0].kernel, "emutest::NoParamsKernel()");
  std::vector<uint8_t> out(64, 0xff);
  ASSERT_EQ(cudaMemcpy(out.data(), device, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(TheCapture().OutputNotComputed(), "");
  EXPECT_EQ(std::vector<uint8_t>(out.begin() + 6, out.begin() + 14),
            (std::vector<uint8_t>{0, 0, 1, 2, 3, 4, 0, 0}));
  EXPECT_FALSE(gtest::SkipOutputCheck("computed output"));

  // Not computed: the reason, with the kernel, is what the case's read-back says.
  ComputedOutputs not_computed;
  not_computed.not_computed = Undecided{"ATOMS is not computed by the output pass", 0x90, "ATOMS", "", 0};
  computing->ComputeAs(not_computed);
  TheCapture().BeginCase();
  emutest::LaunchNoParams();
  ASSERT_EQ(cudaMemcpy(out.data(), device, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(TheCapture().OutputNotComputed(),
            "a launch's outputs were not computed: ATOMS is not computed by the output pass "
            "[emutest::NoParamsKernel()]");
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

TEST(OutputLimitTest, ReadFromTheEnvironmentOrTheDefaultWithTheProblemSaid) {
  std::string problem;
  EXPECT_EQ(OutputLimit(nullptr, &problem), internal::kOutputWarpInstructions);
  EXPECT_EQ(OutputLimit("", &problem), internal::kOutputWarpInstructions);
  EXPECT_EQ(OutputLimit("0", &problem), 0u);
  EXPECT_EQ(OutputLimit("5000000", &problem), 5000000u);
  EXPECT_EQ(problem, "");
  EXPECT_EQ(OutputLimit("-1", &problem), internal::kOutputWarpInstructions);
  EXPECT_THAT(problem, HasSubstr("BANKCHECK_EMULATE_OUTPUT_LIMIT='-1' is not a number of warp instructions"));
  problem.clear();
  EXPECT_EQ(OutputLimit("1234567890123", &problem), internal::kOutputWarpInstructions);
  EXPECT_THAT(problem, HasSubstr("is not a number"));
  // A session refuses to start on it, naming it.
  ASSERT_EQ(setenv("BANKCHECK_EMULATE_OUTPUT_LIMIT", "lots", 1), 0);
  try {
    TheCapture().Start();
    ADD_FAILURE() << "a session started with BANKCHECK_EMULATE_OUTPUT_LIMIT=lots";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr("BANKCHECK_EMULATE_OUTPUT_LIMIT='lots'"));
  }
  ASSERT_EQ(unsetenv("BANKCHECK_EMULATE_OUTPUT_LIMIT"), 0);
  EXPECT_NO_THROW(TheCapture().Start());
  TheCapture().Abandon();
}

TEST_F(EmulatedSessionTest, AttributionByASecondRunIsNotEmulated) {
  EXPECT_THROW(AttributeInstructions([] { emutest::LaunchNoParams(); }), Error);
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
