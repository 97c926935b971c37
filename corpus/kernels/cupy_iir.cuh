// CuPy's block-parallel IIR filter kernels (cupy-cuda13x 14.2.0, MIT; cupyx/scipy/signal/
// _iir_utils.py: IIR_KERNEL and IIR_SOS_KERNEL, behind cupyx.scipy.signal.lfilter and sosfilt),
// extracted into the build folder as they are (corpus/extract_cupy_kernels.py) and launched as
// apply_iir and apply_iir_sos do, one kernel a case (lfilter runs the four in turn):
//   cupy_iir      compute_correction_factors<float, float> (one thread a block: the zero-input
//                 responses of y[i] = x[i] + sum_j a[j] y[i-1-j] to each of the k initial states),
//                 first_pass_iir<float> (blocks of m/2 threads: each group of m samples filtered
//                 from a zero state in log2(m) doubling levels, the factors read from global memory),
//                 correct_carries<float> (k threads: each group's last k samples corrected by the
//                 group before, in turn) and second_pass_iir<float> (m threads a group: every sample
//                 corrected by the group before's carries).
//   cupy_iir_sos  the second-order-section versions: compute_correction_factors_sos (two threads a
//                 section, their states in shared memory) and first_pass_iir_sos (the factors staged
//                 in a shared cache, two floats a thread).
// Each kernel's inputs are the CPU reference's values of the kernels before it. Every output is
// checked: the factors, the filtered samples, the carries. The filters' roots lie on the unit circle
// (a = {1, -1, 1}: roots 1, +-i; the section y = x + y[-1] - y[-2]: a 6-periodic response) and the
// inputs are integers in [-8, 8], so every value stays an integer far below 2^24: exact (==)
// whatever order the levels add in.

#pragma once
// Included by cupy_signal.cu, after CuPy's kernels.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cupy_support.h"

