// SGEMM with 2D block tiling and float4 global loads, as in the "vectorized" kernel of public SGEMM
// tutorial series: C (M x N) = A (M x K) * B (K x N), all row-major floats. A block of 256 threads
// computes a 128x128 tile of C, each thread an 8x8 sub-tile (rows 8 * (t / 16), columns
// 8 * (t % 16)), walking K in steps of 8. Per step every thread loads one float4 of A (row t / 2,
// columns 4 * (t % 2) .. +3) and one float4 of B (row t / 32, columns 4 * (t % 32) .. +3), stores
// them into shared memory, and then for each of the 8 k reads 8 floats of A's column and 8 of B's
// row with two LDS.128 each and does 64 FMAs. A is stored TRANSPOSED (as[k][m]), so that the inner
// loop's A reads are float4 too.
//
// One kernel body, SgemmTiled<ALayout>: the A tile's layout is a template parameter (as CuTe and
// CUTLASS pass layouts), a type that says how many floats as[] holds and where element (k, m) is.
// The three cases differ only in it:
//
//   vectorized  RowMajorA, float as[8][128]. The four scalar stores of a float4 of A: lanes 2i and
//               2i + 1 of a warp write column m = 16 * warp + i, rows j and 4 + j, 4 * 128 words
//               apart: the same bank, two distinct words; 16 banks hold two words each: 2-way (2
//               wavefronts, ideal 1).
//   padded      PaddedA, float as[8][132]. Row k starts at bank 4 * k % 32, so rows j and 4 + j are
//               16 banks apart: the odd lanes fill the 16 banks the even lanes leave free:
//               conflict-free. A pad of 4 floats keeps every row 16-byte aligned (528-byte pitch) for
//               the LDS.128 reads.
//   swizzled    SwizzledA, float as[8 * 128], element (k, m) at k * 128 + m with bit 9 (k >= 4) XORed
//               into bit 4 (CuTe's Swizzle<1, 4, 5> on the element offset): rows 4..7 swap the two
//               16-column halves of every 32 columns: conflict-free stores, no padding. The swizzle
//               moves whole aligned groups of 4 columns, so each float4 read stays one LDS.128.
//
// Each access's line says what it costs in each case (its line annotation, qualified by case where
// the layouts differ: docs/annotations.md); the cases state nothing per launch.
//
// The other accesses (the same in all three layouts, by the 32-bank model with 8-lane groups for
// 16-byte accesses):
//   B store, one STS.128 of bs[t / 32][4 * (t % 32)]: a warp writes one contiguous 512-byte row:
//     conflict-free (4 wavefronts).
//   A reads, LDS.128 of as[k][8 * (t / 16) + 0 and 4]: lanes 0-15 read one address and 16-31 another
//     (broadcast): conflict-free. Not 4 wavefronts (one per 8-lane group) but 2, with an ideal of 2:
//     so ncu's source counters showed on an H100 for the vectorized kernel, run outside the suite.
//   B reads, LDS.128 of bs[k][8 * (t % 16) + 0 and 4]: in an 8-lane group lanes l and l + 4 are 32
//     words apart, the same 4 banks: 2-way (8 wavefronts, ideal 4), as in the tutorial's kernel.
// Per 512x512x512 launch (16 blocks, 128 warps, 64 k-steps): 32,768 scalar STS of A (vectorized:
// 65,536 wavefronts; else 32,768), 8,192 STS.128 of B (32,768), 131,072 LDS.128 of A (262,144) and
// 131,072 of B (1,048,576, of which 524,288 conflicts).
//
// The inputs are small integers, so every sum is exact in float and C is compared with ==.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/cuda/kernel_registry.h"
#include "sgemm_support.cuh"

namespace bankcheck::kernels {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 8;  // block tile of C, and the k-step
constexpr int kTM = 8, kTN = 8;               // thread tile of C
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);
static_assert(kThreads == 256, "one float4 of A and one of B per thread per k-step");
static_assert(kBM * kBK == 4 * kThreads && kBN * kBK == 4 * kThreads, "tile sizes");

// The layouts of the transposed A tile: kSize floats, element (k, m) at Offset(k, m). Offset only
// computes an index, so each access stays on the kernel's line that makes it (docs/attribution.md).
struct RowMajorA {  // float as[kBK][kBM]
  static constexpr int kSize = kBK * kBM;
  __device__ static int Offset(int k, int m) { return k * kBM + m; }
};
struct PaddedA {  // float as[kBK][kBM + 4]: one float4 of padding per row
  static constexpr int kPitch = kBM + 4;
  static constexpr int kSize = kBK * kPitch;
  __device__ static int Offset(int k, int m) { return k * kPitch + m; }
};
struct SwizzledA {  // CuTe's Swizzle<1, 4, 5> on the offset k * kBM + m: bit 9 (k & 4) XORed into bit 4
  static constexpr int kSize = kBK * kBM;
  __device__ static int Offset(int k, int m) {
    const int offset = k * kBM + m;
    return offset ^ ((offset >> 5) & (1 << 4));
  }
};
static_assert(kBM == 1 << 7, "SwizzledA's bit 9 is k & 4 only for 128-column rows");

// Where one thread loads, stores and computes (the tutorial's indexing).
struct ThreadTile {
  int a_row, a_col;  // the float4 of A: row a_row, columns a_col .. +3 of the k-step's 8
  int b_row, b_col;  // the float4 of B: row b_row of the 8, columns b_col .. +3
  int c_row, c_col;  // the 8x8 tile of C: first row and column within the block's tile
};

__device__ __forceinline__ ThreadTile ThreadTileOf(int t) {
  return {t / (kBK / 4),       4 * (t % (kBK / 4)),     t / (kBN / 4),
          4 * (t % (kBN / 4)), kTM * (t / (kBN / kTN)), kTN * (t % (kBN / kTN))};
}

