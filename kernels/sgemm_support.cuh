#pragma once
// The host side of the SGEMM cases (sgemm_tiled.cu, sgemm_helper_loads.cu): random integer
// inputs, one launch of the kernel under test, and C compared with the host's product. Registers
// nothing.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {

// C (m x n) = A (m x k) * B (k x n), row-major floats; one block per block_m x block_n tile of C.
using SgemmKernel = void (*)(const float* a, const float* b, float* c, int n, int k);

// How a kernel tiles C: the block's tile of C, its k-step, and the threads of a block.
struct SgemmTiling {
  int block_m, block_n, block_k;
  int threads;
};

// C = A * B on the host, from the integer values (exact).
inline std::vector<float> HostGemm(const std::vector<int32_t>& a, const std::vector<int32_t>& b, int m, int n,
                                   int k) {
  std::vector<int32_t> sums(static_cast<size_t>(m) * n, 0);
  for (size_t i = 0; i < static_cast<size_t>(m); ++i) {
    for (size_t kk = 0; kk < static_cast<size_t>(k); ++kk) {
      const int32_t aik = a[i * k + kk];
      for (size_t j = 0; j < static_cast<size_t>(n); ++j) sums[i * n + j] += aik * b[kk * n + j];
    }
  }
  return std::vector<float>(sums.begin(), sums.end());
}

// Runs `kernel` on random m x k and k x n integer matrices (|value| <= 4: |C| <= 16 k, exact in
// float) and compares C with the host's; measured when `ctx` is given.
inline void RunSgemm(SgemmKernel kernel, const SgemmTiling& tiling, int m, int n, int k, uint32_t seed,
                     CaseContext* ctx) {
  ASSERT_EQ(m % tiling.block_m, 0);
  ASSERT_EQ(n % tiling.block_n, 0);
  ASSERT_EQ(k % tiling.block_k, 0);
  const std::vector<int32_t> a = RandomInts(static_cast<size_t>(m) * k, seed, -4, 4);
  const std::vector<int32_t> b = RandomInts(static_cast<size_t>(k) * n, seed + 1, -4, 4);
  DeviceBuffer<float> d_a(std::vector<float>(a.begin(), a.end()));
  DeviceBuffer<float> d_b(std::vector<float>(b.begin(), b.end()));
  DeviceBuffer<float> d_c(static_cast<size_t>(m) * n);
  d_c.Fill(0xFF);
  const dim3 grid(static_cast<unsigned>(n / tiling.block_n), static_cast<unsigned>(m / tiling.block_m));
  const auto launch = [&] {
    kernel<<<grid, static_cast<unsigned>(tiling.threads)>>>(d_a.get(), d_b.get(), d_c.get(), n, k);
  };
  if (ctx != nullptr) {
    ctx->Measure(launch);
  } else {
    launch();
    BANKCHECK_CUDA_CHECK(cudaGetLastError());
  }
  ExpectVectorsEqual(d_c.ToHost(), HostGemm(a, b, m, n, k),
                     "C = A * B, " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
}

}  // namespace bankcheck::kernels
