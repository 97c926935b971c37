// CuPy's upfirdn kernels (cupy-cuda13x 14.2.0, MIT; cupyx/scipy/signal/_upfirdn.py:
// UPFIRDN_KERNEL, behind cupyx.scipy.signal.upfirdn and resample_poly), extracted into the build
// folder as they are (corpus/extract_cupy_kernels.py) and launched as _UpFIRDn.apply_filter does:
//   cupy_upfirdn  upsample by `up` (zeros between samples), FIR-filter with h, keep every `down`th
//                 output. 1D (_cupy_upfirdn1D_float32, _complex64: blocks of 128 threads over the
//                 input's length, a grid-stride loop over the output) and 2D along either axis
//                 (_cupy_upfirdn2D_float32: 8x8 blocks over the output). No shared memory: the
//                 gate counts none and decides on its global loads' addresses.
// h goes in as CuPy's _pad_h arranges it (each phase's taps, flipped), computed here on the CPU.
// Reference: y[i] = sum over k of h[k] * xup[i * down - k], xup the upsampled input, per row or
// column for 2D. Integer-valued inputs in [-8, 8]: exact (==) in any order of the additions.

#pragma once
// Included by cupy_signal.cu, after CuPy's kernels.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cupy_support.h"

namespace bankcheck::corpus {
namespace {

struct UpFirDn {
  int up;
  int down;
  int len_h;
  int len_x;  // along the filtered axis
  int lines;  // 2D: the other axis's length; 1D: 1
  int axis;   // 2D: the filtered axis (0: down the columns, 1: along the rows)
  bool two_d;
  bool complex;

  int OutLen() const { return ((len_x - 1) * up + len_h - 1) / down + 1; }
  int PerPhase() const { return (len_h + up - 1) / up; }
};

// CuPy's _pad_h: h zero-padded to a multiple of `up`, read as rows of `up`, transposed and each
// row (a phase) reversed. `h` and the result hold `components` floats an element.
std::vector<float> PadH(const std::vector<float>& h, const UpFirDn& p, int components) {
  const int rows = p.PerPhase();
  std::vector<float> out(static_cast<size_t>(rows) * p.up * components, 0.0f);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < p.up; ++c) {
      const int from = r * p.up + c;
      if (from >= p.len_h) continue;
      for (int k = 0; k < components; ++k) {
        out[(static_cast<size_t>(c) * rows + (rows - 1 - r)) * components + k] = h[from * components + k];
      }
    }
  }
  return out;
}

// One line of the output: `x_at(j)` and the result hold (re, im) as pairs of floats.
template <typename XAt>
void HostUpFirDnLine(const UpFirDn& p, const std::vector<float>& h, int components, XAt x_at,
                     std::vector<float>& y, size_t y_offset, size_t y_stride) {
  for (int i = 0; i < p.OutLen(); ++i) {
    float re = 0.0f, im = 0.0f;
    for (int k = 0; k < p.len_h; ++k) {
      const int j = i * p.down - k;  // a position of the upsampled input
      if (j < 0 || j % p.up != 0 || j / p.up >= p.len_x) continue;
      const float* xv = x_at(j / p.up);
      const float hr = h[k * components], hm = components == 2 ? h[k * components + 1] : 0.0f;
      const float xm = components == 2 ? xv[1] : 0.0f;
      re += hr * xv[0] - hm * xm;
      im += hr * xm + hm * xv[0];
    }
    const size_t at = (y_offset + static_cast<size_t>(i) * y_stride) * components;
    y[at] = re;
    if (components == 2) y[at + 1] = im;
  }
}

std::vector<float> HostUpFirDn(const UpFirDn& p, const std::vector<float>& x, const std::vector<float>& h) {
  const int comps = p.complex ? 2 : 1;
  std::vector<float> y(static_cast<size_t>(p.OutLen()) * p.lines * comps);
  for (int line = 0; line < p.lines; ++line) {
    if (!p.two_d || p.axis == 1) {  // row `line`: x[line][j], y[line][i]
      HostUpFirDnLine(
          p, h, comps, [&](int j) { return &x[(static_cast<size_t>(line) * p.len_x + j) * comps]; }, y,
          static_cast<size_t>(line) * p.OutLen(), 1);
    } else {  // column `line`: x[j][line], y[i][line]
      HostUpFirDnLine(
          p, h, comps, [&](int j) { return &x[(static_cast<size_t>(j) * p.lines + line) * comps]; }, y, line,
          p.lines);
    }
  }
  return y;
}

