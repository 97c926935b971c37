// OpenCV's CUDA device scans (opencv2/core/cuda/scan.hpp of OpenCV 4.6.0, Debian's
// libopencv-core-dev 4.6.0+dfsg-12, Apache-2.0; optional: corpus/kernels/opencv_support.h), each an
// inclusive prefix sum of ints, one output a thread:
//   opencv_block_scan  blockScanInclusive<1024> (warp scans by shuffle, the 32 warps' totals scanned
//                      through shared memory by warp 0); BlockScan over WarpScan (warp-synchronous
//                      scans in place in a shared array of 256, the warps' totals merged in its
//                      first entries) and over WarpScanNoComp (the same with 16 zeros before each
//                      warp's 32 entries, warps 49 ints apart, so that no lane tests its lane).
//   opencv_warp_scan   warpScanInclusive: 4 warps, each scanning its own 32 ints by shuffle.
// Every scan is OpenCV's; ours are the kernels around them and the launch. Reference: the prefix
// sums on the CPU, exact (ints).

#include "opencv_support.h"

#if BANKCHECK_CORPUS_HAS_OPENCV
#include <opencv2/core/cuda/functional.hpp>
#include <opencv2/core/cuda/scan.hpp>
#endif

#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

namespace bankcheck::corpus {
namespace {

#if BANKCHECK_CORPUS_HAS_OPENCV
// Prefix sums of each `segment` consecutive ints.
std::vector<int32_t> SegmentedInclusiveSums(const std::vector<int32_t>& in, size_t segment) {
  std::vector<int32_t> out(in.size());
  for (size_t first = 0; first < in.size(); first += segment) {
    std::partial_sum(in.begin() + first, in.begin() + first + segment, out.begin() + first);
  }
  return out;
}

void CheckScan(CaseContext& ctx, size_t n, size_t segment, uint32_t seed, void (*launch)(const int*, int*)) {
  const std::vector<int32_t> in = kernels::RandomInts(n, seed);
  CheckLaunch(ctx, in, SegmentedInclusiveSums(in, segment), "inclusive prefix sums", launch);
}

constexpr int kLargeBlock = 1024;

__global__ void __launch_bounds__(kLargeBlock) BlockScanInclusiveKernel(const int* in, int* out) {
  __shared__ int s_data[kLargeBlock / 32];  // the warps' totals
  out[threadIdx.x] = cvd::blockScanInclusive<kLargeBlock>(in[threadIdx.x], s_data, threadIdx.x);
}

void RunBlockScanInclusive(CaseContext& ctx) {
  CheckScan(ctx, kLargeBlock, kLargeBlock, 0x5CA1u,
            [](const int* in, int* out) { BlockScanInclusiveKernel<<<1, kLargeBlock>>>(in, out); });
}

constexpr int kBlock = 256;

// The shared ints a BlockScan of kBlock threads over `WarpScan` reads and writes.
template <typename WarpScan>
__host__ __device__ constexpr int ScanSmemSize() {
  if constexpr (WarpScan::warp_offset == 0) {
    return kBlock;
  } else {
    return (kBlock / 32) * WarpScan::warp_smem_stride + WarpScan::warp_offset;
  }
}

template <bool kNoComp>
__global__ void __launch_bounds__(kBlock) BlockScanKernel(const int* in, int* out) {
  using WarpScan = std::conditional_t<kNoComp, cvd::WarpScanNoComp<cvd::INCLUSIVE, int, cvd::plus<int>>,
                                      cvd::WarpScan<cvd::INCLUSIVE, int, cvd::plus<int>>>;
  using Scan = cvd::BlockScan<cvd::INCLUSIVE, int, WarpScan, cvd::plus<int>>;
  // WarpScanNoComp: warps 49 ints apart after 16 leading zeros, which the scan reads as its lanes'
  // missing predecessors; so the array is zeroed before the values are placed.
  constexpr int kSize = ScanSmemSize<WarpScan>();
  __shared__ int smem[kSize];
  if constexpr (kNoComp) {
    for (int i = threadIdx.x; i < kSize; i += kBlock) smem[i] = 0;
    __syncthreads();
  }
  smem[WarpScan().index(threadIdx.x)] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = Scan()(smem);
}

template <bool kNoComp>
void RunBlockScan(CaseContext& ctx) {
  CheckScan(ctx, kBlock, kBlock, kNoComp ? 0x5CA3u : 0x5CA2u,
            [](const int* in, int* out) { BlockScanKernel<kNoComp><<<1, kBlock>>>(in, out); });
}

constexpr int kWarpsBlock = 128;

__global__ void __launch_bounds__(kWarpsBlock) WarpScanKernel(const int* in, int* out) {
  // sm_90 takes the shuffle path: the shared array is its pre-sm_30 fallback's, unused.
  __shared__ int s_data[2 * kWarpsBlock];
  out[threadIdx.x] = cvd::warpScanInclusive(in[threadIdx.x], s_data, threadIdx.x);
}

void RunWarpScan(CaseContext& ctx) {
  CheckScan(ctx, kWarpsBlock, 32, 0x5CA4u,
            [](const int* in, int* out) { WarpScanKernel<<<1, kWarpsBlock>>>(in, out); });
}
#endif

void RegisterOpenCvScanCases() {
  AddOpenCvCase("opencv_block_scan/block_scan_inclusive/1x1024",
                "cv::cuda::device::blockScanInclusive<1024>, prefix sums of ints; one block of 1024 threads",
                BANKCHECK_OPENCV_RUN(RunBlockScanInclusive));
  AddOpenCvCase("opencv_block_scan/warp_scan/1x256",
                "cv::cuda::device::BlockScan over WarpScan, in place in a shared array; one block of 256",
                BANKCHECK_OPENCV_RUN(RunBlockScan<false>));
  AddOpenCvCase(
      "opencv_block_scan/warp_scan_no_comp/1x256",
      "cv::cuda::device::BlockScan over WarpScanNoComp (zero-padded warps, 49 ints apart); one block of 256",
      BANKCHECK_OPENCV_RUN(RunBlockScan<true>));
  AddOpenCvCase("opencv_warp_scan/warp_scan_inclusive/1x128",
                "cv::cuda::device::warpScanInclusive (shuffles), each of 4 warps scans its 32 ints",
                BANKCHECK_OPENCV_RUN(RunWarpScan));
}

BANKCHECK_REGISTER_CASES(RegisterOpenCvScanCases);

}  // namespace
}  // namespace bankcheck::corpus
