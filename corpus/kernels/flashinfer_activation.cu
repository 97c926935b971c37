// FlashInfer's gated activations (flashinfer/activation.cuh of the flashinfer-python 0.7.4 wheel,
// Apache-2.0; optional: corpus/CMakeLists.txt): act_and_mul_kernel, out = act(x) * y for each row
// [x, y] of 2d elements, a block a row (4 rows), d / vec threads of vec = 16 bytes of elements:
//   flashinfer_silu_and_mul       act = silu, f16, d = 1024 (128 threads);
//   flashinfer_gelu_tanh_and_mul  act = the tanh approximation of gelu, bf16, d = 1024;
//   flashinfer_gelu_and_mul       act = gelu (erf), f32, d = 512 (128 threads).
// The activations are the kernel's template argument; the wheel's headers have none (its
// csrc/activation.cu defines them, compiled when Python asks), so they are written below as that
// file writes them: silu with __expf, gelu with erf, gelu_tanh with math::tanh (tanh.approx.f32). The
// launch is that file's: a block of min(d / vec, 1024) threads a row. References in double on the
// CPU; tolerances in each case. Without FlashInfer's headers the same cases register and skip.

#include "flashinfer_support.h"

#if BANKCHECK_CORPUS_HAS_FLASHINFER
#include <flashinfer/activation.cuh>
#endif

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::corpus::flashinfer_cases {
namespace {

constexpr uint32_t kRows = 4;

enum class Act { kSilu, kGeluTanh, kGelu };

#if BANKCHECK_CORPUS_HAS_FLASHINFER
__device__ __forceinline__ float Silu(const float& x) { return x / (1.0f + __expf(-x)); }
__device__ __forceinline__ float Gelu(const float& x) {
  return x * 0.5f * (1.0f + ::erff(x * 0.70710678118654752f));
}
__device__ __forceinline__ float GeluTanh(const float& x) {
  const float cdf = 0.5f * (1.0f + flashinfer::math::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  return x * cdf;
}

double HostAct(Act act, double x) {
  switch (act) {
    case Act::kSilu:
      return x / (1.0 + std::exp(-x));
    case Act::kGelu:
      return x * 0.5 * (1.0 + std::erf(x / std::sqrt(2.0)));
    default:
      return x * 0.5 * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  }
}

template <typename T, Act kAct>
void LaunchActAndMul(T* out, const T* in, uint32_t d) {
  constexpr uint32_t kVec = 16 / sizeof(T);
  const dim3 block(std::min(d / kVec, 1024u));
  if constexpr (kAct == Act::kSilu)
    flashinfer::activation::act_and_mul_kernel<T, Silu, kVec><<<kRows, block>>>(out, in, int(d));
  if constexpr (kAct == Act::kGelu)
    flashinfer::activation::act_and_mul_kernel<T, Gelu, kVec><<<kRows, block>>>(out, in, int(d));
  if constexpr (kAct == Act::kGeluTanh)
    flashinfer::activation::act_and_mul_kernel<T, GeluTanh, kVec><<<kRows, block>>>(out, in, int(d));
}
#endif

const char* ActName(Act act) {
  switch (act) {
    case Act::kSilu:
      return "silu_and_mul";
    case Act::kGelu:
      return "gelu_and_mul";
    default:
      return "gelu_tanh_and_mul";
  }
}

#if BANKCHECK_CORPUS_HAS_FLASHINFER
// Tolerances: act(x) * y with |x|, |y| <= 4, rounded to T (half an ulp, relative), plus the float
// activation's error relative to |x * y| (<= 16): silu's __expf (ex2.approx after a product:
// relative error of exp(-x) about 2^-21 times |x| <= 4, so 2^-19 of the sigmoid) and division; gelu's
// erff (2 ulp); gelu_tanh's tanh.approx.f32 (absolute error under 2^-10.9 of tanh, so 2^-11.9 of
// the cdf). Absolute bounds: 16 * 2^-18 = 2^-14 for silu and gelu, 16 * 2^-11.9 ~ 2^-7.9 for
// gelu_tanh (0.005), besides HalfUlp<T> relative.
double AbsTol(Act act) { return act == Act::kGeluTanh ? 0.005 : 0x1p-14; }
#endif

template <typename T, Act kAct>
void AddActCase(uint32_t d) {
  const std::string type = TypeName<T>();
  AddCase(std::string("flashinfer_") + ActName(kAct) + "/" + type + "/" + std::to_string(kRows) + "x" +
              std::to_string(d),
          std::string("flashinfer::activation::act_and_mul_kernel (") + ActName(kAct) + ") of " +
              std::to_string(kRows) + " rows of 2x" + std::to_string(d) + " " + type + ", a block a row",
          [d](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER
            const std::vector<float> in = SixteenthsIn(kRows * 2 * d, 0xAC7u + d + uint32_t(kAct), -4, 4);
            std::vector<double> expected(kRows * d);
            for (uint32_t r = 0; r < kRows; ++r)
              for (uint32_t i = 0; i < d; ++i)
                expected[r * d + i] = HostAct(kAct, in[r * 2 * d + i]) * in[r * 2 * d + d + i];
            DeviceBuffer<T> d_in(FromFloats<T>(in));
            DeviceBuffer<T> d_out(kRows * d);
            d_out.Fill(0xFF);
            ctx.Measure([&] { LaunchActAndMul<T, kAct>(d_out.get(), d_in.get(), d); });
            BANKCHECK_CUDA_CHECK(cudaGetLastError());
            ExpectVectorsNear(ToFloats(d_out.ToHost()), expected, AbsTol(kAct), HalfUlp<T>(), "out");
#else
            (void)ctx;
            (void)d;
            GTEST_SKIP() << kFlashInferMissing;
#endif
          });
}

void RegisterFlashInferActivationCases() {
  AddActCase<Half, Act::kSilu>(1024);
  AddActCase<BFloat16, Act::kGeluTanh>(1024);
  AddActCase<float, Act::kGelu>(512);
}

BANKCHECK_REGISTER_CASES(RegisterFlashInferActivationCases);

}  // namespace
}  // namespace bankcheck::corpus::flashinfer_cases
