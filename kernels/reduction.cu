// Parallel sum reduction of int blocks of 256 (exact), the three classic shared-memory versions:
//   interleaved_divergent  if (tid % (2*s) == 0) sdata[tid] += sdata[tid + s], s = 1, 2, .., 128:
//                          divergent warps, but every access stays within 32 consecutive words per
//                          warp: conflict-free.
//   interleaved_strided    index = 2*s*tid; if (index < 256) sdata[index] += sdata[index + s]: the
//                          usual "fix" for the divergence; the strided index causes bank conflicts
//                          (2-way at s = 1, 4-way at s = 2, 8-way at s = 4, 8, 16, then 4, 2, 1 as
//                          fewer lanes stay active).
//   sequential             s = 128, 64, .., 1; if (tid < s) sdata[tid] += sdata[tid + s]:
//                          consecutive words, conflict-free.
// Each block writes its sum to out[blockIdx.x].
//
// Counting, per block: 8 conflict-free stores fill sdata; each of the 8 steps has two loads and a
// store; thread 0 reads sdata[0] at the end (1 load, 1 active lane). nvcc 13 compiles the `if` in
// the loop to predicated LDS/STS, so every warp issues them in every step, but the H100 counts a
// shared instruction only when at least one of its lanes is active (measured: 95 loads, not the
// 129 issued, per block of the divergent version). The CPU model (`predict` below) counts the
// same. Each access's line says its ways: the strided step's line is 3.92-way (94 load and 47
// store wavefronts over 24 and 12 instructions per block), the rest conflict-free.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = 256;

enum class Reduction { kInterleavedDivergent, kInterleavedStrided, kSequential };

// The loop bounds use blockDim.x (launched with 256) as the classic kernels do; a compile-time
// bound would unroll the loop and let nvcc merge sdata[2t] and sdata[2t + 1] into one LDS.64.
template <Reduction kKind>
__global__ void __launch_bounds__(kThreads) ReduceKernel(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int sdata[kThreads];
  const unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];  // bankcheck: conflict-free
  __syncthreads();
  if constexpr (kKind == Reduction::kSequential) {
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) sdata[tid] += sdata[tid + s];  // bankcheck: conflict-free
      __syncthreads();
    }
  } else {
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
      if constexpr (kKind == Reduction::kInterleavedDivergent) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];  // bankcheck: conflict-free
      } else {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x) sdata[index] += sdata[index + s];  // bankcheck: ld 3.92-way, st 3.92-way
      }
      __syncthreads();
    }
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];  // bankcheck: conflict-free
}

// The word a thread updates in step `step` (and its partner is `s` words further), or nullopt when
// the thread sits the step out.
template <Reduction kKind>
std::optional<uint64_t> UpdatedWord(unsigned tid, unsigned step, unsigned* s) {
  if constexpr (kKind == Reduction::kSequential) {
    *s = (kThreads / 2) >> step;
    return tid < *s ? std::optional<uint64_t>(tid) : std::nullopt;
  } else if constexpr (kKind == Reduction::kInterleavedDivergent) {
    *s = 1u << step;
    return tid % (2 * *s) == 0 ? std::optional<uint64_t>(tid) : std::nullopt;
  } else {
    *s = 1u << step;
    const unsigned index = 2 * *s * tid;
    return index < kThreads ? std::optional<uint64_t>(index) : std::nullopt;
  }
}

template <Reduction kKind>
PredictedCounts PredictReduction(unsigned blocks) {
  constexpr uint32_t kSteps = 8;  // log2(256)
  const auto word = [](const Dim3&, const Dim3& t, uint32_t step) -> std::optional<uint64_t> {
    unsigned s = 0;
    const std::optional<uint64_t> w = UpdatedWord<kKind>(t.x, step, &s);
    return w ? std::optional<uint64_t>(4 * *w) : std::nullopt;
  };
  const auto partner = [](const Dim3&, const Dim3& t, uint32_t step) -> std::optional<uint64_t> {
    unsigned s = 0;
    const std::optional<uint64_t> w = UpdatedWord<kKind>(t.x, step, &s);
    return w ? std::optional<uint64_t>(4 * (*w + s)) : std::nullopt;
  };
  return PredictLaunch(
      Dim3{blocks}, Dim3{kThreads},
      {SharedStore("sdata[tid]", 4, [](const Dim3&, const Dim3& t) { return 4 * t.x; }),
       SharedLoad("sdata[i]", 4, word, kSteps), SharedLoad("sdata[i + s]", 4, partner, kSteps),
       SharedStore("sdata[i]", 4, word, kSteps),
       SharedLoad("sdata[0]", 4, [](const Dim3&, const Dim3& t) -> std::optional<uint64_t> {
         return t.x == 0 ? std::optional<uint64_t>(0) : std::nullopt;
       })});
}

template <Reduction kKind>
void RegisterReductionCase(const std::string& variant, unsigned blocks) {
  KernelCase c;
  c.name = "reduction/" + variant + "/" + std::to_string(blocks) + "x256";
  c.description =
      std::to_string(blocks) + " block(s) of 256 ints summed in shared memory, " + variant + " addressing";
  c.predict = [blocks] { return PredictReduction<kKind>(blocks); };
  c.run = [blocks](CaseContext& ctx) {
    const size_t n = static_cast<size_t>(blocks) * kThreads;
    const std::vector<int32_t> in = RandomInts(n, 0x5E0u + blocks);
    std::vector<int32_t> expected(blocks, 0);
    for (size_t i = 0; i < n; ++i) expected[i / kThreads] += in[i];
    DeviceBuffer<int32_t> d_in(in);
    DeviceBuffer<int32_t> d_out(blocks);
    d_out.Fill(0xFF);
    ctx.Measure([&] { ReduceKernel<kKind><<<blocks, kThreads>>>(d_in.get(), d_out.get()); });
    ExpectVectorsEqual(d_out.ToHost(), expected, "block sums");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterReductionCases() {
  for (unsigned blocks : {1u, 1024u}) {
    RegisterReductionCase<Reduction::kInterleavedDivergent>("interleaved_divergent", blocks);
    RegisterReductionCase<Reduction::kInterleavedStrided>("interleaved_strided", blocks);
    RegisterReductionCase<Reduction::kSequential>("sequential", blocks);
  }
}

BANKCHECK_REGISTER_CASES(RegisterReductionCases);

}  // namespace
}  // namespace bankcheck::kernels
