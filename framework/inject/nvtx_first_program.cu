// bankcheck_nvtx_first: a plain CUDA program (no bankcheck library) whose first NVTX range opens
// before CUDA initializes, as a PyTorch script's does (its inputs made with torch.randn inside the
// first range): what `bankcheck run`'s GPU test (run_gpu_test.sh) measures. NVTX initializes the
// injection at the first push, before cuInit, so the launches in that range must be named by it.
//
//   range     launches                      case names under `bankcheck run`
//   inputs    Fill x2 (CUDA starts here)    inputs/Fill, inputs/Fill#2
//   work      Shift x2                      work/Shift, work/Shift#2
//   (none)    Fill x2                       Fill, Fill#2
//
// Every output is checked on the host. Exit status: 0 ok, 1 a wrong result or a CUDA error.

#include <nvtx3/nvToolsExt.h>

#include <cstdio>

#define BANKCHECK_TEST_PROGRAM "bankcheck_nvtx_first"
#include "program_kernels.cuh"

int main() {
  nvtxRangePushA("inputs");  // before any CUDA call
  float* a = nullptr;
  float* b = nullptr;
  bool ok = Check(cudaMalloc(&a, sizeof(float) * kElements), "cudaMalloc") &&
            Check(cudaMalloc(&b, sizeof(float) * kElements), "cudaMalloc");
  if (ok) {
    Fill<<<kBlocks, kWarp>>>(a, 1.0f);
    Fill<<<kBlocks, kWarp>>>(a, 2.0f);
    ok = Check(cudaGetLastError(), "launch") && Expect(a, 2.0f, false);
  }
  nvtxRangePop();
  nvtxRangePushA("work");
  if (ok) {
    Shift<<<kBlocks, kWarp>>>(a, b);
    Shift<<<kBlocks, kWarp>>>(a, b);
    ok = Check(cudaGetLastError(), "launch") && Expect(b, 2.0f, true);
  }
  nvtxRangePop();
  if (ok) {
    Fill<<<kBlocks, kWarp>>>(a, 3.0f);
    Fill<<<kBlocks, kWarp>>>(a, 4.0f);
    ok = Check(cudaGetLastError(), "launch") && Expect(a, 4.0f, false);
  }
  cudaFree(a);
  cudaFree(b);
  if (!ok) return 1;
  std::printf("bankcheck_nvtx_first: all 6 launches correct\n");
  return 0;
}
