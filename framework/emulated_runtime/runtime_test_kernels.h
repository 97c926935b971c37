#pragma once
// Kernels compiled by nvcc for the stand-in runtime's test: their host stubs (nvcc's, unchanged)
// run on the CPU against the stand-in runtime. Plain C++ declarations, so that the test itself is
// a .cc file.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace emutest {

struct Pair {
  int a;
  double b;
};

// The host stubs, as cudaLaunchKernel and cudaFuncSetAttribute take them.
const void* ParamsKernelStub();
const void* NoParamsKernelStub();
const void* ManyRegistersKernelStub();

// ParamsKernel<<<grid, block, shared>>>(in, out, n, p, c)
void LaunchParams(const float* in, float* out, int n, Pair p, char c, dim3 grid, dim3 block, size_t shared);
// NoParamsKernel<<<3, 32>>>()
void LaunchNoParams();
// NoParamsKernel through cudaLaunchKernelEx with a cluster dimension of 2.
cudaError_t LaunchNoParamsInClusters();

// What LaunchAsALauncher chose and saw.
struct LauncherRun {
  cudaError_t error = cudaSuccess;  // the first error of its calls
  int block = 0;                    // cudaOccupancyMaxPotentialBlockSize's block size
  int multiprocessors = 0;          // cudaDevAttrMultiProcessorCount
  int blocks_per_multiprocessor = 0;
  float milliseconds = -1;  // between the events recorded before and after the launch
};
// A launcher as code written elsewhere makes one: ManyRegistersKernel's block size from the
// occupancy calculator, a grid of as many blocks as fit on every multiprocessor at once, `out` (a
// float per thread of a block) zeroed and `in` (24 x 1024 float4) copied in on a stream of its own,
// the launch timed with events.
LauncherRun LaunchAsALauncher(const void* host_in, size_t in_bytes, float4* in, float* out, size_t out_bytes);

}  // namespace emutest
