// CUB's warp-level primitives (cub/warp/, CCCL as installed with the CUDA toolkit), one block of
// 128 threads, as logical warps of 32 or 16 threads:
//   cub_warp_reduce    cub::WarpReduce: sum of ints and of integer-valued floats (exact in any
//                      order), max of ints, a sum over the first 20 lanes (valid_items), and a
//                      head-segmented sum; lane 0 of each logical warp writes its result.
//   cub_warp_scan      cub::WarpScan: inclusive and exclusive sums (ints, floats), an exclusive
//                      max; every lane writes its result.
//   cub_warp_exchange  cub::WarpExchange, WARP_EXCHANGE_SMEM and WARP_EXCHANGE_SHUFFLE:
//                      blocked->striped and striped->blocked within each logical warp.
// References: the same reductions, scans and permutations on the CPU.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/functional>
#include <string>
#include <type_traits>
#include <vector>

#include "corpus_support.h"

namespace bankcheck::corpus {
namespace {

constexpr int kThreads = 128;

enum class WarpOp { kSum, kMax, kPartialSum, kSegmentedSum, kInclusiveSum, kExclusiveSum, kExclusiveMax };
constexpr int kValidItems = 20;  // kPartialSum: the lanes that take part
constexpr int kSegment = 5;      // kSegmentedSum: a head flag every kSegment lanes

template <typename T, int kLanes, WarpOp kOp>
__global__ void __launch_bounds__(kThreads) WarpKernel(const T* in, T* out) {
  constexpr int kWarps = kThreads / kLanes;
  constexpr bool kScan =
      kOp == WarpOp::kInclusiveSum || kOp == WarpOp::kExclusiveSum || kOp == WarpOp::kExclusiveMax;
  using Reduce = cub::WarpReduce<T, kLanes>;
  using Scan = cub::WarpScan<T, kLanes>;
  __shared__ std::conditional_t<kScan, typename Scan::TempStorage, typename Reduce::TempStorage>
      storage[kWarps];
  const int warp = threadIdx.x / kLanes;
  const int lane = threadIdx.x % kLanes;
  const T x = in[threadIdx.x];
  if constexpr (kScan) {
    T y;
    if constexpr (kOp == WarpOp::kInclusiveSum) Scan(storage[warp]).InclusiveSum(x, y);
    if constexpr (kOp == WarpOp::kExclusiveSum) Scan(storage[warp]).ExclusiveSum(x, y);
    if constexpr (kOp == WarpOp::kExclusiveMax)
      Scan(storage[warp]).ExclusiveScan(x, y, T(INT_MIN), ::cuda::maximum<>{});
    out[threadIdx.x] = y;
  } else {
    T y;
    if constexpr (kOp == WarpOp::kSum) y = Reduce(storage[warp]).Sum(x);
    if constexpr (kOp == WarpOp::kMax) y = Reduce(storage[warp]).Reduce(x, ::cuda::maximum<>{});
    if constexpr (kOp == WarpOp::kPartialSum) y = Reduce(storage[warp]).Sum(x, kValidItems);
    if constexpr (kOp == WarpOp::kSegmentedSum) {
      y = Reduce(storage[warp]).HeadSegmentedSum(x, lane % kSegment == 0);
      // The segments' sums are in their head lanes.
      if (lane % kSegment == 0) out[threadIdx.x] = y;
      return;
    }
    if (lane == 0) out[warp] = y;
  }
}

const char* OpName(WarpOp op) {
  switch (op) {
    case WarpOp::kSum:
      return "sum";
    case WarpOp::kMax:
      return "max";
    case WarpOp::kPartialSum:
      return "sum_of_20_lanes";
    case WarpOp::kSegmentedSum:
      return "head_segmented_sum";
    case WarpOp::kInclusiveSum:
      return "inclusive_sum";
    case WarpOp::kExclusiveSum:
      return "exclusive_sum";
    default:
      return "exclusive_max";
  }
}

// The reference of WarpKernel's output (for kSegmentedSum: the head lanes' sums, the other lanes'
// elements as poisoned, all bytes 0xFF).
template <typename T>
std::vector<T> HostWarp(const std::vector<T>& in, int lanes, WarpOp op) {
  const int warps = kThreads / lanes;
  const bool scan = op == WarpOp::kInclusiveSum || op == WarpOp::kExclusiveSum || op == WarpOp::kExclusiveMax;
  std::vector<T> out(scan || op == WarpOp::kSegmentedSum ? kThreads : warps);
  if (op == WarpOp::kSegmentedSum) std::memset(out.data(), 0xFF, out.size() * sizeof(T));
  for (int w = 0; w < warps; ++w) {
    const T* x = in.data() + w * lanes;
    T acc = op == WarpOp::kExclusiveMax ? T(INT_MIN) : T(0);
    for (int l = 0; l < lanes; ++l) {
      switch (op) {
        case WarpOp::kSum:
          acc += x[l];
          break;
        case WarpOp::kMax:
          acc = l == 0 ? x[l] : std::max(acc, x[l]);
          break;
        case WarpOp::kPartialSum:
          if (l < kValidItems) acc += x[l];
          break;
        case WarpOp::kSegmentedSum:
          if (l % kSegment == 0) acc = T(0);
          acc += x[l];
          if (l % kSegment == kSegment - 1 || l == lanes - 1) out[w * lanes + l - l % kSegment] = acc;
          break;
        case WarpOp::kInclusiveSum:
          acc += x[l];
          out[w * lanes + l] = acc;
          break;
        case WarpOp::kExclusiveSum:
          out[w * lanes + l] = acc;
          acc += x[l];
          break;
        default:
          out[w * lanes + l] = acc;
          acc = std::max(acc, x[l]);
          break;
      }
    }
    if (!scan && op != WarpOp::kSegmentedSum) out[w] = acc;
  }
  return out;
}

template <typename T, int kLanes, WarpOp kOp>
void AddWarpCase(const char* type_name) {
  const bool scan =
      kOp == WarpOp::kInclusiveSum || kOp == WarpOp::kExclusiveSum || kOp == WarpOp::kExclusiveMax;
  const std::string topic = scan ? "cub_warp_scan/" : "cub_warp_reduce/";
  AddCase(topic + OpName(kOp) + "_" + type_name + "/" + std::to_string(kThreads / kLanes) + "x" +
              std::to_string(kLanes),
          std::string(scan ? "cub::WarpScan " : "cub::WarpReduce ") + OpName(kOp) + " of " + type_name +
              "s, " + std::to_string(kThreads / kLanes) + " logical warps of " + std::to_string(kLanes) +
              " threads",
          [](CaseContext& ctx) {
            std::vector<T> in;
            if constexpr (std::is_same_v<T, float>) {
              in = SmallIntegerFloats(kThreads, 0x3A4Bu + kLanes);
            } else {
              in = kernels::RandomInts(kThreads, 0x3A4Bu + kLanes);
            }
            CheckLaunch(ctx, in, HostWarp(in, kLanes, kOp), "warp results", [](const T* d_in, T* d_out) {
              WarpKernel<T, kLanes, kOp><<<1, kThreads>>>(d_in, d_out);
            });
          });
}

// Each logical warp's tile of kLanes * kLanes ints: loaded and stored blocked (lane l, item i:
// element l * kLanes + i), exchanged in between, so that either direction transposes the tile.
template <int kLanes, cub::WarpExchangeAlgorithm kAlgorithm, bool kToStriped>
__global__ void __launch_bounds__(kThreads) WarpExchangeKernel(const int32_t* in, int32_t* out) {
  constexpr int kWarps = kThreads / kLanes;
  constexpr int kItems = kLanes;  // WARP_EXCHANGE_SHUFFLE needs as many items as lanes
  using Exchange = cub::WarpExchange<int32_t, kItems, kLanes, kAlgorithm>;
  __shared__ typename Exchange::TempStorage storage[kWarps];
  const int warp = threadIdx.x / kLanes;
  const int lane = threadIdx.x % kLanes;
  const int32_t* tile_in = in + warp * kLanes * kItems;
  int32_t* tile_out = out + warp * kLanes * kItems;
  int32_t items[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = tile_in[lane * kItems + i];
  if constexpr (kToStriped) {
    Exchange(storage[warp]).BlockedToStriped(items, items);
  } else {
    Exchange(storage[warp]).StripedToBlocked(items, items);
  }
  for (int i = 0; i < kItems; ++i) tile_out[lane * kItems + i] = items[i];
}

template <int kLanes, cub::WarpExchangeAlgorithm kAlgorithm, bool kToStriped>
void AddWarpExchangeCase() {
  const std::string algorithm = kAlgorithm == cub::WARP_EXCHANGE_SMEM ? "smem" : "shuffle";
  const std::string direction = kToStriped ? "blocked_to_striped" : "striped_to_blocked";
  AddCase("cub_warp_exchange/" + algorithm + "_" + direction + "/" + std::to_string(kThreads / kLanes) + "x" +
              std::to_string(kLanes) + "x" + std::to_string(kLanes),
          "cub::WarpExchange WARP_EXCHANGE_" +
              std::string(kAlgorithm == cub::WARP_EXCHANGE_SMEM ? "SMEM " : "SHUFFLE ") + direction +
              " of ints, " + std::to_string(kThreads / kLanes) + " logical warps of " +
              std::to_string(kLanes) + " threads x " + std::to_string(kLanes) + " items",
          [](CaseContext& ctx) {
            const int tile = kLanes * kLanes;
            const std::vector<int32_t> in = kernels::RandomInts(kThreads * kLanes, 0xE8C4u + kLanes);
            // Either direction, stored blocked, is the transpose of the n x n tile: lane l's item i
            // after the exchange is the input's element i * n + l.
            std::vector<int32_t> expected(in.size());
            for (size_t base = 0; base < in.size(); base += tile)
              for (int r = 0; r < kLanes; ++r)
                for (int c = 0; c < kLanes; ++c) expected[base + c * kLanes + r] = in[base + r * kLanes + c];
            CheckLaunch(ctx, in, expected, "exchanged items", [](const int32_t* d_in, int32_t* d_out) {
              WarpExchangeKernel<kLanes, kAlgorithm, kToStriped><<<1, kThreads>>>(d_in, d_out);
            });
          });
}

void RegisterWarpCases() {
  AddWarpCase<int32_t, 32, WarpOp::kSum>("int");
  AddWarpCase<float, 32, WarpOp::kSum>("float");
  AddWarpCase<int32_t, 16, WarpOp::kMax>("int");
  AddWarpCase<int32_t, 32, WarpOp::kPartialSum>("int");
  AddWarpCase<int32_t, 32, WarpOp::kSegmentedSum>("int");
  AddWarpCase<int32_t, 32, WarpOp::kInclusiveSum>("int");
  AddWarpCase<float, 32, WarpOp::kInclusiveSum>("float");
  AddWarpCase<int32_t, 16, WarpOp::kExclusiveSum>("int");
  AddWarpCase<int32_t, 32, WarpOp::kExclusiveMax>("int");
  AddWarpExchangeCase<16, cub::WARP_EXCHANGE_SMEM, true>();
  AddWarpExchangeCase<16, cub::WARP_EXCHANGE_SMEM, false>();
  AddWarpExchangeCase<32, cub::WARP_EXCHANGE_SMEM, true>();
  AddWarpExchangeCase<8, cub::WARP_EXCHANGE_SHUFFLE, true>();
  AddWarpExchangeCase<8, cub::WARP_EXCHANGE_SHUFFLE, false>();
}

BANKCHECK_REGISTER_CASES(RegisterWarpCases);

}  // namespace
}  // namespace bankcheck::corpus
