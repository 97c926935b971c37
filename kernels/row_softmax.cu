// Row softmax, one block of 256 threads (8 warps) per row of 1024 floats: out = exp(x - max) / sum,
// with the row's max and sum reduced through shared memory and the division IEEE (`e / sum`,
// div.rn.f32: FCHK and its slow path, which the emulator decides, docs/emulate.md).
//
// Each thread folds its 4 elements (x[tid + 256k]), then the 8 warps' partials are gathered in a
// 32 x 8 table, lane-major: warp w's lane l writes part[l][w], and lane l of warp 0 then reads its
// row part[l][0..7] one word at a time (a loop to blockDim.x / 32, so nvcc keeps the loads
// scalar). Unpadded, the row pitch is 8 words: lane l's word 8l + w falls in bank (8l + w) % 32, 4
// banks for 32 lanes, 8-way on the stores and the loads. Padded to 9 words, 9l + w covers the 32
// banks: conflict-free. Warp 0 folds the 32 row results in red[32] (sequential addressing, tid < s:
// conflict-free) and every thread reads red[0] (a broadcast). The same twice: the max, then the sum
// of exp(x - max). The output checks compare with a double-precision reference (below).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kThreads = 256, kWarps = kThreads / 32, kPerThread = 4, kCols = kThreads * kPerThread;

enum class PartLayout { kUnpadded, kPadded };

// The row's max (kMax) or sum of the threads' `value`s through shared memory; every thread gets it.
template <PartLayout kLayout, bool kMax>
__device__ float BlockReduce(float value, float (*part)[kWarps + (kLayout == PartLayout::kPadded ? 1 : 0)],
                             float* red) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  part[lane][warp] = value;  // bankcheck: 8-way in row_softmax/unpadded/*, conflict-free
  __syncthreads();
  if (warp == 0) {
    float v = part[lane][0];  // bankcheck: 8-way in row_softmax/unpadded/*, conflict-free
#pragma unroll 1
    for (unsigned w = 1; w < blockDim.x / 32; ++w) {
      const float other = part[lane][w];  // bankcheck: 8-way in row_softmax/unpadded/*, conflict-free
      v = kMax ? fmaxf(v, other) : v + other;
    }
    red[lane] = v;  // bankcheck: conflict-free
    __syncwarp();
#pragma unroll 1
    for (unsigned s = 16; s > 0; s >>= 1) {
      if (lane < s) {
        const float a = red[lane], b = red[lane + s];  // bankcheck: conflict-free
        red[lane] = kMax ? fmaxf(a, b) : a + b;        // bankcheck: conflict-free
      }
      __syncwarp();
    }
  }
  __syncthreads();
  const float result = red[0];  // bankcheck: conflict-free
  __syncthreads();              // red and part are used again by the next reduction
  return result;
}

template <PartLayout kLayout>
__global__ void __launch_bounds__(kThreads) RowSoftmax(const float* __restrict__ x, float* __restrict__ out) {
  __shared__ float part[32][kWarps + (kLayout == PartLayout::kPadded ? 1 : 0)];
  __shared__ float red[32];
  const float* row = x + static_cast<size_t>(blockIdx.x) * kCols;
  float v[kPerThread];
  float m = -INFINITY;
  for (unsigned k = 0; k < kPerThread; ++k) {
    v[k] = row[threadIdx.x + k * kThreads];
    m = fmaxf(m, v[k]);
  }
  const float max = BlockReduce<kLayout, true>(m, part, red);
  float sum = 0.0f;
  for (unsigned k = 0; k < kPerThread; ++k) {
    v[k] = expf(v[k] - max);
    sum += v[k];
  }
  const float total = BlockReduce<kLayout, false>(sum, part, red);
  for (unsigned k = 0; k < kPerThread; ++k)
    out[static_cast<size_t>(blockIdx.x) * kCols + threadIdx.x + k * kThreads] = v[k] / total;
}

// Within: x - max is rounded once (|x - max| <= 16: within 2^-20, a relative 2^-20 of its exp),
// expf is within 2 ulp (CUDA's accuracy table, without -use_fast_math), a float sum of 1024 positive
// terms within 1023 roundings of 2^-24 of the exact one, and the division one rounding: a relative
// error under 2^-20 + 2^-22 + 1023 * 2^-24 + 2^-24 < 7e-5 of the double reference.
void ExpectNearSoftmax(const std::vector<float>& actual, const std::vector<double>& expected) {
  if (::bankcheck::gtest::SkipOutputCheck("softmax rows")) return;
  ASSERT_EQ(actual.size(), expected.size());
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < actual.size(); ++i)
    if (!(std::fabs(actual[i] - expected[i]) <= 7e-5 * expected[i]) && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << "softmax rows: " << bad << " of " << actual.size() << " differ; first at " << first
                     << ": got " << actual[first] << ", expected " << expected[first];
}

template <PartLayout kLayout>
void RegisterRowSoftmaxCase(const std::string& variant, unsigned rows) {
  KernelCase c;
  c.name = "row_softmax/" + variant + "/" + std::to_string(rows) + "x" + std::to_string(kCols);
  c.description = std::to_string(rows) + " rows of " + std::to_string(kCols) +
                  " floats: softmax, its max and sum reduced through a " + variant + " 32x8 table";
  c.run = [rows](CaseContext& ctx) {
    const size_t n = static_cast<size_t>(rows) * kCols;
    std::vector<float> in = RandomIntegerFloats(n, 0x50F7u + rows, -800, 800);
    for (float& value : in) value /= 100.0f;  // within [-8, 8]
    std::vector<double> expected(n);
    for (size_t r = 0; r < rows; ++r) {
      double max = -INFINITY, sum = 0;
      for (size_t c = 0; c < kCols; ++c) max = std::fmax(max, in[r * kCols + c]);
      for (size_t c = 0; c < kCols; ++c) sum += std::exp(in[r * kCols + c] - max);
      for (size_t c = 0; c < kCols; ++c) expected[r * kCols + c] = std::exp(in[r * kCols + c] - max) / sum;
    }
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> d_out(n);
    d_out.Fill(0xFF);
    ctx.Measure([&] { RowSoftmax<kLayout><<<rows, kThreads>>>(d_in.get(), d_out.get()); });
    ExpectNearSoftmax(d_out.ToHost(), expected);
  };
  RegisterKernelCase(std::move(c));
}

void RegisterRowSoftmaxCases() {
  RegisterRowSoftmaxCase<PartLayout::kUnpadded>("unpadded", 4);
  RegisterRowSoftmaxCase<PartLayout::kPadded>("padded", 4);
}

BANKCHECK_REGISTER_CASES(RegisterRowSoftmaxCases);

}  // namespace
}  // namespace bankcheck::kernels
