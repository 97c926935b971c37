// cudaFuncGetAttributes and the occupancy calculator of the stand-in runtime, from the test
// kernels' own cubin metadata (read by the SASS evaluator, as in an emulated program), against what
// the sm_90 GPU answered for the same kernels (runtime/data/sm_90_answers.inc: the probe links
// runtime_test_kernels.cu built as this test's kernels are).

#include <cuda_runtime.h>  // cudaOccupancyMaxPotentialBlockSize, a template over the runtime API
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "emulated_runtime/internal/device_table.h"
#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/measured_answers.h"
#include "emulated_runtime/runtime_test_kernels.h"
#include "emulated_runtime/sass_tools_test_support.h"

namespace bankcheck::emulate::runtime {
namespace {

using emutest::Measured;
using emutest::MeasuredError;

class KernelAttributesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!emutest::UseConfiguredSassTools()) GTEST_SKIP() << emutest::kNoSassTools;
    previous_ = TheCapture().SetEmulator(MakeSassFatbinEmulator());
    TheCapture().TakeNotEmulated();
    cudaGetLastError();
  }
  void TearDown() override {
    if (previous_) TheCapture().SetEmulator(std::move(previous_));
  }
  // Each attribute and occupancy the probe measured for `name` (answers "kernel.<name>.*" and
  // "occupancy.<name>.<block>.<dynamic shared>").
  static void ExpectMeasured(const std::string& name, const void* function) {
    cudaFuncAttributes a{};
    const std::string k = "kernel." + name + ".";
    ASSERT_EQ(cudaFuncGetAttributes(&a, function), MeasuredError(k + "get"))
        << TheCapture().TakeNotEmulated();
    EXPECT_EQ(a.sharedSizeBytes, static_cast<size_t>(Measured(k + "sharedSizeBytes"))) << name;
    EXPECT_EQ(a.constSizeBytes, static_cast<size_t>(Measured(k + "constSizeBytes"))) << name;
    EXPECT_EQ(a.localSizeBytes, static_cast<size_t>(Measured(k + "localSizeBytes"))) << name;
    EXPECT_EQ(a.maxThreadsPerBlock, Measured(k + "maxThreadsPerBlock")) << name;
    EXPECT_EQ(a.numRegs, Measured(k + "numRegs")) << name;
    EXPECT_EQ(a.ptxVersion, Measured(k + "ptxVersion")) << name;
    EXPECT_EQ(a.binaryVersion, Measured(k + "binaryVersion")) << name;
    EXPECT_EQ(a.cacheModeCA, Measured(k + "cacheModeCA")) << name;
    EXPECT_EQ(a.maxDynamicSharedSizeBytes, Measured(k + "maxDynamicSharedSizeBytes")) << name;
    EXPECT_EQ(a.preferredShmemCarveout, Measured(k + "preferredShmemCarveout")) << name;
    EXPECT_EQ(a.clusterDimMustBeSet, Measured(k + "clusterDimMustBeSet")) << name;
    EXPECT_EQ(a.requiredClusterWidth, Measured(k + "requiredClusterWidth")) << name;
    EXPECT_EQ(a.requiredClusterHeight, Measured(k + "requiredClusterHeight")) << name;
    EXPECT_EQ(a.requiredClusterDepth, Measured(k + "requiredClusterDepth")) << name;
    EXPECT_EQ(a.clusterSchedulingPolicyPreference, Measured(k + "clusterSchedulingPolicyPreference")) << name;
    EXPECT_EQ(a.nonPortableClusterSizeAllowed, Measured(k + "nonPortableClusterSizeAllowed")) << name;
    int checked = 0;
    for (const auto& [answer, value] : emutest::MeasuredAnswers()) {
      const std::string prefix = "occupancy." + name + ".";
      if (answer.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string shape = answer.substr(prefix.size());
      const int block = std::stoi(shape.substr(0, shape.find('.')));
      const size_t shared = std::stoull(shape.substr(shape.find('.') + 1));
      int blocks = -1;
      const cudaError_t error =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, block, shared);
      cudaGetLastError();
      EXPECT_EQ(error == cudaSuccess ? blocks : -static_cast<int>(error), value) << answer;
      ++checked;
    }
    EXPECT_GT(checked, 100) << name;
  }
  std::unique_ptr<FatbinEmulator> previous_;
};

TEST_F(KernelAttributesTest, AttributesAndOccupancyAreTheGpusForTheSameKernels) {
  ExpectMeasured("NoParamsKernel", emutest::NoParamsKernelStub());
  ExpectMeasured("ManyRegistersKernel", emutest::ManyRegistersKernelStub());
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
}

