// FlashInfer's normalizations (flashinfer/norm.cuh of the flashinfer-python 0.7.4 wheel,
// Apache-2.0; optional: corpus/CMakeLists.txt), on 4 rows:
//   flashinfer_rmsnorm             RMSNormKernel: y = x * rsqrt(mean(x^2) + eps) * w; f32 (d = 512,
//                                  4 floats a thread) and f16 (d = 1024, 8 halves a thread), 4 warps
//                                  a row: a warp shuffle sum, then one warp over the warps' sums in
//                                  shared memory.
//   flashinfer_gemma_rmsnorm       the same kernel with weight_bias 1 (y = ... * (1 + w)), as
//                                  GemmaRMSNorm launches it; bf16, d = 512 (2 warps).
//   flashinfer_fused_add_rmsnorm   FusedAddRMSNormKernel: residual += x, then x = RMSNorm(residual),
//                                  the sums kept in shared memory between the two passes; bf16 and
//                                  f16, d = 1024.
//   flashinfer_layernorm           LayerNorm (its launcher: generalLayerNorm, TensorRT-LLM's block
//                                  reductions): y = (x - mean) * rsqrt(var + eps) * gamma + beta; f32
//                                  and f16 (half2 packed), d = 256, 256 and 128 threads.
// The RMSNorm kernels are launched directly, with the grid, block and dynamic shared memory their
// launchers (RMSNorm, GemmaRMSNorm, FusedAddRMSNorm) compute: the launchers go through
// cudaLaunchKernelEx with cudaLaunchAttributeProgrammaticStreamSerialization (programmatic dependent
// launch, off by default), which the stand-in runtime does not emulate (docs/emulate.md); the kernel
// and its launch are otherwise the same. References in double on the CPU; tolerances in each case.
// Without FlashInfer's headers the same cases register and skip with the reason.

#include "flashinfer_support.h"

#if BANKCHECK_CORPUS_HAS_FLASHINFER
#include <flashinfer/norm.cuh>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace bankcheck::corpus::flashinfer_cases {
namespace {

constexpr uint32_t kRows = 4;

#if BANKCHECK_CORPUS_HAS_FLASHINFER
constexpr float kEps = 1e-5f;

// The RMSNorm launchers' configuration for rows of d elements of T (flashinfer::norm::RMSNorm,
// FusedAddRMSNorm): VEC elements a thread, one row a block of 32 x warps threads, and the dynamic
// shared memory: the warps' sums, and for the fused kernel, 16-byte aligned after them, the row in
// float.
template <typename T>
struct RmsNormLaunch {
  static constexpr uint32_t Vec(uint32_t d) { return std::gcd(static_cast<uint32_t>(16 / sizeof(T)), d); }
  explicit RmsNormLaunch(uint32_t d, bool fused)
      : warps(flashinfer::ceil_div(std::min<uint32_t>(1024, d / Vec(d)), 32u)),
        smem(fused ? (flashinfer::ceil_div(warps, 4u) * 4 + d) * sizeof(float) : warps * sizeof(float)) {}
  uint32_t warps;
  uint32_t smem;
};

// y = x * rsqrt(mean(x^2) + eps) * (bias + w), row by row, in double.
std::vector<double> HostRmsNorm(const std::vector<float>& x, const std::vector<float>& w, uint32_t d,
                                float bias) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / d; ++r) {
    double sum = 0;
    for (uint32_t i = 0; i < d; ++i) sum += double(x[r * d + i]) * x[r * d + i];
    const double scale = 1.0 / std::sqrt(sum / d + kEps);
    for (uint32_t i = 0; i < d; ++i) y[r * d + i] = x[r * d + i] * scale * (bias + double(w[i]));
  }
  return y;
}

