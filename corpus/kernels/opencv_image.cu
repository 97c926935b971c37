// OpenCV's CUDA device image helpers (opencv2/core/cuda/*.hpp of OpenCV 4.6.0, Debian's
// libopencv-core-dev 4.6.0+dfsg-12, Apache-2.0; optional: corpus/kernels/opencv_support.h):
//   opencv_border_box3x3   border_interpolate.hpp's BrdReflect101, BrdReplicate and BrdWrap,
//                          read through their at(y, x, data, step) while a block of 16x16 threads
//                          stages its 18x18 tile of a 32x32 int image in shared memory (2x2
//                          blocks); each thread then sums its 3x3 neighbourhood from the tile.
//   opencv_filters         filters.hpp's PointFilter and LinearFilter over a BorderReader
//                          (BrdReplicate) of a 16x16 float image, sampled at a 32x32 grid as
//                          resize's 2x upscale does: (x + 0.5) / 2 - 0.5.
//   opencv_color           color.hpp's bgr_to_gray and bgr_to_YCrCb functors on 256 uchar3
//                          pixels (OpenCV's fixed-point paths: YCrCb reads its coefficients from
//                          __constant__ memory).
//   opencv_saturate_cast   saturate_cast.hpp's saturate_cast<uchar>(float) and
//                          saturate_cast<schar>(int) (PTX cvt.rni.sat and cvt.sat).
// The image cases other than the box filter touch no shared memory: their counts are all zero, and
// they measure whether the emulator decides and computes such kernels. Every helper is OpenCV's;
// ours are the kernels around them and the launch. References: plain CPU loops, exact (ints; the
// filters' samples of integer pixels in [0, 255] are multiples of 1/16 below 256, exact in float
// in any order of the additions, with or without fused multiply-adds).

#include "opencv_support.h"

#if BANKCHECK_CORPUS_HAS_OPENCV
#include <opencv2/core/cuda/border_interpolate.hpp>
#include <opencv2/core/cuda/color.hpp>
#include <opencv2/core/cuda/filters.hpp>
#include <opencv2/core/cuda/saturate_cast.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace bankcheck::corpus {
namespace {

#if BANKCHECK_CORPUS_HAS_OPENCV
// --- a 3x3 box filter over a tile staged with a border mode ------------------------------------

constexpr int kImage = 32;  // the image: kImage x kImage ints
constexpr int kTile = 16;   // a block's outputs: kTile x kTile, one a thread
constexpr int kHalo = kTile + 2;

enum class Border { kReflect101, kReplicate, kWrap };

template <Border kBorder>
using BorderOf = std::conditional_t<
    kBorder == Border::kReflect101, cvd::BrdReflect101<int>,
    std::conditional_t<kBorder == Border::kReplicate, cvd::BrdReplicate<int>, cvd::BrdWrap<int>>>;

template <Border kBorder>
__global__ void __launch_bounds__(kTile* kTile) BoxFilterKernel(const int* in, int* out) {
  __shared__ int tile[kHalo][kHalo];
  const BorderOf<kBorder> border(kImage, kImage);
  const int tid = threadIdx.y * kTile + threadIdx.x;
  const int y0 = blockIdx.y * kTile - 1;
  const int x0 = blockIdx.x * kTile - 1;
  for (int i = tid; i < kHalo * kHalo; i += kTile * kTile) {
    tile[i / kHalo][i % kHalo] = border.at(y0 + i / kHalo, x0 + i % kHalo, in, kImage * sizeof(int));
  }
  __syncthreads();
  int sum = 0;
  for (int dy = 0; dy < 3; ++dy) {
    for (int dx = 0; dx < 3; ++dx) sum += tile[threadIdx.y + dy][threadIdx.x + dx];
  }
  out[(y0 + 1 + threadIdx.y) * kImage + x0 + 1 + threadIdx.x] = sum;
}

// The border modes' definitions (OpenCV's BORDER_REFLECT_101, BORDER_REPLICATE, BORDER_WRAP) for
// an index at most one outside [0, n).
int HostBorderIndex(Border border, int i, int n) {
  if (i >= 0 && i < n) return i;
  switch (border) {
    case Border::kReflect101:  // gfedcb|abcdefgh|gfedcba
      return i < 0 ? -i : 2 * (n - 1) - i;
    case Border::kReplicate:  // aaaaaa|abcdefgh|hhhhhhh
      return i < 0 ? 0 : n - 1;
    default:  // cdefgh|abcdefgh|abcdefg
      return (i + n) % n;
  }
}

template <Border kBorder>
void RunBoxFilter(CaseContext& ctx) {
  const std::vector<int32_t> in =
      kernels::RandomInts(kImage * kImage, 0xB0C5u + static_cast<uint32_t>(kBorder));
  std::vector<int32_t> expected(kImage * kImage, 0);
  for (int y = 0; y < kImage; ++y) {
    for (int x = 0; x < kImage; ++x) {
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          expected[y * kImage + x] += in[HostBorderIndex(kBorder, y + dy, kImage) * kImage +
                                         HostBorderIndex(kBorder, x + dx, kImage)];
        }
      }
    }
  }
  CheckLaunch(ctx, in, expected, "box-filtered image", [](const int* d_in, int* d_out) {
    BoxFilterKernel<kBorder><<<dim3(kImage / kTile, kImage / kTile), dim3(kTile, kTile)>>>(d_in, d_out);
  });
}

