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
// load (the shared load instruction count below catches it if a compiler removes it).

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/bank_model.h"
#include "bankcheck/cuda_check.h"
#include "bankcheck/kernel_registry.h"
#include "kernel_support.h"
#include "puzzle_kernel.cuh"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = kPuzzleThreads;
constexpr unsigned kBlocks = 32;
constexpr unsigned kSize = kThreads * kBlocks;  // 8K elements

template <bool kTwoWay>
void RegisterPuzzleCase(const std::string& variant, const std::string& description, uint64_t conflicts) {
  KernelCase c;
  c.name = "puzzle/" + variant + "/32x256";
  c.description = description;
  // 256 load and 256 store instructions per launch (32 blocks x 8 warps).
  c.expect[SharedKind::kLoad].ways = c.expect[SharedKind::kStore].ways = kTwoWay ? 2 : 1;
  c.expect[SharedKind::kLoad].instructions = c.expect[SharedKind::kStore].instructions =
      kBlocks * kThreads / 32;
  c.expect[SharedKind::kLoad].conflicts = c.expect[SharedKind::kStore].conflicts = conflicts;
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
  // Measured (research table, per launch): buf[tid] 256 / 256 / 0 for loads and stores;
  // buf[(tid*2)%256] 256 inst / 512 wavefronts / 256 conflicts for loads and stores.
  RegisterPuzzleCase<false>("no_conflict", "out = (in + 10) * 2 staged through buf[tid]: conflict-free", 0);
  RegisterPuzzleCase<true>("two_way", "out = (in + 10) * 2 staged through buf[(tid * 2) % 256]: 2-way", 256);
});

}  // namespace
}  // namespace bankcheck::kernels
