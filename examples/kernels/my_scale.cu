#include <gtest/gtest.h>
#include "bankcheck/core/bank_model.h"      // optional: the access pattern, for the CPU model
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"

namespace {
__global__ void Scale(const float* in, float* out) {
  __shared__ float buf[256 * 2];
  buf[threadIdx.x * 2] = in[threadIdx.x];            // stride 2 words: 2-way
  __syncthreads();
  out[threadIdx.x] = 3 * buf[((threadIdx.x + 1) % 256) * 2];  // a neighbour's slot: not forwarded
}

void Register() {
  bankcheck::KernelCase c;
  c.name = "my_scale/stride2";          // topic/variant: also the baseline key
  c.description = "256 threads scale through smem[tid * 2]";
  c.expect[bankcheck::MemoryKind::kSharedLoad].ways = 2;  // what the hardware does: measure first
  c.expect[bankcheck::MemoryKind::kSharedStore].ways = 2;
  c.expect[bankcheck::MemoryKind::kSharedLoad].instructions = 8;  // catches removed or widened accesses
  c.predict = [] {                      // optional: lets CPU-only CI check the annotation
    const auto slot = [](bankcheck::Dim3, bankcheck::Dim3 t) { return 8u * t.x; };
    return bankcheck::PredictLaunch({1}, {256}, {bankcheck::SharedStore("buf[2t]", 4, slot),
                                                bankcheck::SharedLoad("buf[2t]", 4, slot)});
  };
  c.run = [](bankcheck::CaseContext& ctx) {
    std::vector<float> in(256);
    for (int i = 0; i < 256; ++i) in[i] = float(i);
    bankcheck::DeviceBuffer<float> d_in(in), d_out(256);
    ctx.Measure([&] { Scale<<<1, 256>>>(d_in.get(), d_out.get()); });
    const std::vector<float> out = d_out.ToHost();
    for (int i = 0; i < 256; ++i) EXPECT_EQ(out[i], 3.0f * float((i + 1) % 256)) << i;
  };
  bankcheck::RegisterKernelCase(std::move(c));
}
BANKCHECK_REGISTER_CASES(Register);
}  // namespace
