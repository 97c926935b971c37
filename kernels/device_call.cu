// Code that calls: a __noinline__ device function that touches shared memory (CALL.REL.NOINC into
// it, RET.REL.NODEC to a return address the caller set), and sqrtf (IEEE, nvcc's default
// -prec-sqrt=true), whose inputs outside MUFU.RSQ's range (zero, negatives, subnormals, infinity,
// NaN) call ptxas's slow-path subroutine. What the shared accesses cost does not depend on the
// calls; the cases show that a launch's counts and outputs are the same through them.
//
//   device_call/all_lanes/<blocks>x64  every thread calls Gather (after its warp filled its tile):
//                                      it stores tile[lane] (conflict-free), __syncwarp()s the
//                                      lanes that called, and loads tile[2 * lane]: words 0-62,
//                                      two a bank, 2-way.
//   device_call/half_warp/<blocks>x64  only lanes 0-15 call it (a call in divergent code): the
//                                      load's 16 words 0-30 are in 16 banks, conflict-free.
//   device_call/sqrt/<blocks>x64       each thread stores sqrtf of its input to tile[lane] and
//                                      reads its neighbour's, both conflict-free; the inputs take
//                                      the fast path and the slow path in every warp.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kWarp = 32;
constexpr unsigned kThreads = 64;

__device__ __noinline__ int Gather(int* tile, int lane) {
  tile[lane] = lane * 7 + 1;  // bankcheck: conflict-free
  __syncwarp(__activemask());
  return tile[lane * 2];  // bankcheck: 2-way in device_call/all_lanes/*, conflict-free
}

template <bool kHalfWarp>
__global__ void __launch_bounds__(kThreads) CallKernel(int* __restrict__ out) {
  __shared__ int tiles[kThreads / kWarp][2 * kWarp];
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  int* tile = tiles[threadIdx.x / kWarp];
  tile[lane] = -lane;                  // bankcheck: conflict-free
  tile[lane + kWarp] = -lane - kWarp;  // bankcheck: conflict-free
  __syncwarp();
  int value = -1;
  if (!kHalfWarp || lane < 16) value = Gather(tile, lane);
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

__global__ void __launch_bounds__(kThreads)
    SqrtKernel(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tiles[kThreads / kWarp][kWarp];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % kWarp;
  float* tile = tiles[threadIdx.x / kWarp];
  tile[lane] = sqrtf(__ldg(&in[i]));  // bankcheck: conflict-free
  __syncwarp();
  out[i] = tile[(lane + 1) % kWarp];  // bankcheck: conflict-free
}

// Gather's result in lane `lane` of a warp whose lanes 0..callers-1 called it: word w = 2 * lane
// of the tile, 7w + 1 where lane w called and wrote it, else the -w the warp wrote first; -1 for a
// lane that did not call.
std::vector<int32_t> ExpectedGathers(unsigned blocks, int callers) {
  std::vector<int32_t> expected(static_cast<size_t>(blocks) * kThreads, -1);
  for (size_t t = 0; t < expected.size(); ++t) {
    const int lane = static_cast<int>(t % kWarp), word = 2 * lane;
    if (lane < callers) expected[t] = word < callers ? 7 * word + 1 : -word;
  }
  return expected;
}

template <bool kHalfWarp>
void RegisterCallCase(unsigned blocks) {
  KernelCase c;
  const std::string variant = kHalfWarp ? "half_warp" : "all_lanes";
  c.name = "device_call/" + variant + "/" + std::to_string(blocks) + "x" + std::to_string(kThreads);
  c.description = std::string(kHalfWarp ? "lanes 0-15 of each warp call" : "every thread calls") +
                  " a __noinline__ function that stores tile[lane] and loads tile[2 * lane]";
  c.run = [blocks](CaseContext& ctx) {
    const int callers = kHalfWarp ? 16 : static_cast<int>(kWarp);
    DeviceBuffer<int32_t> d_out(static_cast<size_t>(blocks) * kThreads);
    d_out.Fill(0xFF);
    ctx.Measure([&] { CallKernel<kHalfWarp><<<blocks, kThreads>>>(d_out.get()); });
    ExpectVectorsEqual(d_out.ToHost(), ExpectedGathers(blocks, callers), "Gather's results");
  };
  RegisterKernelCase(std::move(c));
}

// The root's bits, every NaN as the GPU's canonical 0x7fffffff.
uint32_t RootBits(float root) {
  if (std::isnan(root)) return 0x7fffffffu;
  uint32_t bits = 0;
  std::memcpy(&bits, &root, sizeof bits);
  return bits;
}

// Inputs of both paths in every warp: random positive normals (fast path) and, every fourth lane,
// one of the slow path's (zero, -0, a negative, the smallest subnormals, infinity, NaN).
std::vector<float> SqrtInputs(size_t n) {
  const std::vector<uint32_t> random = RandomBits<uint32_t>(n, 0x5a27u);
  const float slow[] = {0.0f,
                        -0.0f,
                        -2.5f,
                        std::numeric_limits<float>::denorm_min(),
                        1e-40f,
                        std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN(),
                        -std::numeric_limits<float>::infinity()};
  std::vector<float> in(n);
  for (size_t t = 0; t < n; ++t) {
    if (t % 4 == 0) {
      in[t] = slow[(t / 4) % (sizeof slow / sizeof slow[0])];
      continue;
    }
    // A positive normal: exponent 1..254, any mantissa (the largest ones fast too).
    const uint32_t bits = (1u + random[t] % 254u) << 23 | (random[t] >> 9 & 0x7fffffu);
    std::memcpy(&in[t], &bits, sizeof bits);
  }
  return in;
}

void RegisterSqrtCase(unsigned blocks) {
  KernelCase c;
  c.name = "device_call/sqrt/" + std::to_string(blocks) + "x" + std::to_string(kThreads);
  c.description = "sqrtf (IEEE) of inputs on its fast path and its slow path (a call), through a shared tile";
  c.run = [blocks](CaseContext& ctx) {
    const size_t n = static_cast<size_t>(blocks) * kThreads;
    const std::vector<float> in = SqrtInputs(n);
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> d_out(n);
    d_out.Fill(0xFF);
    ctx.Measure([&] { SqrtKernel<<<blocks, kThreads>>>(d_in.get(), d_out.get()); });
    const std::vector<float> out = d_out.ToHost();
    std::vector<uint32_t> got(n), expected(n);
    for (size_t t = 0; t < n; ++t) {
      const size_t warp = t - t % kWarp;
      got[t] = RootBits(out[t]);
      expected[t] = RootBits(std::sqrt(in[warp + (t % kWarp + 1) % kWarp]));
    }
    ExpectVectorsEqual(got, expected, "sqrtf of each neighbour's input, correctly rounded");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterDeviceCallCases() {
  for (const unsigned blocks : {1u, 64u}) {
    RegisterCallCase<false>(blocks);
    RegisterCallCase<true>(blocks);
    RegisterSqrtCase(blocks);
  }
}

BANKCHECK_REGISTER_CASES(RegisterDeviceCallCases);

}  // namespace
}  // namespace bankcheck::kernels
