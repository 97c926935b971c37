// The classic offset experiment: one warp runs 10,000 steps; in step i lane `lane` writes shared
// memory at word lane * offset + 32 * i, then reads the word its neighbour lane (lane + 1) % 32
// wrote in the same step, at ((lane + 1) % 32) * offset + 32 * i. Offsets 1..32, one case each.
//
// The words live in a ring of 4,096 words (16 KB), indexed modulo 4,096: the ring size and the
// step advance are multiples of 32, so every step has the bank pattern of lane * offset (bank
// (lane * offset) % 32), and since |a - b| * offset < 1,024 for two lanes a != b the 32 lanes'
// words are distinct in every step: gcd(offset, 32) ways for every load and every store.
//
// The load reads another lane's value, so the compiler cannot forward it from the store, and the
// loaded values feed an accumulator that is written to global memory at the end, so the load
// cannot be dropped. __syncwarp orders the store before the neighbour's load and the load before
// the next step's stores (which may hit a word another lane is still to read).

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kWarp = 32;
constexpr unsigned kRingWords = 4096;  // a power of two >= 32 * 32
constexpr int kSteps = 10000;

__global__ void __launch_bounds__(kWarp)
    OffsetExperimentKernel(const uint32_t* __restrict__ seeds, uint32_t* __restrict__ out, int offset,
                           int steps) {
  __shared__ uint32_t ring[kRingWords];
  const unsigned lane = threadIdx.x;
  const unsigned next = (lane + 1) % kWarp;
  uint32_t acc = seeds[lane];
  for (int i = 0; i < steps; ++i) {
    const unsigned advance = kWarp * static_cast<unsigned>(i);
    ring[(lane * offset + advance) % kRingWords] = acc + static_cast<uint32_t>(i);
    __syncwarp();
    acc = acc * 3u + ring[(next * offset + advance) % kRingWords];
    __syncwarp();
  }
  out[lane] = acc;
}

std::vector<uint32_t> HostOffsetExperiment(const std::vector<uint32_t>& seeds, int steps) {
  std::vector<uint32_t> acc = seeds;
  std::vector<uint32_t> stored(kWarp);
  for (int i = 0; i < steps; ++i) {
    for (unsigned lane = 0; lane < kWarp; ++lane) stored[lane] = acc[lane] + static_cast<uint32_t>(i);
    for (unsigned lane = 0; lane < kWarp; ++lane) acc[lane] = acc[lane] * 3u + stored[(lane + 1) % kWarp];
  }
  return acc;
}

void RegisterOffsetCase(int offset) {
  KernelCase c;
  c.name = "offset_experiment/offset_" + std::to_string(offset);
  c.description = "one warp, 10,000 steps of a shared store and load at lane * " + std::to_string(offset) +
                  " (+32 words per step)";
  // The law the experiment shows, for every offset at once: a formula of the case's parameter,
  // where a line annotation would list the cases of each number of ways.
  c.expect[MemoryKind::kSharedLoad].ways = c.expect[MemoryKind::kSharedStore].ways =
      static_cast<double>(std::gcd(offset, static_cast<int>(kWarp)));
  c.predict = [offset] {
    const auto word = [offset](unsigned lane, uint32_t step) -> uint64_t {
      return 4u * ((lane * static_cast<unsigned>(offset) + kWarp * step) % kRingWords);
    };
    return PredictLaunch(
        Dim3{1}, Dim3{kWarp},
        {SharedStore(
             "ring[lane * offset + 32 * i]", 4, [word](Dim3, Dim3 t, uint32_t i) { return word(t.x, i); },
             kSteps),
         SharedLoad(
             "ring[next * offset + 32 * i]", 4,
             [word](Dim3, Dim3 t, uint32_t i) { return word((t.x + 1) % kWarp, i); }, kSteps)});
  };
  c.run = [offset](CaseContext& ctx) {
    std::vector<uint32_t> seeds(kWarp);
    std::mt19937 rng(0x0FF5E7u + static_cast<uint32_t>(offset));
    for (auto& s : seeds) s = static_cast<uint32_t>(rng());
    DeviceBuffer<uint32_t> d_seeds(seeds);
    DeviceBuffer<uint32_t> d_out(kWarp);
    d_out.Fill(0xFF);
    ctx.Measure([&] { OffsetExperimentKernel<<<1, kWarp>>>(d_seeds.get(), d_out.get(), offset, kSteps); });
    ExpectVectorsEqual(d_out.ToHost(), HostOffsetExperiment(seeds, kSteps), "accumulators");
  };
  RegisterKernelCase(std::move(c));
}

BANKCHECK_REGISTER_CASES([] {
  // gcd(offset, 32) ways, 10,000 instructions each way (the baselines): measured on the H100 and
  // an H200.
  for (int offset = 1; offset <= 32; ++offset) RegisterOffsetCase(offset);
});

}  // namespace
}  // namespace bankcheck::kernels