// Tolerances of the RMSNorm family: the output's rounding to T (half an ulp, relative), plus 2^-20
// relative for the float computation. The inputs are sixteenths of at most 8 in magnitude, so every
// square is a multiple of 2^-8 under 64 and the sum of squares of a row (d <= 1024) stays an integer
// multiple of 2^-8 under 2^16: exact in float whatever the order of the additions. What remains is
// the division by d and the addition of eps (each half an ulp), rsqrt.approx.ftz (MUFU.RSQ: relative
// error under 2^-22.9) and the two products (half an ulp each): under 2^-21 in all. abs_tol 1e-6 for
// f16 outputs that are subnormal (their rounding is absolute, 2^-25).
template <typename T>
constexpr double RmsRelTol() {
  return HalfUlp<T>() + 0x1p-20;
}
#endif

template <typename T>
void AddRmsNormCase(uint32_t d, bool gemma) {
  const std::string type = TypeName<T>();
  const std::string topic = gemma ? "flashinfer_gemma_rmsnorm/" : "flashinfer_rmsnorm/";
  AddCase(topic + type + "/" + std::to_string(kRows) + "x" + std::to_string(d),
          std::string("flashinfer::norm::RMSNormKernel") +
              (gemma ? " (weight_bias 1, as GemmaRMSNorm)" : "") + " of " + std::to_string(kRows) +
              " rows of " + std::to_string(d) + " " + type + ", a block a row",
          [d, gemma](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER
            const std::vector<float> x = SixteenthsIn(kRows * d, 0x125u + d, -4, 4);
            const std::vector<float> w = SixteenthsIn(d, 0x126u + d, -2, 2);
            const float bias = gemma ? 1.0f : 0.0f;
            const RmsNormLaunch<T> launch(d, false);
            constexpr uint32_t kVecF32 = 4, kVec16 = 8;
            constexpr uint32_t kVec = std::is_same_v<T, float> ? kVecF32 : kVec16;
            if (RmsNormLaunch<T>::Vec(d) != kVec) GTEST_FAIL() << "d " << d << " gives another vector size";
            DeviceBuffer<T> d_w(FromFloats<T>(w));
            DeviceBuffer<T> d_y(x.size());
            DeviceBuffer<T> d_x(FromFloats<T>(x));
            d_y.Fill(0xFF);
            ctx.Measure([&] {
              flashinfer::norm::RMSNormKernel<kVec, T><<<kRows, dim3(32, launch.warps), launch.smem>>>(
                  d_x.get(), d_w.get(), d_y.get(), d, d, d, bias, kEps);
            });
            BANKCHECK_CUDA_CHECK(cudaGetLastError());
            ExpectVectorsNear(ToFloats(d_y.ToHost()), HostRmsNorm(x, w, d, bias), 1e-6, RmsRelTol<T>(), "y");
#else
            (void)ctx;
            (void)d;
            (void)gemma;
            GTEST_SKIP() << kFlashInferMissing;
#endif
          });
}

template <typename T>
void AddFusedAddRmsNormCase(uint32_t d) {
  const std::string type = TypeName<T>();
  AddCase(
      "flashinfer_fused_add_rmsnorm/" + type + "/" + std::to_string(kRows) + "x" + std::to_string(d),
      "flashinfer::norm::FusedAddRMSNormKernel: residual += x, x = RMSNorm(residual), " +
          std::to_string(kRows) + " rows of " + std::to_string(d) + " " + type + ", a block a row",
      [d](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER
        // Sixteenths in [-4, 4]: x + residual is exact in T (at most 7 significant bits), so
        // the residual output compares exactly.
        const std::vector<float> x = SixteenthsIn(kRows * d, 0xFA1u, -4, 4);
        const std::vector<float> residual = SixteenthsIn(kRows * d, 0xFA2u, -4, 4);
        const std::vector<float> w = SixteenthsIn(d, 0xFA3u, -2, 2);
        std::vector<float> sum(x.size());
        for (size_t i = 0; i < x.size(); ++i) sum[i] = x[i] + residual[i];
        const RmsNormLaunch<T> launch(d, true);
        constexpr uint32_t kVec = 8;
        if (RmsNormLaunch<T>::Vec(d) != kVec) GTEST_FAIL() << "d " << d << " gives another vector size";
        DeviceBuffer<T> d_w(FromFloats<T>(w));
        DeviceBuffer<T> d_x(FromFloats<T>(x));
        DeviceBuffer<T> d_residual(FromFloats<T>(residual));
        ctx.Measure([&] {
          flashinfer::norm::FusedAddRMSNormKernel<kVec, T><<<kRows, dim3(32, launch.warps), launch.smem>>>(
              d_x.get(), d_residual.get(), d_w.get(), d, d, d, 0.0f, kEps);
        });
        BANKCHECK_CUDA_CHECK(cudaGetLastError());
        ExpectVectorsEqual(d_residual.ToHost(), FromFloats<T>(sum), "residual");
        ExpectVectorsNear(ToFloats(d_x.ToHost()), HostRmsNorm(sum, w, d, 0.0f), 1e-6, RmsRelTol<T>(), "x");
#else
        (void)ctx;
        (void)d;
        GTEST_SKIP() << kFlashInferMissing;
#endif
      });
}

