// CUB's BlockScan (cub/block/block_scan.cuh, CCCL as installed with the CUDA toolkit), each of its
// three algorithms: RAKING, RAKING_MEMOIZE, WARP_SCANS. One block of 128 threads (4 items each
// where the name says x4) scans its items in a blocked arrangement: inclusive and exclusive sums of
// ints, an inclusive sum of integer-valued floats (exact, so real FADD sequences check with ==),
// and an exclusive max of ints. Reference: the same scan on the CPU.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <cuda/functional>
#include <string>
#include <type_traits>
#include <vector>

#include "corpus_support.h"

namespace bankcheck::corpus {
namespace {

enum class Scan { kInclusiveSum, kExclusiveSum, kExclusiveMax };

template <typename T, int kThreads, int kItems, cub::BlockScanAlgorithm kAlgorithm, Scan kScan>
__global__ void __launch_bounds__(kThreads) BlockScanKernel(const T* in, T* out) {
  using BlockScan = cub::BlockScan<T, kThreads, kAlgorithm>;
  __shared__ typename BlockScan::TempStorage storage;
  T items[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = in[threadIdx.x * kItems + i];
  if constexpr (kScan == Scan::kInclusiveSum) {
    BlockScan(storage).InclusiveSum(items, items);
  } else if constexpr (kScan == Scan::kExclusiveSum) {
    BlockScan(storage).ExclusiveSum(items, items);
  } else {
    BlockScan(storage).ExclusiveScan(items, items, T(INT_MIN), ::cuda::maximum<>{});
  }
  for (int i = 0; i < kItems; ++i) out[threadIdx.x * kItems + i] = items[i];
}

const char* AlgorithmName(cub::BlockScanAlgorithm algorithm) {
  switch (algorithm) {
    case cub::BLOCK_SCAN_RAKING:
      return "raking";
    case cub::BLOCK_SCAN_RAKING_MEMOIZE:
      return "raking_memoize";
    default:
      return "warp_scans";
  }
}

const char* ScanName(Scan scan) {
  switch (scan) {
    case Scan::kInclusiveSum:
      return "inclusive_sum";
    case Scan::kExclusiveSum:
      return "exclusive_sum";
    default:
      return "exclusive_max";
  }
}

template <typename T>
std::vector<T> HostScan(const std::vector<T>& in, Scan scan) {
  std::vector<T> out(in.size());
  T acc = scan == Scan::kExclusiveMax ? T(INT_MIN) : T(0);
  for (size_t i = 0; i < in.size(); ++i) {
    if (scan == Scan::kInclusiveSum) {
      acc += in[i];
      out[i] = acc;
    } else {
      out[i] = acc;
      acc = scan == Scan::kExclusiveSum ? acc + in[i] : std::max(acc, in[i]);
    }
  }
  return out;
}

template <typename T, int kItems, cub::BlockScanAlgorithm kAlgorithm, Scan kScan>
void AddScanCase(const char* type_name) {
  constexpr int kThreads = 128;
  AddCase(std::string("cub_block_scan/") + AlgorithmName(kAlgorithm) + "/" + ScanName(kScan) + "_" +
              type_name + "/128x" + std::to_string(kItems),
          std::string("cub::BlockScan ") + AlgorithmName(kAlgorithm) + ", " + ScanName(kScan) + " of " +
              type_name + "s, one block of 128 threads x " + std::to_string(kItems) + " items (blocked)",
          [](CaseContext& ctx) {
            const size_t n = static_cast<size_t>(kThreads) * kItems;
            std::vector<T> in;
            if constexpr (std::is_same_v<T, float>) {
              in = SmallIntegerFloats(n, 0x5CA0u + kItems);
            } else {
              in = kernels::RandomInts(n, 0x5CA0u + kItems);
            }
            CheckLaunch(ctx, in, HostScan(in, kScan), "scanned items", [](const T* d_in, T* d_out) {
              BlockScanKernel<T, kThreads, kItems, kAlgorithm, kScan><<<1, kThreads>>>(d_in, d_out);
            });
          });
}

template <cub::BlockScanAlgorithm kAlgorithm>
void AddAlgorithmCases() {
  AddScanCase<int32_t, 1, kAlgorithm, Scan::kInclusiveSum>("int");
  AddScanCase<int32_t, 4, kAlgorithm, Scan::kExclusiveSum>("int");
  AddScanCase<float, 4, kAlgorithm, Scan::kInclusiveSum>("float");
  AddScanCase<int32_t, 4, kAlgorithm, Scan::kExclusiveMax>("int");
}

void RegisterBlockScanCases() {
  AddAlgorithmCases<cub::BLOCK_SCAN_RAKING>();
  AddAlgorithmCases<cub::BLOCK_SCAN_RAKING_MEMOIZE>();
  AddAlgorithmCases<cub::BLOCK_SCAN_WARP_SCANS>();
}

BANKCHECK_REGISTER_CASES(RegisterBlockScanCases);

}  // namespace
}  // namespace bankcheck::corpus