__device__ __forceinline__ float4 LoadFloat4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void StoreFloat4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }
// The float4 at `p` as a reference, for shared memory: the access is the caller's read or write, so
// its counts go to the caller's line. LoadFloat4 and StoreFloat4 access memory in their own body,
// the line every access made through them would be attributed to (docs/attribution.md), so they
// are for global memory only.
__device__ __forceinline__ float4& Float4At(float* p) { return *reinterpret_cast<float4*>(p); }

// acc += a * b^T for the thread's 8 rows (a) and 8 columns (b) of one k; registers only.
__device__ __forceinline__ void OuterProduct(float (&acc)[kTM][kTN], float4 a_lo, float4 a_hi, float4 b_lo,
                                             float4 b_hi) {
  const float a[kTM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
  const float b[kTN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] += a[i] * b[j];
  }
}

// The thread's 8x8 tile of C, float4 stores to global memory.
__device__ __forceinline__ void StoreC(float* c, int n, const ThreadTile& tt, const float (&acc)[kTM][kTN]) {
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    float* row = c + static_cast<size_t>(tt.c_row + i) * n + tt.c_col;
    StoreFloat4(row, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
    StoreFloat4(row + 4, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
  }
}

// The block's tiles: a at its first row of A, b at its first column of B, c at its tile of C.
struct BlockPointers {
  const float* a;
  const float* b;
  float* c;
};

__device__ __forceinline__ BlockPointers BlockPointersOf(const float* a, const float* b, float* c, int n,
                                                         int k) {
  return {a + static_cast<size_t>(blockIdx.y) * kBM * k, b + blockIdx.x * kBN,
          c + static_cast<size_t>(blockIdx.y) * kBM * n + blockIdx.x * kBN};
}

// m = c_row + 0 and + 4 (c_row a multiple of 8): each group of 4 columns stays together and in order
// in every layout, so each float4 read of A is one LDS.128.
template <typename ALayout>
__global__ void __launch_bounds__(kThreads)
    SgemmTiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n,
               int k) {
  __shared__ __align__(16) float as[ALayout::kSize];
  __shared__ __align__(16) float bs[kBK][kBN];
  const ThreadTile tt = ThreadTileOf(threadIdx.x);
  const BlockPointers p = BlockPointersOf(a, b, c, n, k);
  float acc[kTM][kTN] = {};
  for (int k0 = 0; k0 < k; k0 += kBK) {
    const float4 av = LoadFloat4(p.a + static_cast<size_t>(tt.a_row) * k + k0 + tt.a_col);
    const float4 bv = LoadFloat4(p.b + static_cast<size_t>(k0 + tt.b_row) * n + tt.b_col);
    // bankcheck: 2-way in sgemm_tiled/vectorized/*, conflict-free
    as[ALayout::Offset(tt.a_col + 0, tt.a_row)] = av.x;
    // bankcheck: 2-way in sgemm_tiled/vectorized/*, conflict-free
    as[ALayout::Offset(tt.a_col + 1, tt.a_row)] = av.y;
    // bankcheck: 2-way in sgemm_tiled/vectorized/*, conflict-free
    as[ALayout::Offset(tt.a_col + 2, tt.a_row)] = av.z;
    // bankcheck: 2-way in sgemm_tiled/vectorized/*, conflict-free
    as[ALayout::Offset(tt.a_col + 3, tt.a_row)] = av.w;
    Float4At(&bs[tt.b_row][tt.b_col]) = bv;  // bankcheck: conflict-free
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const float4 a_lo = Float4At(&as[ALayout::Offset(kk, tt.c_row)]);      // bankcheck: conflict-free
      const float4 a_hi = Float4At(&as[ALayout::Offset(kk, tt.c_row + 4)]);  // bankcheck: conflict-free
      const float4 b_lo = Float4At(&bs[kk][tt.c_col]);                       // bankcheck: 2-way
      const float4 b_hi = Float4At(&bs[kk][tt.c_col + 4]);                   // bankcheck: 2-way
      OuterProduct(acc, a_lo, a_hi, b_lo, b_hi);
    }
    __syncthreads();
  }
  StoreC(p.c, n, tt, acc);
}

constexpr SgemmTiling kTiling{kBM, kBN, kBK, kThreads};

template <typename ALayout>
void RegisterSgemmCase(const std::string& variant, const std::string& a_tile) {
  constexpr int kM = 512, kN = 512, kK = 512;
  KernelCase c;
  c.name = "sgemm_tiled/" + variant + "/512x512x512";
  c.description =
      "512x512x512 SGEMM, 128x128x8 block tiles, 8x8 per thread, float4 global loads and "
      "LDS.128 reads; A tile transposed into " +
      a_tile;
  c.run = [](CaseContext& ctx) {
    RunSgemm(SgemmTiled<ALayout>, kTiling, kM, kN, kK, 0x56E3u, &ctx);
    // Not measured: a non-square shape (m != n != k), which a square one could not tell from its
    // transpose.
    RunSgemm(SgemmTiled<ALayout>, kTiling, 256, 384, 136, 0x56E5u, nullptr);
  };
  RegisterKernelCase(std::move(c));
}

void RegisterSgemmTiledCases() {
  RegisterSgemmCase<RowMajorA>("vectorized", "float as[8][128]");
  RegisterSgemmCase<PaddedA>("padded", "float as[8][132]");
  RegisterSgemmCase<SwizzledA>("swizzled", "float as[8 * 128], Swizzle<1, 4, 5>");
}

BANKCHECK_REGISTER_CASES(RegisterSgemmTiledCases);

}  // namespace
}  // namespace bankcheck::kernels
