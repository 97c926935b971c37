#pragma once
// The kernel of the C interface's test (c_api_test_kernels.cu), launched through the stand-in runtime.

#include <cuda_runtime_api.h>

namespace emucapi {

// TransposeTile's mangled name, as the cubin names it.
inline constexpr char kTransposeTile[] = "_ZN7emucapi13TransposeTileEPKiPii";

cudaError_t LaunchTransposeTile(dim3 grid, dim3 block, const int* in, int* out, int n);

}  // namespace emucapi