// --- resize-style sampling through filters.hpp ---------------------------------------------------

constexpr int kSrc = 16;  // the source: kSrc x kSrc floats
constexpr int kDst = 2 * kSrc;

using Reader = cvd::BorderReader<cv::cuda::PtrStep<float>, cvd::BrdReplicate<float>>;

template <template <typename> class Filter>
__global__ void __launch_bounds__(kDst) ResampleKernel(Filter<Reader> filter, float* out) {
  const int y = blockIdx.x;
  const int x = threadIdx.x;
  const float sy = (y + 0.5f) * 0.5f - 0.5f;
  const float sx = (x + 0.5f) * 0.5f - 0.5f;
  out[y * kDst + x] = filter(sy, sx);
}

enum class Sampling { kPoint, kLinear };

template <Sampling kSampling>
void RunResample(CaseContext& ctx) {
  const std::vector<int32_t> pixels = kernels::RandomInts(kSrc * kSrc, 0xF17u, 0, 255);
  const std::vector<float> in(pixels.begin(), pixels.end());
  const auto at = [&](int y, int x) {
    return in[std::clamp(y, 0, kSrc - 1) * kSrc + std::clamp(x, 0, kSrc - 1)];  // BORDER_REPLICATE
  };
  std::vector<float> expected(kDst * kDst);
  for (int y = 0; y < kDst; ++y) {
    for (int x = 0; x < kDst; ++x) {
      const float sy = (y + 0.5f) * 0.5f - 0.5f;
      const float sx = (x + 0.5f) * 0.5f - 0.5f;
      if constexpr (kSampling == Sampling::kPoint) {  // truncated toward zero, as __float2int_rz
        expected[y * kDst + x] = at(static_cast<int>(sy), static_cast<int>(sx));
      } else {  // bilinear between the floor and the next sample
        const int y1 = static_cast<int>(std::floor(sy));
        const int x1 = static_cast<int>(std::floor(sx));
        const float wy = sy - y1;
        const float wx = sx - x1;
        expected[y * kDst + x] = at(y1, x1) * (1 - wx) * (1 - wy) + at(y1, x1 + 1) * wx * (1 - wy) +
                                 at(y1 + 1, x1) * (1 - wx) * wy + at(y1 + 1, x1 + 1) * wx * wy;
      }
    }
  }
  CheckLaunch(ctx, in, expected, "resampled image", [](const float* d_in, float* d_out) {
    const Reader reader(cv::cuda::PtrStep<float>(const_cast<float*>(d_in), kSrc * sizeof(float)),
                        cvd::BrdReplicate<float>(kSrc, kSrc));
    if constexpr (kSampling == Sampling::kPoint) {
      ResampleKernel<cvd::PointFilter><<<kDst, kDst>>>(cvd::PointFilter<Reader>(reader), d_out);
    } else {
      ResampleKernel<cvd::LinearFilter><<<kDst, kDst>>>(cvd::LinearFilter<Reader>(reader), d_out);
    }
  });
}

