// bankcheck_launch_cost [--repeats R] [--sizes N,N,...]: single launches of real kernels, timed one
// by one, for launch_cost.sh to compare plain, under `bankcheck run` and under ncu (issue 35: what a
// measured launch costs on big kernels).
//
// Each size N (default 512,1024,2048,4096) runs, each in NVTX ranges so that `bankcheck run` names
// them (sgemm/N/<cuBLAS kernel>, transpose/N/TransposeTile):
//   sgemm/N      cublasSgemm, N x N x N, one call
//   transpose/N  a 32x32-tile shared-memory transpose (tile[32][32], unpadded: 32-way column reads)
// 1 + R times (default R 5). Each launch is timed on the host from the call to the end of
// cudaDeviceSynchronize: that covers what a tool does inside the launch (bankcheck run synchronizes
// and reads the counters in the launch's exit callback; ncu replays it). Prints one line per
// kernel and size, tab-separated:
//   launch_cost <kernel> <N> <first launch ms> <median ms of the R later launches>
// No bankcheck library: the program runs unchanged under any tool. Exit status: 0 ok, 1 a CUDA or
// cuBLAS error or a wrong transpose, 2 a bad argument.

#include <cublas_v2.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;  // a 32x8 block moves a 32x32 tile

__global__ void TransposeTile(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x;
  const int ty = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) out[(ty + r) * n + tx] = tile[threadIdx.x][threadIdx.y + r];
}

bool Check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "bankcheck_launch_cost: %s: %s (%s)\n", what, cudaGetErrorName(status),
               cudaGetErrorString(status));
  return false;
}

// Milliseconds of `launch` from its call to the end of a device synchronization; < 0 on an error.
double TimeOne(const std::function<bool()>& launch) {
  const auto start = std::chrono::steady_clock::now();
  if (!launch()) return -1;
  if (!Check(cudaDeviceSynchronize(), "synchronizing")) return -1;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Runs `launch` 1 + repeats times in the NVTX ranges kernel/N and prints its line; false on an error.
bool Measure(const char* kernel, int n, int repeats, const std::function<bool()>& launch) {
  nvtxRangePushA(kernel);
  nvtxRangePushA(std::to_string(n).c_str());
  const double first = TimeOne(launch);
  std::vector<double> later;
  for (int i = 0; i < repeats && first >= 0; ++i) {
    const double ms = TimeOne(launch);
    if (ms < 0) break;
    later.push_back(ms);
  }
  nvtxRangePop();
  nvtxRangePop();
  if (first < 0 || static_cast<int>(later.size()) != repeats) return false;
  std::sort(later.begin(), later.end());
  const double median = later.empty() ? first : later[later.size() / 2];
  std::printf("launch_cost\t%s\t%d\t%.3f\t%.3f\n", kernel, n, first, median);
  std::fflush(stdout);
  return true;
}

bool ParseSizes(const std::string& text, std::vector<int>& sizes) {
  sizes.clear();
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const long n = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < kTile || n > 16384 || n % kTile != 0) return false;
    sizes.push_back(static_cast<int>(n));
  }
  return !sizes.empty();
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  std::vector<int> sizes = {512, 1024, 2048, 4096};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
      if (repeats < 0 || repeats > 1000) {
        std::fprintf(stderr, "bankcheck_launch_cost: --repeats takes 0 to 1000\n");
        return 2;
      }
    } else if (arg == "--sizes" && i + 1 < argc) {
      if (!ParseSizes(argv[++i], sizes)) {
        std::fprintf(stderr,
                     "bankcheck_launch_cost: --sizes takes multiples of 32 from 32 to 16384, "
                     "comma-separated\n");
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: bankcheck_launch_cost [--repeats R] [--sizes N,N,...]\n");
      return 2;
    }
  }
  const int largest = *std::max_element(sizes.begin(), sizes.end());
  const size_t elements = size_t{static_cast<size_t>(largest)} * largest;
  std::vector<float> host(elements);
  for (size_t i = 0; i < elements; ++i) host[i] = static_cast<float>(i % 1021) * 0.25f;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  if (!Check(cudaMalloc(&a, elements * sizeof(float)), "cudaMalloc") ||
      !Check(cudaMalloc(&b, elements * sizeof(float)), "cudaMalloc") ||
      !Check(cudaMalloc(&c, elements * sizeof(float)), "cudaMalloc") ||
      !Check(cudaMemcpy(a, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy") ||
      !Check(cudaMemcpy(b, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy"))
    return 1;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "bankcheck_launch_cost: cublasCreate failed\n");
    return 1;
  }
  bool ok = true;
  for (const int n : sizes) {
    const float one = 1.0f, zero = 0.0f;
    ok = ok && Measure("sgemm", n, repeats, [&] {
           return cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n) ==
                  CUBLAS_STATUS_SUCCESS;
         });
    ok = ok && Measure("transpose", n, repeats, [&] {
           TransposeTile<<<dim3(n / kTile, n / kTile), dim3(kTile, kRows)>>>(a, c, n);
           return Check(cudaGetLastError(), "launching TransposeTile");
         });
    // The last transpose's output, checked where it is cheap: the first row of out is a's first column.
    std::vector<float> row(n);
    ok = ok && Check(cudaMemcpy(row.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int x = 0; ok && x < n; ++x)
      if (row[x] != host[static_cast<size_t>(x) * n]) {
        std::fprintf(stderr, "bankcheck_launch_cost: transpose %d: out[0][%d] is wrong\n", n, x);
        ok = false;
      }
  }
  cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return ok ? 0 : 1;
}
