// The tensor-core forms' kernels (forms.h, forms.def): apart from forms.cu, whose kernels read one
// thread's inputs each.

#include <cuda_runtime_api.h>

#include "emulate/conformance/forms.h"

// Tensor-core multiplies (HMMA, semantics_mma.cc), one mma.sync per warp on the whole launch's inputs
// (Inputs::kMma*, laid out by mma_inputs.cc): warp w reads A tile w % 2 (words 0-255), B tile w / 2 % 2
// (256-383) and C tile w % 3 (384-767), each lane its fragment registers, 4 words of A, 2 of B, 4 of
// C (2 for f16 accumulators), and writes its D fragment. C_ZERO: c is 0, so that ptxas reads RZ.
template <int kCWords>
__device__ __forceinline__ void MmaTiles(const uint32_t* in, uint32_t (&a)[4], uint32_t (&b)[2],
                                         uint32_t (&c)[kCWords]) {
  const uint32_t w = threadIdx.x / 32, l = threadIdx.x % 32;
  for (uint32_t j = 0; j < 4; ++j) a[j] = __ldg(in + w % 2 * 128 + 4 * l + j);
  for (uint32_t j = 0; j < 2; ++j) b[j] = __ldg(in + 256 + w / 2 % 2 * 64 + 2 * l + j);
  for (uint32_t j = 0; j < kCWords; ++j) c[j] = __ldg(in + 384 + w % 3 * 128 + 4 * l + j);
}
#define BANKCHECK_MMA_FORM(name, shape, ...)                                                            \
  extern "C" __global__ void form_##name(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) { \
    uint32_t a[4], b[2], c[4];                                                                          \
    float d[4];                                                                                         \
    MmaTiles(in, a, b, c);                                                                              \
    asm volatile("mma.sync.aligned." shape                                                              \
                 " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "                                      \
                 "{%10, %11, %12, %13};"                                                                \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                       \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), __VA_ARGS__);      \
    for (uint32_t j = 0; j < 4; ++j) out[4 * threadIdx.x + j] = __float_as_uint(d[j]);                  \
  }
#define C_TILE                                                                        \
  "f"(__uint_as_float(c[0])), "f"(__uint_as_float(c[1])), "f"(__uint_as_float(c[2])), \
      "f"(__uint_as_float(c[3]))
#define C_ZERO "f"(0.0f), "f"(0.0f), "f"(0.0f), "f"(0.0f)
BANKCHECK_MMA_FORM(hmma_16816_f32, "m16n8k16.row.col.f32.f16.f16.f32", C_TILE)
BANKCHECK_MMA_FORM(hmma_16816_f32_zero, "m16n8k16.row.col.f32.f16.f16.f32", C_ZERO)
BANKCHECK_MMA_FORM(hmma_16816_f32_bf16, "m16n8k16.row.col.f32.bf16.bf16.f32", C_TILE)
BANKCHECK_MMA_FORM(hmma_1688_f32_tf32, "m16n8k8.row.col.f32.tf32.tf32.f32", C_TILE)
extern "C" __global__ void form_hmma_16816_f16(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  uint32_t a[4], b[2], c[2], d[2];
  MmaTiles(in, a, b, c);
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
  for (uint32_t j = 0; j < 2; ++j) out[4 * threadIdx.x + j] = d[j];
}
