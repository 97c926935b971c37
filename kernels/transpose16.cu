// The cuda-samples transpose ("transposeNoBankConflicts") with TILE_DIM 16 and BLOCK_ROWS 16: 16x16
// thread blocks, one element per thread, through __shared__ float tile[16][17]. The +1 padding
// was made for 16 banks (compute 1.x); on 32 banks it does not make the kernel conflict-free,
// because a warp is two rows of the block: lanes 0-15 are (tx = 0..15, ty = 2w) and lanes 16-31
// are (tx = 0..15, ty = 2w + 1).
//
//   padded    tile[16][17].
//             store tile[ty][tx]: words 34w + 0..15 and 34w + 17..32. Words 34w (lane 0) and
//             34w + 32 (lane 31: tx = 15 of the second row) share a bank: 2-way.
//             load tile[tx][ty]: word 17 tx + 2w + h (h = lane / 16). 17 tx mod 32 gives the even
//             banks 0-14 and the odd banks 17-31; h = 1 shifts them to the odd banks 1-15 and the
//             even banks 18-30 and 32 = 0, so bank 2w holds words 2w (tx = 0, h = 0) and 2w + 256
//             (tx = 15, h = 1): 2-way.
//   unpadded  tile[16][16], for contrast.
//             store: words 32w + 0..31, conflict-free.
//             load: word 16 tx + 2w + h: banks 2w + h and 2w + h + 16 only, 8 words each: 8-way.
//   swizzled  tile[16][16] with element (r, c) at tile[r][c ^ (r & 14)]: conflict-free both ways.
//             store: each row a permutation of its 16 words, the two rows 32w + 0..15 and
//             32w + 16..31. load: bank 16 (tx & 1) + ((2w + h) ^ (tx & 14)); for each parity of
//             tx the 8 values of tx & 14 and the 2 values of h give 16 distinct columns.
//
// All counts are the bank rule for 4-byte accesses (one 32-lane phase), as measured (each access's
// line annotation says its ways in each case); `predict` states the pattern. A 64x64 matrix: 4x4
// blocks of 8 warps, one store and one load instruction per warp: 128 of each per launch.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "kernel_support.h"

namespace bankcheck::kernels {
namespace {

constexpr int kTileDim = 16;
constexpr int kBlockRows = 16;
constexpr int kSide = 64;  // the matrix: kSide x kSide floats

enum class Tile16 { kPadded, kUnpadded, kSwizzled };

template <Tile16 kLayout>
constexpr int kPitch = kLayout == Tile16::kPadded ? kTileDim + 1 : kTileDim;

// The column at which element (r, c) of the tile is stored.
template <Tile16 kLayout>
__host__ __device__ constexpr unsigned StoredColumn(unsigned r, unsigned c) {
  return kLayout == Tile16::kSwizzled ? (c ^ (r & 14u)) : c;
}

// As in cuda-samples (transpose.cu, transposeNoBankConflicts): `width` x `height` is the output
// (idata is height rows of width floats); both multiples of the tile, so no bounds checks.
template <Tile16 kLayout>
__global__ void __launch_bounds__(kTileDim* kBlockRows)
    Transpose16(float* __restrict__ odata, const float* __restrict__ idata, int width, int height) {
  __shared__ float tile[kTileDim][kPitch<kLayout>];
  int xIndex = blockIdx.x * kTileDim + threadIdx.x;
  int yIndex = blockIdx.y * kTileDim + threadIdx.y;
  const int index_in = xIndex + yIndex * width;
  xIndex = blockIdx.y * kTileDim + threadIdx.x;
  yIndex = blockIdx.x * kTileDim + threadIdx.y;
  const int index_out = xIndex + yIndex * height;
  for (int i = 0; i < kTileDim; i += kBlockRows) {
    const unsigned r = threadIdx.y + i;
    // bankcheck: 2-way in transpose16/padded/*, conflict-free
    tile[r][StoredColumn<kLayout>(r, threadIdx.x)] = idata[index_in + i * width];
  }
  __syncthreads();
  for (int i = 0; i < kTileDim; i += kBlockRows) {
    const unsigned c = threadIdx.y + i;
    // bankcheck: 2-way in transpose16/padded/*, 8-way in transpose16/unpadded/*, conflict-free
    odata[index_out + i * height] = tile[threadIdx.x][StoredColumn<kLayout>(threadIdx.x, c)];
  }
}

template <Tile16 kLayout>
void RegisterTranspose16Case(const std::string& layout_name, const std::string& tile_decl) {
  KernelCase c;
  c.name = "transpose16/" + layout_name + "/" + std::to_string(kSide) + "x" + std::to_string(kSide);
  c.description = "cuda-samples transpose, TILE_DIM 16, BLOCK_ROWS 16, " + tile_decl + ", " +
                  std::to_string(kSide) + "x" + std::to_string(kSide) + " floats";
  c.predict = [] {
    constexpr uint32_t kP = kPitch<kLayout>;
    constexpr uint32_t kBlocksPerSide = kSide / kTileDim;
    return PredictLaunch(
        Dim3{kBlocksPerSide, kBlocksPerSide}, Dim3{kTileDim, kBlockRows},
        {SharedStore("tile[ty][tx]", 4,
                     [](Dim3, Dim3 t) { return 4u * (t.y * kP + StoredColumn<kLayout>(t.y, t.x)); }),
         SharedLoad("tile[tx][ty]", 4,
                    [](Dim3, Dim3 t) { return 4u * (t.x * kP + StoredColumn<kLayout>(t.x, t.y)); })});
  };
  c.run = [](CaseContext& ctx) {
    constexpr size_t n = static_cast<size_t>(kSide) * kSide;
    const std::vector<float> in = RandomIntegerFloats(n, 0x7016u + static_cast<uint32_t>(kLayout));
    DeviceBuffer<float> d_in(in);
    DeviceBuffer<float> d_out(n);
    d_out.Fill(0xFF);
    const dim3 grid(kSide / kTileDim, kSide / kTileDim);
    const dim3 block(kTileDim, kBlockRows);
    ctx.Measure([&] { Transpose16<kLayout><<<grid, block>>>(d_out.get(), d_in.get(), kSide, kSide); });
    ExpectVectorsEqual(d_out.ToHost(), HostTranspose(in, kSide, kSide), "transposed matrix");
  };
  RegisterKernelCase(std::move(c));
}

void RegisterTranspose16Cases() {
  RegisterTranspose16Case<Tile16::kPadded>("padded", "float tile[16][17]");
  RegisterTranspose16Case<Tile16::kUnpadded>("unpadded", "float tile[16][16]");
  RegisterTranspose16Case<Tile16::kSwizzled>("swizzled", "float tile[16][16], column c ^ (r & 14)");
}

BANKCHECK_REGISTER_CASES(RegisterTranspose16Cases);

}  // namespace
}  // namespace bankcheck::kernels
