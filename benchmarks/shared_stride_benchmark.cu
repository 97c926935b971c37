// What an N-way shared-memory bank conflict costs in time: a kernel whose time is shared loads,
// each lane reading element lane * stride of a shared buffer again and again, for 4-, 8- and
// 16-byte elements at several strides. Expect time proportional to the measured ways (the ld_ways
// counter) as long as the kernel stays shared-memory bound: stride 2 ~2x stride 1, 32 ~32x, while
// an odd stride (33, 17, 9) is conflict-free again. bankcheck_benchmark_plot draws time relative to stride 1
// against the measured ways.
//
// The kernel: 8 warps per block, 8 blocks per SM (full occupancy on Ampere and Hopper). Each thread
// issues kLoadsPerStep independent loads of its element per loop step as inline PTX
// `ld.volatile.shared` of the element's width: none can be hoisted, merged or removed, and each is
// one LDS, LDS.64 or LDS.128 followed only by the adds that sum it. So a 4-byte load costs about two
// issued instructions, and the shared-memory pipe (one wavefront per cycle per SM), not instruction
// issue, sets the time even at stride 1. (A first version chained each load's address on the last
// loaded value: at 4 bytes and stride 1 it was issue-bound, and stride 2 cost only 1.29x.)

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "gpu_benchmark.h"

namespace bankcheck::bench {
namespace {

constexpr int kThreads = 256;  // 8 warps
constexpr int kBlocksPerSm = 8;
constexpr int kLanes = 32;
constexpr int kMaxStride = 33;
constexpr int kBufferElements = kLanes * kMaxStride;  // lane * stride stays below this
constexpr int kLoadsPerStep = 8;
constexpr int kIterations = 1024;  // loop steps; kLoadsPerStep * kIterations loads per thread

// One shared load of the element at shared-space address `address`, summed to one word.
__device__ __forceinline__ uint32_t LoadSum(uint32_t address, uint32_t /*width tag*/) {
  uint32_t v;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(address));
  return v;
}
__device__ __forceinline__ uint32_t LoadSum(uint32_t address, uint2 /*width tag*/) {
  uint32_t x, y;
  asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(address));
  return x + y;
}
__device__ __forceinline__ uint32_t LoadSum(uint32_t address, uint4 /*width tag*/) {
  uint32_t x, y, z, w;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
               : "r"(address));
  return x + y + z + w;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    StrideLoads(const T* __restrict__ in, uint32_t* __restrict__ out, int stride, int iterations) {
  __shared__ T buf[kBufferElements];
  for (int e = threadIdx.x; e < kBufferElements; e += kThreads) buf[e] = in[e];  // consecutive: no conflicts
  __syncthreads();

  const uint32_t address =
      static_cast<uint32_t>(__cvta_generic_to_shared(&buf[(threadIdx.x % kLanes) * stride]));
  uint32_t acc[kLoadsPerStep] = {};
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < kLoadsPerStep; ++k) acc[k] += LoadSum(address, T{});
  }
  uint32_t total = 0;
#pragma unroll
  for (int k = 0; k < kLoadsPerStep; ++k) total += acc[k];
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
          <<<blocks, kThreads>>>(reinterpret_cast<const T*>(in->get()), out->get(), stride, kIterations);
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