template <typename T>
void AddLayerNormCase(uint32_t d) {
  const std::string type = TypeName<T>();
  AddCase("flashinfer_layernorm/" + type + "/" + std::to_string(kRows) + "x" + std::to_string(d),
          "flashinfer::norm::LayerNorm (generalLayerNorm) of " + std::to_string(kRows) + " rows of " +
              std::to_string(d) + " " + type + ", a block a row",
          [d](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER
            const std::vector<float> x = SixteenthsIn(kRows * d, 0x1A1u + d, -4, 4);
            const std::vector<float> gamma = SixteenthsIn(d, 0x1A2u, -2, 2);
            const std::vector<float> beta = SixteenthsIn(d, 0x1A3u, -1, 1);
            std::vector<double> expected(x.size());
            for (uint32_t r = 0; r < kRows; ++r) {
              double mean = 0, var = 0;
              for (uint32_t i = 0; i < d; ++i) mean += x[r * d + i];
              mean /= d;
              for (uint32_t i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
              const double scale = 1.0 / std::sqrt(var / d + kEps);
              for (uint32_t i = 0; i < d; ++i)
                expected[r * d + i] = (x[r * d + i] - mean) * scale * gamma[i] + beta[i];
            }
            DeviceBuffer<T> d_gamma(FromFloats<T>(gamma));
            DeviceBuffer<T> d_beta(FromFloats<T>(beta));
            DeviceBuffer<T> d_x(FromFloats<T>(x));
            DeviceBuffer<T> d_y(x.size());
            d_y.Fill(0xFF);
            ctx.Measure([&] {
              BANKCHECK_CUDA_CHECK(flashinfer::norm::LayerNorm(d_x.get(), d_gamma.get(), d_beta.get(),
                                                               d_y.get(), kRows, d, kEps, nullptr));
            });
            BANKCHECK_CUDA_CHECK(cudaGetLastError());
            // The output's rounding (half an ulp of T), plus the float computation: the mean is
            // exact (a sum of sixteenths, divided by 256), so is x - mean (a multiple of 2^-12 under
            // 16), but the squares are rounded (2^-24 each, so 2^-16 relative for their sum in any
            // order), then rsqrtf (MUFU.RSQ, under 2^-22.9) and the products: 2^-14 relative to
            // (x - mean) * scale * gamma, whose magnitude is under 8; the addition of beta may cancel
            // it, so the bound is 2^-14 * 8 = 2^-11 absolute and 2^-14 relative.
            ExpectVectorsNear(ToFloats(d_y.ToHost()), expected, 0x1p-11, HalfUlp<T>() + 0x1p-14, "y");
#else
            (void)ctx;
            (void)d;
            GTEST_SKIP() << kFlashInferMissing;
#endif
          });
}

void RegisterFlashInferNormCases() {
  AddRmsNormCase<float>(512, false);
  AddRmsNormCase<Half>(1024, false);
  AddRmsNormCase<BFloat16>(512, true);
  AddFusedAddRmsNormCase<BFloat16>(1024);
  AddFusedAddRmsNormCase<Half>(1024);
  AddLayerNormCase<float>(256);
  AddLayerNormCase<Half>(256);
}

BANKCHECK_REGISTER_CASES(RegisterFlashInferNormCases);

}  // namespace
}  // namespace bankcheck::corpus::flashinfer_cases
