// The two-kernel bank-conflict puzzle: out = (in + 10) * 2 over 8K floats, 32 blocks of 256
// threads, each element staged through a 256-float shared buffer. Both kernels compute identical
// outputs; they differ only in where a thread's element sits in the buffer:
//   no_conflict  buf[tid]                 consecutive words: conflict-free
//   two_way      buf[(tid * 2) % 256]     two lanes per bank: 2-way on the store and the load
// The puzzle's plain (tid * 2) % 256 maps threads t and t + 128 to the same word, a write race
// between two warps that would make the output depend on timing. Threads 128..255 are therefore
// shifted by one word: (tid * 2) % 256 + tid / 128 is a permutation of 0..255. Every lane of a
// warp gets the same shift (tid / 128 is uniform per warp), so the bank pattern of each warp, and
// every count, is that of (tid * 2) % 256.
//
// Each thread reads back the element it stored itself after __syncthreads; nvcc 13 keeps that
// load (the baseline's shared load instruction count, 256 a launch, catches it if a compiler
// removes it). The store and the load state their ways on their lines (puzzle_kernel.cuh).

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"
#include "puzzle_kernel.cuh"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = kPuzzleThreads;
constexpr unsigned kBlocks = 32;
constexpr unsigned kSize = kThreads * kBlocks;  // 8K elements

template <bool kTwoWay>
void RegisterPuzzleCase(const std::string& variant, const std::string& description) {
  KernelCase c;
  c.name = "puzzle/" + variant + "/32x256";
  c.description = description;
  c.predict = [] {
    const auto slot = [](Dim3, Dim3 t) -> uint64_t {
      return 4u * (kTwoWay ? (t.x * 2) % kThreads + t.x / 128 : t.x);
    };
    return PredictLaunch(Dim3{kBlocks}, Dim3{kThreads},
                         {SharedStore("buf[slot]", 4, slot), SharedLoad("buf[slot]", 4, slot)});
  };
  c.run = [](CaseContext& ctx) {
    const std::vector<float> in = RandomIntegerFloats(kSize, 0x9A221Eu);  // the same input for both
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> d_out(kSize);
    d_out.Fill(0xFF);
    ctx.Measure([&] { PuzzleKernel<kTwoWay><<<kBlocks, kThreads>>>(d_in.get(), d_out.get()); });
    std::vector<float> expected(kSize);
    for (size_t i = 0; i < kSize; ++i) expected[i] = (in[i] + 10.0f) * 2.0f;
    ExpectVectorsEqual(d_out.ToHost(), expected, "(in + 10) * 2");
  };
  RegisterKernelCase(std::move(c));
}

BANKCHECK_REGISTER_CASES([] {
  RegisterPuzzleCase<false>("no_conflict", "out = (in + 10) * 2 staged through buf[tid]: conflict-free");
  RegisterPuzzleCase<true>("two_way", "out = (in + 10) * 2 staged through buf[(tid * 2) % 256]: 2-way");
});

}  // namespace
}  // namespace bankcheck::kernels
