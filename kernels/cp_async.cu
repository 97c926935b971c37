// cp.async (LDGSTS): global memory copied straight into shared memory, then read back with plain
// shared loads and written to global memory. The cases count the LDGSTS instructions' shared-memory
// writes (MemoryKind::kSharedCpAsync) and the read-back loads (kSharedLoad).
//
//   strided  Single-warp blocks; lane i copies one element of 4, 8 or 16 bytes. The global source
//            is read at element stride src_s (lane i reads element i * src_s of its block's part;
//            src_s = 1 is contiguous) and the element lands in shared memory at element stride
//            smem_s: buf[i * smem_s]. So only the side the name says is strided. After
//            cp.async.wait_group 0 and __syncthreads the warp reads the whole buffer (32 * smem_s
//            elements) back with consecutive lanes at consecutive elements, one load per 32
//            elements: conflict-free whatever smem_s is (the elements at stride 32 all sit in
//            one bank, so no single load could read them without a conflict), and writes it to
//            global memory. Only the copied elements (every smem_s-th) are checked; the gaps hold
//            whatever shared memory held. The _xor5 case stores lane i's element at buf[i ^ 5]
//            instead: each 8-lane phase writes its whole 128-byte row, permuted.
//   tile     A 64x64 float matrix, one single-warp block per 32x32 tile: the tile is copied with
//            16-byte cp.async, 8 chunks of 16 bytes per row; eight lanes copy one row, so each
//            8-lane phase writes one whole 128-byte row. Each lane then reads its own row (lane =
//            row), one chunk column at a time with 16-byte loads, and writes the tile back
//            unchanged. Unswizzled, the 8 rows of a phase hold chunk c at the same offset: 8
//            distinct words in each of 4 banks, 8-way. Swizzled (chunk c of row r stored at chunk
//            c ^ (r % 8), the tile[r][c ^ r] layout at 16-byte granularity) the 8 rows of a phase
//            use 8 different chunk offsets: conflict-free. The copy is conflict-free either way
//            (the swizzle only permutes chunks within a row).
//
// Measured on the H100 (ncu agreed) and since on an H200: the 4- and 8-byte cp.async follow the
// bank rule (4 bytes at word stride 32: 32 LDGSTS wavefronts, 32-way). The 16-byte cp.async does
// not: 4 wavefronts per instruction only when every 8 lanes copy one whole 128-byte row on both
// sides (the contiguous copy, and the tile copies, whose rows lie 256 B apart in global memory);
// with lanes 32 B or 512 B apart on either side, global or shared, 32 wavefronts (one per lane).
// Their ideal is 4, as for any 16-byte access of a warp, so 28 of the 32 are excess (8-way): the
// SASS metrics' ideal, which the default counting and the line checks read and ncu's Source page
// shows. (A range-profiler session derives the ideal from the instrumented conflict counter, which
// counts none there: ideal 32; docs/counters.md.) The model costs a 16-byte copy by its own rule,
// which takes the global source (`CpAsync` with a source function): a hypothesis fitted to these
// measurements, which the cases of lanes 64 B and 128 B apart and of the lane ^ 5 row then
// confirmed. Every cp.async of the strided cases is the one line of CopyAsync that issues it (4 or
// 8 bytes, or 16), whose annotation names the cases in which it conflicts.
//
// SASS (nvcc 13.0, sm_80 and sm_90): the strided kernels issue one LDGSTS per warp (LDGSTS.E,
// LDGSTS.E.64, LDGSTS.E.BYPASS.128) and smem_s loads (LDS, LDS.64, LDS.128); the tile kernels 8
// LDGSTS.E.BYPASS.128 and 8 LDS.128 per warp. For sm_90 nvcc also puts three `@!PT LDS RZ, [RZ]`
// before the first LDGSTS: never executed by any lane, so not counted (measured on the H100: the
// load counts are the real loads alone; instructions without an active lane were not counted in
// transpose/*/100x37 either: 200 stores recorded, not 256).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr unsigned kWarp = 32;
constexpr unsigned kStridedBlocks = 4;  // single-warp blocks of the strided cases

