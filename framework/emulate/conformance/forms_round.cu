// The rounding forms' kernels (forms.h, forms.def), beside forms.cu's.

#include "emulate/conformance/forms_kernel.h"

// Rounding to an integral value (semantics_round.cc): rintf (and powf's), ceilf, floorf, truncf, their
// .ftz forms (-ftz=true) and the doubles'. Each of a, b and c rounded (Inputs::kRound); x = {lo c,
// hi a} and y = {lo c, hi b} (Inputs::kDoubleRound).
#define ROUND(mode)                                                                            \
  asm("cvt." mode ".f32.f32 %0, %3; cvt." mode ".f32.f32 %1, %4; cvt." mode ".f32.f32 %2, %5;" \
      : "=r"(r0), "=r"(r1), "=r"(r2)                                                           \
      : "r"(a), "r"(b), "r"(c))
#define ROUND_DOUBLES(mode)                                                                              \
  asm("{ .reg .f64 x, y; mov.b64 x, {%4, %5}; mov.b64 y, {%4, %6}; cvt." mode ".f64.f64 x, x; cvt." mode \
      ".f64.f64 y, y; mov.b64 {%0, %1}, x; mov.b64 {%2, %3}, y; }"                                       \
      : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)                                                           \
      : "r"(c), "r"(a), "r"(b))
BANKCHECK_FORM(frnd, ROUND("rni"))
BANKCHECK_FORM(frnd_ceil, ROUND("rpi"))
BANKCHECK_FORM(frnd_floor, ROUND("rmi"))
BANKCHECK_FORM(frnd_trunc, ROUND("rzi"))
BANKCHECK_FORM(frnd_ftz, ROUND("rni.ftz"))
BANKCHECK_FORM(frnd_ftz_ceil, ROUND("rpi.ftz"))
BANKCHECK_FORM(frnd_ftz_floor, ROUND("rmi.ftz"))
BANKCHECK_FORM(frnd_ftz_trunc, ROUND("rzi.ftz"))
BANKCHECK_FORM(frnd_f64, ROUND_DOUBLES("rni"))
BANKCHECK_FORM(frnd_f64_ceil, ROUND_DOUBLES("rpi"))
BANKCHECK_FORM(frnd_f64_floor, ROUND_DOUBLES("rmi"))
BANKCHECK_FORM(frnd_f64_trunc, ROUND_DOUBLES("rzi"))
