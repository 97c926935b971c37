// OpenCV's CUDA device reductions (opencv2/core/cuda/*.hpp of OpenCV 4.6.0, Debian's
// libopencv-core-dev 4.6.0+dfsg-12, Apache-2.0; optional: corpus/kernels/opencv_support.h):
//   opencv_block_reduce          reduce.hpp's cv::cuda::device::reduce<N>(smem, val, tid, op): a
//                                block's sum of ints (N = 256), max of floats (N = 512, 2 blocks)
//                                and min of ints (N = 64, 4 blocks). A power of two up to 1024 takes
//                                its GenericOptimized32 path: warp shuffles, then one warp over the
//                                warps' partials staged in shared memory. Its tuple form
//                                (smem_tuple) is not among the cases: it is written for a thrust
//                                tuple of 10 parameters, and CCCL 3's thrust::tuple (cuda::std's,
//                                variadic) matches none of its overloads.
//   opencv_block_reduce_key_val  reduce.hpp's reduceKeyVal<256>: the argmin of 256 distinct floats
//                                (the key and its index), warp-synchronous in shared memory.
//   opencv_warp_reduce           reduce<32> (the shuffle-only WarpOptimized path), and
//                                warp_reduce.hpp's warp_reduce (a warp-synchronous sum in shared
//                                memory), 4 warps each reducing its own 32 ints.
//   opencv_block                 block.hpp's Block::reduce<256> (a tree in a volatile shared
//                                buffer), Block::copy + Block::reduce_n (a max over 1000 ints staged
//                                in shared memory by 128 threads) and Block::fill + Block::transform
//                                + Block::copy.
//   opencv_smem_histogram        emulation.hpp's Emulation::smem::atomicAdd on a 256-bin shared
//                                histogram (2048 bytes a block), 4 blocks, per-block histograms out.
// Every primitive is OpenCV's; ours are the kernels around them and the launch. References: plain
// CPU loops, exact (ints, and a max of floats).

#include "opencv_support.h"

#if BANKCHECK_CORPUS_HAS_OPENCV
#include <opencv2/core/cuda/block.hpp>
#include <opencv2/core/cuda/emulation.hpp>
#include <opencv2/core/cuda/functional.hpp>
#include <opencv2/core/cuda/reduce.hpp>
#include <opencv2/core/cuda/warp_reduce.hpp>
#endif

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