// One cp.async of kBytes from global `src` to shared `dst` (.ca for 4 and 8 bytes; 16 bytes may
// bypass L1: .cg).
template <int kBytes>
__device__ __forceinline__ void CopyAsync(void* dst, const void* src) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
  const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const size_t global = __cvta_generic_to_global(src);
  if constexpr (kBytes == 16) {
    // bankcheck: 8-way in cp_async/u128_src_s1_smem_s2 | cp_async/u128_src_s1_smem_s32 | cp_async/u128_src_s1_smem_s4 | cp_async/u128_src_s2_smem_s1 | cp_async/u128_src_s32_smem_s1 | cp_async/u128_src_s4_smem_s1 | cp_async/u128_src_s8_smem_s1, conflict-free
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(global) : "memory");
  } else {
    // bankcheck: 32-way in cp_async/u32_src_s1_smem_s32, 16-way in cp_async/u64_src_s1_smem_s32, 2-way in cp_async/u32_src_s1_smem_s2 | cp_async/u64_src_s1_smem_s2, conflict-free
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(shared), "l"(global), "n"(kBytes)
                 : "memory");
  }
}

// Waits for every cp.async this thread issued.
__device__ __forceinline__ void WaitAllCopies() {
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}

// Block b: lane i copies in[(b * 32 + i) * kSrcStride] to buf[(i ^ kLaneXor) * kSmemStride]; then
// the warp writes the 32 * kSmemStride elements of buf to out[b * 32 * kSmemStride ...].
template <typename T, int kSrcStride, int kSmemStride, unsigned kLaneXor>
__device__ __forceinline__ void CopyThroughShared(const T* __restrict__ in, T* __restrict__ out, T* buf) {
  const unsigned lane = threadIdx.x;
  CopyAsync<sizeof(T)>(&buf[(lane ^ kLaneXor) * kSmemStride],
                       &in[(static_cast<size_t>(blockIdx.x) * kWarp + lane) * kSrcStride]);
  WaitAllCopies();
  __syncthreads();
  T* block_out = out + static_cast<size_t>(blockIdx.x) * kWarp * kSmemStride;
#pragma unroll
  // bankcheck: conflict-free
  for (int k = 0; k < kSmemStride; ++k) block_out[k * kWarp + lane] = buf[k * kWarp + lane];
}

template <typename T, int kSrcStride, int kSmemStride>
__global__ void __launch_bounds__(kWarp) CpAsyncStrided(const T* __restrict__ in, T* __restrict__ out) {
  __shared__ T buf[kWarp * kSmemStride];
  CopyThroughShared<T, kSrcStride, kSmemStride, 0>(in, out, buf);
}

// The same with lane i's element stored at buf[(i ^ kLaneXor) * kSmemStride]: for kLaneXor < 8 a
// permutation within each 8-lane phase.
template <typename T, int kSrcStride, int kSmemStride, unsigned kLaneXor>
__global__ void __launch_bounds__(kWarp) CpAsyncLaneXor(const T* __restrict__ in, T* __restrict__ out) {
  __shared__ T buf[kWarp * kSmemStride];
  CopyThroughShared<T, kSrcStride, kSmemStride, kLaneXor>(in, out, buf);
}

constexpr int kTile = 32;                            // floats per tile side
constexpr int kChunkFloats = 4;                      // 16 bytes
constexpr int kChunksPerRow = kTile / kChunkFloats;  // 8
constexpr int kMatrixSide = 64;                      // the tile cases' matrix: 2x2 tiles

// The chunk offset within its row at which chunk c of row r is stored.
template <bool kSwizzle>
__host__ __device__ __forceinline__ int ChunkSlot(int r, int c) {
  return kSwizzle ? (c ^ (r % kChunksPerRow)) : c;
}

