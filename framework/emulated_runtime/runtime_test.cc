#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "core/records/launch_emulation.h"
#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/runtime_test_kernels.h"

namespace bankcheck::emulate::runtime {
namespace {

using ::testing::HasSubstr;

constexpr char kParamsKernel[] = "_ZN7emutest12ParamsKernelEPKfPfiNS_4PairEc";
constexpr char kNoParamsKernel[] = "_ZN7emutest14NoParamsKernelEv";

// Stands in for the SASS evaluator: the parameter layout the host ABI gives ParamsKernel (what
// EIATTR_KPARAM_INFO says for it), and a record or an undecided launch as the test asks.
class FakeFatbinEmulator final : public FatbinEmulator {
 public:
  explicit FakeFatbinEmulator(bool decide) : decide_(decide) {
    KernelInfo params;
    params.mangled = kParamsKernel;
    params.params = {{0, 0, 8}, {1, 8, 8}, {2, 16, 4}, {3, 24, 16}, {4, 40, 1}};
    kernels_[kParamsKernel] = params;
    KernelInfo none;
    none.mangled = kNoParamsKernel;
    none.static_shared_bytes = 40 * 1024;  // what the limit on dynamic shared memory counts with
    kernels_[kNoParamsKernel] = none;
  }
  const KernelInfo* Describe(const void* fatbin, const std::string& mangled) override {
    fatbins.push_back(fatbin);
    const auto found = kernels_.find(mangled);
    return found == kernels_.end() ? nullptr : &found->second;
  }
  Emulation Emulate(const void* /*fatbin*/, const LaunchToEmulate& launch) override {
    Emulation emulation;
    if (!decide_) {
      emulation.undecided =
          Undecided{"a load from global memory (LDG.E at pc 0x0090) feeds the address of STS", 0x1a0, "STS",
                    "kernels/x.cu", 42};
      return emulation;
    }
    LaunchRecord record;
    record.loads().instructions = launch.grid.x * 2;
    record.loads().wavefronts = launch.grid.x * 2;
    record.loads().ideal_wavefronts = launch.grid.x * 2;
    emulation.record = record;
    return emulation;
  }
  std::vector<const void*> fatbins;

 private:
  bool decide_;
  std::map<std::string, KernelInfo> kernels_;
};

class RuntimeTest : public ::testing::Test {
 protected:
  void Use(bool decide) {
    auto evaluator = std::make_unique<FakeFatbinEmulator>(decide);
    evaluator_ = evaluator.get();
    TheCapture().SetEmulator(std::move(evaluator));
  }
  void SetUp() override {
    Use(true);
    TheCapture().Abandon();
    TheCapture().TakeNotEmulated();
  }
  void TearDown() override { TheCapture().Abandon(); }
  FakeFatbinEmulator* evaluator_ = nullptr;
};

TEST_F(RuntimeTest, InstallsItselfAsTheProcessEmulation) {
  EXPECT_EQ(bankcheck::internal::InstalledLaunchEmulation(), &TheCapture());
}

TEST_F(RuntimeTest, NvccRegistrationNamesEveryHostStub) {
  const RegisteredKernel* params = TheCapture().Find(emutest::ParamsKernelStub());
  ASSERT_NE(params, nullptr);
  EXPECT_EQ(params->mangled, kParamsKernel);
  EXPECT_NE(params->fatbin, nullptr);
  const RegisteredKernel* none = TheCapture().Find(emutest::NoParamsKernelStub());
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->mangled, kNoParamsKernel);
  // One .cu file, one fatbin, starting with the fatbin magic.
  EXPECT_EQ(params->fatbin, none->fatbin);
  uint32_t magic = 0;
  std::memcpy(&magic, params->fatbin, sizeof(magic));
  EXPECT_EQ(magic, 0xBA55ED50u);
  EXPECT_EQ(TheCapture().Find(&magic), nullptr);
}

TEST_F(RuntimeTest, RecordsALaunchWithItsShapeAndParameterBytes) {
  TheCapture().Start();
  const auto* in = reinterpret_cast<const float*>(uintptr_t{0x1111222233334444});
  auto* out = reinterpret_cast<float*>(uintptr_t{0x5555666677778888});
  emutest::LaunchParams(in, out, -7, {9, 2.5}, 'x', dim3(4, 2), dim3(64, 2), 512);
  const std::vector<LaunchToEmulate> recorded = TheCapture().Recorded();
  ASSERT_EQ(recorded.size(), 1u);
  const LaunchToEmulate& launch = recorded[0];
  EXPECT_EQ(launch.mangled, kParamsKernel);
  EXPECT_EQ(launch.grid, (Dim3{4, 2, 1}));
  EXPECT_EQ(launch.block, (Dim3{64, 2, 1}));
  EXPECT_EQ(launch.dynamic_shared_bytes, 512u);
  ASSERT_EQ(launch.param_bytes.size(), 41u);
  std::vector<uint8_t> expected(41, 0);
  const int n = -7;
  const emutest::Pair pair{9, 2.5};
  const char c = 'x';
  std::memcpy(&expected[0], &in, 8);
  std::memcpy(&expected[8], &out, 8);
  std::memcpy(&expected[16], &n, 4);
  std::memcpy(&expected[24], &pair, 16);
  std::memcpy(&expected[40], &c, 1);
  // Padding inside Pair is whatever the caller's copy held: compare the fields' bytes.
  EXPECT_EQ(std::vector<uint8_t>(launch.param_bytes.begin(), launch.param_bytes.begin() + 28),
            std::vector<uint8_t>(expected.begin(), expected.begin() + 28));
  EXPECT_EQ(std::vector<uint8_t>(launch.param_bytes.begin() + 32, launch.param_bytes.end()),
            std::vector<uint8_t>(expected.begin() + 32, expected.end()));
  ASSERT_FALSE(evaluator_->fatbins.empty());
  EXPECT_EQ(evaluator_->fatbins[0], TheCapture().Find(emutest::ParamsKernelStub())->fatbin);
}

TEST_F(RuntimeTest, CudaLaunchKernelIsRecordedAsAStubLaunchIs) {
  TheCapture().Start();
  EXPECT_EQ(cudaLaunchKernel(emutest::NoParamsKernelStub(), dim3(5), dim3(32), nullptr, 0, nullptr),
            cudaSuccess);
  const std::vector<LaunchToEmulate> recorded = TheCapture().Recorded();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].mangled, kNoParamsKernel);
  EXPECT_EQ(recorded[0].grid, (Dim3{5, 1, 1}));
  EXPECT_TRUE(recorded[0].param_bytes.empty());
}

