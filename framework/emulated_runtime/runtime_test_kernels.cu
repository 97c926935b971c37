#include "emulated_runtime/runtime_test_kernels.h"

namespace emutest {

// Named outside an anonymous namespace, so that their mangled names are fixed.
__global__ void ParamsKernel(const float* in, float* out, int n, Pair p, char c) {
  __shared__ float tile[64];
  tile[threadIdx.x % 64] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x % 64] + static_cast<float>(n + p.a + c) + static_cast<float>(p.b);
}

__global__ void NoParamsKernel() {}

// Keeps 96 loaded values live at once: its registers, not its threads, limit its blocks per
// multiprocessor (cudaFuncGetAttributes and the occupancy calculator read them).
__global__ void ManyRegistersKernel(const float4* in, float* out) {
  float4 v[24];
#pragma unroll
  for (int i = 0; i < 24; ++i) v[i] = in[threadIdx.x + i * 1024];
  float sum = 0;
#pragma unroll
  for (int i = 0; i < 24; ++i) sum += v[i].x * v[(i + 1) % 24].y + v[i].z * v[(i + 7) % 24].w;
  out[threadIdx.x] = sum;
}

const void* ParamsKernelStub() { return reinterpret_cast<const void*>(&ParamsKernel); }
const void* NoParamsKernelStub() { return reinterpret_cast<const void*>(&NoParamsKernel); }
const void* ManyRegistersKernelStub() { return reinterpret_cast<const void*>(&ManyRegistersKernel); }

void LaunchParams(const float* in, float* out, int n, Pair p, char c, dim3 grid, dim3 block, size_t shared) {
  ParamsKernel<<<grid, block, shared>>>(in, out, n, p, c);
}

void LaunchNoParams() { NoParamsKernel<<<3, 32>>>(); }

cudaError_t LaunchNoParamsInClusters() {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(4);
  config.blockDim = dim3(32);
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = 2;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, NoParamsKernel);
}

LauncherRun LaunchAsALauncher(const void* host_in, size_t in_bytes, float4* in, float* out,
                              size_t out_bytes) {
  LauncherRun run;
  const auto call = [&run](cudaError_t error) {
    if (run.error == cudaSuccess) run.error = error;
    return error == cudaSuccess;
  };
  int min_grid = 0, device = 0;
  if (!call(cudaOccupancyMaxPotentialBlockSize(&min_grid, &run.block, ManyRegistersKernel)) ||
      !call(cudaGetDevice(&device)) ||
      !call(cudaDeviceGetAttribute(&run.multiprocessors, cudaDevAttrMultiProcessorCount, device)) ||
      !call(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&run.blocks_per_multiprocessor, ManyRegistersKernel,
                                                          run.block, 0)))
    return run;
  const int grid = run.multiprocessors * run.blocks_per_multiprocessor;
  if (static_cast<size_t>(run.block) * sizeof(float) > out_bytes || in_bytes < 24 * 1024 * sizeof(float4)) {
    run.error = cudaErrorInvalidValue;
    return run;
  }
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  if (!call(cudaStreamCreate(&stream)) || !call(cudaEventCreate(&start)) || !call(cudaEventCreate(&stop)))
    return run;
  call(cudaMemsetAsync(out, 0, out_bytes, stream));
  call(cudaMemcpyAsync(in, host_in, in_bytes, cudaMemcpyHostToDevice, stream));
  call(cudaEventRecord(start, stream));
  ManyRegistersKernel<<<grid, run.block, 0, stream>>>(in, out);
  call(cudaGetLastError());
  call(cudaEventRecord(stop, stream));
  call(cudaEventSynchronize(stop));
  call(cudaEventElapsedTime(&run.milliseconds, start, stop));
  call(cudaStreamSynchronize(stream));
  call(cudaEventDestroy(start));
  call(cudaEventDestroy(stop));
  call(cudaStreamDestroy(stream));
  return run;
}

}  // namespace emutest
