// What an N-way shared-memory bank conflict costs in time: a kernel whose time is shared loads,
// each lane reading element lane * stride of a shared buffer again and again, for 4-, 8- and
// 16-byte elements at several strides. Expect time proportional to the measured ways (the ld_ways
// counter) as long as the kernel stays shared-memory bound: stride 2 ~2x stride 1, 32 ~32x, while
// an odd stride (33, 17, 9) is conflict-free again. `bankcheck plot` draws time relative to stride 1
// against the measured ways.
//
// The kernel: 8 warps per block, 8 blocks per SM (full occupancy on Ampere and Hopper). Each thread
// runs four independent chains of loads; each next address depends on the value just loaded
// (through a mask that is 0 at run time, which the compiler cannot know), so no load can be hoisted
// or removed, and every element's bytes feed the sum so 8- and 16-byte loads stay one instruction.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/cuda_check.h"
#include "gpu_benchmark.h"

namespace bankcheck::bench {
namespace {

constexpr int kThreads = 256;  // 8 warps
constexpr int kBlocksPerSm = 8;
constexpr int kLanes = 32;
constexpr int kMaxStride = 33;
constexpr int kBufferElements = kLanes * kMaxStride;  // lane * stride stays below this
constexpr int kChains = 4;
constexpr int kIterations = 2048;  // loads per chain; kChains * kIterations loads per thread

__device__ __forceinline__ uint32_t Sum(uint32_t v) { return v; }
__device__ __forceinline__ uint32_t Sum(uint2 v) { return v.x + v.y; }
__device__ __forceinline__ uint32_t Sum(uint4 v) { return v.x + v.y + v.z + v.w; }

template <typename T>
__global__ void __launch_bounds__(kThreads) StrideLoads(const T* __restrict__ in, uint32_t* __restrict__ out,
                                                        int stride, int iterations, uint32_t mask) {
  __shared__ T buf[kBufferElements];
  for (int e = threadIdx.x; e < kBufferElements; e += kThreads) buf[e] = in[e];  // consecutive: no conflicts
  __syncthreads();

  const int base = (threadIdx.x % kLanes) * stride;
  int index[kChains];
  uint32_t acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    index[c] = base + ((c + 1) & mask);  // all equal at run time; distinct to the compiler
    acc[c] = 0;
  }
#pragma unroll 2
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      const uint32_t v = Sum(buf[index[c]]);
      acc[c] += v;
      index[c] = base + static_cast<int>(v & mask);
    }
  }
  uint32_t total = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) total += acc[c];
  out[static_cast<size_t>(blockIdx.x) * kThreads + threadIdx.x] = total;
}

template <typename T>
void AddCases(std::vector<GpuCase>& cases, const std::vector<int>& strides, int blocks,
              const std::shared_ptr<DeviceBuffer<uint32_t>>& out) {
  static_assert(sizeof(T) % 4 == 0, "elements are whole 4-byte words");
  std::vector<uint32_t> words(kBufferElements * sizeof(T) / 4);
  for (size_t i = 0; i < words.size(); ++i) words[i] = static_cast<uint32_t>(i * 7 + 1);  // not zeros
  auto in = std::make_shared<DeviceBuffer<uint32_t>>(words);
  for (const int stride : strides) {
    GpuCase c;
    c.name = "shared_stride/" + std::to_string(sizeof(T)) + "B/s" + std::to_string(stride);
    c.launch = [in, out, blocks, stride] {
      StrideLoads<T>
          <<<blocks, kThreads>>>(reinterpret_cast<const T*>(in->get()), out->get(), stride, kIterations, 0u);
    };
    c.counters = {{"elem_bytes", static_cast<double>(sizeof(T))}, {"stride", static_cast<double>(stride)}};
    cases.push_back(std::move(c));
  }
}

std::vector<GpuCase> MakeCases() {
  const int blocks = SmCount() * kBlocksPerSm;
  auto out = std::make_shared<DeviceBuffer<uint32_t>>(static_cast<size_t>(blocks) * kThreads);
  std::vector<GpuCase> cases;
  AddCases<uint32_t>(cases, {1, 2, 4, 8, 16, 32, 33}, blocks, out);
  AddCases<uint2>(cases, {1, 2, 4, 8, 16, 17}, blocks, out);
  AddCases<uint4>(cases, {1, 2, 4, 8, 9}, blocks, out);
  return cases;
}

}  // namespace
}  // namespace bankcheck::bench

int main(int argc, char** argv) { return bankcheck::bench::Main(argc, argv, bankcheck::bench::MakeCases); }