TEST_F(RuntimeTest, LaunchesOutsideASessionAreAcceptedAndNotRecorded) {
  emutest::LaunchNoParams();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  TheCapture().Start();
  EXPECT_TRUE(TheCapture().Recorded().empty());
  EXPECT_FALSE(evaluator_->fatbins.empty())
      << "its kernel is read: its outputs are computed as a recorded one's";
}

TEST_F(RuntimeTest, FinishEmulatesEachLaunchInOrder) {
  TheCapture().Start();
  emutest::LaunchNoParams();
  emutest::LaunchParams(nullptr, nullptr, 1, {1, 1.0}, 'a', dim3(7), dim3(32), 0);
  const std::vector<LaunchRecord> records = TheCapture().Finish();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kernel, "emutest::NoParamsKernel()");
  EXPECT_EQ(records[0].mangled_kernel, kNoParamsKernel);
  EXPECT_EQ(records[0].grid, (Dim3{3, 1, 1}));
  EXPECT_EQ(records[0].counted_by, CountedBy::kEmulated);
  EXPECT_EQ(records[0].attributed_launches, 1u);
  EXPECT_EQ(records[0].loads().instructions, 6u);
  EXPECT_EQ(records[1].mangled_kernel, kParamsKernel);
  EXPECT_EQ(records[1].loads().instructions, 14u);
  // Recording stopped with Finish.
  emutest::LaunchNoParams();
  EXPECT_TRUE(TheCapture().Recorded().empty());
}

TEST_F(RuntimeTest, AnUndecidedLaunchNamesItsInstructionAndLineAndStaysTheCasesReason) {
  Use(false);
  TheCapture().Start();
  emutest::LaunchNoParams();
  try {
    TheCapture().Finish();
    FAIL() << "an undecided launch must not give a record";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotEmulated);
    EXPECT_THAT(e.what(), HasSubstr("LDG.E at pc 0x0090"));
    EXPECT_THAT(e.what(), HasSubstr("kernels/x.cu:42"));
    EXPECT_THAT(e.what(), HasSubstr("STS at pc 0x1a0 of emutest::NoParamsKernel()"));
  }
  EXPECT_THAT(TheCapture().TakeNotEmulated(), HasSubstr("kernels/x.cu:42"));
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
}

TEST_F(RuntimeTest, AKernelTheEvaluatorDoesNotKnowFailsTheSessionSayingWhatToBuild) {
  TheCapture().Start();
  struct Unknown final : FatbinEmulator {
    const KernelInfo* Describe(const void*, const std::string&) override { return nullptr; }
    Emulation Emulate(const void*, const LaunchToEmulate&) override { return {}; }
  };
  TheCapture().SetEmulator(std::make_unique<Unknown>());
  emutest::LaunchNoParams();
  try {
    TheCapture().Finish();
    FAIL() << "a kernel without sm_90 code must fail the session";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr("CUDA_ARCHITECTURES 90"));
  }
}

