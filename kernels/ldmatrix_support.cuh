#pragma once
// What ldmatrix.cu, stmatrix.cu and mma_gemm.cu share: b16 tiles of 64 columns (128-byte rows) in
// shared memory in three layouts, the byte offset of a 16-byte chunk in each (one formula for the
// kernels and for their declared access patterns: host and device), the ldmatrix/stmatrix
// wrappers, and the host reference of the fragment layout.
//
// Layouts, for one 8x8 b16 matrix = 8 rows of one 16-byte chunk column (ldmatrix/stmatrix serve a
// matrix as one phase of 8 rows; bank = byte address / 4 % 32):
//   row_major  row pitch 128 B: the 8 rows of a matrix start 128 B apart, all in the same 4 banks:
//              8 distinct words per bank, 8 wavefronts per matrix (8-way).
//   padded     row pitch 144 B (+8 b16): row i starts 16*i bytes further round the banks: the 8 rows
//              cover all 32 banks once, conflict-free.
//   swizzled   row pitch 128 B, chunk c of row r stored at chunk c ^ (r % 8) (CUTLASS/CuTe
//              Swizzle<3,4,3> on b16): the 8 rows of a matrix land in 8 different chunks,
//              conflict-free without padding.
// Filling a tile row-wise with 16-byte stores (8 lanes = one row = one phase) is conflict-free in
// all three layouts. All of this is the bank rule, as measured (ldmatrix.cu, stmatrix.cu,
// mma_gemm.cu). The wrappers' lines are where bankcheck counts every ldmatrix and stmatrix of
// those files (docs/attribution.md), so each such line's annotation names the cases in which it
// conflicts; nvcc gives an asm statement the line of its input operands, which is the line
// annotated.
//
// Matrix numbering in a 16-row band of a tile (the order of the mma.m16n8k16 A operand):
// matrix m holds rows 8*(m % 2) .. 8*(m % 2) + 7 of the band and chunk m / 2 (columns
// 8*(m/2) .. 8*(m/2) + 7); an .x4 with m = 4s .. 4s+3 loads the 16x16 block of chunks 2s, 2s+1.
// The lane that supplies row i of the instruction's j-th matrix is lane 8*j + i.
//
// File-local (an anonymous namespace), as transpose_kernel.cuh: each program that includes it gets
// its own copy.

#include <cstdint>

