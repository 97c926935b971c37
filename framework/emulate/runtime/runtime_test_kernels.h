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

}  // namespace emutest
