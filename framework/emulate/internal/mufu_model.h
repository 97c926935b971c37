// MUFU.RCP, MUFU.RSQ and MUFU.SQRT (rcp/rsqrt/sqrt.approx.ftz.f32) as the GPU computes them. Each
// is a function of the input's significand (the square roots: and of its exponent's parity), scaled
// by the exponent: the significand's result is read from a table of the GPU's own outputs over one
// binade (the square roots: two, [1, 4)), and the exponent moves the result's exponent field. The
// tables are measured data (the GPU's outputs, kept as their difference from the correctly rounded
// value, MufuReference); the rule around them, and the special inputs, are proven equal to the GPU on
// all 2^32 inputs by benchmarks/mufu_exhaustive.cu, which runs these same functions.
#pragma once

#include <cmath>
#include <cstdint>

#include "float_bits.h"

namespace bankcheck::emulate::internal {

enum class MufuFunction { kRcp, kRsq, kSqrt };

// The number of entries of a function's table: 2^23 significands of [1, 2) for the reciprocal, 2^24
// of [1, 4) for the square roots (index: the exponent's parity, then the significand).
constexpr uint32_t MufuTableSize(MufuFunction f) { return f == MufuFunction::kRcp ? 1u << 23 : 1u << 24; }

// The input of table entry i: the float of bits 1.0's plus i (the binade, or two, above 1.0).
constexpr uint32_t MufuTableInput(uint32_t i) { return 0x3f800000u + i; }

// The correctly rounded value (through double, deterministic on any IEEE host) that a table entry is
// stored as the difference from: the GPU's output is this plus a few units in the last place.
inline uint32_t MufuReference(MufuFunction f, uint32_t x_bits) {
  const double x = AsFloat(x_bits);
  switch (f) {
    case MufuFunction::kRcp:
      return Bits32(static_cast<float>(1.0 / x));
    case MufuFunction::kRsq:
      return Bits32(static_cast<float>(1.0 / std::sqrt(x)));
    case MufuFunction::kSqrt:
      return Bits32(static_cast<float>(std::sqrt(x)));
  }
  return 0;
}

// The function's output for input bits x; entry(i) gives the GPU's output for MufuTableInput(i).
template <typename Entry>
uint32_t MufuModel(MufuFunction f, uint32_t x, const Entry& entry) {
  constexpr uint32_t kNan = 0x7fffffffu, kInf = 0x7f800000u;
  const uint32_t sign = x & 0x80000000u, exponent = (x >> 23) & 0xffu, significand = x & 0x7fffffu;
  if (exponent == 0xff && significand != 0) return kNan;
  const bool zero = exponent == 0;  // a subnormal input is flushed to zero
  const bool inf = exponent == 0xff;
  switch (f) {
    case MufuFunction::kRcp: {
      if (zero) return sign | kInf;
      if (inf) return sign;
      const uint32_t t = entry(significand);
      const int e = static_cast<int>((t >> 23) & 0xffu) - (static_cast<int>(exponent) - 127);
      if (e <= 0) return sign;  // a subnormal result is flushed to zero
      return sign | (static_cast<uint32_t>(e) << 23) | (t & 0x7fffffu);
    }
    case MufuFunction::kRsq:
    case MufuFunction::kSqrt: {
      const bool rsq = f == MufuFunction::kRsq;
      if (zero) return rsq ? (sign | kInf) : sign;
      if (sign) return kNan;
      if (inf) return rsq ? 0u : kInf;
      const int unbiased = static_cast<int>(exponent) - 127;
      const int half = unbiased >= 0 ? unbiased / 2 : -((1 - unbiased) / 2);  // floor(unbiased / 2)
      const uint32_t odd = static_cast<uint32_t>(unbiased - 2 * half);
      const uint32_t t = entry((odd << 23) | significand);
      const int e = static_cast<int>((t >> 23) & 0xffu) + (rsq ? -half : half);
      return (static_cast<uint32_t>(e) << 23) | (t & 0x7fffffu);
    }
  }
  return kNan;
}

}  // namespace bankcheck::emulate::internal
