// The first GPU tests: a kernel runs and computes the right thing, and a counter session measures
// it. They skip with the reason on a machine without a usable GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/testing/matchers.h"
#include "bankcheck/testing/testing.h"

namespace {

using bankcheck::DeviceBuffer;
using namespace bankcheck::gtest;
using ::testing::AllOf;

// Each of 256 threads stores its value at smem[tid * stride % 512] (a conflict-free,
// 2-way or ... pattern), then reads its neighbour's slot back and writes it out.
template <int kStride>
__global__ void RoundTripThroughShared(const int* in, int* out) {
  __shared__ int smem[256 * kStride];
  const unsigned tid = threadIdx.x;
  smem[tid * kStride] = in[tid];
  __syncthreads();
  out[tid] = smem[((tid + 1) % 256) * kStride];
}

std::vector<int> Input() {
  std::vector<int> in(256);
  std::iota(in.begin(), in.end(), 1000);
  return in;
}

std::vector<int> Expected() {
  std::vector<int> out(256);
  for (int i = 0; i < 256; ++i) out[i] = 1000 + (i + 1) % 256;
  return out;
}

TEST(SmokeTest, KernelRunsAndComputesTheRightValues) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> in(Input());
  DeviceBuffer<int> out(256);
  out.Fill(0xFF);
  RoundTripThroughShared<1><<<1, 256>>>(in.get(), out.get());
  BANKCHECK_CUDA_CHECK(cudaGetLastError());
  EXPECT_EQ(out.ToHost(), Expected());
}

TEST(SmokeTest, CounterSessionMeasuresOneLaunch) {
  BANKCHECK_SKIP_WITHOUT_GPU();
  DeviceBuffer<int> in(Input());
  DeviceBuffer<int> out(256);
  out.Fill(0xFF);
  const bankcheck::LaunchRecord r =
      MeasureLaunch([&] { RoundTripThroughShared<2><<<1, 256>>>(in.get(), out.get()); });
  EXPECT_EQ(out.ToHost(), Expected());
  EXPECT_THAT(r.kernel, ::testing::HasSubstr("RoundTripThroughShared<2>"));
  EXPECT_EQ(r.block, (bankcheck::Dim3{256, 1, 1}));
  // 8 warps, one store and one load each; stride 2 words is 2-way.
  EXPECT_THAT(r,
              AllOf(LoadInstructions(8), StoreInstructions(8), LoadWays(2), StoreWays(2), Conflicts(8, 8)));
}

}  // namespace
