// CuPy's polyphase channelizer kernels (cupy-cuda13x 14.2.0, MIT; cupyx/signal/_filtering/
// _filtering.py: _CHANNELIZER_8X8_KERNEL, _CHANNELIZER_16X16_KERNEL, _CHANNELIZER_32X32_KERNEL, the
// kernels behind cupyx.signal.channelize_poly), extracted into the build folder as they are
// (corpus/extract_cupy_kernels.py) and launched as channelize_poly does, on a small grid:
//   cupy_channelizer  _cupy_channelizer_MxM<T, complex<float>>: a block of MxM threads stages one
//                     channel group's taps in a shared s_mem[M][M] tile, written [tx][ty] and read
//                     [ty][tx] (a transpose through shared memory), then for each output point the
//                     signal window the same way, and sums each channel's taps with a
//                     cooperative-groups tile reduction. float and complex<float> input.
// Reference: y[p][c] = sum over taps t <= p of conj(h[t][c]) * conj(x[p - t][n_chans - 1 - c]) (the
// kernel's indexing; conj only for complex input), the FFT that channelize_poly applies afterwards
// left out. Integer-valued inputs in [-8, 8]: every product and partial sum is an integer far below
// 2^24, so the comparison is exact (==) whatever order the tile reduction adds in.

#pragma once
// Included by cupy_signal.cu, after CuPy's kernels.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cupy_support.h"

namespace bankcheck::corpus {
namespace {

struct ChannelizerShape {
  int n_chans;
  int n_taps;
  int n_pts;
  int grid_y;  // output points are strided over blockIdx.y
};

// Interleaved (re, im) floats of n complex values: integers in [-8, 8], the imaginary parts 0 for
// real input.
std::vector<float> ChannelizerInput(size_t n, bool complex, uint32_t seed) {
  const std::vector<int32_t> ints = kernels::RandomInts(2 * n, seed, -8, 8);
  std::vector<float> out(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = static_cast<float>(ints[2 * i]);
    out[2 * i + 1] = complex ? static_cast<float>(ints[2 * i + 1]) : 0.0f;
  }
  return out;
}

std::vector<float> HostChannelizer(const std::vector<float>& x, const std::vector<float>& h,
                                   const ChannelizerShape& s) {
  ComplexFloats y(static_cast<size_t>(s.n_pts) * s.n_chans);
  for (int p = 0; p < s.n_pts; ++p) {
    for (int c = 0; c < s.n_chans; ++c) {
      float re = 0.0f;
      float im = 0.0f;
      for (int t = 0; t < s.n_taps && t <= p; ++t) {
        const size_t hi = static_cast<size_t>(t) * s.n_chans + c;
        const size_t xi = static_cast<size_t>(p - t) * s.n_chans + (s.n_chans - 1 - c);
        // conj(h) * conj(x) = conj(h * x)
        const float hr = h[2 * hi], hm = h[2 * hi + 1], xr = x[2 * xi], xm = x[2 * xi + 1];
        re += hr * xr - hm * xm;
        im -= hr * xm + hm * xr;
      }
      y.re(static_cast<size_t>(p) * s.n_chans + c) = re;
      y.im(static_cast<size_t>(p) * s.n_chans + c) = im;
    }
  }
  return y.values;
}

#if BANKCHECK_CORPUS_HAS_CUPY
using ComplexF = thrust::complex<float>;

template <int kM, typename T>
void LaunchChannelizer(const ChannelizerShape& s, const T* x, const T* h, ComplexF* y) {
  const dim3 grid((s.n_chans + kM - 1) / kM, s.grid_y);
  const dim3 block(kM, kM);
  if constexpr (kM == 8) {
    _cupy_channelizer_8x8<T, ComplexF><<<grid, block>>>(s.n_chans, s.n_taps, s.n_pts, x, h, y);
  } else if constexpr (kM == 16) {
    _cupy_channelizer_16x16<T, ComplexF><<<grid, block>>>(s.n_chans, s.n_taps, s.n_pts, x, h, y);
  } else {
    _cupy_channelizer_32x32<T, ComplexF><<<grid, block>>>(s.n_chans, s.n_taps, s.n_pts, x, h, y);
  }
}
#endif

// Real input goes to the kernel as plain floats (the real parts), complex input interleaved.
std::vector<float> KernelInput(const std::vector<float>& interleaved, bool complex) {
  if (complex) return interleaved;
  std::vector<float> real(interleaved.size() / 2);
  for (size_t i = 0; i < real.size(); ++i) real[i] = interleaved[2 * i];
  return real;
}

template <int kM, bool kComplex>
void AddChannelizerCase(ChannelizerShape s) {
  const std::string type = kComplex ? "complex64" : "float32";
  AddCase("cupy_channelizer/" + std::to_string(kM) + "x" + std::to_string(kM) + "/" + type + "/" +
              std::to_string(s.n_chans) + "ch_" + std::to_string(s.n_taps) + "taps",
          "CuPy's _cupy_channelizer_" + std::to_string(kM) + "x" + std::to_string(kM) + "<" + type +
              ", complex64> (cupyx.signal.channelize_poly's kernel): " + std::to_string(s.n_chans) +
              " channels, " + std::to_string(s.n_taps) + " taps, " + std::to_string(s.n_pts) +
              " output points over grid.y " + std::to_string(s.grid_y) + ", blocks of " + std::to_string(kM) +
              "x" + std::to_string(kM) + " threads",
          [s](CaseContext& ctx) {
            const size_t n_x = static_cast<size_t>(s.n_pts) * s.n_chans;
            const size_t n_h = static_cast<size_t>(s.n_taps) * s.n_chans;
            const std::vector<float> x = ChannelizerInput(n_x, kComplex, 0xC4A0u + kM);
            const std::vector<float> h = ChannelizerInput(n_h, kComplex, 0xC4A1u + kM);
            const std::vector<float> expected = HostChannelizer(x, h, s);
#if BANKCHECK_CORPUS_HAS_CUPY
            using T = std::conditional_t<kComplex, ComplexF, float>;
            DeviceBuffer<float> d_h(KernelInput(h, kComplex));
            CheckLaunch(ctx, KernelInput(x, kComplex), expected, "channel outputs (re, im)",
                        [&](const float* d_x, float* d_y) {
                          LaunchChannelizer<kM, T>(s, reinterpret_cast<const T*>(d_x),
                                                   reinterpret_cast<const T*>(d_h.get()),
                                                   reinterpret_cast<ComplexF*>(d_y));
                        });
#else
            (void)ctx;
            (void)expected;
            GTEST_SKIP() << kCupyMissing;
#endif
          });
}

void RegisterChannelizerCases() {
  AddChannelizerCase<8, false>({12, 5, 10, 3});  // two channel groups, the second partial
  AddChannelizerCase<16, false>({20, 11, 6, 2});
  AddChannelizerCase<16, true>({16, 9, 5, 2});
  AddChannelizerCase<32, false>({32, 24, 5, 2});
  AddChannelizerCase<32, true>({32, 17, 4, 2});
}

}  // namespace
}  // namespace bankcheck::corpus
