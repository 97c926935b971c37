// The output pass's memory through the stand-in runtime (docs/security.md, "Computed outputs stay
// inside the program's allocations"): a crafted kernel of one block of 32 threads that stores single
// bytes to every other byte, within the pass's instruction and page limits, run by the real
// ComputeOutputs (its listing stands for ParamsKernel's code) and written back by the Capture, three
// launches in a session, in a child process whose address space is limited to 1.5 GiB.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "emulate/internal/limits.h"
#include "emulate/internal/output_pass.h"
#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/runtime_test_kernels.h"

namespace bankcheck::emulate::runtime {
namespace {

constexpr char kParamsKernel[] = "_ZN7emutest12ParamsKernelEPKfPfiNS_4PairEc";
constexpr uint64_t kAddressSpaceLimit = uint64_t{3} << 29;  // 1.5 GiB

// ParamsKernel(in, out, n, ...) as a byte scatter: for r < n, thread t stores its index to
// out[2 * t + 64 * i + 4096 * r] for i < 64. Each byte is a run of its own: the unknown byte beside
// it was never written.
std::string ScatterListing() {
  std::string text = std::string(".text.") + kParamsKernel + ":\n";
  uint32_t pc = 0;
  const auto add = [&](const std::string& line) {
    char at[32];
    std::snprintf(at, sizeof at, "        /*%04x*/ ", pc);
    text += at + line + " ;\n";
    pc += 0x10;
  };
  add("S2R R0, SR_TID.X");
  add("LDC.64 R2, c[0x0][0x218]");
  add("IMAD.WIDE.U32 R6, R0, 0x2, R2");
  add("LDC R8, c[0x0][0x220]");
  add("IMAD.MOV.U32 R5, RZ, RZ, RZ");
  text += ".L_x_1:\n";
  add("IMAD.WIDE.U32 R2, R5, 0x1000, R6");
  char store[64];
  for (int i = 0; i < 64; ++i) {
    std::snprintf(store, sizeof store, "STG.E.U8 desc[UR4][R2.64+0x%x], R0", 64 * i);
    add(store);
  }
  add("VIADD R5, R5, 0x1");
  add("ISETP.NE.AND P0, PT, R5, R8, PT");
  add("@P0 BRA `(.L_x_1)");
  add("EXIT");
  return text;
}

// The real output pass over the listing above, with the stand-in's default limits.
class ScatterFatbinEmulator final : public FatbinEmulator {
 public:
  ScatterFatbinEmulator() : module_(Module::FromListings(ScatterListing(), "")) {
    info_ = *module_.Find(kParamsKernel);
    info_.params = {{0, 0, 8}, {1, 8, 8}, {2, 16, 4}, {3, 24, 16}, {4, 40, 1}};
  }
  const KernelInfo* Describe(const void* /*fatbin*/, const std::string& /*mangled*/) override {
    return &info_;
  }
  Emulation Emulate(const void* /*fatbin*/, const LaunchToEmulate& launch) override {
    return emulate::Emulate(module_, launch);
  }
  bool MayWriteGlobal(const void* /*fatbin*/, const std::string& /*mangled*/) override { return true; }
  ComputedOutputs ComputeOutputs(const void* /*fatbin*/, const LaunchToEmulate& launch) override {
    EmulationLimits limits;
    limits.max_warp_instructions = internal::kOutputWarpInstructions;
    return emulate::ComputeOutputs(module_, launch, limits);
  }

 private:
  Module module_;
  KernelInfo info_;
};

class OutputBoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = TheCapture().SetEmulator(std::make_unique<ScatterFatbinEmulator>());
    TheCapture().Abandon();
    TheCapture().TakeNotEmulated();
  }
  void TearDown() override {
    TheCapture().Abandon();
    TheCapture().SetEmulator(std::move(previous_));
  }
  // One launch of `rounds` rounds into `out` (4096 bytes a round).
  static cudaError_t Scatter(void* out, int rounds) {
    const void* in = nullptr;
    emutest::Pair pair{0, 0.0};
    char c = 0;
    void* args[] = {&in, &out, &rounds, &pair, &c};
    return cudaLaunchKernel(emutest::ParamsKernelStub(), dim3(1), dim3(32), args, 0, nullptr);
  }
  // In a child process: three launches in a session within 1.5 GiB of address space, and what the
  // read-back says; exits 0 when nothing failed.
  [[noreturn]] static void ScatterThreeTimesInBoundedMemory(void* out, int rounds) {
    const rlimit limit{kAddressSpaceLimit, kAddressSpaceLimit};
    if (setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(3);
    TheCapture().Start();
    TheCapture().BeginCase();
    for (int launch = 0; launch < 3; ++launch)
      if (Scatter(out, rounds) != cudaSuccess) std::_Exit(4);
    unsigned char first = 0;
    if (cudaMemcpy(&first, out, 1, cudaMemcpyDeviceToHost) != cudaSuccess) std::_Exit(5);
    std::fprintf(stderr, "read-back: %s\n", TheCapture().OutputNotComputed().c_str());
    std::_Exit(0);
  }
  std::unique_ptr<FatbinEmulator> previous_;
};

TEST_F(OutputBoundsTest, AFewScatteredBytesAreComputed) {
  void* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 2 * 4096), cudaSuccess);
  TheCapture().Start();
  TheCapture().BeginCase();
  ASSERT_EQ(Scatter(out, 2), cudaSuccess);
  const std::vector<LaunchToEmulate> recorded = TheCapture().Recorded();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].memory, nullptr)
      << "computed: its snapshot, which would save every byte written, let go";
  std::vector<unsigned char> host(2 * 4096, 0xee);
  ASSERT_EQ(cudaMemcpy(host.data(), out, 1, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(TheCapture().OutputNotComputed(), "");
  ASSERT_EQ(cudaMemcpy(host.data(), out, host.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  for (size_t at = 0; at < host.size(); at += 2) EXPECT_EQ(host[at], at % 64 / 2) << at;
  EXPECT_NE(TheCapture().OutputNotComputed(), "") << "the bytes between were never written";
  cudaFree(out);
}

// 3,600 rounds: 244,885 warp instructions (within 250,000), 3,600 pages (within 8,192), 7,372,800
// bytes stored, each its own run. It once took about 940 MiB in the pass and died with bad_alloc on
// its third launch.
TEST_F(OutputBoundsTest, AByteScatterStaysWithinBoundedMemoryForThreeLaunches) {
  constexpr int kRounds = 3600;
  void* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, size_t{kRounds} * 4096), cudaSuccess);
  EXPECT_EXIT(ScatterThreeTimesInBoundedMemory(out, kRounds), ::testing::ExitedWithCode(0),
              "read-back: .*over the output pass's limit");
  cudaFree(out);
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
