#pragma once
// The two-kernel puzzle's kernel: the suite checks it (kernels/puzzle.cu) and the benchmarks time
// it (benchmarks/). out = (in + 10) * 2, each element staged through a 256-float shared buffer:
//   kTwoWay = false  buf[tid]                          consecutive words: conflict-free
//   kTwoWay = true   buf[(tid * 2) % 256 + tid / 128]  two lanes per bank: 2-way store and load
// (the puzzle's plain (tid * 2) % 256 makes threads t and t + 128 race for one word; the shift by
// tid / 128 is the same for every lane of a warp, so the bank pattern and every count are the
// puzzle's). File-local, like transpose_kernel.cuh.

#include <cstddef>

namespace bankcheck::kernels {
namespace {

constexpr unsigned kPuzzleThreads = 256;

template <bool kTwoWay>
__global__ void __launch_bounds__(kPuzzleThreads)
    PuzzleKernel(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float buf[kPuzzleThreads];
  const unsigned tid = threadIdx.x;
  const size_t i = static_cast<size_t>(blockIdx.x) * kPuzzleThreads + tid;
  const unsigned slot = kTwoWay ? (tid * 2) % kPuzzleThreads + tid / 128 : tid;
  buf[slot] = in[i];  // bankcheck: 2-way in puzzle/two_way/*, conflict-free
  __syncthreads();
  out[i] = (buf[slot] + 10.0f) * 2.0f;  // bankcheck: 2-way in puzzle/two_way/*, conflict-free
}

}  // namespace
}  // namespace bankcheck::kernels
