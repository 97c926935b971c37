// Global loads with chosen lane addresses, one single-warp launch each, for `bankcheck run` to
// measure (benchmarks/global_ideal_probe.sh): what the GPU counts as the ideal sectors of a load
// whose lanes read some of the same bytes, against the sector model's rule (GlobalSectors,
// memory_sectors.h), which was fitted to CuPy's upfirdn kernels. Writes each launch's width and lane
// indices to the file named by its argument, one line per launch in launch order:
// "<bytes> <32 indices>", an index in elements of that width, -1 for a lane that does not load.
#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <random>
#include <vector>

namespace {

constexpr int kWarp = 32;
constexpr int kElements = 4096;  // 64 KB of float4: every index below stays inside

// Passed by value: the lanes' indices come from the constant bank, not from a global load that
// would add to the counts.
struct Lanes {
  int at[kWarp];
};

// One load of T per lane that takes part, a kernel per width (`bankcheck run` names each launch's
// case after its kernel: Load4, Load4#2, ...).
template <typename T>
__device__ void LoadOne(const Lanes& lanes, const T* __restrict__ data, T* out) {
  const int at = lanes.at[threadIdx.x];
  if (at >= 0) out[threadIdx.x] = data[at];
}
__global__ void Load4(Lanes lanes, const float* __restrict__ data, float* out) { LoadOne(lanes, data, out); }
__global__ void Load8(Lanes lanes, const float2* __restrict__ data, float2* out) {
  LoadOne(lanes, data, out);
}
__global__ void Load16(Lanes lanes, const float4* __restrict__ data, float4* out) {
  LoadOne(lanes, data, out);
}

struct Pattern {
  int bytes;
  std::vector<int> at;
};

std::vector<Pattern> Patterns() {
  std::vector<Pattern> patterns;
  const auto add = [&](int bytes, const std::function<int(int)>& f) {
    Pattern p{bytes, std::vector<int>(kWarp)};
    for (int lane = 0; lane < kWarp; ++lane) p.at[lane] = f(lane);
    patterns.push_back(p);
  };
  // 4 bytes: the upfirdn shapes the rule was fitted to, then words shared across sectors.
  add(4, [](int l) { return l % 8 < 6 ? l % 8 * 20 : -1; });  // 6 rows 80 bytes apart, 4 lanes each
  add(4, [](int l) { return l % 8 < 3 ? l / 8 : l / 8 + 5 + 10 * (l % 8 - 3); });      // taps + samples
  add(4, [](int l) { return l % 8 == 0 ? 5 : l % 8 == 1 ? 3 : l % 8 == 2 ? 1 : 0; });  // one sector
  add(4, [](int) { return 0; });                                                       // one word
  add(4, [](int l) { return l; });                           // consecutive: no sharing
  add(4, [](int l) { return l >> 1; });                      // pairs, consecutive words
  add(4, [](int l) { return (l >> 1) * 8; });                // pairs, a sector each
  add(4, [](int l) { return (l >> 1) * 8 + (l & 1); });      // 2 words a sector, not shared
  add(4, [](int l) { return (l >> 2) * 8; });                // 4 lanes a word, a sector each
  add(4, [](int l) { return (l >> 3) * 8; });                // a quarter on a word, a sector each
  add(4, [](int l) { return (l >> 4) * 8; });                // a half on a word, a sector each
  add(4, [](int l) { return l / 3 * 8; });                   // 3 lanes a word, a sector each
  add(4, [](int l) { return (l & 7) * 8; });                 // 8 sectors, 4 lanes each
  add(4, [](int l) { return (l & 15) * 2; });                // the halves equal, stride 2
  add(4, [](int l) { return l == 31 ? 0 : l * 8; });         // one word shared, 31 sectors
  add(4, [](int l) { return l < 16 ? (l >> 1) * 8 : -1; });  // pairs, one half only
  add(4, [](int l) { return (l >> 1) * 8 + (l & 1) * 4; });  // 2 words a sector, far apart
  add(4, [](int l) { return (l >> 2) * 4 + (l & 1); });      // 2 words a sector, 2 lanes each
  // 8 and 16 bytes.
  add(8, [](int) { return 0; });
  add(8, [](int l) { return l; });
  add(8, [](int l) { return (l >> 1) * 4; });  // pairs, a sector each
  add(8, [](int l) { return (l >> 3) * 4; });  // a quarter on one, a sector each
  add(8, [](int l) { return l >> 1; });        // pairs, consecutive
  add(16, [](int) { return 0; });
  add(16, [](int l) { return l; });
  add(16, [](int l) { return (l >> 1) * 2; });  // pairs, a sector each
  add(16, [](int l) { return l >> 1; });        // pairs, consecutive
  add(16, [](int l) { return (l >> 4) * 2; });  // a half on one, a sector each
  std::mt19937 random(11);
  for (int r = 0; r < 24; ++r) {  // random words in 2, 8, 32 or 128 sectors, some lanes off
    const int bytes = r % 3 == 0 ? 4 : r % 3 == 1 ? 8 : 16;
    const int range = (r / 3 % 4 == 0 ? 2 : r / 3 % 4 == 1 ? 8 : r / 3 % 4 == 2 ? 32 : 128) * 32 / bytes;
    Pattern p{bytes, std::vector<int>(kWarp)};
    for (int& v : p.at) v = random() % 5 == 0 ? -1 : static_cast<int>(random() % range);
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
  float4* data = nullptr;
  float4* out = nullptr;
  if (cudaMalloc(&data, kElements * sizeof(float4)) != cudaSuccess ||
      cudaMalloc(&out, kWarp * sizeof(float4)) != cudaSuccess ||
      cudaMemset(data, 0, kElements * sizeof(float4)) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  const std::vector<Pattern> patterns = Patterns();
  for (const Pattern& p : patterns) {
    Lanes lanes;
    for (int lane = 0; lane < kWarp; ++lane) lanes.at[lane] = p.at[lane];
    if (p.bytes == 4)
      Load4<<<1, kWarp>>>(lanes, reinterpret_cast<const float*>(data), reinterpret_cast<float*>(out));
    if (p.bytes == 8)
      Load8<<<1, kWarp>>>(lanes, reinterpret_cast<const float2*>(data), reinterpret_cast<float2*>(out));
    if (p.bytes == 16) Load16<<<1, kWarp>>>(lanes, data, out);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::fprintf(stderr, "a launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
      return 1;
    }
    std::fprintf(file, "%d", p.bytes);
    for (int v : p.at) std::fprintf(file, " %d", v);
    std::fprintf(file, "\n");
  }
  std::fclose(file);
  std::printf("%zu launches\n", patterns.size());
  return 0;
}