// One single-warp block per 32x32 tile of a row-major float matrix with `cols` columns (a multiple
// of 32, as is the row count): copies the tile into shared memory and back out unchanged.
template <bool kSwizzle>
__global__ void __launch_bounds__(kWarp)
    CpAsyncTile(const float* __restrict__ in, float* __restrict__ out, int cols) {
  __shared__ uint4 tile[kTile * kChunksPerRow];  // 32 rows of 8 chunks of 16 bytes
  const int lane = threadIdx.x;
  const size_t row0 = static_cast<size_t>(blockIdx.y) * kTile;
  const size_t col0 = static_cast<size_t>(blockIdx.x) * kTile;
  // 256 chunks, 32 per instruction: chunk q = i * 32 + lane is row q / 8, chunk q % 8.
#pragma unroll
  for (int i = 0; i < kTile * kChunksPerRow / kWarp; ++i) {
    const int q = i * kWarp + lane;
    const int r = q / kChunksPerRow;
    const int c = q % kChunksPerRow;
    CopyAsync<16>(&tile[r * kChunksPerRow + ChunkSlot<kSwizzle>(r, c)],
                  &in[(row0 + r) * cols + col0 + c * kChunkFloats]);
  }
  WaitAllCopies();
  __syncthreads();
  // Lane = row; one chunk column per load.
#pragma unroll
  for (int c = 0; c < kChunksPerRow; ++c) {
    const uint4 v = tile[lane * kChunksPerRow + ChunkSlot<kSwizzle>(lane, c)];
    // bankcheck: 8-way in cp_async/tile32x32_unswizzled, conflict-free; the load of v, on the line of its use
    *reinterpret_cast<uint4*>(&out[(row0 + lane) * cols + col0 + c * kChunkFloats]) = v;
  }
}

std::string TypeName(size_t bytes) { return "u" + std::to_string(bytes * 8); }

// kLaneXor = 0: the strided case; otherwise lane i's element lands at (i ^ kLaneXor) * kSmemStride.
template <typename T, int kSrcStride, int kSmemStride, unsigned kLaneXor = 0>
void RegisterStridedCopy() {
  static_assert(kLaneXor < kWarp, "the lane XOR permutes the lanes of a warp");
  constexpr unsigned kBlocks = kStridedBlocks;
  const std::string lane = kLaneXor == 0 ? "lane" : "(lane ^ " + std::to_string(kLaneXor) + ")";
  KernelCase c;
  c.name = "cp_async/" + TypeName(sizeof(T)) + "_src_s" + std::to_string(kSrcStride) + "_smem_s" +
           std::to_string(kSmemStride) + (kLaneXor == 0 ? "" : "_xor" + std::to_string(kLaneXor));
  c.description = std::to_string(kBlocks) + " single-warp blocks: " + std::to_string(sizeof(T)) +
                  "-byte cp.async from global element lane * " + std::to_string(kSrcStride) +
                  " to shared element " + lane + " * " + std::to_string(kSmemStride) +
                  ", read back with conflict-free shared loads";
  // The global source counts for the 16-byte copies (docs/model.md, "cp.async"): offsets from `in`,
  // which cudaMalloc aligns to 256 bytes.
  c.predict = [lane] {
    return PredictLaunch(
        Dim3{kBlocks}, Dim3{kWarp},
        {CpAsync(
             "buf[" + lane + " * smem_s] = in[(block * 32 + lane) * src_s]", sizeof(T),
             [](Dim3, Dim3 t) { return (t.x ^ kLaneXor) * kSmemStride * sizeof(T); },
             [](Dim3 b, Dim3 t) { return (b.x * kWarp + t.x) * kSrcStride * sizeof(T); }),
         SharedLoad(
             "buf[k * 32 + lane]", sizeof(T),
             [](Dim3, Dim3 t, uint32_t k) { return (k * kWarp + t.x) * sizeof(T); }, kSmemStride)});
  };
  c.run = [](CaseContext& ctx) {
    const size_t copied = static_cast<size_t>(kBlocks) * kWarp;
    const std::vector<T> in =
        RandomBits<T>(copied * kSrcStride, 0xC0A5u + sizeof(T) * 97u + kSrcStride * 31u + kSmemStride);
    DeviceBuffer<T> d_in(in);
    DeviceBuffer<T> d_out(copied * kSmemStride);
    d_out.Fill(0xFF);
    ctx.Measure([&] {
      if constexpr (kLaneXor == 0) {
        CpAsyncStrided<T, kSrcStride, kSmemStride><<<kBlocks, kWarp>>>(d_in.get(), d_out.get());
      } else {
        CpAsyncLaneXor<T, kSrcStride, kSmemStride, kLaneXor><<<kBlocks, kWarp>>>(d_in.get(), d_out.get());
      }
    });
    const std::vector<T> out = d_out.ToHost();
    std::vector<T> copied_out(copied), expected(copied);
    for (size_t e = 0; e < copied; ++e) {
      // Block b's lane i: out[(b * 32 + (i ^ kLaneXor)) * kSmemStride]; kLaneXor < 32.
      copied_out[e] = out[(e ^ kLaneXor) * kSmemStride];
      expected[e] = in[e * kSrcStride];
    }
    ExpectVectorsEqual(copied_out, expected, "copied elements");
  };
  RegisterKernelCase(std::move(c));
}