// ParamsKernel has __shared__ variables: its section's 1280 bytes hold 256 of them (the GPU's
// sharedSizeBytes) and the driver's reserved part, which is not decided in general: refused,
// naming the kernel, where the GPU answered.
TEST_F(KernelAttributesTest, AKernelWithStaticSharedMemoryIsRefusedNamingIt) {
  ASSERT_EQ(MeasuredError("kernel.ParamsKernel.get"), cudaSuccess);
  cudaFuncAttributes a{};
  EXPECT_EQ(cudaFuncGetAttributes(&a, emutest::ParamsKernelStub()), cudaErrorNotSupported);
  EXPECT_EQ(
      TheCapture().TakeNotEmulated(),
      "not emulated: the attributes of emutest::ParamsKernel(float const*, float*, int, emutest::Pair, char) "
      "(its static shared memory: how much of its shared section the driver reserves was not decided)");
  cudaGetLastError();
}

TEST_F(KernelAttributesTest, AFunctionNoModuleRegisteredIsRefusedAsTheGpuRefusesIt) {
  int not_a_kernel = 0;
  cudaFuncAttributes a{};
  EXPECT_EQ(cudaFuncGetAttributes(&a, &not_a_kernel), MeasuredError("kernel.not_a_kernel"));
  int blocks = 0;
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, &not_a_kernel, 32, 0),
            MeasuredError("kernel.not_a_kernel"));
  cudaGetLastError();
}

// A launcher written as real code writes one (runtime_test_kernels.cu, nvcc's host code) links and
// runs on the stand-in: its block size from cudaOccupancyMaxPotentialBlockSize (the toolkit's
// template over cudaFuncGetAttributes, cudaDeviceGetAttribute and the occupancy calculator), its
// grid from cudaDevAttrMultiProcessorCount, copies and sets on its own stream, timed with events.
TEST_F(KernelAttributesTest, ALauncherPicksItsShapeWithTheCalculatorAndRuns) {
  std::vector<float4> host(24 * 1024, float4{1.0f, 2.0f, 3.0f, 4.0f});
  const size_t in_bytes = host.size() * sizeof(float4);
  float4* in = nullptr;
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&in), in_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&out), 1024 * sizeof(float)), cudaSuccess);
  TheCapture().Start();
  const emutest::LauncherRun run =
      emutest::LaunchAsALauncher(host.data(), in_bytes, in, out, 1024 * sizeof(float));
  const std::vector<LaunchToEmulate> recorded = TheCapture().Recorded();
  TheCapture().Abandon();
  cudaFree(in);
  cudaFree(out);
  ASSERT_EQ(run.error, cudaSuccess) << TheCapture().TakeNotEmulated();
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
  EXPECT_EQ(run.multiprocessors, DeviceProperties().multiProcessorCount);
  // The block chosen is one the kernel may have, and keeps at least as many threads resident as
  // each block size (of whole warps) the GPU was asked about; where the GPU was asked about it,
  // as many blocks fit as the GPU said.
  EXPECT_LE(run.block, Measured("kernel.ManyRegistersKernel.maxThreadsPerBlock"));
  const std::string prefix = "occupancy.ManyRegistersKernel.";
  int compared = 0;
  for (const auto& [answer, blocks] : emutest::MeasuredAnswers()) {
    if (answer.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string shape = answer.substr(prefix.size());
    const int block = std::stoi(shape.substr(0, shape.find('.')));
    if (shape.substr(shape.find('.') + 1) != "0" || block % 32 != 0 || block == 0 ||
        block > Measured("kernel.ManyRegistersKernel.maxThreadsPerBlock"))
      continue;
    EXPECT_GE(run.block * run.blocks_per_multiprocessor, block * blocks) << answer;
    if (block == run.block) {
      EXPECT_EQ(run.blocks_per_multiprocessor, blocks) << answer;
    }
    ++compared;
  }
  EXPECT_GT(compared, 5);
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].mangled, "_ZN7emutest19ManyRegistersKernelEPK6float4Pf");
  EXPECT_EQ(recorded[0].grid,
            (Dim3{static_cast<uint32_t>(run.multiprocessors * run.blocks_per_multiprocessor), 1, 1}));
  EXPECT_EQ(recorded[0].block, (Dim3{static_cast<uint32_t>(run.block), 1, 1}));
  EXPECT_GT(run.blocks_per_multiprocessor, 0);
  EXPECT_FLOAT_EQ(run.milliseconds, 0.001f);  // one record apart (events.cc)
}

