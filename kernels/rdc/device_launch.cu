// A kernel that launches a kernel from the device (dynamic parallelism), compiled with relocatable
// device code (-rdc=true: suites/CMakeLists.txt builds this folder apart from kernels/*.cu). The
// parent stores and reads 256 floats conflict-free (8 STS, 8 LDS of 8 wavefronts); its thread 0
// launches the 2-way child of kernels/graphs.cu's pattern (8 STS, 8 LDS of 16 wavefronts).
// CUPTI's SASS Metrics API counts no device-launched kernel, so bankcheck refuses to count this
// launch that way (the error names kRangeProfiler); a range-profiler session folds the child into
// the parent's record, as ncu does: 16 instructions and 24 wavefronts each way, 1.5-way.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../kernel_support.h"
#include "bankcheck/core/error.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"

namespace bankcheck::kernels::device_launch {
// A named namespace: with relocatable device code, kernels in an anonymous one get names made from
// the file's path (__nv_static_...), which would differ between checkouts.

constexpr unsigned kThreads = 256;

__global__ void DeviceLaunchedChild2Way(const float* in, float* out) {
  __shared__ float buf[kThreads * 2];
  const unsigned tid = threadIdx.x;
  buf[tid * 2] = in[tid];
  __syncthreads();
  out[tid] = buf[((tid + 1) % kThreads) * 2];
}

__global__ void DeviceLaunchingParent(const float* in, float* out) {
  __shared__ float row[kThreads];
  const unsigned tid = threadIdx.x;
  row[tid] = in[tid];  // bankcheck: conflict-free
  __syncthreads();
  out[kThreads + tid] = row[(tid + 1) % kThreads];  // bankcheck: conflict-free
  if (tid == 0) DeviceLaunchedChild2Way<<<1, kThreads>>>(in, out);
}

namespace {
BANKCHECK_REGISTER_CASES([] {
  KernelCase c;
  c.name = "launch_paths/device_launch";
  c.description =
      "a parent kernel (conflict-free) whose thread 0 launches a 2-way child from the device; the parent's "
      "record "
      "includes the child";
  // The parent's record holds both kernels: 16 loads and 16 stores, 24 wavefronts each against 16
  // ideal. A statement about the launch as a whole: the parent's lines are conflict-free, and the
  // child's are not in its instruction table (SASS metrics miss the child).
  c.expect[MemoryKind::kSharedLoad].ways = 1.5;
  c.expect[MemoryKind::kSharedStore].ways = 1.5;
  c.session.counters = SessionOptions::Counters::kRangeProfiler;  // SASS metrics miss the child
  c.run = [](CaseContext& ctx) {
    const std::vector<float> in = RandomIntegerFloats(kThreads, 0x7A3u);
    const DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> out(2 * kThreads);
    out.Fill(0xFF);
    ctx.Measure([&] { DeviceLaunchingParent<<<1, kThreads>>>(d_in.get(), out.get()); });
    BANKCHECK_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> expected(2 * kThreads);
    for (unsigned i = 0; i < kThreads; ++i) expected[i] = expected[kThreads + i] = in[(i + 1) % kThreads];
    ExpectVectorsEqual(out.ToHost(), expected, "parent and child output");
    ASSERT_EQ(ctx.records().size(), 1u) << "the child has no record of its own";
    // Under ncu (benchmarks/ncu_crosscheck.sh) nothing is counted here; with
    // BANKCHECK_COUNTERS=range-profiler the default session is a range-profiler one too.
    if (CountersDisabled() || CountersFor(SessionOptions{}) != SessionOptions::Counters::kSassMetrics) return;
    // Through SASS metrics (the default) the child would be lost: bankcheck refuses, naming the fix.
    try {
      Measure([&] { DeviceLaunchingParent<<<1, kThreads>>>(d_in.get(), out.get()); });
      ADD_FAILURE() << "counting a device-launching kernel through SASS metrics was not refused";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kUnmeasurable) << e.what();
      EXPECT_NE(std::string(e.what()).find("kRangeProfiler"), std::string::npos) << e.what();
    }
  };
  RegisterKernelCase(std::move(c));
});

}  // namespace
}  // namespace bankcheck::kernels::device_launch