template <bool kSwizzle>
void RegisterTileCopy() {
  constexpr uint64_t kPerWarp = kTile * kChunksPerRow / kWarp;  // 8 copies and 8 loads
  KernelCase c;
  c.name = std::string("cp_async/tile32x32_") + (kSwizzle ? "swizzled" : "unswizzled");
  c.description = std::string("64x64 floats: 16-byte cp.async of each 32x32 tile into ") +
                  (kSwizzle ? "a chunk-swizzled (c ^ r % 8)" : "an unswizzled") +
                  " shared tile, read back by chunk column with 16-byte loads";
  // The copy: every 8-lane phase writes one whole 128-byte row (permuted within the row when
  // swizzled) from 128 contiguous bytes of a matrix row: 4 wavefronts per instruction by the
  // 16-byte copy rule, for both tiles: the swizzled copy, a permutation within each row, costs what
  // a contiguous copy does. The read-back: 16-byte loads, ideal 4 wavefronts each; unswizzled
  // 8-way (32 wavefronts), as 16-byte loads of lanes 512 B apart in strided/u128_s32 (here 128 B
  // apart: the same banks).
  // Iteration i, lane l: chunk q = i * 32 + l, row q / 8, chunk q % 8, as the kernel copies it;
  // the global source as an offset from `in`.
  c.predict = [] {
    auto row = [](Dim3, Dim3 t, uint32_t i) { return static_cast<int>((i * kWarp + t.x) / kChunksPerRow); };
    auto chunk = [](Dim3, Dim3 t, uint32_t i) { return static_cast<int>((i * kWarp + t.x) % kChunksPerRow); };
    return PredictLaunch(
        Dim3{kMatrixSide / kTile, kMatrixSide / kTile}, Dim3{kWarp},
        {CpAsync(
             "tile[r][slot(r, c)] = in[row0 + r][col0 + 4c]", 16,
             [=](Dim3 b, Dim3 t, uint32_t i) {
               const int r = row(b, t, i);
               return sizeof(uint4) * (r * kChunksPerRow + ChunkSlot<kSwizzle>(r, chunk(b, t, i)));
             },
             [=](Dim3 b, Dim3 t, uint32_t i) {
               return sizeof(float) * ((b.y * kTile + row(b, t, i)) * kMatrixSide + b.x * kTile +
                                       chunk(b, t, i) * kChunkFloats);
             },
             static_cast<uint32_t>(kPerWarp)),
         SharedLoad(
             "tile[lane][slot(lane, c)]", 16,
             [](Dim3, Dim3 t, uint32_t c) {
               const int lane = static_cast<int>(t.x);
               return sizeof(uint4) * (lane * kChunksPerRow + ChunkSlot<kSwizzle>(lane, static_cast<int>(c)));
             },
             kChunksPerRow)});
  };
  c.run = [](CaseContext& ctx) {
    constexpr size_t n = static_cast<size_t>(kMatrixSide) * kMatrixSide;
    const std::vector<float> in = RandomIntegerFloats(n, kSwizzle ? 0x711Eu : 0x711Fu);
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> d_out(n);
    d_out.Fill(0xFF);
    const dim3 grid(kMatrixSide / kTile, kMatrixSide / kTile);
    ctx.Measure([&] { CpAsyncTile<kSwizzle><<<grid, kWarp>>>(d_in.get(), d_out.get(), kMatrixSide); });
    ExpectVectorsEqual(d_out.ToHost(), in, "copied matrix");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterCpAsyncCases() {
  // 4 bytes: one 32-lane phase. Stride 1: 1 wavefront; stride 2: 2-way; stride 32: 32 words in
  // bank 0, 32-way. The bank rule.
  RegisterStridedCopy<uint32_t, 1, 1>();
  RegisterStridedCopy<uint32_t, 1, 2>();
  RegisterStridedCopy<uint32_t, 1, 32>();

  // 8 bytes: two 16-lane phases, ideal 2. Stride 2 (16 B apart): each phase spans 256 B, 2-way;
  // stride 32 (256 B apart): each phase's 16 lanes all in banks 0-1, 16-way. The same as the 8-byte
  // loads and stores of strided/u64_s*: the bank rule, for cp.async too.
  RegisterStridedCopy<uint64_t, 1, 1>();
  RegisterStridedCopy<uint64_t, 1, 2>();
  RegisterStridedCopy<uint64_t, 1, 32>();

  // 16 bytes: four 8-lane phases, ideal 4 by the bank rule. Contiguous: 4 wavefronts.
  RegisterStridedCopy<uint4, 1, 1>();
  // Shared side strided, global contiguous. By the bank rule stride 2 (32 B apart) would be 2-way
  // (8 wavefronts) and stride 32 (512 B apart) 8-way (32 wavefronts); the H100 measured 32
  // wavefronts for both: one wavefront per lane, 28 beyond the ideal of 4.
  RegisterStridedCopy<uint4, 1, 2>();
  RegisterStridedCopy<uint4, 1, 32>();
  // Global side strided, shared contiguous: the bank rule (shared side) gives 4 wavefronts, as the
  // contiguous copy, but the H100 measured 32 (2026-11-23, and ncu agreed): a 16-byte cp.async
  // takes one wavefront per lane unless every 8 lanes copy one whole 128-byte row on both sides.
  RegisterStridedCopy<uint4, 2, 1>();
  RegisterStridedCopy<uint4, 32, 1>();
  // The model's 16-byte rule (docs/model.md) put to the GPU. Global lanes 64 B and 128 B apart
  // (each phase reads 8 separate pieces of a 512 B or 1 KB span): one wavefront per lane, 32.
  // Shared lanes 64 B apart (4-way by the bank rule: 16): 32. And each phase writing its whole row
  // in the order lane ^ 5 from a contiguous source: a row per phase, 4.
  RegisterStridedCopy<uint4, 4, 1>();
  RegisterStridedCopy<uint4, 8, 1>();
  RegisterStridedCopy<uint4, 1, 4>();
  RegisterStridedCopy<uint4, 1, 1, 5>();

  // 32x32 tiles: 4 tiles x 8 loads; unswizzled each load costs 32 wavefronts (8-way).
  RegisterTileCopy<true>();
  RegisterTileCopy<false>();
}

BANKCHECK_REGISTER_CASES(RegisterCpAsyncCases);

}  // namespace
}  // namespace bankcheck::kernels