namespace bankcheck::corpus {
namespace {

#if BANKCHECK_CORPUS_HAS_OPENCV
// --- reduce<N> ---------------------------------------------------------------------------------

enum class Op { kSum, kMax, kMin };

template <typename T, int kThreads, Op kOp>
__global__ void __launch_bounds__(kThreads) ReduceKernel(const T* in, T* out) {
  __shared__ T smem[kThreads];
  T val = in[blockIdx.x * kThreads + threadIdx.x];
  if constexpr (kOp == Op::kMax) {
    cvd::reduce<kThreads>(smem, val, threadIdx.x, cvd::maximum<T>());
  } else if constexpr (kOp == Op::kMin) {
    cvd::reduce<kThreads>(smem, val, threadIdx.x, cvd::minimum<T>());
  } else {
    cvd::reduce<kThreads>(smem, val, threadIdx.x, cvd::plus<T>());
  }
  if (threadIdx.x == 0) out[blockIdx.x] = val;
}

template <typename T, int kThreads, Op kOp>
void RunReduce(CaseContext& ctx, unsigned blocks) {
  std::vector<T> in;
  if constexpr (std::is_same_v<T, float>) {
    in = SmallIntegerFloats(blocks * kThreads, 0x0C0Du + kThreads);
  } else {
    in = kernels::RandomInts(blocks * kThreads, 0x0C0Du + kThreads);
  }
  std::vector<T> expected(blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    const auto first = in.begin() + b * kThreads;
    if constexpr (kOp == Op::kMax) {
      expected[b] = *std::max_element(first, first + kThreads);
    } else if constexpr (kOp == Op::kMin) {
      expected[b] = *std::min_element(first, first + kThreads);
    } else {
      expected[b] = std::accumulate(first, first + kThreads, T{0});
    }
  }
  CheckLaunch(ctx, in, expected, "block results", [blocks](const T* d_in, T* d_out) {
    ReduceKernel<T, kThreads, kOp><<<blocks, kThreads>>>(d_in, d_out);
  });
}

void RunReduceSumInt(CaseContext& ctx) { RunReduce<int32_t, 256, Op::kSum>(ctx, 1); }
void RunReduceMaxFloat(CaseContext& ctx) { RunReduce<float, 512, Op::kMax>(ctx, 2); }
void RunReduceMinInt(CaseContext& ctx) { RunReduce<int32_t, 64, Op::kMin>(ctx, 4); }

// --- reduceKeyVal<N> ---------------------------------------------------------------------------

constexpr int kKeyValThreads = 256;

// out[0]: the smallest key, out[1]: the index that came with it (as a float: exact below 2^24).
__global__ void __launch_bounds__(kKeyValThreads) ArgminKernel(const float* in, float* out) {
  __shared__ float s_keys[kKeyValThreads];
  __shared__ int s_vals[kKeyValThreads];
  float key = in[threadIdx.x];
  int index = threadIdx.x;
  cvd::reduceKeyVal<kKeyValThreads>(s_keys, key, s_vals, index, threadIdx.x, cvd::less<float>());
  if (threadIdx.x == 0) {
    out[0] = key;
    out[1] = static_cast<float>(index);
  }
}

void RunArgmin(CaseContext& ctx) {
  // Distinct keys (a shuffled 0..255, shifted), so that the argmin is unique whatever the order.
  std::vector<int32_t> order(kKeyValThreads);
  std::iota(order.begin(), order.end(), 0);
  const std::vector<int32_t> noise = kernels::RandomInts(kKeyValThreads, 0xA4u, 0, kKeyValThreads - 1);
  for (int i = kKeyValThreads - 1; i > 0; --i) std::swap(order[i], order[noise[i] % (i + 1)]);
  std::vector<float> in(kKeyValThreads);
  for (int i = 0; i < kKeyValThreads; ++i) in[i] = static_cast<float>(order[i] - 100);
  const auto min = std::min_element(in.begin(), in.end());
  const std::vector<float> expected = {*min, static_cast<float>(min - in.begin())};
  CheckLaunch(ctx, in, expected, "min key and its index",
              [](const float* d_in, float* d_out) { ArgminKernel<<<1, kKeyValThreads>>>(d_in, d_out); });
}

// --- warp reductions -----------------------------------------------------------------------------

constexpr int kWarpCaseThreads = 128;

template <bool kShuffle>
__global__ void __launch_bounds__(kWarpCaseThreads) WarpSumKernel(const int* in, int* out) {
  __shared__ int smem[kWarpCaseThreads];
  int val = in[threadIdx.x];
  if constexpr (kShuffle) {
    cvd::reduce<32>(smem, val, threadIdx.x % 32, cvd::plus<int>());  // shuffles only: smem unused
  } else {
    smem[threadIdx.x] = val;
    val = cvd::warp_reduce(static_cast<volatile int*>(smem), threadIdx.x);
  }
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = val;
}

template <bool kShuffle>
void RunWarpSum(CaseContext& ctx) {
  const std::vector<int32_t> in = kernels::RandomInts(kWarpCaseThreads, kShuffle ? 0x5F1u : 0x5F2u);
  std::vector<int32_t> expected(kWarpCaseThreads / 32);
  for (size_t w = 0; w < expected.size(); ++w) {
    expected[w] = std::accumulate(in.begin() + w * 32, in.begin() + (w + 1) * 32, 0);
  }
  CheckLaunch(ctx, in, expected, "warp sums", [](const int* d_in, int* d_out) {
    WarpSumKernel<kShuffle><<<1, kWarpCaseThreads>>>(d_in, d_out);
  });
}

// --- Block ---------------------------------------------------------------------------------------

constexpr int kBlockReduceThreads = 256;

__global__ void __launch_bounds__(kBlockReduceThreads) BlockReduceKernel(const int* in, int* out) {
  __shared__ int buffer[kBlockReduceThreads];
  const int sum = cvd::Block::reduce<kBlockReduceThreads>(static_cast<volatile int*>(buffer), in[threadIdx.x],
                                                          cvd::plus<int>());
  if (threadIdx.x == 0) out[0] = sum;
}

void RunBlockReduce(CaseContext& ctx) {
  const std::vector<int32_t> in = kernels::RandomInts(kBlockReduceThreads, 0xB10Cu);
  CheckLaunch(
      ctx, in, std::vector<int32_t>{std::accumulate(in.begin(), in.end(), 0)}, "block sum",
      [](const int* d_in, int* d_out) { BlockReduceKernel<<<1, kBlockReduceThreads>>>(d_in, d_out); });
}

constexpr int kStagedThreads = 128;
constexpr int kStagedItems = 1000;

__global__ void __launch_bounds__(kStagedThreads) BlockReduceNKernel(const int* in, int* out) {
  __shared__ int data[kStagedItems];
  cvd::Block::copy(in, in + kStagedItems, data);
  __syncthreads();
  cvd::Block::reduce_n(data, kStagedItems, cvd::maximum<int>());
  if (threadIdx.x == 0) out[0] = data[0];
}

void RunBlockReduceN(CaseContext& ctx) {
  const std::vector<int32_t> in = kernels::RandomInts(kStagedItems, 0xB10Du, -100000, 100000);
  CheckLaunch(ctx, in, std::vector<int32_t>{*std::max_element(in.begin(), in.end())}, "block max",
              [](const int* d_in, int* d_out) { BlockReduceNKernel<<<1, kStagedThreads>>>(d_in, d_out); });
}

constexpr int kFillValue = 7;

// out = in + 7: the shared array filled with 7, the input added to it, then copied out.
__global__ void __launch_bounds__(kStagedThreads) BlockFillTransformKernel(const int* in, int* out) {
  __shared__ int data[kStagedItems];
  cvd::Block::fill(data, data + kStagedItems, int{kFillValue});  // a temporary: fill takes a reference
  __syncthreads();
  cvd::Block::transform(in, in + kStagedItems, data, data, cvd::plus<int>());
  __syncthreads();
  cvd::Block::copy(data, data + kStagedItems, out);
}

void RunBlockFillTransform(CaseContext& ctx) {
  const std::vector<int32_t> in = kernels::RandomInts(kStagedItems, 0xB10Eu);
  std::vector<int32_t> expected(in);
  for (int32_t& v : expected) v += kFillValue;
  CheckLaunch(ctx, in, expected, "in + 7", [](const int* d_in, int* d_out) {
    BlockFillTransformKernel<<<1, kStagedThreads>>>(d_in, d_out);
  });
}

// --- shared-memory histogram ---------------------------------------------------------------------

constexpr int kHistogramThreads = 256;
constexpr int kHistogramBins = 256;
constexpr int kHistogramItems = 8;  // a thread's
constexpr unsigned kHistogramBlocks = 4;

__global__ void __launch_bounds__(kHistogramThreads) HistogramKernel(const int* in, unsigned* out) {
  __shared__ unsigned hist[kHistogramBins];
  hist[threadIdx.x] = 0;
  __syncthreads();
  const int* block_in = in + blockIdx.x * kHistogramThreads * kHistogramItems;
  for (int i = 0; i < kHistogramItems; ++i) {
    cvd::Emulation::smem::atomicAdd(&hist[block_in[i * kHistogramThreads + threadIdx.x]], 1u);
  }
  __syncthreads();
  out[blockIdx.x * kHistogramBins + threadIdx.x] = hist[threadIdx.x];
}

void RunHistogram(CaseContext& ctx) {
  const std::vector<int32_t> in = kernels::RandomInts(kHistogramBlocks * kHistogramThreads * kHistogramItems,
                                                      0x4157u, 0, kHistogramBins - 1);
  std::vector<uint32_t> expected(kHistogramBlocks * kHistogramBins, 0);
  for (size_t i = 0; i < in.size(); ++i) {
    ++expected[i / (kHistogramThreads * kHistogramItems) * kHistogramBins + in[i]];
  }
  CheckLaunch(ctx, in, expected, "per-block histograms", [](const int* d_in, unsigned* d_out) {
    HistogramKernel<<<kHistogramBlocks, kHistogramThreads>>>(d_in, d_out);
  });
}
#endif

void RegisterOpenCvReductionCases() {
  AddOpenCvCase("opencv_block_reduce/sum_int/1x256", "cv::cuda::device::reduce<256>, sum of ints; one block",
                BANKCHECK_OPENCV_RUN(RunReduceSumInt));
  AddOpenCvCase("opencv_block_reduce/max_float/2x512",
                "cv::cuda::device::reduce<512>, max of floats; 2 blocks of 512 threads",
                BANKCHECK_OPENCV_RUN(RunReduceMaxFloat));
  AddOpenCvCase("opencv_block_reduce/min_int/4x64",
                "cv::cuda::device::reduce<64>, min of ints (two warps' partials); 4 blocks of 64 threads",
                BANKCHECK_OPENCV_RUN(RunReduceMinInt));
  AddOpenCvCase("opencv_block_reduce_key_val/argmin_float/1x256",
                "cv::cuda::device::reduceKeyVal<256>: the smallest of 256 distinct floats and its index",
                BANKCHECK_OPENCV_RUN(RunArgmin));
  AddOpenCvCase("opencv_warp_reduce/reduce32_shfl/1x128",
                "cv::cuda::device::reduce<32> (shuffles), each of 4 warps sums its 32 ints",
                BANKCHECK_OPENCV_RUN(RunWarpSum<true>));
  AddOpenCvCase("opencv_warp_reduce/warp_reduce_smem/1x128",
                "cv::cuda::device::warp_reduce (shared memory), each of 4 warps sums its 32 ints",
                BANKCHECK_OPENCV_RUN(RunWarpSum<false>));
  AddOpenCvCase("opencv_block/reduce/1x256",
                "cv::cuda::device::Block::reduce<256>, sum of ints in a shared buffer",
                BANKCHECK_OPENCV_RUN(RunBlockReduce));
  AddOpenCvCase("opencv_block/copy_reduce_n/1x128x1000",
                "Block::copy of 1000 ints to shared memory, then Block::reduce_n (max); 128 threads",
                BANKCHECK_OPENCV_RUN(RunBlockReduceN));
  AddOpenCvCase("opencv_block/fill_transform_copy/1x128x1000",
                "Block::fill, Block::transform (plus) and Block::copy over 1000 shared ints; 128 threads",
                BANKCHECK_OPENCV_RUN(RunBlockFillTransform));
  AddOpenCvCase("opencv_smem_histogram/atomic_add/4x256",
                "Emulation::smem::atomicAdd on a 256-bin shared histogram, 8 values a thread; 4 blocks",
                BANKCHECK_OPENCV_RUN(RunHistogram));
}

BANKCHECK_REGISTER_CASES(RegisterOpenCvReductionCases);

}  // namespace
}  // namespace bankcheck::corpus
