// Wide shared-memory accesses with chosen lane addresses, one single-warp launch each, for
// `bankcheck run` to measure (benchmarks/wide_access_probe.sh): what the GPU counts for 16- and
// 8-byte loads and 16-byte stores whose lanes share addresses in various ways (broadcasts, lanes
// paired by n^1, n^2, n^3, n^4, inactive lanes), against the CPU bank model's rules
// (ArePairedLoadPhases, bank_model.h). Writes each launch's kind and lane indices to the file named
// by its argument, one line per launch in launch order: "<kind> <32 indices>", kind 0 a 16-byte
// load, 1 an 8-byte load, 2 a 16-byte store; an index in elements of that size, -1 for a lane that
// does not take part.
#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <random>
#include <vector>

namespace {

constexpr int kWarp = 32;
constexpr int kVectors = 256;  // 4 KB of float4: every index below stays inside

__global__ void Load16(const int* index, float4* out) {
  __shared__ float4 tile[kVectors];
  for (int i = threadIdx.x; i < kVectors; i += kWarp) tile[i] = make_float4(i, i, i, i);
  __syncwarp();
  const int at = index[threadIdx.x];
  if (at < 0) return;
  out[threadIdx.x] = tile[at];
}

__global__ void Load8(const int* index, float2* out) {
  __shared__ float2 tile[2 * kVectors];
  for (int i = threadIdx.x; i < 2 * kVectors; i += kWarp) tile[i] = make_float2(i, i);
  __syncwarp();
  const int at = index[threadIdx.x];
  if (at < 0) return;
  out[threadIdx.x] = tile[at];
}

__global__ void Store16(const int* index, float4* out) {
  __shared__ float4 tile[kVectors];
  const int at = index[threadIdx.x];
  if (at >= 0) tile[at] = make_float4(threadIdx.x, 0, 0, 0);
  __syncwarp();
  out[threadIdx.x] = tile[threadIdx.x];
}

using Pattern = std::vector<int>;

std::vector<Pattern> Patterns() {
  std::vector<Pattern> patterns;
  const auto add = [&](const std::function<int(int)>& f) {
    Pattern p(kWarp);
    for (int lane = 0; lane < kWarp; ++lane) p[lane] = f(lane);
    patterns.push_back(p);
  };
  add([](int l) { return l; });                       // stride 1
  add([](int) { return 0; });                         // one address
  add([](int l) { return l >> 1; });                  // pairs n^1
  add([](int l) { return (l >> 2) * 2 + (l & 1); });  // pairs n^2
  add([](int l) { return l >> 4; });                  // a half-warp broadcast each
  add([](int l) { return l >> 3; });                  // a quarter-warp broadcast each
  add([](int l) { return l & 7; });                   // 8 addresses in every quarter
  add([](int l) { return l & 15; });                  // the halves equal
  add([](int l) { return l * 2; });                   // stride 2
  add([](int l) { return (l & 15) * 2; });            // stride 2, the halves equal
  add([](int l) { return (l >> 4) * 8; });            // half broadcasts on the same banks
  add([](int l) { return (l & 1) * 8; });             // pairs n^2 on the same banks
  add([](int l) { return l >> 2; });                  // groups of 4 lanes
  add([](int l) { return (l >> 4) + (l & 1) * 2; });  // pairs n^2, 2 per half
  add([](int l) { return (l & 8) ? 100 : (l & 7); });
  add([](int l) { return l < 16 ? l : 0; });  // one half paired, one not
  add([](int l) { return l % 3; });
  add([](int l) { return (l & 7) + ((l >> 4) << 3); });
  add([](int l) { return (l & 16) ? (l & 7) : (l & 7) + 8; });
  add([](int l) { return (l & 7) * 8; });
  // Pairs other than n^1 and n^2.
  add([](int l) { return (l >> 2) * 2 + ((l ^ (l >> 1)) & 1); });  // n^3
  add([](int l) { return (l >> 3) * 4 + (l & 3); });               // n^4
  add([](int l) { return (l >> 4) * 8 + (l & 7); });               // n^8
  add([](int l) {
    return (l & 16) ? (l >> 1) : (l >> 2) * 2 + (l & 1);
  });                                           // n^1 in one half, n^2 in the other
  add([](int l) { return (l >> 1) * 2 % 7; });  // n^1, addresses conflict
  // Inactive lanes.
  add([](int l) { return l == 5 ? -1 : l >> 1; });   // n^1 with one lane off
  add([](int l) { return (l & 1) ? -1 : l >> 1; });  // every other lane
  add([](int l) { return l >= 16 ? -1 : l >> 1; });  // n^1, one half only
  add([](int l) { return l >= 8 ? -1 : 0; });        // one quarter, one address
  add([](int l) { return (l & 2) ? -1 : l >> 2; });  // n^1 among the lanes on
  add([](int l) { return l == 31 ? -1 : 0; });       // one address, one lane off
  add([](int l) { return l >= 24 ? -1 : l >> 1; });
  // One lane alone: CUB's warp-reduction BlockReduce, whose thread 0 reads the warps' aggregates
  // with one LDS.64 or LDS.128 (the corpus's cub_block_reduce/warp_reductions cases).
  add([](int l) { return l == 0 ? 1 : -1; });
  add([](int l) { return l == 0 ? 0 : -1; });
  add([](int l) { return l == 9 ? 2 : -1; });
  add([](int l) { return l == 17 ? 3 : -1; });
  std::mt19937 random(7);
  for (int r = 0; r < 20; ++r) {
    const int range = r % 4 == 0 ? 4 : r % 4 == 1 ? 8 : r % 4 == 2 ? 16 : 64;
    Pattern p(kWarp);
    for (int& v : p) v = static_cast<int>(random() % range);
    patterns.push_back(p);
  }
  for (int r = 0; r < 8; ++r) {  // random pairs: n^1 or n^2, random addresses
    const int partner = r % 2 == 0 ? 1 : 2, range = r < 4 ? 8 : 32;
    Pattern p(kWarp);
    for (int lane = 0; lane < kWarp; ++lane)
      p[lane] = (lane & partner) ? p[lane ^ partner] : static_cast<int>(random() % range);
    patterns.push_back(p);
  }
  return patterns;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PATTERNS_FILE\n", argv[0]);
    return 2;
  }
  FILE* file = std::fopen(argv[1], "w");
  if (file == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  int* index = nullptr;
  float4* out = nullptr;
  if (cudaMalloc(&index, kWarp * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out, kWarp * sizeof(float4)) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  const std::vector<Pattern> patterns = Patterns();
  for (int kind = 0; kind < 3; ++kind) {
    for (const Pattern& p : patterns) {
      cudaMemcpy(index, p.data(), kWarp * sizeof(int), cudaMemcpyHostToDevice);
      if (kind == 0) Load16<<<1, kWarp>>>(index, out);
      if (kind == 1) Load8<<<1, kWarp>>>(index, reinterpret_cast<float2*>(out));
      if (kind == 2) Store16<<<1, kWarp>>>(index, out);
      if (cudaDeviceSynchronize() != cudaSuccess) {
        std::fprintf(stderr, "a launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
      }
      std::fprintf(file, "%d", kind);
      for (int v : p) std::fprintf(file, " %d", v);
      std::fprintf(file, "\n");
    }
  }
  std::fclose(file);
  std::printf("%zu launches\n", 3 * patterns.size());
  return 0;
}
