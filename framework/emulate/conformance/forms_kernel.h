// The macros of the one-thread forms' kernels (forms.h): BANKCHECK_FORM(name, body) is kernel
// form_<name>, each thread reading its three input words a, b, c and writing r0 to r3. Shared by
// forms.cu and forms_round.cu.
#pragma once

#include <cuda_runtime_api.h>

#include "emulate/conformance/forms.h"

#define BANKCHECK_FORM(name, ...)                                                                       \
  extern "C" __global__ void form_##name(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) { \
    const uint32_t t = threadIdx.x;                                                                     \
    const uint32_t a = __ldg(in + 3 * t), b = __ldg(in + 3 * t + 1), c = __ldg(in + 3 * t + 2);         \
    uint32_t r0 = 0, r1 = 0, r2 = 0, r3 = 0;                                                            \
    __VA_ARGS__;                                                                                        \
    out[4 * t] = r0;                                                                                    \
    out[4 * t + 1] = r1;                                                                                \
    out[4 * t + 2] = r2;                                                                                \
    out[4 * t + 3] = r3;                                                                                \
  }

#define ASM1(text) asm(text : "=r"(r0) : "r"(a), "r"(b), "r"(c))
// A predicate result as 0 or 1 in r0.
#define ASMP(text) \
  asm("{ .reg .pred p; " text "; selp.u32 %0, 1, 0, p; }" : "=r"(r0) : "r"(a), "r"(b), "r"(c))