void AddUpFirDnCase(const std::string& name, UpFirDn p) {
  const std::string type = p.complex ? "complex64" : "float32";
  AddCase(
      "cupy_upfirdn/" + name,
      "CuPy's _cupy_upfirdn" + std::string(p.two_d ? "2D_" : "1D_") + type + ": up " + std::to_string(p.up) +
          ", down " + std::to_string(p.down) + ", " + std::to_string(p.len_h) + " taps, " +
          std::to_string(p.len_x) + " input samples" +
          (p.two_d ? " a line, " + std::to_string(p.lines) + " lines, axis " + std::to_string(p.axis) : ""),
      [p](CaseContext& ctx) {
        const int comps = p.complex ? 2 : 1;
        const std::vector<float> x = SmallIntegerFloats(static_cast<size_t>(p.len_x) * p.lines * comps,
                                                        0xF1D0u + p.up * 7 + p.down, -8, 8);
        const std::vector<float> h = SmallIntegerFloats(static_cast<size_t>(p.len_h) * comps, 0xF1D1u, -8, 8);
        const std::vector<float> expected = HostUpFirDn(p, x, h);
#if BANKCHECK_CORPUS_HAS_CUPY
        DeviceBuffer<float> d_h(PadH(h, p, comps));
        const int per_phase = p.PerPhase();
        const int padded_len = p.len_x + per_phase - 1;
        CheckLaunch(ctx, x, expected, "upfirdn output", [&](const float* d_x, float* d_y) {
          if (!p.two_d && p.complex) {
            using C = thrust::complex<float>;
            _cupy_upfirdn1D_complex64<<<(p.len_x + 127) / 128, 128>>>(
                reinterpret_cast<const C*>(d_x), 1, reinterpret_cast<const C*>(d_h.get()), p.up, p.down, 0,
                p.len_x, per_phase, padded_len, reinterpret_cast<C*>(d_y), p.OutLen());
          } else if (!p.two_d) {
            _cupy_upfirdn1D_float32<<<(p.len_x + 127) / 128, 128>>>(
                d_x, 1, d_h.get(), p.up, p.down, 0, p.len_x, per_phase, padded_len, d_y, p.OutLen());
          } else {
            // The output's shape (rows, columns) and the input's strides, in elements.
            const int out_rows = p.axis == 1 ? p.lines : p.OutLen();
            const int out_cols = p.axis == 1 ? p.OutLen() : p.lines;
            const long long stride_w = 1;
            const long long stride_h = p.axis == 1 ? p.len_x : p.lines;
            const dim3 grid((out_rows + 7) / 8, (out_cols + 7) / 8);
            _cupy_upfirdn2D_float32<<<grid, dim3(8, 8)>>>(d_x, stride_w, stride_h, d_h.get(), p.up, p.down,
                                                          p.axis, p.len_x, per_phase, padded_len, d_y,
                                                          out_rows, out_cols);
          }
        });
#else
        (void)ctx;
        (void)expected;
        GTEST_SKIP() << kCupyMissing;
#endif
      });
}

void RegisterUpFirDnCases() {
  //                                    up down len_h len_x lines axis 2D  complex
  AddUpFirDnCase("1d/float32/up3_down2", {3, 2, 10, 40, 1, 0, false, false});
  AddUpFirDnCase("1d/float32/up1_down1", {1, 1, 9, 200, 1, 0, false, false});  // plain FIR, 2 blocks
  AddUpFirDnCase("1d/complex64/up2_down3", {2, 3, 7, 48, 1, 0, false, true});
  AddUpFirDnCase("2d/float32/axis1_up2", {2, 1, 7, 20, 6, 1, true, false});
  AddUpFirDnCase("2d/float32/axis0_down2", {1, 2, 6, 24, 5, 0, true, false});
}

}  // namespace
}  // namespace bankcheck::corpus
