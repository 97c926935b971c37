// Atomics on shared memory (ATOMS, MemoryKind::kSharedAtomic).
//
//   histogram  8 blocks of 256 threads; each thread adds 4 input values to a 256-bin histogram in
//              shared memory with atomicAdd(&bins[v], 1), then each thread adds one bin to the
//              global histogram. nvcc compiles the shared atomicAdd of the constant 1 to
//              ATOMS.POPC.INC.32: the lanes that name the same address are combined (a population
//              count) into one increment. Inputs either random over the 256 bins (256bins) or all
//              the same value (1bin: every lane of every warp increments one word).
//   add_s<s>   4 single-warp blocks; lane i does atomicAdd(&s[i * stride], addend) 4 times with
//              addends read from global memory (not a constant, so it stays ATOMS.ADD): stride 1
//              puts the lanes in 32 banks, stride 32 puts 32 distinct words in bank 0. The buffer
//              is zeroed before and read back after with consecutive lanes at consecutive words
//              (conflict-free whatever the stride).
//
// Each access's line says its ways. The atomics' instructions and wavefronts come from the bank
// rule (a warp's atomics cost the largest number of distinct words one bank holds; lanes on one
// word count once). Their ideal wavefronts (and so ways) are the SASS Metrics API's
// per-instruction ideal, exact: it equalled ncu's Source page instruction by instruction on these
// cases (one ideal wavefront per ATOMS: docs/counters.md), so ways are checked.
//   histogram_256bins  256 instructions, the sum over them of the largest number of distinct bins
//                      one bank gets (the CPU model recomputes it from the inputs of
//                      HistogramValues): 28 instructions 2-way, 168 3-way, 54 4-way, 6 5-way: 806
//                      wavefronts, 3.15-way.
//   histogram_1bin     every lane names one word, combined into one increment: conflict-free.
//   add_s1, s2, s32    32 banks: conflict-free; words 2i: 16 banks, 2 words each: 2-way; 32 words
//                      in bank 0: 32-way.
//
// The zeroing and read-back stores and loads are plain STS/LDS of consecutive words: conflict-free.
//
// SASS (nvcc 13.0, sm_80 and sm_90), per warp: histogram one STS, 4 ATOMS.POPC.INC.32, one LDS (and
// a global RED/REDG for the global histogram); add_s<s> s STS, 4 ATOMS.ADD, s LDS.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kWarp = 32;

// ---------------------------------------------------------------------------------------------
// Histogram.

constexpr unsigned kBins = 256;
constexpr unsigned kHistThreads = kBins;  // one bin per thread for zeroing and the global add
constexpr unsigned kHistBlocks = 8;
constexpr unsigned kItemsPerThread = 4;
constexpr unsigned kItemsPerBlock = kHistThreads * kItemsPerThread;

// Block b's items are values[b * 1024 + i * 256 + t] for thread t, item i (coalesced).
__global__ void __launch_bounds__(kHistThreads)
    SharedHistogram(const uint32_t* __restrict__ values, unsigned* __restrict__ hist) {
  __shared__ unsigned bins[kBins];
  const unsigned t = threadIdx.x;
  bins[t] = 0;  // bankcheck: conflict-free
  __syncthreads();
  const uint32_t* block_values = values + static_cast<size_t>(blockIdx.x) * kItemsPerBlock;
#pragma unroll
  for (unsigned i = 0; i < kItemsPerThread; ++i)
    // bankcheck: 3.15-way in shared_atomics/histogram_256bins, conflict-free
    atomicAdd(&bins[block_values[i * kHistThreads + t] % kBins], 1u);
  __syncthreads();
  atomicAdd(&hist[t], bins[t]);  // bankcheck: conflict-free; the load of bins[t] (the atomic is global)
}

// The inputs: random over the bins, or every item the same value.
std::vector<uint32_t> HistogramValues(bool one_bin) {
  const size_t n = static_cast<size_t>(kHistBlocks) * kItemsPerBlock;
  if (one_bin) return std::vector<uint32_t>(n, 37u);
  const std::vector<int32_t> ints = RandomInts(n, 0x4157u, 0, kBins - 1);
  return std::vector<uint32_t>(ints.begin(), ints.end());
}

