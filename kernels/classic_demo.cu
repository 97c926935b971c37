// The classic bank-conflict demonstration: 256 threads (one block) write and read smem[tid * k]
// for k = 1 (conflict-free), 2 (2-way) and 32 (32-way; every lane of a warp in bank 0).
//
// Each thread stores its input at smem[tid * k] and, after __syncthreads, loads the element that
// thread (tid + 32) % 256 stored: the same addresses within the warp (so the same bank pattern)
// but another warp's value, which the compiler cannot forward from the store. A thread that reads
// back its own just-stored element can have the load removed (research §4). 8 warps, one load and
// one store instruction each; the two lines say each case's ways.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = 256;

template <int kStride>
__global__ void __launch_bounds__(kThreads)
    ClassicStrideDemo(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float smem[kThreads * kStride];  // k = 32: 32 KB
  const unsigned tid = threadIdx.x;
  // bankcheck: 32-way in classic_demo/smem_tid_x32/*, 2-way in classic_demo/smem_tid_x2/*, conflict-free
  smem[tid * kStride] = in[tid];
  __syncthreads();
  // bankcheck: 32-way in classic_demo/smem_tid_x32/*, 2-way in classic_demo/smem_tid_x2/*, conflict-free
  out[tid] = smem[((tid + 32) % kThreads) * kStride];
}

template <int kStride>
void RegisterClassicCase(const std::string& variant) {
  KernelCase c;
  c.name = "classic_demo/" + variant + "/1x256";
  c.description = "256 threads write and read smem[tid * " + std::to_string(kStride) + "]";
  c.predict = [] {
    return PredictLaunch(Dim3{1}, Dim3{kThreads},
                         {SharedStore("smem[tid * k]", 4, [](Dim3, Dim3 t) { return 4u * t.x * kStride; }),
                          SharedLoad("smem[((tid + 32) % 256) * k]", 4,
                                     [](Dim3, Dim3 t) { return 4u * ((t.x + 32) % kThreads) * kStride; })});
  };
  c.run = [](CaseContext& ctx) {
    const std::vector<float> in = RandomIntegerFloats(kThreads, 0xC1A55u + kStride);
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> d_out(kThreads);
    d_out.Fill(0xFF);
    ctx.Measure([&] { ClassicStrideDemo<kStride><<<1, kThreads>>>(d_in.get(), d_out.get()); });
    std::vector<float> expected(kThreads);
    for (unsigned t = 0; t < kThreads; ++t) expected[t] = in[(t + 32) % kThreads];
    ExpectVectorsEqual(d_out.ToHost(), expected, "classic demo output");
  };
  RegisterKernelCase(std::move(c));
}

BANKCHECK_REGISTER_CASES([] {
  RegisterClassicCase<1>("smem_tid");
  RegisterClassicCase<2>("smem_tid_x2");
  RegisterClassicCase<32>("smem_tid_x32");
});

}  // namespace
}  // namespace bankcheck::kernels
