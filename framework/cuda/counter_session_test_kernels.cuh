#pragma once
// Kernels of the counter session's GPU tests (counter_session_test.cu,
// counter_session_failures_test.cu), from the research note's probes.

namespace bankcheck::test_kernels {
namespace {

// 256 threads store to smem[tid * kStride], then each loads its neighbour's slot: the same set of
// words per warp, so the same conflicts, and a load the compiler cannot forward from the store.
template <int kStride>
__global__ void DemoKernel(int* sink) {
  __shared__ int smem[256 * kStride];
  const unsigned tid = threadIdx.x;
  smem[tid * kStride] = static_cast<int>(tid);
  __syncthreads();
  sink[tid] = smem[((tid + 1) % 256) * kStride] + 1;
}

// One warp: store, then load the neighbour's slot, at a stride of `stride` 4-byte words.
__global__ void OneWarpStride(int* sink, int stride) {
  __shared__ int smem[32 * 64];
  const int lane = static_cast<int>(threadIdx.x);
  smem[lane * stride] = lane;
  __syncthreads();
  sink[lane] = smem[((lane + 1) % 32) * stride];
}

}  // namespace
}  // namespace bankcheck::test_kernels
