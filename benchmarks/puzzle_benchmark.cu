// The two-kernel puzzle, timed: out = (in + 10) * 2 staged through a 256-float shared buffer at
// buf[tid] (conflict-free) or buf[(tid * 2) % 256] (2-way on the store and the load), 256 threads
// per block, at the puzzle's own size (8K elements, 32 blocks) and at 64M elements (memory bound).
//
// What to expect: at 64M elements both kernels run at memory bandwidth and the 2-way version costs
// about nothing (the counters still show its conflicts: a regression test catches them, a timer
// does not). At 8K elements a launch is a few microseconds of launch overhead either way; those are
// timed in batches of back-to-back launches and reported per launch.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "demo_kernels.cuh"
#include "gpu_benchmark.h"

namespace bankcheck::bench {
namespace {

template <bool kTwoWay>
GpuCase PuzzleCase(const std::shared_ptr<DeviceBuffer<float>>& in,
                   const std::shared_ptr<DeviceBuffer<float>>& out, int launches_per_iteration) {
  const size_t elements = in->size();
  GpuCase c;
  c.name = std::string("puzzle/") + (kTwoWay ? "two_way" : "no_conflict") + "/" + std::to_string(elements);
  c.launch = [in, out, elements] { LaunchPuzzle<kTwoWay>(in->get(), out->get(), elements); };
  c.launches_per_iteration = launches_per_iteration;
  c.bytes_per_launch = 2.0 * static_cast<double>(in->bytes());
  c.counters = {{"elements", static_cast<double>(elements)}};
  return c;
}

void AddSize(std::vector<GpuCase>& cases, size_t elements, int launches_per_iteration) {
  auto in = std::make_shared<DeviceBuffer<float>>(PatternFloats(elements, 0x9u));
  auto out = std::make_shared<DeviceBuffer<float>>(elements);
  out->Fill(0);
  cases.push_back(PuzzleCase<false>(in, out, launches_per_iteration));
  cases.push_back(PuzzleCase<true>(in, out, launches_per_iteration));
}

std::vector<GpuCase> MakeCases() {
  std::vector<GpuCase> cases;
  AddSize(cases, size_t{32} * kPuzzleThreads, 100);  // the puzzle: 8K elements, 32 blocks
  AddSize(cases, size_t{64} << 20, 1);               // 64M elements, 262,144 blocks
  return cases;
}

}  // namespace
}  // namespace bankcheck::bench

int main(int argc, char** argv) { return bankcheck::bench::Main(argc, argv, bankcheck::bench::MakeCases); }