namespace bankcheck::kernels {
namespace {

constexpr uint32_t kTileCols = 64;    // b16 elements per tile row: 128 bytes
constexpr uint32_t kChunkBytes = 16;  // one 8-element matrix row: what one lane of ldmatrix supplies
constexpr uint32_t kChunksPerRow = kTileCols * 2 / kChunkBytes;       // 8
constexpr uint32_t kBandRows = 16;                                    // rows of the A-order band
constexpr uint32_t kMatricesPerBand = kBandRows / 8 * kChunksPerRow;  // 16
constexpr uint32_t kWarpLanes = 32;

enum class MatrixLayout { kRowMajor, kPadded, kSwizzled };

constexpr const char* LayoutName(MatrixLayout layout) {
  return layout == MatrixLayout::kRowMajor ? "row_major"
         : layout == MatrixLayout::kPadded ? "padded"
                                           : "swizzled";
}

// Bytes from one row of the tile to the next.
__host__ __device__ constexpr uint32_t RowPitchBytes(MatrixLayout layout) {
  return layout == MatrixLayout::kPadded ? (kTileCols + 8) * 2 : kTileCols * 2;
}

__host__ __device__ constexpr uint32_t TileBytes(MatrixLayout layout, uint32_t rows) {
  return rows * RowPitchBytes(layout);
}

// Byte offset, from the start of the tile, of the 16-byte chunk `chunk` (columns 8*chunk ..
// 8*chunk + 7) of row `row`.
__host__ __device__ constexpr uint32_t ChunkOffset(MatrixLayout layout, uint32_t row, uint32_t chunk) {
  return row * RowPitchBytes(layout) +
         kChunkBytes * (layout == MatrixLayout::kSwizzled ? (chunk ^ (row % 8)) : chunk);
}

// Band-relative row and chunk of the row that `lane` supplies when an instruction of
// `matrices` matrices loads or stores the band's matrices first .. first + matrices - 1. Lanes from
// 8*matrices on supply no row (the hardware ignores their addresses); they are given one of the
// instruction's rows so that their address is valid anyway.
__host__ __device__ constexpr uint32_t SuppliedMatrix(uint32_t first, uint32_t matrices, uint32_t lane) {
  return first + (lane / 8) % matrices;
}
__host__ __device__ constexpr uint32_t MatrixRow(uint32_t matrix, uint32_t lane) {
  return 8 * (matrix % 2) + lane % 8;
}
__host__ __device__ constexpr uint32_t MatrixChunk(uint32_t matrix) { return matrix / 2; }

// The 32-bit shared-window address of a pointer into shared memory, as ldmatrix/stmatrix take it.
__device__ __forceinline__ uint32_t SharedAddress(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: register j of every lane gets its part
// of matrix j (row lane / 4, columns 2*(lane % 4) and +1, the lower column in the low half; with
// .trans, of the transposed matrix). `row` is this lane's row address (lanes 0..8*kMatrices-1).
template <int kMatrices, bool kTrans>
__device__ __forceinline__ void LoadMatrices(uint32_t (&regs)[kMatrices], uint32_t row) {
  static_assert(kMatrices == 1 || kMatrices == 2 || kMatrices == 4, "ldmatrix loads 1, 2 or 4 matrices");
  if constexpr (kMatrices == 1 && !kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
                 : "=r"(regs[0])
                 // bankcheck: 8-way in ldmatrix/row_major_x1, conflict-free
                 : "r"(row)
                 : "memory");
  } else if constexpr (kMatrices == 1) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
                 : "=r"(regs[0])
                 : "r"(row)
                 : "memory");
  } else if constexpr (kMatrices == 2 && !kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(regs[0]), "=r"(regs[1])
                 // bankcheck: 8-way in ldmatrix/row_major_x2, conflict-free
                 : "r"(row)
                 : "memory");
  } else if constexpr (kMatrices == 2) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(regs[0]), "=r"(regs[1])
                 : "r"(row)
                 : "memory");
  } else if constexpr (!kTrans) {
    // The annotation, not the asm, passes the column limit.
    // clang-format off
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(regs[0]), "=r"(regs[1]), "=r"(regs[2]), "=r"(regs[3])
                 // bankcheck: 8-way in ldmatrix/mixed_row_major_x4_lds_stride2 | ldmatrix/row_major_x4 | mma_gemm/row_major/*, conflict-free
                 : "r"(row)
                 : "memory");
    // clang-format on
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(regs[0]), "=r"(regs[1]), "=r"(regs[2]), "=r"(regs[3])
                 // bankcheck: 8-way in ldmatrix/row_major_x4_trans | mma_gemm/row_major/*, conflict-free
                 : "r"(row)
                 : "memory");
  }
}

// stmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16 (sm_90): the inverse of LoadMatrices without
// .trans. Compiles to nothing below sm_90; callers must not run there (their cases skip).
template <int kMatrices>
__device__ __forceinline__ void StoreMatrices(uint32_t row, const uint32_t (&regs)[kMatrices]) {
  static_assert(kMatrices == 1 || kMatrices == 2 || kMatrices == 4, "stmatrix stores 1, 2 or 4 matrices");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kMatrices == 1) {
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n"
                 :
                 // bankcheck: 8-way in stmatrix/row_major_x1, conflict-free
                 : "r"(row), "r"(regs[0])
                 : "memory");
  } else if constexpr (kMatrices == 2) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n"
                 :
                 : "r"(row), "r"(regs[0]), "r"(regs[1])
                 : "memory");
  } else {
    // The annotation, not the asm, passes the column limit.
    // clang-format off
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                 :
                 // bankcheck: 8-way in stmatrix/mixed_row_major_x4_sts_stride2 | stmatrix/row_major_x4, conflict-free
                 : "r"(row), "r"(regs[0]), "r"(regs[1]), "r"(regs[2]), "r"(regs[3])
                 : "memory");
    // clang-format on
  }
#else
  (void)row;
  (void)regs;
#endif
}

// Host reference: the 32-bit register `lane` holds for an 8x8 b16 matrix whose element (i, j) is
// at(i, j): row lane / 4, columns 2*(lane % 4) and +1, the lower column in the low half; with
// `trans`, the same of the transposed matrix.
template <typename At>
uint32_t FragmentWord(const At& at, uint32_t lane, bool trans) {
  const uint32_t i = lane / 4;
  const uint32_t j = 2 * (lane % 4);
  const uint32_t lo = trans ? at(j, i) : at(i, j);
  const uint32_t hi = trans ? at(j + 1, i) : at(i, j + 1);
  return lo | (hi << 16);
}

}  // namespace
}  // namespace bankcheck::kernels
