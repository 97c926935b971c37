// SGEMM in the shape of SGEMM_CUDA's kernel 10 ("warptiling"): the kernel body only calls two
// inlined helpers, loadFromGmem (the block's tiles from global into shared memory) and
// processFromSmem (the k-loop over the tiles in shared memory), as real kernels factor their loads.
// C (M x N) = A (M x K) * B (K x N), all row-major floats. A block of 128 threads (four warps, 2 x 2
// warp tiles of 64 x 64) computes a 128 x 128 tile of C, walking K in steps of 16. Per step:
//
//   loadFromGmem  A: each thread loads float4s of A (row t / 4 + 32 i, columns 4 * (t % 4) .. +3)
//                 and stores each TRANSPOSED with four scalar stores, As[k][m], so that the k-loop
//                 reads A's columns contiguously. B: each thread copies float4s of B (row t / 32 +
//                 4 i, columns 4 * (t % 32) .. +3) with one float4 store each, Bs[k][n] as in B.
//   processFromSmem  for each of the 16 k, every thread reads 8 floats of As[k] and 16 of Bs[k]
//                 (four groups of 4, 16 columns apart) into registers and adds their 8 x 16 outer
//                 product to its 128 results.
//
// What each line costs is stated by its line annotations (as `bankcheck annotate` writes them from
// a run). The As stores and the Bs store are lines of loadFromGmem: bankcheck attributes an inlined
// instruction to the innermost line of its inline chain inside the project (docs/attribution.md),
// so each store keeps its own line instead of adding up at the kernel's call to the helper, the mix
// SGEMM_CUDA's kernel 10 showed.
//
// The helpers' names and indexing follow SGEMM_CUDA, so that its kernel is recognizable here. The
// inputs are small integers, so every sum is exact in float and C is compared with ==.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/cuda/kernel_registry.h"
#include "sgemm_support.cuh"

