// A test of your own beside the kernel suite: GoogleTest TEST()s that measure launches and check
// them with bankcheck's matchers (README, "What a test looks like"), built by
// bankcheck_add_gpu_test(): one CTest test labelled gpu, skipped with the reason where no usable
// GPU is found.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/testing/matchers.h"
#include "bankcheck/testing/testing.h"

namespace {

__global__ void StridedStore(const float* in, float* out, int stride) {
  __shared__ float buf[256 * 32];
  buf[threadIdx.x * stride] = in[threadIdx.x];  // `stride` words apart
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x * stride];
}

TEST(MyOwnTest, StrideTwoStoresAreTwoWayAndStrideOneConflictFree) {
  BANKCHECK_SKIP_WITHOUT_GPU();  // skip with the reason (or fail with BANKCHECK_REQUIRE_GPU=1)
  using namespace bankcheck::gtest;
  const std::vector<float> in(256, 1.0f);
  bankcheck::DeviceBuffer<float> d_in(in), d_out(256);
  const bankcheck::LaunchRecord two =
      MeasureLaunch([&] { StridedStore<<<1, 256>>>(d_in.get(), d_out.get(), 2); });
  EXPECT_THAT(two, ::testing::AllOf(StoreWays(2), StoreInstructions(8)));
  const bankcheck::LaunchRecord one =
      MeasureLaunch([&] { StridedStore<<<1, 256>>>(d_in.get(), d_out.get(), 1); });
  EXPECT_THAT(one, ConflictFree());
  EXPECT_EQ(d_out.ToHost(), in);
}

}  // namespace
