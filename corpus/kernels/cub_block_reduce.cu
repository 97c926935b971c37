// CUB's BlockReduce (cub/block/block_reduce.cuh, CCCL as installed with the CUDA toolkit), each of
// its three algorithms: RAKING_COMMUTATIVE_ONLY, RAKING, WARP_REDUCTIONS. One block of 128 threads
// (a second case: 256 threads over 2 blocks) reduces 1 or 4 items per thread, sum of ints, sum of
// integer-valued floats (exact in any order, so a real FADD sequence checks with ==) and max of
// ints; thread 0 writes the block's result. Reference: the same reduction on the CPU.

#include <algorithm>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <string>
#include <type_traits>
#include <vector>

#include "corpus_support.h"

namespace bankcheck::corpus {
namespace {

enum class Op { kSum, kMax };

template <typename T, Op kOp>
struct Reference {
  T operator()(T a, T b) const { return kOp == Op::kSum ? a + b : std::max(a, b); }
};

template <typename T, int kThreads, int kItems, cub::BlockReduceAlgorithm kAlgorithm, Op kOp>
__global__ void __launch_bounds__(kThreads) BlockReduceKernel(const T* in, T* out) {
  using Reduce = cub::BlockReduce<T, kThreads, kAlgorithm>;
  __shared__ typename Reduce::TempStorage storage;
  T items[kItems];
  const T* block_in = in + blockIdx.x * kThreads * kItems;
  for (int i = 0; i < kItems; ++i) items[i] = block_in[threadIdx.x * kItems + i];
  T result;
  if constexpr (kOp == Op::kSum) {
    result = Reduce(storage).Reduce(items, ::cuda::std::plus<>{});
  } else {
    result = Reduce(storage).Reduce(items, ::cuda::maximum<>{});
  }
  if (threadIdx.x == 0) out[blockIdx.x] = result;
}

const char* AlgorithmName(cub::BlockReduceAlgorithm algorithm) {
  switch (algorithm) {
    case cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY:
      return "raking_commutative_only";
    case cub::BLOCK_REDUCE_RAKING:
      return "raking";
    default:
      return "warp_reductions";
  }
}

template <typename T>
std::vector<T> Input(size_t n, uint32_t seed) {
  if constexpr (std::is_same_v<T, float>) {
    return SmallIntegerFloats(n, seed);
  } else {
    return kernels::RandomInts(n, seed);
  }
}

template <typename T, int kThreads, int kItems, cub::BlockReduceAlgorithm kAlgorithm, Op kOp>
void AddReduceCase(const char* type_name, unsigned blocks) {
  const std::string op = kOp == Op::kSum ? "sum" : "max";
  const std::string name = std::string("cub_block_reduce/") + AlgorithmName(kAlgorithm) + "/" + op + "_" +
                           type_name + "/" + std::to_string(blocks) + "x" + std::to_string(kThreads) + "x" +
                           std::to_string(kItems);
  AddCase(name,
          std::string("cub::BlockReduce ") + AlgorithmName(kAlgorithm) + ", " + op + " of " + type_name +
              "s, " + std::to_string(blocks) + " block(s) of " + std::to_string(kThreads) + " threads x " +
              std::to_string(kItems) + " items",
          [blocks](CaseContext& ctx) {
            const size_t per_block = static_cast<size_t>(kThreads) * kItems;
            const std::vector<T> in = Input<T>(blocks * per_block, 0xC0B0u + kThreads * kItems + blocks);
            std::vector<T> expected(blocks);
            for (unsigned b = 0; b < blocks; ++b) {
              T acc = in[b * per_block];
              for (size_t i = 1; i < per_block; ++i) acc = Reference<T, kOp>{}(acc, in[b * per_block + i]);
              expected[b] = acc;
            }
            CheckLaunch(ctx, in, expected, "block results", [blocks](const T* d_in, T* d_out) {
              BlockReduceKernel<T, kThreads, kItems, kAlgorithm, kOp><<<blocks, kThreads>>>(d_in, d_out);
            });
          });
}

template <cub::BlockReduceAlgorithm kAlgorithm>
void AddAlgorithmCases() {
  AddReduceCase<int32_t, 128, 1, kAlgorithm, Op::kSum>("int", 1);
  AddReduceCase<float, 128, 1, kAlgorithm, Op::kSum>("float", 1);
  AddReduceCase<int32_t, 128, 4, kAlgorithm, Op::kMax>("int", 1);
  AddReduceCase<float, 256, 4, kAlgorithm, Op::kSum>("float", 2);
}

void RegisterBlockReduceCases() {
  AddAlgorithmCases<cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>();
  AddAlgorithmCases<cub::BLOCK_REDUCE_RAKING>();
  AddAlgorithmCases<cub::BLOCK_REDUCE_WARP_REDUCTIONS>();
}

BANKCHECK_REGISTER_CASES(RegisterBlockReduceCases);

}  // namespace
}  // namespace bankcheck::corpus