TEST_F(RuntimeTest, EntryPointsThatAreNotEmulatedFailAndBecomeTheCasesReason) {
  TheCapture().Start();
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaGraphCreate(&graph, 0), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch),
            cudaErrorNotSupported);
  void* entry = &graph;
  EXPECT_EQ(cudaGetDriverEntryPointByVersion("cuMemAdvise", &entry, 12000, cudaEnableDefault, nullptr),
            cudaErrorNotSupported);
  EXPECT_EQ(entry, nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
  // The first one is the reason; a session that saw it decides nothing.
  try {
    TheCapture().Finish();
    FAIL() << "a session after an entry point that is not emulated must not give records";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotEmulated);
    EXPECT_STREQ(e.what(), "not emulated: cudaGraphInstantiate with flags");
  }
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "not emulated: cudaGraphInstantiate with flags");
  // A driver function stood in for, at a version whose signature is another one's.
  EXPECT_EQ(cudaGetDriverEntryPointByVersion("cuCtxCreate", &entry, 12050, cudaEnableDefault, nullptr),
            cudaErrorNotSupported);
  EXPECT_THAT(TheCapture().TakeNotEmulated(), HasSubstr("the driver function cuCtxCreate (version 12050)"));
  cudaGraphDestroy(graph);
}

TEST_F(RuntimeTest, ACaseBeginsWithoutWhatAnEarlierCaseLeft) {
  // A case's unsupported call leaves the thread's last error and the note; the next case of the
  // same program must see neither (its cudaGetLastError after a launch would fail).
  void* entry = nullptr;
  EXPECT_EQ(cudaGetDriverEntryPointByVersion("cuMemAdvise", &entry, 12000, cudaEnableDefault, nullptr),
            cudaErrorNotSupported);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorNotSupported);
  TheCapture().BeginCase();
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
}

TEST_F(RuntimeTest, AFunctionNoModuleRegisteredIsNotEmulated) {
  int not_a_kernel = 0;
  EXPECT_EQ(cudaLaunchKernel(&not_a_kernel, dim3(1), dim3(1), nullptr, 0, nullptr),
            cudaErrorInvalidDeviceFunction);
  EXPECT_THAT(TheCapture().TakeNotEmulated(), HasSubstr("no module registered"));
  EXPECT_EQ(cudaLaunchKernel(emutest::NoParamsKernelStub(), dim3(1), dim3(2048), nullptr, 0, nullptr),
            cudaErrorInvalidValue);
}

// Launches the GPU refuses are refused with cudart's error codes, recorded or not (the limits of
// sm_90: grid 2^31-1 x 65535 x 65535, block 1024 x 1024 x 64 and 1024 threads).
TEST_F(RuntimeTest, LaunchesTheGpuRefusesAreRefused) {
  const void* stub = emutest::NoParamsKernelStub();
  for (const bool recording : {false, true}) {
    if (recording) TheCapture().Start();
    for (const auto& [grid, block] : std::vector<std::pair<dim3, dim3>>{{dim3(1, 65536), dim3(32)},
                                                                        {dim3(1, 1, 65536), dim3(32)},
                                                                        {dim3(2147483648u), dim3(32)},
                                                                        {dim3(0), dim3(32)},
                                                                        {dim3(1), dim3(1, 1, 65)},
                                                                        {dim3(1), dim3(1025)},
                                                                        {dim3(1), dim3(64, 16, 2)}}) {
      EXPECT_EQ(cudaLaunchKernel(stub, grid, block, nullptr, 0, nullptr), cudaErrorInvalidValue)
          << grid.x << "x" << grid.y << "x" << grid.z << " blocks of " << block.x << "x" << block.y << "x"
          << block.z;
      EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
    }
    EXPECT_EQ(cudaLaunchKernel(stub, dim3(2147483647u, 65535, 65535), dim3(1024), nullptr, 0, nullptr),
              cudaSuccess);
    EXPECT_EQ(cudaLaunchKernel(stub, dim3(1), dim3(1, 16, 64), nullptr, 0, nullptr), cudaSuccess);
  }
  EXPECT_EQ(TheCapture().Recorded().size(), 2u);
}