namespace bankcheck::kernels {
namespace {

constexpr int kThreads = 128;
constexpr int kBM = 128, kBN = 128, kBK = 16;   // block tile of C, and the k-step
constexpr int kWM = 64, kWN = 64, kWNIter = 4;  // warp tile, and its sub-tiles along N
constexpr int kTM = 8, kTN = 4;                 // a thread's part of one warp sub-tile
constexpr int kWMIter = (kWM * kWN) / (32 * kTM * kTN * kWNIter);
constexpr int kWSubM = kWM / kWMIter, kWSubN = kWN / kWNIter;
constexpr int kRowStrideA = kThreads * 4 / kBK;  // rows of A one pass of the block loads
constexpr int kRowStrideB = kThreads / (kBN / 4);
constexpr int kResults = kWMIter * kTM * kWNIter * kTN;
static_assert(kWMIter == 1 && kWSubM == 64 && kWSubN == 16, "the warp tiling of SGEMM_CUDA's kernel 10");
static_assert((kBM / kWM) * (kBN / kWN) * 32 == kThreads, "one warp per warp tile");
static_assert(kBM % kRowStrideA == 0 && kBK % kRowStrideB == 0, "whole passes over both tiles");

// The block's A tile (kBM x kBK at `a`, row pitch k) into as[k][m], transposed; its B tile (kBK x
// kBN at `b`, row pitch n) into bs[k][n].
__device__ __forceinline__ void loadFromGmem(int n, int k, const float* a, const float* b, float* as,
                                             float* bs, int inner_row_a, int inner_col_a, int inner_row_b,
                                             int inner_col_b) {
  for (int offset = 0; offset + kRowStrideA <= kBM; offset += kRowStrideA) {
    const float4 tmp =
        *reinterpret_cast<const float4*>(&a[static_cast<size_t>(inner_row_a + offset) * k + inner_col_a * 4]);
    as[(inner_col_a * 4 + 0) * kBM + inner_row_a + offset] = tmp.x;  // bankcheck: 4-way
    as[(inner_col_a * 4 + 1) * kBM + inner_row_a + offset] = tmp.y;  // bankcheck: 4-way
    as[(inner_col_a * 4 + 2) * kBM + inner_row_a + offset] = tmp.z;  // bankcheck: 4-way
    as[(inner_col_a * 4 + 3) * kBM + inner_row_a + offset] = tmp.w;  // bankcheck: 4-way
  }
  for (int offset = 0; offset + kRowStrideB <= kBK; offset += kRowStrideB) {
    *reinterpret_cast<float4*>(&bs[(inner_row_b + offset) * kBN + inner_col_b * 4]) =
        *reinterpret_cast<const float4*>(&b[static_cast<size_t>(inner_row_b + offset) * n + inner_col_b * 4]);  // bankcheck: conflict-free
  }
}

// results += the outer products of the thread's rows of as and columns of bs, over the k-step.
__device__ __forceinline__ void processFromSmem(float (&results)[kResults], const float* as, const float* bs,
                                                int warp_row, int warp_col, int thread_row, int thread_col) {
  float reg_m[kWMIter * kTM];
  float reg_n[kWNIter * kTN];
#pragma unroll
  for (int dot = 0; dot < kBK; ++dot) {
#pragma unroll
    for (int sub_row = 0; sub_row < kWMIter; ++sub_row) {
#pragma unroll
      for (int i = 0; i < kTM; ++i)
        reg_m[sub_row * kTM + i] = as[dot * kBM + warp_row * kWM + sub_row * kWSubM + thread_row * kTM + i];  // bankcheck: conflict-free
    }
#pragma unroll
    for (int sub_col = 0; sub_col < kWNIter; ++sub_col) {
#pragma unroll
      for (int i = 0; i < kTN; ++i)
        reg_n[sub_col * kTN + i] = bs[dot * kBN + warp_col * kWN + sub_col * kWSubN + thread_col * kTN + i];  // bankcheck: conflict-free
    }
#pragma unroll
    for (int m = 0; m < kWMIter * kTM; ++m) {
#pragma unroll
      for (int j = 0; j < kWNIter * kTN; ++j) results[m * kWNIter * kTN + j] += reg_m[m] * reg_n[j];
    }
  }
}

__global__ void __launch_bounds__(kThreads)
    SgemmHelperLoads(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n,
                     int k) {
  __shared__ __align__(16) float as[kBM * kBK];
  __shared__ __align__(16) float bs[kBK * kBN];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row = warp / (kBN / kWN), warp_col = warp % (kBN / kWN);
  const int thread_row = lane / (kWSubN / kTN), thread_col = lane % (kWSubN / kTN);
  const int inner_row_a = threadIdx.x / (kBK / 4), inner_col_a = threadIdx.x % (kBK / 4);
  const int inner_row_b = threadIdx.x / (kBN / 4), inner_col_b = threadIdx.x % (kBN / 4);
  a += static_cast<size_t>(blockIdx.y) * kBM * k;
  b += blockIdx.x * kBN;
  c += static_cast<size_t>(blockIdx.y) * kBM * n + blockIdx.x * kBN;
  float results[kResults] = {};
  for (int k0 = 0; k0 < k; k0 += kBK) {
    loadFromGmem(n, k, a, b, as, bs, inner_row_a, inner_col_a, inner_row_b, inner_col_b);
    __syncthreads();
    processFromSmem(results, as, bs, warp_row, warp_col, thread_row, thread_col);
    a += kBK;
    b += static_cast<size_t>(kBK) * n;
    __syncthreads();
  }
#pragma unroll
  for (int sub_row = 0; sub_row < kWMIter; ++sub_row) {
#pragma unroll
    for (int sub_col = 0; sub_col < kWNIter; ++sub_col) {
#pragma unroll
      for (int m = 0; m < kTM; ++m) {
        const int row = warp_row * kWM + sub_row * kWSubM + thread_row * kTM + m;
        const int col = warp_col * kWN + sub_col * kWSubN + thread_col * kTN;
        const float* r = &results[(sub_row * kTM + m) * kWNIter * kTN + sub_col * kTN];
        *reinterpret_cast<float4*>(&c[static_cast<size_t>(row) * n + col]) =
            make_float4(r[0], r[1], r[2], r[3]);
      }
    }
  }
}

constexpr SgemmTiling kTiling{kBM, kBN, kBK, kThreads};

void RegisterSgemmHelperLoadsCases() {
  KernelCase c;
  c.name = "sgemm_helper_loads/warptiling/512x512x512";
  c.description =
      "512x512x512 SGEMM shaped as SGEMM_CUDA's kernel 10: 128x128x16 block tiles, 64x64 warp tiles, tile "
      "loads in an inlined loadFromGmem (A transposed into float as[16 * 128], B float4 into bs[16 * 128])";
  // Nothing per launch: the lines of loadFromGmem and processFromSmem are the contract (their
  // annotations).
  c.run = [](CaseContext& ctx) {
    RunSgemm(SgemmHelperLoads, kTiling, 512, 512, 512, 0x5A10u, &ctx);
    // Not measured: a non-square shape (m != n != k), which a square one could not tell from its
    // transpose.
    RunSgemm(SgemmHelperLoads, kTiling, 256, 384, 144, 0x5A12u, nullptr);
  };
  RegisterKernelCase(std::move(c));
}

BANKCHECK_REGISTER_CASES(RegisterSgemmHelperLoadsCases);

}  // namespace
}  // namespace bankcheck::kernels