// --- color conversions ---------------------------------------------------------------------------

constexpr int kPixels = 256;

// out: one uchar a pixel (gray) or three (YCrCb).
template <bool kYCrCb>
__global__ void __launch_bounds__(kPixels) ColorKernel(const uint8_t* in, uint8_t* out) {
  const uchar3 bgr = reinterpret_cast<const uchar3*>(in)[threadIdx.x];
  if constexpr (kYCrCb) {
    reinterpret_cast<uchar3*>(out)[threadIdx.x] = cvd::bgr_to_YCrCb_traits<uchar>::create_functor()(bgr);
  } else {
    out[threadIdx.x] = cvd::bgr_to_gray_traits<uchar>::create_functor()(bgr);
  }
}

// OpenCV's fixed-point definitions (cvtColor, 8-bit): Y = 0.299 R + 0.587 G + 0.114 B in 15 bits
// for gray and 14 bits for YCrCb; Cr = (R - Y) * 0.713 + 128 and Cb = (B - Y) * 0.564 + 128, each
// rounded half up and saturated to [0, 255].
int Descale(int x, int bits) { return (x + (1 << (bits - 1))) >> bits; }
uint8_t Saturate(int x) { return static_cast<uint8_t>(std::clamp(x, 0, 255)); }

template <bool kYCrCb>
void RunColor(CaseContext& ctx) {
  const std::vector<int32_t> values = kernels::RandomInts(3 * kPixels, kYCrCb ? 0xC01u : 0xC02u, 0, 255);
  const std::vector<uint8_t> in(values.begin(), values.end());
  std::vector<uint8_t> expected;
  for (int i = 0; i < kPixels; ++i) {
    const int b = in[3 * i], g = in[3 * i + 1], r = in[3 * i + 2];
    if constexpr (kYCrCb) {
      const int y = Descale(b * 1868 + g * 9617 + r * 4899, 14);
      expected.push_back(Saturate(y));
      expected.push_back(Saturate(Descale((r - y) * 11682 + (128 << 14), 14)));
      expected.push_back(Saturate(Descale((b - y) * 9241 + (128 << 14), 14)));
    } else {
      expected.push_back(static_cast<uint8_t>(Descale(b * 3735 + g * 19235 + r * 9798, 15)));
    }
  }
  CheckLaunch(ctx, in, expected, kYCrCb ? "YCrCb pixels" : "gray pixels",
              [](const uint8_t* d_in, uint8_t* d_out) { ColorKernel<kYCrCb><<<1, kPixels>>>(d_in, d_out); });
}

// --- saturate_cast -------------------------------------------------------------------------------

constexpr int kCasts = 256;

__global__ void __launch_bounds__(kCasts) SaturateFloatKernel(const float* in, uint8_t* out) {
  out[threadIdx.x] = cvd::saturate_cast<uchar>(in[threadIdx.x]);
}

__global__ void __launch_bounds__(kCasts) SaturateIntKernel(const int* in, int8_t* out) {
  out[threadIdx.x] = cvd::saturate_cast<schar>(in[threadIdx.x]);
}

