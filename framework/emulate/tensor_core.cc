// The Hopper tensor core's dot product (internal/tensor_core.h): the one place its arithmetic is
// written. The model is the published one (Khattak & Mikaitis, "Accurate Models of NVIDIA Tensor
// Cores", arXiv 2512.07004; MMA-Sim, arXiv 2511.10909), and the conformance vectors of every HMMA
// form the output pass computes check it on the GPU (conformance/forms.cu, vectors.txt).
#include "emulate/internal/tensor_core.h"

#include <cstdint>

namespace bankcheck::emulate::internal {
namespace {

// The bits each term keeps below the largest exponent of the group (Hopper: 25).
constexpr int kKeptBits = 25;

// A finite binary floating-point value m * 2^(e - fraction_bits), m holding the hidden bit of a
// normal (e its exponent) or none of a subnormal (e the format's least normal exponent): the
// exponent the tensor core aligns on.
struct Term {
  bool negative = false;
  uint64_t m = 0;
  int e = 0;
  int fraction_bits = 0;
  bool nan = false, inf = false;
};

Term Decode(uint32_t bits, int exponent_bits, int fraction_bits) {
  const uint32_t exponent_mask = (1u << exponent_bits) - 1, fraction_mask = (1u << fraction_bits) - 1;
  const int bias = static_cast<int>(exponent_mask >> 1);
  const uint32_t exponent = bits >> fraction_bits & exponent_mask, fraction = bits & fraction_mask;
  Term term;
  term.negative = (bits >> (exponent_bits + fraction_bits) & 1u) != 0;
  term.fraction_bits = fraction_bits;
  if (exponent == exponent_mask) {
    term.nan = fraction != 0;
    term.inf = fraction == 0;
    return term;
  }
  term.m = exponent == 0 ? fraction : (fraction | 1u << fraction_bits);
  term.e = exponent == 0 ? 1 - bias : static_cast<int>(exponent) - bias;
  return term;
}

Term Element(MmaElement type, uint32_t bits) {
  switch (type) {
    case MmaElement::kF16:
      return Decode(bits & 0xffffu, 5, 10);
    case MmaElement::kBf16:
      return Decode(bits & 0xffffu, 8, 7);
    default:  // tf32: the f32's sign, exponent and 10 high fraction bits
      return Decode(bits >> 13, 8, 10);
  }
}

// The exact product: a NaN of a NaN or of inf * 0, an infinity of an infinity.
Term Product(const Term& x, const Term& y) {
  Term p;
  p.negative = x.negative != y.negative;
  p.nan = x.nan || y.nan || (x.inf && !y.inf && y.m == 0) || (y.inf && !x.inf && x.m == 0);
  p.inf = !p.nan && (x.inf || y.inf);
  p.m = x.m * y.m;
  p.e = x.e + y.e;
  p.fraction_bits = x.fraction_bits + y.fraction_bits;
  return p;
}

// `magnitude` / 2^drop rounded to nearest, ties to even.
uint64_t RoundHalfEven(uint64_t magnitude, int drop) {
  if (drop <= 0) return magnitude << -drop;
  if (drop >= 64) return 0;
  const uint64_t quotient = magnitude >> drop, rest = magnitude & ((uint64_t{1} << drop) - 1);
  const uint64_t half = uint64_t{1} << (drop - 1);
  return quotient + ((rest > half || (rest == half && (quotient & 1u))) ? 1 : 0);
}

// magnitude * 2^scale (magnitude > 0) toward zero to f32: an infinity beyond the largest exponent.
uint32_t TowardZeroF32(bool negative, uint64_t magnitude, int scale) {
  const uint32_t sign = negative ? 0x80000000u : 0u;
  const int top = 63 - __builtin_clzll(magnitude), exponent = top + scale;
  if (exponent > 127) return sign | 0x7f800000u;
  if (exponent < -126) {  // a subnormal: units of 2^-149
    const int shift = scale + 149;
    return sign | static_cast<uint32_t>(shift >= 0 ? magnitude << shift : magnitude >> -shift);
  }
  const uint64_t kept = top >= 23 ? magnitude >> (top - 23) : magnitude << (23 - top);
  return sign | static_cast<uint32_t>(exponent + 127) << 23 | (static_cast<uint32_t>(kept) & 0x7fffffu);
}

// magnitude * 2^scale (magnitude > 0) to nearest even f16.
uint32_t NearestF16(bool negative, uint64_t magnitude, int scale) {
  const uint32_t sign = negative ? 0x8000u : 0u;
  const int top = 63 - __builtin_clzll(magnitude);
  int exponent = top + scale;
  if (exponent < -14)  // a subnormal: units of 2^-24 (rounding up to 0x0400 is the least normal)
    return sign | static_cast<uint32_t>(RoundHalfEven(magnitude, -(scale + 24)));
  uint64_t kept = RoundHalfEven(magnitude, top - 10);
  if (kept >> 11) {
    kept >>= 1;
    ++exponent;
  }
  if (exponent > 15) return sign | 0x7c00u;
  return sign | static_cast<uint32_t>(exponent + 15) << 10 | (static_cast<uint32_t>(kept) & 0x3ffu);
}

}  // namespace

uint32_t TensorCoreDot(MmaElement type, const uint32_t* a, const uint32_t* b, uint32_t k, uint32_t c,
                       bool f16_output) {
  Term terms[33];
  uint32_t count = 0;
  for (uint32_t i = 0; i < k && i < 32; ++i)
    terms[count++] = Product(Element(type, a[i]), Element(type, b[i]));
  terms[count++] = f16_output ? Decode(c & 0xffffu, 5, 10) : Decode(c, 8, 23);
  bool nan = false, positive_inf = false, negative_inf = false, any = false;
  int largest = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const Term& t = terms[i];
    nan = nan || t.nan;
    positive_inf = positive_inf || (t.inf && !t.negative);
    negative_inf = negative_inf || (t.inf && t.negative);
    if (t.nan || t.inf || t.m == 0) continue;
    largest = any && largest > t.e ? largest : t.e;
    any = true;
  }
  if (nan || (positive_inf && negative_inf)) return f16_output ? 0x7fffu : 0x7fffffffu;
  if (positive_inf || negative_inf)
    return f16_output ? (negative_inf ? 0xfc00u : 0x7c00u) : (negative_inf ? 0xff800000u : 0x7f800000u);
  // Each term in units of 2^(largest - kKeptBits), its magnitude truncated, then summed exactly.
  int64_t sum = 0;
  for (uint32_t i = 0; any && i < count; ++i) {
    const Term& t = terms[i];
    const int shift = t.fraction_bits + largest - t.e;
    const uint64_t units = shift >= 64 ? 0 : (t.m << kKeptBits) >> shift;
    sum += t.negative ? -static_cast<int64_t>(units) : static_cast<int64_t>(units);
  }
  if (sum == 0) return 0;
  const bool negative = sum < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(sum) : static_cast<uint64_t>(sum);
  const int scale = largest - kKeptBits;
  return f16_output ? NearestF16(negative, magnitude, scale) : TowardZeroF32(negative, magnitude, scale);
}

}  // namespace bankcheck::emulate::internal