void RegisterHistogramCase(bool one_bin) {
  KernelCase c;
  c.name = std::string("shared_atomics/histogram_") + (one_bin ? "1bin" : "256bins");
  c.description =
      std::string("8 blocks x 256 threads x 4 items: atomicAdd(&bins[v], 1) on 256 shared bins, ") +
      (one_bin ? "every item in one bin" : "random items");
  c.predict = [one_bin] {
    const std::vector<uint32_t> values = HistogramValues(one_bin);
    const auto bin_of_thread = [](Dim3, Dim3 t) { return 4u * t.x; };
    return PredictLaunch(Dim3{kHistBlocks}, Dim3{kHistThreads},
                         {SharedStore("bins[t] = 0", 4, bin_of_thread),
                          SharedAtomic(
                              "atomicAdd(&bins[v], 1)", 4,
                              [values](Dim3 b, Dim3 t, uint32_t i) {
                                return 4u * (values[b.x * kItemsPerBlock + i * kHistThreads + t.x] % kBins);
                              },
                              kItemsPerThread),
                          SharedLoad("bins[t]", 4, bin_of_thread)});
  };
  c.run = [one_bin](CaseContext& ctx) {
    const std::vector<uint32_t> values = HistogramValues(one_bin);
    DeviceBuffer<uint32_t> d_values(values);
    DeviceBuffer<unsigned> d_hist(kBins);
    d_hist.Fill(0);
    ctx.Measure([&] { SharedHistogram<<<kHistBlocks, kHistThreads>>>(d_values.get(), d_hist.get()); });
    std::vector<unsigned> expected(kBins, 0);
    for (const uint32_t v : values) ++expected[v % kBins];
    ExpectVectorsEqual(d_hist.ToHost(), expected, "histogram");
  };
  RegisterKernelCase(std::move(c));
}

// ---------------------------------------------------------------------------------------------
// Strided atomicAdd.

constexpr unsigned kAddBlocks = 4;
constexpr unsigned kAddsPerLane = 4;

// Block b: s[0 .. 32 * kStride) = 0; lane i adds addends[b * 128 + k * 32 + i] to s[i * kStride]
// for k < 4; then the block's 32 * kStride words go to out[b * 32 * kStride ...].
template <int kStride>
__global__ void __launch_bounds__(kWarp)
    StridedSharedAtomicAdd(const unsigned* __restrict__ addends, unsigned* __restrict__ out) {
  __shared__ unsigned s[kWarp * kStride];
  const unsigned lane = threadIdx.x;
#pragma unroll
  for (int k = 0; k < kStride; ++k) s[k * kWarp + lane] = 0;  // bankcheck: conflict-free
  __syncthreads();
  const unsigned* block_addends = addends + static_cast<size_t>(blockIdx.x) * kWarp * kAddsPerLane;
#pragma unroll
  // bankcheck: 32-way in shared_atomics/add_s32, 2-way in shared_atomics/add_s2, conflict-free
  for (unsigned k = 0; k < kAddsPerLane; ++k) atomicAdd(&s[lane * kStride], block_addends[k * kWarp + lane]);
  __syncthreads();
  unsigned* block_out = out + static_cast<size_t>(blockIdx.x) * kWarp * kStride;
#pragma unroll
  // bankcheck: conflict-free
  for (int k = 0; k < kStride; ++k) block_out[k * kWarp + lane] = s[k * kWarp + lane];
}

template <int kStride>
void RegisterStridedAddCase() {
  KernelCase c;
  c.name = "shared_atomics/add_s" + std::to_string(kStride);
  c.description = "4 single-warp blocks: 4x atomicAdd(&s[lane * " + std::to_string(kStride) +
                  "], addend) per lane, addends from global memory";
  c.predict = [] {
    const auto sweep = [](Dim3, Dim3 t, uint32_t k) { return 4u * (k * kWarp + t.x); };
    return PredictLaunch(Dim3{kAddBlocks}, Dim3{kWarp},
                         {SharedStore("s[k * 32 + lane] = 0", 4, sweep, kStride),
                          SharedAtomic(
                              "atomicAdd(&s[lane * stride], addend)", 4,
                              [](Dim3, Dim3 t) { return 4u * t.x * kStride; }, kAddsPerLane),
                          SharedLoad("s[k * 32 + lane]", 4, sweep, kStride)});
  };
  c.run = [](CaseContext& ctx) {
    const std::vector<int32_t> ints =
        RandomInts(size_t{kAddBlocks} * kWarp * kAddsPerLane, 0xADD0u + kStride, 0, 1000);
    const std::vector<unsigned> addends(ints.begin(), ints.end());
    DeviceBuffer<unsigned> d_addends(addends);
    DeviceBuffer<unsigned> d_out(size_t{kAddBlocks} * kWarp * kStride);
    d_out.Fill(0xFF);
    ctx.Measure(
        [&] { StridedSharedAtomicAdd<kStride><<<kAddBlocks, kWarp>>>(d_addends.get(), d_out.get()); });
    std::vector<unsigned> expected(d_out.size(), 0);
    for (size_t b = 0; b < kAddBlocks; ++b)
      for (size_t lane = 0; lane < kWarp; ++lane)
        for (size_t k = 0; k < kAddsPerLane; ++k)
          expected[(b * kWarp + lane) * kStride] += addends[(b * kAddsPerLane + k) * kWarp + lane];
    ExpectVectorsEqual(d_out.ToHost(), expected, "shared words after the atomics");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterSharedAtomicsCases() {
  RegisterHistogramCase(false);
  RegisterHistogramCase(true);
  RegisterStridedAddCase<1>();
  RegisterStridedAddCase<2>();
  RegisterStridedAddCase<32>();
}

BANKCHECK_REGISTER_CASES(RegisterSharedAtomicsCases);

}  // namespace
}  // namespace bankcheck::kernels