// Dynamic shared memory: 48 KiB less the kernel's static shared memory without the attribute, up to
// 227 KiB with static shared memory with it; more is cudaErrorInvalidValue, as cudart answers.
TEST_F(RuntimeTest, DynamicSharedMemoryOverTheKernelsLimitIsRefused) {
  const void* stub = emutest::ParamsKernelStub();
  const auto launch = [&](size_t shared) {
    cudaGetLastError();  // what an earlier call left
    emutest::LaunchParams(nullptr, nullptr, 1, {1, 1.0}, 'a', dim3(1), dim3(32), shared);
    return cudaGetLastError();
  };
  EXPECT_EQ(launch(48 * 1024), cudaSuccess);
  EXPECT_EQ(launch(48 * 1024 + 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024 + 1),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(stub, cudaFuncAttributeMaxDynamicSharedMemorySize, -1),
            cudaErrorInvalidValue);
  ASSERT_EQ(cudaFuncSetAttribute(stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024), cudaSuccess);
  EXPECT_EQ(launch(100 * 1024), cudaSuccess);
  EXPECT_EQ(launch(100 * 1024 + 1), cudaErrorInvalidValue);
  int not_a_kernel = 0;
  EXPECT_EQ(cudaFuncSetAttribute(&not_a_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024),
            cudaErrorInvalidDeviceFunction);
  // The static shared memory counts once the kernel's module is read (at a recorded launch): 40 KiB
  // static leaves 8 KiB.
  TheCapture().Start();
  const void* none = emutest::NoParamsKernelStub();
  EXPECT_EQ(cudaLaunchKernel(none, dim3(1), dim3(32), nullptr, 8 * 1024, nullptr), cudaSuccess);
  EXPECT_EQ(cudaLaunchKernel(none, dim3(1), dim3(32), nullptr, 8 * 1024 + 1, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(TheCapture().Recorded().size(), 1u);
  ASSERT_EQ(cudaFuncSetAttribute(stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 0), cudaSuccess);
}

// A request larger than the device fails as on the GPU (the rounding of size + 255 wrapped and a
// huge request got a tiny allocation); the total held is bounded by the device's memory too: the
// measured device's (cudaGetDeviceProperties' totalGlobalMem).
TEST_F(RuntimeTest, AllocationsLargerThanTheDeviceFail) {
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  const size_t total = prop.totalGlobalMem;
  ASSERT_GT(total, size_t{40} << 30);
  void* device = &device;
  EXPECT_EQ(cudaMalloc(&device, SIZE_MAX), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaMalloc(&device, SIZE_MAX - 100), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaMalloc(&device, total + 1), cudaErrorMemoryAllocation);
  EXPECT_EQ(device, &device);  // untouched
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  // All but 20 GiB, never touched: anonymous pages cost the host nothing until written.
  void* big = nullptr;
  ASSERT_EQ(cudaMalloc(&big, total - (size_t{20} << 30)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&device, size_t{30} << 30), cudaErrorMemoryAllocation);  // 10 GiB more than it has
  EXPECT_EQ(cudaFree(big), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&device, size_t{30} << 30), cudaSuccess);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
}

TEST_F(RuntimeTest, DeviceMemoryIsZeroedAlignedHostMemory) {
  void* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 1000), cudaSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(device) % 256, 0u);
  std::vector<unsigned char> host(1000, 0xAB);
  ASSERT_EQ(cudaMemcpy(host.data(), device, 1000, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(host, std::vector<unsigned char>(1000, 0));
  ASSERT_EQ(cudaMemset(device, 0x5A, 10), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(static_cast<char*>(device) + 10, 0x11, 10, nullptr), cudaSuccess);
  std::vector<unsigned char> back(20);
  ASSERT_EQ(cudaMemcpy(back.data(), device, 20, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[0], 0x5A);
  EXPECT_EQ(back[19], 0x11);
  const std::vector<unsigned char> source(1000, 7);
  ASSERT_EQ(cudaMemcpy(device, source.data(), 1000, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(host.data(), device, 1000, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(host, source);
  EXPECT_EQ(cudaFree(device), cudaSuccess);
  EXPECT_EQ(cudaFree(host.data()), cudaErrorInvalidValue);  // not from cudaMalloc
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
}

TEST_F(RuntimeTest, OneEmulatedSm90DeviceAndNoDriver) {
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_STREQ(prop.name, "bankcheck emulated sm_90");
  EXPECT_EQ(prop.major, 9);
  EXPECT_EQ(prop.minor, 0);
  EXPECT_EQ(prop.warpSize, 32);
  EXPECT_EQ(cudaGetDeviceProperties(&prop, 1), cudaErrorInvalidDevice);
  int driver = -1;
  ASSERT_EQ(cudaDriverGetVersion(&driver), cudaSuccess);
  EXPECT_EQ(driver, 0);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorNotSupported), "cudaErrorNotSupported");
}

TEST_F(RuntimeTest, StreamsAndSynchronizationAreInOrderNoOps) {
  cudaStream_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
  EXPECT_NE(a, b);
  EXPECT_EQ(cudaStreamSynchronize(a), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(a), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(b), cudaSuccess);
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
