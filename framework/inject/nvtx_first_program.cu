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
#include <vector>

namespace {

constexpr int kWarp = 32;
constexpr int kBlocks = 4;
constexpr int kElements = kBlocks * kWarp;

__global__ void Fill(float* out, float value) { out[blockIdx.x * kWarp + threadIdx.x] = value + threadIdx.x; }

// Through shared memory, lane l's element to lane l + 1 (conflict-free).
__global__ void Shift(const float* in, float* out) {
  __shared__ float buf[kWarp];
  const unsigned lane = threadIdx.x;
  buf[lane] = in[blockIdx.x * kWarp + lane];
  __syncthreads();
  out[blockIdx.x * kWarp + lane] = buf[(lane + 1) % kWarp];
}

bool Check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "bankcheck_nvtx_first: %s: %s\n", what, cudaGetErrorString(status));
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
      std::fprintf(stderr, "bankcheck_nvtx_first: out[%d] = %g, expected %g\n", i,
                   static_cast<double>(host[i]), static_cast<double>(value + static_cast<float>(lane)));
      return false;
    }
  }
  return true;
}

}  // namespace

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
