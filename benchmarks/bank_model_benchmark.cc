// How many warp instructions per second the CPU bank model's fast path (CostWarpAccess) costs,
// reported as items_per_second. Target: at least 10 million on one core.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "bankcheck/core/bank_model.h"

namespace {

constexpr size_t kAccessCount = 4096;  // cycled through, so no one input sits in the branch predictor

// Random 4-byte-aligned addresses in a 48 KiB window: a mix of shared words and conflicts.
std::vector<bankcheck::WarpAccess> RandomAccesses(uint32_t bytes, bool random_masks) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<uint64_t> element(0, 48 * 1024 / bytes - 1);
  std::vector<bankcheck::WarpAccess> accesses(kAccessCount);
  for (bankcheck::WarpAccess& access : accesses) {
    access.bytes = bytes;
    for (int lane = 0; lane < bankcheck::kWarpSize; ++lane) access.SetLane(lane, element(rng) * bytes);
    if (random_masks) access.active_mask = static_cast<uint32_t>(rng());
  }
  return accesses;
}

// Strides 0..63 elements, the patterns kernels actually have.
std::vector<bankcheck::WarpAccess> StridedAccesses(uint32_t bytes) {
  std::vector<bankcheck::WarpAccess> accesses;
  for (size_t i = 0; i < kAccessCount; ++i) {
    accesses.push_back(bankcheck::WarpAccess::Strided(bytes, static_cast<int64_t>(i % 64)));
  }
  return accesses;
}

void RunModel(benchmark::State& state, const std::vector<bankcheck::WarpAccess>& accesses) {
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(bankcheck::CostWarpAccess(accesses[next]));
    next = (next + 1) % accesses.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_RandomAddresses(benchmark::State& state) {
  RunModel(state, RandomAccesses(static_cast<uint32_t>(state.range(0)), /*random_masks=*/false));
}
BENCHMARK(BM_RandomAddresses)->Arg(1)->Arg(4)->Arg(8)->Arg(16);

void BM_RandomAddressesRandomMasks(benchmark::State& state) {
  RunModel(state, RandomAccesses(static_cast<uint32_t>(state.range(0)), /*random_masks=*/true));
}
BENCHMARK(BM_RandomAddressesRandomMasks)->Arg(4);

void BM_Strided(benchmark::State& state) {
  RunModel(state, StridedAccesses(static_cast<uint32_t>(state.range(0))));
}
BENCHMARK(BM_Strided)->Arg(1)->Arg(4)->Arg(8)->Arg(16);

// The launch helper over a 32x32 transpose (4x4 blocks of 32x32 threads, one store and one
// column load per thread): warp instructions per second including the address callbacks.
void BM_PredictLaunchTranspose(benchmark::State& state) {
  using bankcheck::Dim3;
  const std::vector<bankcheck::SharedAccess> accesses = {
      bankcheck::SharedStore("tile[ty][tx]", 4, [](Dim3, Dim3 t) { return 4u * (t.y * 32 + t.x); }),
      bankcheck::SharedLoad("tile[tx][ty]", 4, [](Dim3, Dim3 t) { return 4u * (t.x * 32 + t.y); }),
  };
  for (auto _ : state) {
    benchmark::DoNotOptimize(bankcheck::PredictLaunch(Dim3{4, 4}, Dim3{32, 32}, accesses));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 1024);
}
BENCHMARK(BM_PredictLaunchTranspose);

}  // namespace

BENCHMARK_MAIN();