namespace bankcheck::corpus {
namespace {

constexpr int kGroupSize = 64;  // samples a group (CuPy's block_sz), one block of kGroupSize / 2 threads each
constexpr int kGroups = 2;      // n = kGroups * kGroupSize
constexpr int kSosK = 2;        // a section's feedback order
const std::vector<float> kA = {1.0f, -1.0f, 1.0f};  // y[i] = x[i] + y[i-1] - y[i-2] + y[i-3]
const std::vector<float> kSos = {1.0f, 0.0f, 0.0f, 1.0f, -1.0f, 1.0f,    // b0 b1 b2 a0 a1 a2:
                                 1.0f, 0.0f, 0.0f, 1.0f, 0.0f,  -1.0f};  // then y = x + y[-2]

// compute_correction_factors's output: k rows of (k + m): the reversed identity's row, then the
// zero-input response to it.
std::vector<float> HostCorrection(const std::vector<float>& a) {
  const int k = static_cast<int>(a.size());
  std::vector<float> out(static_cast<size_t>(k) * (k + kGroupSize), 0.0f);
  for (int row = 0; row < k; ++row) {
    float* r = &out[static_cast<size_t>(row) * (k + kGroupSize)];
    r[k - 1 - row] = 1.0f;
    for (int i = 0; i < kGroupSize; ++i) {
      float acc = 0.0f;
      for (int j = 0; j < k; ++j) acc += a[j] * r[k + i - j - 1];
      r[k + i] = acc;
    }
  }
  return out;
}

// compute_correction_factors_sos's output: per section, 2 rows of m: the zero-input responses of
// y[i] = -a1 y[i-1] - a2 y[i-2] to (y[-2], y[-1]) = (0, 1) and (1, 0).
std::vector<float> HostCorrectionSos(const std::vector<float>& sos) {
  const size_t sections = sos.size() / 6;
  std::vector<float> out(sections * kSosK * kGroupSize);
  for (size_t s = 0; s < sections; ++s) {
    const float a1 = sos[s * 6 + 4], a2 = sos[s * 6 + 5];
    for (int row = 0; row < kSosK; ++row) {
      float y2 = row == 0 ? 0.0f : 1.0f, y1 = row == 0 ? 1.0f : 0.0f;
      for (int i = 0; i < kGroupSize; ++i) {
        const float y = -a1 * y1 - a2 * y2;
        out[(s * kSosK + row) * kGroupSize + i] = y;
        y2 = y1;
        y1 = y;
      }
    }
  }
  return out;
}

// Each group of `group` samples (by default kGroupSize; x.size(): the whole signal, as lfilter
// computes it) filtered from a zero state: y[i] = x[i] + sum_j feedback[j] y[i-1-j].
std::vector<float> HostGroupFilter(const std::vector<float>& x, const std::vector<float>& feedback,
                                   size_t group = kGroupSize) {
  std::vector<float> y(x.size());
  for (size_t g = 0; g < x.size() / group; ++g) {
    for (size_t i = 0; i < group; ++i) {
      float acc = x[g * group + i];
      for (size_t j = 0; j < feedback.size() && j < i; ++j) acc += feedback[j] * y[g * group + i - 1 - j];
      y[g * group + i] = acc;
    }
  }
  return y;
}

// The last k samples of each group, as the first passes write them to `carries`.
std::vector<float> HostCarries(const std::vector<float>& y, size_t k) {
  std::vector<float> carries;
  for (size_t g = 0; g < y.size() / kGroupSize; ++g) {
    for (size_t j = 0; j < k; ++j) carries.push_back(y[g * kGroupSize + kGroupSize - k + j]);
  }
  return carries;
}

// Launches `launch(data, carries)` once, measured, on `data` in place (the first passes filter
// their output buffer, which holds the input) and a poisoned carries buffer, and checks both.
template <typename Launch>
void CheckFirstPass(CaseContext& ctx, const std::vector<float>& x, const std::vector<float>& expected,
                    const std::vector<float>& expected_carries, Launch&& launch) {
  DeviceBuffer<float> d_data(x);
  DeviceBuffer<float> d_carries(expected_carries.size());
  d_carries.Fill(0xFF);
  ctx.Measure([&] { launch(d_data.get(), d_carries.get()); });
  BANKCHECK_CUDA_CHECK(cudaGetLastError());
  ExpectVectorsEqual(d_data.ToHost(), expected, "filtered groups");
  ExpectVectorsEqual(d_carries.ToHost(), expected_carries, "carries");
}

// Launches `launch(data)` once, measured, on `data` in place (correct_carries and second_pass_iir
// add to the carries or samples they are given), and checks it.
template <typename Launch>
void CheckInPlace(CaseContext& ctx, const std::vector<float>& data, const std::vector<float>& expected,
                  const std::string& what, Launch&& launch) {
  DeviceBuffer<float> d_data(data);
  ctx.Measure([&] { launch(d_data.get()); });
  BANKCHECK_CUDA_CHECK(cudaGetLastError());
  ExpectVectorsEqual(d_data.ToHost(), expected, what);
}

void RegisterIirCases() {
  AddCase("cupy_iir/correction_factors/float32/k3_m64",
          "CuPy's compute_correction_factors<float, float> (cupyx.scipy.signal.lfilter): k = 3 feedback "
          "taps, m = 64; k blocks of one thread",
          [](CaseContext& ctx) {
            const std::vector<float> expected = HostCorrection(kA);
#if BANKCHECK_CORPUS_HAS_CUPY
            // The output starts as CuPy's c_[eye(k)[::-1], empty]: the kernel reads the identity part.
            std::vector<float> initial(expected.size(), 0.0f);
            const int k = static_cast<int>(kA.size());
            for (int row = 0; row < k; ++row)
              initial[static_cast<size_t>(row) * (k + kGroupSize) + k - 1 - row] = 1.0f;
            DeviceBuffer<float> d_out(initial);
            DeviceBuffer<float> d_a(kA);
            ctx.Measure([&] {
              compute_correction_factors<float, float><<<k, 1>>>(kGroupSize, k, d_a.get(), d_out.get());
            });
            BANKCHECK_CUDA_CHECK(cudaGetLastError());
            ExpectVectorsEqual(d_out.ToHost(), expected, "correction factors");
#else
            (void)ctx;
            (void)expected;
            GTEST_SKIP() << kCupyMissing;
#endif
          });
  AddCase("cupy_iir/first_pass/float32/k3_m64_n128",
          "CuPy's first_pass_iir<float> (cupyx.scipy.signal.lfilter): k = 3, two groups of m = 64 "
          "samples, one block of 32 threads each",
          [](CaseContext& ctx) {
            const std::vector<float> x = SmallIntegerFloats(kGroups * kGroupSize, 0x11F0u, -8, 8);
            const std::vector<float> expected = HostGroupFilter(x, kA);
            const std::vector<float> expected_carries = HostCarries(expected, kA.size());
#if BANKCHECK_CORPUS_HAS_CUPY
            DeviceBuffer<float> d_factors(HostCorrection(kA));
            const int k = static_cast<int>(kA.size());
            CheckFirstPass(ctx, x, expected, expected_carries, [&](float* d_out, float* d_carries) {
              first_pass_iir<float><<<kGroups, kGroupSize / 2>>>(kGroupSize, k, kGroups * kGroupSize, kGroups,
                                                                 kGroups * k, d_factors.get(), d_out,
                                                                 d_carries);
            });
#else
            (void)ctx;
            GTEST_SKIP() << kCupyMissing;
#endif
          });
  AddCase("cupy_iir/correct_carries/float32/k3_m64_4groups",
          "CuPy's correct_carries<float> (cupyx.scipy.signal.lfilter, no initial state): the carries of 4 "
          "groups of m = 64 samples, each group's corrected by the one before, in turn; one block of k = 3 "
          "threads",
          [](CaseContext& ctx) {
            constexpr int kCarryGroups = 4;
            const std::vector<float> x = SmallIntegerFloats(kCarryGroups * kGroupSize, 0xCA77u, -8, 8);
            const std::vector<float> first_pass = HostCarries(HostGroupFilter(x, kA), kA.size());
            const std::vector<float> expected = HostCarries(HostGroupFilter(x, kA, x.size()), kA.size());
#if BANKCHECK_CORPUS_HAS_CUPY
            DeviceBuffer<float> d_factors(HostCorrection(kA));
            const int k = static_cast<int>(kA.size());
            CheckInPlace(ctx, first_pass, expected, "carries", [&](float* d_carries) {
              correct_carries<float>
                  <<<1, k>>>(kGroupSize, k, kCarryGroups, kCarryGroups * k, 1, d_factors.get(), d_carries);
            });
#else
            (void)ctx;
            (void)first_pass;
            (void)expected;
            GTEST_SKIP() << kCupyMissing;
#endif
          });
  AddCase(
      "cupy_iir/second_pass/float32/k3_m64_n192",
      "CuPy's second_pass_iir<float> (cupyx.scipy.signal.lfilter, no initial state): groups 1 and 2 of 3 "
      "groups of m = 64 samples corrected by the carries of the group before; one block of 64 threads a "
      "group",
      [](CaseContext& ctx) {
        constexpr int kPassGroups = 3;
        const std::vector<float> x = SmallIntegerFloats(kPassGroups * kGroupSize, 0x5EC0u, -8, 8);
        const std::vector<float> grouped = HostGroupFilter(x, kA);
        const std::vector<float> expected = HostGroupFilter(x, kA, x.size());
#if BANKCHECK_CORPUS_HAS_CUPY
        DeviceBuffer<float> d_factors(HostCorrection(kA));
        DeviceBuffer<float> d_carries(HostCarries(expected, kA.size()));  // as correct_carries leaves them
        const int k = static_cast<int>(kA.size());
        CheckInPlace(ctx, grouped, expected, "filtered signal", [&](float* d_out) {
          second_pass_iir<float><<<kPassGroups - 1, kGroupSize>>>(kGroupSize, k, kPassGroups * kGroupSize,
                                                                  kPassGroups * k, kPassGroups - 1, 1,
                                                                  d_factors.get(), d_carries.get(), d_out);
        });
#else
        (void)ctx;
        (void)grouped;
        (void)expected;
        GTEST_SKIP() << kCupyMissing;
#endif
      });
  AddCase("cupy_iir_sos/correction_factors/float32/2sections_m64",
          "CuPy's compute_correction_factors_sos<float, float> (cupyx.scipy.signal.sosfilt): two "
          "sections, m = 64; a block of two threads a section, the states in shared memory",
          [](CaseContext& ctx) {
            const std::vector<float> expected = HostCorrectionSos(kSos);
#if BANKCHECK_CORPUS_HAS_CUPY
            const int sections = static_cast<int>(kSos.size() / 6);
            CheckLaunch(ctx, kSos, expected, "correction factors", [&](const float* d_sos, float* d_out) {
              compute_correction_factors_sos<float, float><<<sections, kSosK>>>(kGroupSize, d_sos, d_out);
            });
#else
            (void)ctx;
            (void)expected;
            GTEST_SKIP() << kCupyMissing;
#endif
          });
  AddCase("cupy_iir_sos/first_pass/float32/m64_n128",
          "CuPy's first_pass_iir_sos<float> (cupyx.scipy.signal.sosfilt): the first section, two groups "
          "of m = 64 samples, one block of 32 threads each, the factors in a shared cache",
          [](CaseContext& ctx) {
            const std::vector<float> x = SmallIntegerFloats(kGroups * kGroupSize, 0x505Fu, -8, 8);
            const std::vector<float> feedback = {-kSos[4], -kSos[5]};
            const std::vector<float> expected = HostGroupFilter(x, feedback);
            const std::vector<float> expected_carries = HostCarries(expected, kSosK);
#if BANKCHECK_CORPUS_HAS_CUPY
            // The first section's factors: 2 rows of m.
            const std::vector<float> all = HostCorrectionSos(kSos);
            DeviceBuffer<float> d_factors(std::vector<float>(all.begin(), all.begin() + kSosK * kGroupSize));
            CheckFirstPass(ctx, x, expected, expected_carries, [&](float* d_out, float* d_carries) {
              first_pass_iir_sos<float><<<kGroups, kGroupSize / 2>>>(
                  kGroupSize, kGroups * kGroupSize, kGroups, d_factors.get(), d_out, d_carries);
            });
#else
            (void)ctx;
            GTEST_SKIP() << kCupyMissing;
#endif
          });
}

}  // namespace
}  // namespace bankcheck::corpus
