#pragma once
// The kernels and host checks of the plain CUDA programs that `bankcheck run`'s GPU tests measure
// (nvtx_first_program.cu, capture_first_program.cu): Fill writes, Shift moves data through shared
// memory conflict-free, and every output is checked on the host. Each program defines
// BANKCHECK_TEST_PROGRAM, its name for its messages, before including this.

#include <cstdio>
#include <vector>

namespace {

constexpr int kWarp = 32;
constexpr int kBlocks = 4;
constexpr int kElements = kBlocks * kWarp;

__global__ void Fill(float* out, float value) { out[blockIdx.x * kWarp + threadIdx.x] = value + threadIdx.x; }

// Through shared memory, lane l's element to lane l + 1 (conflict-free: one wavefront per warp for
// the store and for the load).
__global__ void Shift(const float* in, float* out) {
  __shared__ float buf[kWarp];
  const unsigned lane = threadIdx.x;
  buf[lane] = in[blockIdx.x * kWarp + lane];
  __syncthreads();
  out[blockIdx.x * kWarp + lane] = buf[(lane + 1) % kWarp];
}

bool Check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, BANKCHECK_TEST_PROGRAM ": %s: %s\n", what, cudaGetErrorString(status));
  return false;
}

// The output of Fill(value) then, when `shifted`, Shift.
bool Expect(const float* device, float value, bool shifted) {
  std::vector<float> host(kElements);
  if (!Check(cudaMemcpy(host.data(), device, sizeof(float) * kElements, cudaMemcpyDeviceToHost), "copy back"))
    return false;
  for (int i = 0; i < kElements; ++i) {
    const int lane = (i % kWarp + (shifted ? 1 : 0)) % kWarp;
    if (host[i] != value + static_cast<float>(lane)) {
      std::fprintf(stderr, BANKCHECK_TEST_PROGRAM ": out[%d] = %g, expected %g\n", i,
                   static_cast<double>(host[i]), static_cast<double>(value + static_cast<float>(lane)));
      return false;
    }
  }
  return true;
}

}  // namespace
