// bankcheck_launch_loop [N]: a plain CUDA program (no bankcheck library) for `bankcheck run`: the C++
// example of measuring an unmodified program, and what run_overhead.sh times.
//
// One kernel, StridedCopy, one warp per block: lane l stores its element at smem[l * stride] and,
// after __syncthreads, loads lane (l + 1) % 32's, so both the store and the load are
// gcd(stride, 32)-way. It runs N times (default 10) at each of three strides, each stride inside an
// NVTX range named after it:
//
//   range      case names under `bankcheck run`                       ways (ld and st)
//   stride1    stride1/StridedCopy, stride1/StridedCopy#2, ...       1 (conflict-free)
//   stride2    stride2/StridedCopy, ...                              2
//   stride32   stride32/StridedCopy, ...                             32
//
// Each launch has kBlocks warps, one load and one store instruction each: per launch and kind,
// kBlocks instructions, kBlocks * ways wavefronts, kBlocks ideal, kBlocks * (ways - 1) conflicts
// (printed at the start). Every launch's output is checked on the host; a launch adds its index
// to what it copies, so a launch that did not run leaves a stale output that fails the check.
// Exit status: 0 ok, 1 a wrong result or a CUDA error (no GPU included), 2 a bad argument.

#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

namespace {

constexpr int kWarp = 32;
constexpr int kMaxStride = 32;
constexpr unsigned kBlocks = 256;  // small: the launch, not the kernel, is what is timed
constexpr size_t kElements = size_t{kBlocks} * kWarp;

__global__ void __launch_bounds__(kWarp)
    StridedCopy(const float* __restrict__ in, float* __restrict__ out, int stride, float add) {
  __shared__ float buf[kWarp * kMaxStride];
  const unsigned lane = threadIdx.x;
  const size_t base = static_cast<size_t>(blockIdx.x) * kWarp;
  buf[lane * stride] = in[base + lane];
  __syncthreads();
  // Another lane's element: the load cannot be folded into the store's register.
  out[base + lane] = buf[((lane + 1) % kWarp) * stride] + add;
}

bool Check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "bankcheck_launch_loop: %s: %s (%s)\n", what, cudaGetErrorName(status),
               cudaGetErrorString(status));
  return false;
}

int Gcd(int a, int b) { return b == 0 ? a : Gcd(b, a % b); }

// Launches StridedCopy `count` times at `stride` inside an NVTX range, checking each output.
bool RunStride(int stride, int count, const std::vector<float>& host_in, const float* in, float* out,
               std::vector<float>& host_out) {
  const std::string range = "stride" + std::to_string(stride);
  nvtxRangePushA(range.c_str());
  bool ok = true;
  for (int launch = 0; launch < count && ok; ++launch) {
    const auto add = static_cast<float>(launch);
    StridedCopy<<<kBlocks, kWarp>>>(in, out, stride, add);
    ok = Check(cudaGetLastError(), "launch") &&
         Check(cudaMemcpy(host_out.data(), out, kElements * sizeof(float), cudaMemcpyDeviceToHost),
               "copy back");
    for (size_t i = 0; i < kElements && ok; ++i) {
      const size_t base = i / kWarp * kWarp;
      const float expected = host_in[base + (i % kWarp + 1) % kWarp] + add;
      if (host_out[i] != expected) {
        std::fprintf(stderr, "bankcheck_launch_loop: %s, launch %d: out[%zu] = %g, expected %g\n",
                     range.c_str(), launch, i, static_cast<double>(host_out[i]),
                     static_cast<double>(expected));
        ok = false;
      }
    }
  }
  nvtxRangePop();
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int count = 10;
  if (argc > 2 || (argc == 2 && (std::sscanf(argv[1], "%d", &count) != 1 || count < 1))) {
    std::fprintf(stderr, "usage: %s [N]   (N >= 1 launches per stride, default 10)\n", argv[0]);
    return 2;
  }
  const int strides[] = {1, 2, 32};
  std::printf(
      "bankcheck_launch_loop: %d launches per stride, %zu in all; per launch, loads and stores each:\n",
      count, std::size(strides) * static_cast<size_t>(count));
  for (const int stride : strides) {
    const unsigned ways = static_cast<unsigned>(Gcd(stride, kWarp));
    std::printf("  stride%-3d %u instructions, %u wavefronts, %u ideal, %u conflicts (%u-way)\n", stride,
                kBlocks, kBlocks * ways, kBlocks, kBlocks * (ways - 1), ways);
  }

  std::vector<float> host_in(kElements), host_out(kElements);
  for (size_t i = 0; i < kElements; ++i)
    host_in[i] = static_cast<float>(static_cast<int>(i * 7919 % 2001) - 1000);
  float* in = nullptr;
  float* out = nullptr;
  bool ok =
      Check(cudaMalloc(&in, kElements * sizeof(float)), "cudaMalloc") &&
      Check(cudaMalloc(&out, kElements * sizeof(float)), "cudaMalloc") &&
      Check(cudaMemcpy(in, host_in.data(), kElements * sizeof(float), cudaMemcpyHostToDevice), "copy in");
  for (const int stride : strides) ok = ok && RunStride(stride, count, host_in, in, out, host_out);
  cudaFree(in);
  cudaFree(out);
  if (!ok) return 1;
  std::printf("bankcheck_launch_loop: all %zu launches correct\n",
              std::size(strides) * static_cast<size_t>(count));
  return 0;
}