// A required cluster shape set at run time changes how the kernel's launches run, which the stand-in
// does not follow (nor answer in cudaFuncGetAttributes): refused, naming the attribute.
TEST(KernelAttributeSettingTest, ARequiredClusterShapeIsRefusedNamingItself) {
  TheCapture().TakeNotEmulated();
  for (const auto& [attribute, name] :
       {std::pair{cudaFuncAttributeRequiredClusterWidth, "RequiredClusterWidth"},
        std::pair{cudaFuncAttributeRequiredClusterHeight, "RequiredClusterHeight"},
        std::pair{cudaFuncAttributeRequiredClusterDepth, "RequiredClusterDepth"}}) {
    EXPECT_EQ(cudaFuncSetAttribute(emutest::NoParamsKernelStub(), attribute, 2), cudaErrorNotSupported)
        << name;
    EXPECT_EQ(TheCapture().TakeNotEmulated(),
              std::string("not emulated: cudaFuncSetAttribute(cudaFuncAttribute") + name + ")");
  }
  cudaGetLastError();
}

// The carve-out set is answered back; the occupancy with one, not measured, is refused, naming
// itself.
TEST_F(KernelAttributesTest, TheOccupancyWithACarveOutIsRefusedNamingItself) {
  ASSERT_EQ(
      cudaFuncSetAttribute(emutest::NoParamsKernelStub(), cudaFuncAttributePreferredSharedMemoryCarveout, 50),
      cudaSuccess);
  cudaFuncAttributes a{};
  EXPECT_EQ(cudaFuncGetAttributes(&a, emutest::NoParamsKernelStub()), cudaSuccess);
  EXPECT_EQ(a.preferredShmemCarveout, 50);
  int blocks = -1;
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, emutest::NoParamsKernelStub(), 32, 0),
            cudaErrorNotSupported);
  EXPECT_EQ(TheCapture().TakeNotEmulated(),
            "not emulated: the occupancy of a kernel with a preferred shared memory carve-out (the GPU's "
            "answers with one were not measured)");
  EXPECT_EQ(cudaFuncSetAttribute(emutest::NoParamsKernelStub(),
                                 cudaFuncAttributePreferredSharedMemoryCarveout, 101),
            cudaErrorInvalidValue);
  ASSERT_EQ(
      cudaFuncSetAttribute(emutest::NoParamsKernelStub(), cudaFuncAttributePreferredSharedMemoryCarveout, -1),
      cudaSuccess);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, emutest::NoParamsKernelStub(), 32, 0),
            cudaSuccess);
  cudaGetLastError();
}

// The toolkit's cudaOccupancyMaxPotentialBlockSize, a template over the stand-in's attributes and
// occupancy, picks the block size and grid the GPU picked for the probe's kernels.
TEST_F(KernelAttributesTest, ThePotentialBlockSizeIsTheGpus) {
  for (const auto& [name, function] :
       {std::pair{"NoParamsKernel", emutest::NoParamsKernelStub()},
        std::pair{"ManyRegistersKernel", emutest::ManyRegistersKernelStub()}}) {
    int min_grid = 0, block = 0;
    EXPECT_EQ(static_cast<long long>(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, function, 0, 0)),
              Measured(std::string("potential_block.") + name + ".get"));
    EXPECT_EQ(block, Measured(std::string("potential_block.") + name + ".block")) << name;
    EXPECT_EQ(min_grid, Measured(std::string("potential_block.") + name + ".min_grid")) << name;
  }
}

// The calculator's questions without a rule are refused, naming themselves.
TEST_F(KernelAttributesTest, TheCalculatorsUnmeasuredQuestionsNameThemselves) {
  size_t size = 0;
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&size, emutest::NoParamsKernelStub(), 1, 32),
            cudaErrorNotSupported);
  EXPECT_EQ(TheCapture().TakeNotEmulated(),
            "not emulated: cudaOccupancyAvailableDynamicSMemPerBlock (the stand-in has no rule for it: the "
            "GPU's 30 answers measured by the probe give one value below the 48 KiB default, too few to "
            "derive one)");
  cudaLaunchConfig_t config{};
  int answer = 0;
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(&answer, emutest::NoParamsKernelStub(), &config),
            cudaErrorNotSupported);
  EXPECT_EQ(TheCapture().TakeNotEmulated(),
            "not emulated: cudaOccupancyMaxActiveClusters (its answers were not measured on the GPU)");
  EXPECT_EQ(cudaOccupancyMaxPotentialClusterSize(&answer, emutest::NoParamsKernelStub(), &config),
            cudaErrorNotSupported);
  EXPECT_EQ(TheCapture().TakeNotEmulated(),
            "not emulated: cudaOccupancyMaxPotentialClusterSize (its answers were not measured on the GPU)");
  cudaGetLastError();
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
