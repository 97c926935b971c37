// A real kernel's shape: a 1024x1024 transpose through 32x32 shared tiles, one kernel per tile
// layout. Its cases state no per-launch expectation (no c.expect): their lines are the contract.
// The first run on a GPU fails as MISSING and prints, per source line, the annotation that matches
// what was measured; `bankcheck annotate <results> --apply` writes them here, and recording the
// baseline makes the case pass (README, "Add a kernel").
#include <gtest/gtest.h>

#include <vector>

#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/kernel_registry.h"

namespace {
constexpr int kTile = 32, kRows = 8, kSize = 1024;

// Each block moves one tile: 32x8 threads, each thread four rows.
__global__ void TransposeTile(const float* in, float* out) {
  __shared__ float tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * kSize + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x, ty = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) out[(ty + r) * kSize + tx] = tile[threadIdx.x][threadIdx.y + r];
}

// The same with each tile row padded by one word.
__global__ void TransposePaddedTile(const float* in, float* out) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * kSize + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x, ty = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) out[(ty + r) * kSize + tx] = tile[threadIdx.x][threadIdx.y + r];
}

using Kernel = void (*)(const float*, float*);

void RegisterTranspose(const char* name, const char* description, Kernel kernel) {
  bankcheck::KernelCase c;
  c.name = name;
  c.description = description;
  c.run = [kernel](bankcheck::CaseContext& ctx) {
    std::vector<float> in(kSize * kSize);
    for (int i = 0; i < kSize * kSize; ++i) in[i] = float(i % 4099);
    bankcheck::DeviceBuffer<float> d_in(in), d_out(kSize * kSize);
    ctx.Measure(
        [&] { kernel<<<dim3(kSize / kTile, kSize / kTile), dim3(kTile, kRows)>>>(d_in.get(), d_out.get()); });
    const std::vector<float> out = d_out.ToHost();
    for (int y = 0; y < kSize; ++y)
      for (int x = 0; x < kSize; ++x) ASSERT_EQ(out[y * kSize + x], in[x * kSize + y]) << x << "," << y;
  };
  bankcheck::RegisterKernelCase(std::move(c));
}

BANKCHECK_REGISTER_CASES([] {
  RegisterTranspose("tile_transpose/unpadded", "1024x1024 transpose through float tile[32][32]",
                    TransposeTile);
  RegisterTranspose("tile_transpose/padded", "1024x1024 transpose through float tile[32][33]",
                    TransposePaddedTile);
});
}  // namespace