void RunSaturateFloat(CaseContext& ctx) {
  // Quarters in [-100, 355]: below, inside and above [0, 255], with ties (x.5) both ways.
  const std::vector<int32_t> quarters = kernels::RandomInts(kCasts, 0x5A7u, -400, 1420);
  std::vector<float> in;
  std::vector<uint8_t> expected;
  for (const int32_t q : quarters) {
    in.push_back(q / 4.0f);
    expected.push_back(Saturate(static_cast<int>(std::nearbyint(q / 4.0f))));  // to nearest even: cvt.rni
  }
  CheckLaunch(ctx, in, expected, "saturated uchars",
              [](const float* d_in, uint8_t* d_out) { SaturateFloatKernel<<<1, kCasts>>>(d_in, d_out); });
}

void RunSaturateInt(CaseContext& ctx) {
  const std::vector<int32_t> in = kernels::RandomInts(kCasts, 0x5A8u, -300, 300);
  std::vector<int8_t> expected;
  for (const int32_t v : in) expected.push_back(static_cast<int8_t>(std::clamp(v, -128, 127)));
  CheckLaunch(ctx, in, expected, "saturated schars",
              [](const int* d_in, int8_t* d_out) { SaturateIntKernel<<<1, kCasts>>>(d_in, d_out); });
}
#endif

void RegisterOpenCvImageCases() {
  AddOpenCvCase(
      "opencv_border_box3x3/reflect101/32x32",
      "3x3 box filter of a 32x32 int image, 18x18 shared tiles staged through BrdReflect101; 2x2 blocks "
      "of 16x16",
      BANKCHECK_OPENCV_RUN(RunBoxFilter<Border::kReflect101>));
  AddOpenCvCase(
      "opencv_border_box3x3/replicate/32x32",
      "3x3 box filter of a 32x32 int image, 18x18 shared tiles staged through BrdReplicate; 2x2 blocks "
      "of 16x16",
      BANKCHECK_OPENCV_RUN(RunBoxFilter<Border::kReplicate>));
  AddOpenCvCase(
      "opencv_border_box3x3/wrap/32x32",
      "3x3 box filter of a 32x32 int image, 18x18 shared tiles staged through BrdWrap; 2x2 blocks of "
      "16x16",
      BANKCHECK_OPENCV_RUN(RunBoxFilter<Border::kWrap>));
  AddOpenCvCase(
      "opencv_filters/point/16x16_to_32x32",
      "PointFilter over BorderReader<PtrStep<float>, BrdReplicate>, a 2x nearest upscale of 16x16 floats",
      BANKCHECK_OPENCV_RUN(RunResample<Sampling::kPoint>));
  AddOpenCvCase(
      "opencv_filters/linear/16x16_to_32x32",
      "LinearFilter over BorderReader<PtrStep<float>, BrdReplicate>, a 2x bilinear upscale of 16x16 floats",
      BANKCHECK_OPENCV_RUN(RunResample<Sampling::kLinear>));
  AddOpenCvCase("opencv_color/bgr_to_gray/256", "bgr_to_gray_traits<uchar>'s functor on 256 uchar3 pixels",
                BANKCHECK_OPENCV_RUN(RunColor<false>));
  AddOpenCvCase("opencv_color/bgr_to_ycrcb/256", "bgr_to_YCrCb_traits<uchar>'s functor on 256 uchar3 pixels",
                BANKCHECK_OPENCV_RUN(RunColor<true>));
  AddOpenCvCase("opencv_saturate_cast/float_to_uchar/256",
                "saturate_cast<uchar>(float) of 256 quarters in [-100, 355]",
                BANKCHECK_OPENCV_RUN(RunSaturateFloat));
  AddOpenCvCase("opencv_saturate_cast/int_to_schar/256",
                "saturate_cast<schar>(int) of 256 ints in [-300, 300]", BANKCHECK_OPENCV_RUN(RunSaturateInt));
}

BANKCHECK_REGISTER_CASES(RegisterOpenCvImageCases);

}  // namespace
}  // namespace bankcheck::corpus
