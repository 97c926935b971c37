// Cluster launches through the stand-in runtime: cudaLaunchKernelExC's cluster dimension recorded,
// the clusters the GPU refuses refused with its error (measured on an H200, cudart 13.0:
// cudaErrorInvalidClusterSize), a kernel's __cluster_dims__ applied, other launch attributes not
// emulated.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/runtime_test_kernels.h"

namespace bankcheck::emulate::runtime {
namespace {

using ::testing::HasSubstr;

constexpr char kNoParamsKernel[] = "_ZN7emutest14NoParamsKernelEv";

// Stands in for the SASS evaluator: NoParamsKernel, with the __cluster_dims__ a test gives it.
class ClusterFatbinEmulator final : public FatbinEmulator {
 public:
  explicit ClusterFatbinEmulator(Dim3 compiled_cluster) {
    info_.mangled = kNoParamsKernel;
    info_.compiled_cluster = compiled_cluster;
    info_.explicit_cluster = compiled_cluster != Dim3{};
  }
  const KernelInfo* Describe(const void* /*fatbin*/, const std::string& mangled) override {
    return mangled == kNoParamsKernel ? &info_ : nullptr;
  }
  Emulation Emulate(const void* /*fatbin*/, const LaunchToEmulate& /*launch*/) override {
    Emulation emulation;
    emulation.record = LaunchRecord{};
    return emulation;
  }

 private:
  KernelInfo info_;
};

class ClusterLaunchTest : public ::testing::Test {
 protected:
  void Use(Dim3 compiled_cluster) {
    TheCapture().SetEmulator(std::make_unique<ClusterFatbinEmulator>(compiled_cluster));
  }
  void SetUp() override {
    Use(Dim3{});
    TheCapture().Abandon();
    TheCapture().TakeNotEmulated();
    cudaGetLastError();
  }
  void TearDown() override {
    TheCapture().Abandon();
    cudaFuncSetAttribute(emutest::NoParamsKernelStub(), cudaFuncAttributeNonPortableClusterSizeAllowed, 0);
  }
  // NoParamsKernel<<<grid, 32>>> through cudaLaunchKernelExC, in clusters of `cluster`.
  static cudaError_t LaunchInClusters(dim3 grid, dim3 cluster) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = cluster.x;
    attribute.val.clusterDim.y = cluster.y;
    attribute.val.clusterDim.z = cluster.z;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = dim3(32);
    config.attrs = &attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelExC(&config, emutest::NoParamsKernelStub(), nullptr);
  }
};

TEST_F(ClusterLaunchTest, ALaunchRecordsItsClusters) {
  TheCapture().Start();
  EXPECT_EQ(emutest::LaunchNoParamsInClusters(), cudaSuccess);  // nvcc's cudaLaunchKernelEx template
  EXPECT_EQ(LaunchInClusters(dim3(2, 4, 2), dim3(1, 2, 2)), cudaSuccess);
  const std::vector<LaunchToEmulate> recorded = TheCapture().Recorded();
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[0].grid, (Dim3{4, 1, 1}));
  EXPECT_EQ(recorded[0].cluster, (Dim3{2, 1, 1}));
  EXPECT_EQ(recorded[1].cluster, (Dim3{1, 2, 2}));
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(prop.clusterLaunch, 1);
}

TEST_F(ClusterLaunchTest, ClustersTheGpuRefusesAreRefusedWithItsError) {
  TheCapture().Start();
  EXPECT_EQ(LaunchInClusters(dim3(5), dim3(2, 1, 1)), cudaErrorInvalidClusterSize);  // no whole clusters
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidClusterSize);
  EXPECT_EQ(LaunchInClusters(dim3(4, 3), dim3(1, 2, 1)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(LaunchInClusters(dim3(4), dim3(0, 1, 1)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(LaunchInClusters(dim3(8), dim3(8, 1, 1)), cudaSuccess);
  EXPECT_EQ(LaunchInClusters(dim3(16), dim3(16, 1, 1)), cudaErrorInvalidClusterSize);  // over 8: non-portable
  ASSERT_EQ(
      cudaFuncSetAttribute(emutest::NoParamsKernelStub(), cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
      cudaSuccess);
  EXPECT_EQ(LaunchInClusters(dim3(16), dim3(16, 1, 1)), cudaSuccess);
  EXPECT_EQ(LaunchInClusters(dim3(32), dim3(32, 1, 1)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(TheCapture().Recorded().size(), 2u);
  // Outside a session the launch is refused all the same.
  TheCapture().Abandon();
  EXPECT_EQ(LaunchInClusters(dim3(5), dim3(2, 1, 1)), cudaErrorInvalidClusterSize);
}

TEST_F(ClusterLaunchTest, AKernelsClusterDimsApplyToALaunchWithout) {
  Use(Dim3{2, 1, 1});
  TheCapture().Start();
  EXPECT_EQ(cudaLaunchKernel(emutest::NoParamsKernelStub(), dim3(3), dim3(32), nullptr, 0, nullptr),
            cudaErrorInvalidClusterSize);
  EXPECT_EQ(cudaLaunchKernel(emutest::NoParamsKernelStub(), dim3(4), dim3(32), nullptr, 0, nullptr),
            cudaSuccess);
  EXPECT_EQ(TheCapture().Recorded().size(), 1u);
}

TEST_F(ClusterLaunchTest, OtherLaunchAttributesAreNotEmulated) {
  TheCapture().Start();
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributePriority;
  attribute.val.priority = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.attrs = &attribute;
  config.numAttrs = 1;
  EXPECT_EQ(cudaLaunchKernelExC(&config, emutest::NoParamsKernelStub(), nullptr), cudaErrorNotSupported);
  EXPECT_TRUE(TheCapture().Recorded().empty());
  EXPECT_THAT(TheCapture().TakeNotEmulated(),
              HasSubstr("only cudaLaunchAttributeClusterDimension is emulated"));
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
