// The tensor-core forms' inputs (mma_inputs.h): two A tiles (16 rows by k), two B tiles (k by 8) and
// three C tiles (16 by 8), each element placed in its lane's fragment register as mma.sync's maps say
// (emulate/internal/tensor_core.h), so that rows, columns and c values can be designed together:
//   A tile 0, by row: near 1; wide exponents; one large element among small ones (shifts around the
//     25 kept bits); subnormals; equal pairs; a NaN; +inf; +inf and -inf; inf where B has zeros;
//     signed zeros; the largest values; random bits. A tile 1: near 1, wide, subnormal, alternating
//     signs, random bits.
//   B tile 0, by column: ones; +1, -1 alternating (cancels A's pairs); near 1; powers of two spread;
//     zeros among near 1; minus ones; subnormals; random bits. B tile 1: near 1, wide, ones, twos.
//   C tiles: the negated dot of the A and B tiles a warp multiplies (near-total cancellation), its
//     neighbour, ±0, near 1, large, NaN, ±inf, subnormals, ±FLT_MAX, random bits.
#include "emulate/conformance/mma_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "emulate/conformance/random.h"
#include "emulate/internal/tensor_core.h"

namespace bankcheck::conformance {
namespace {

using emulate::internal::FragmentSlot;
using emulate::internal::MmaASlot;
using emulate::internal::MmaBSlot;
using emulate::internal::MmaCSlot;
using emulate::internal::MmaElement;

// A binary format: exponent and fraction bits.
struct Format {
  int exponent_bits, fraction_bits;
  int Bias() const { return (1 << (exponent_bits - 1)) - 1; }
  uint32_t Bits(bool negative, int biased, uint32_t fraction) const {
    return (negative ? 1u : 0u) << (exponent_bits + fraction_bits) |
           static_cast<uint32_t>(biased) << fraction_bits | (fraction & ((1u << fraction_bits) - 1));
  }
  double Value(uint32_t bits) const {
    const int biased = static_cast<int>(bits >> fraction_bits & ((1u << exponent_bits) - 1));
    const double fraction = static_cast<double>(bits & ((1u << fraction_bits) - 1));
    const double magnitude =
        biased == 0 ? std::ldexp(fraction, 1 - Bias() - fraction_bits)
                    : std::ldexp(fraction + std::ldexp(1.0, fraction_bits), biased - Bias() - fraction_bits);
    return (bits >> (exponent_bits + fraction_bits) & 1u) ? -magnitude : magnitude;
  }
  bool Finite(uint32_t bits) const {
    return (bits >> fraction_bits & ((1u << exponent_bits) - 1)) != (1u << exponent_bits) - 1;
  }
  // v (finite) toward zero, its exponent clamped to the normal range.
  uint32_t Of(double v) const {
    if (v == 0) return 0;
    int exponent = 0;
    const double m = std::frexp(std::fabs(v), &exponent);  // v = m * 2^exponent, m in [0.5, 1)
    const int biased = std::min(std::max(exponent - 1 + Bias(), 1), 2 * Bias());
    const auto fraction = static_cast<uint32_t>(std::ldexp(m * 2 - 1, fraction_bits));
    return Bits(v < 0, biased, fraction);
  }
};

class Drawer {
 public:
  Drawer(Format format, uint64_t& state) : f_(format), state_(state) {}
  uint64_t Random() { return Next(state_); }
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(Random() % n); }
  // A random sign and fraction, the exponent uniform in [low, high] (unbiased, clamped to normals).
  uint32_t Near(int low, int high) {
    const int exponent = low + static_cast<int>(Below(static_cast<uint32_t>(high - low + 1)));
    const int biased = std::min(std::max(exponent + f_.Bias(), 1), 2 * f_.Bias());
    return f_.Bits(Random() & 1u, biased, static_cast<uint32_t>(Random()));
  }
  uint32_t Wide() { return f_.exponent_bits == 5 ? Near(-14, 15) : Near(-40, 40); }
  uint32_t Subnormal() { return f_.Bits(Random() & 1u, 0, static_cast<uint32_t>(Random()) | 1u); }
  uint32_t Nan() { return f_.Bits(Random() & 1u, 2 * f_.Bias() + 1, static_cast<uint32_t>(Random()) | 1u); }
  uint32_t Inf(bool negative) { return f_.Bits(negative, 2 * f_.Bias() + 1, 0); }
  uint32_t One(bool negative) { return f_.Bits(negative, f_.Bias(), 0); }
  uint32_t SignBit() const { return 1u << (f_.exponent_bits + f_.fraction_bits); }
  uint32_t Largest() { return f_.Bits(Random() & 1u, 2 * f_.Bias(), ~0u); }
  uint32_t Bits() {
    return static_cast<uint32_t>(Random()) & ((2u << (f_.exponent_bits + f_.fraction_bits)) - 1);
  }

 private:
  Format f_;
  uint64_t& state_;
};

// Row r of A tile `tile` (k elements).
void DrawARow(Drawer& d, uint32_t tile, uint32_t r, uint32_t k, uint32_t* row) {
  const uint32_t at = d.Below(k), other = (at + 1 + d.Below(k - 1)) % k;
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t& x = row[i];
    if (tile == 1) {
      x = r == 3 ? d.Subnormal() : r == 15 ? d.Bits() : r % 2 ? d.Wide() : d.Near(-3, 3);
      if (r == 7) x = (i % 2 ? d.SignBit() : 0u) ^ row[0];  // one magnitude, alternating signs
      continue;
    }
    switch (r) {
      case 4:
      case 5:
        x = d.Wide();
        break;
      case 6:  // one large among small ones: shifts of 22 to 32 bits
        x = i == at ? d.Near(10, 15) : d.Near(-14, -12);
        break;
      case 7:
        x = i % 2 ? d.Subnormal() : d.Near(-14, -10);
        break;
      case 8:  // equal pairs
        x = i % 2 ? row[i - 1] : d.Near(-2, 2);
        break;
      case 13:
        x = 0;
        break;
      case 14:
        x = d.Largest();
        break;
      case 15:
        x = d.Bits();
        break;
      default:
        x = d.Near(-2, 2);
    }
    if (r == 9 && i == at) x = d.Nan();
    if ((r == 10 || r == 11) && i == at) x = d.Inf(false);
    if (r == 11 && i == other) x = d.Inf(true);
    if (r == 12 && i == at - at % 2) x = d.Inf(d.Random() & 1u);
  }
}

// Column c of B tile `tile` (k elements).
void DrawBColumn(Drawer& d, uint32_t tile, uint32_t c, uint32_t k, uint32_t* col) {
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t& x = col[i];
    if (tile == 1) {
      x = c == 1 || c == 5 ? d.Wide() : c == 2 ? d.One(false) : c == 4 ? d.One(false) + 1 : d.Near(-3, 3);
      continue;
    }
    switch (c) {
      case 0:
        x = d.One(false);
        break;
      case 1:
        x = d.One(i % 2 != 0);
        break;
      case 3:  // ±2^(i - k/2)
        x = d.One(d.Random() & 1u);
        break;
      case 4:
        x = i % 2 ? d.Near(-2, 2) : 0;
        break;
      case 5:
        x = d.One(true);
        break;
      case 6:
        x = i % 2 ? d.Near(-14, -12) : d.Subnormal();
        break;
      case 7:
        x = d.Bits();
        break;
      default:
        x = d.Near(-2, 2);
    }
  }
}

}  // namespace

void DrawMmaTiles(Inputs kind, uint64_t& state, uint32_t* words) {
  const MmaElement type = kind == Inputs::kMmaBf16   ? MmaElement::kBf16
                          : kind == Inputs::kMmaTf32 ? MmaElement::kTf32
                                                     : MmaElement::kF16;
  const Format element = type == MmaElement::kBf16   ? Format{8, 7}
                         : type == MmaElement::kTf32 ? Format{8, 23}
                                                     : Format{5, 10};
  const bool f16_c = kind == Inputs::kMmaF16Accumulator;
  const Format accumulator = f16_c ? Format{5, 10} : Format{8, 23};
  const uint32_t k = emulate::internal::MmaK(type);
  Drawer d(element, state), dc(accumulator, state);
  for (uint32_t i = 0; i < kThreads * kInputs; ++i) words[i] = static_cast<uint32_t>(Next(state));
  uint32_t a[2][16][16] = {}, b[2][8][16] = {};
  const auto put = [&](uint32_t base, const FragmentSlot& s, uint32_t regs, uint32_t bits) {
    uint32_t& word = words[base + regs * s.lane + s.reg];
    if (type == MmaElement::kTf32) {
      word = bits;
      return;
    }
    word = (word & ~(0xffffu << (16 * s.half))) | (bits & 0xffffu) << (16 * s.half);
  };
  for (uint32_t tile = 0; tile < 2; ++tile) {
    for (uint32_t r = 0; r < 16; ++r) {
      DrawARow(d, tile, r, k, a[tile][r]);
      for (uint32_t i = 0; i < k; ++i) put(tile * 128, MmaASlot(type, r, i), 4, a[tile][r][i]);
    }
    for (uint32_t c = 0; c < 8; ++c) {
      DrawBColumn(d, tile, c, k, b[tile][c]);
      if (tile == 0 && c == 3)  // powers of two spread over the exponents
        for (uint32_t i = 0; i < k; ++i)
          b[0][3][i] = element.Of(std::ldexp(element.Value(b[0][3][i]), static_cast<int>(2 * i) - 12));
      for (uint32_t i = 0; i < k; ++i) put(256 + tile * 64, MmaBSlot(type, i, c), 2, b[tile][c][i]);
    }
  }
  // The exact dot of A tile `ta`'s row and B tile `tb`'s column (0 where it is not finite).
  const auto dot = [&](uint32_t ta, uint32_t tb, uint32_t r, uint32_t c) {
    double sum = 0;
    for (uint32_t i = 0; i < k; ++i) {
      if (!element.Finite(a[ta][r][i]) || !element.Finite(b[tb][c][i])) return 0.0;
      sum += element.Value(a[ta][r][i]) * element.Value(b[tb][c][i]);
    }
    return sum;
  };
  for (uint32_t tile = 0; tile < 3; ++tile) {
    for (uint32_t r = 0; r < 16; ++r) {
      for (uint32_t c = 0; c < 8; ++c) {
        uint32_t x = dc.Near(-4, 4);
        const bool nudge = c % 2 == 1;  // the cancelling value's neighbour
        if (tile == 0 && c < 3) x = accumulator.Of(-dot(0, 0, r, c)) + (nudge ? 1 : 0);
        if (tile == 1 && c < 4) x = accumulator.Of(-dot(1, 0, r, c)) + (nudge ? 1 : 0);
        if (tile == 2 && c < 2) x = accumulator.Of(-dot(0, 1, r, c)) + (nudge ? 1 : 0);
        if (tile == 0 && c == 3) x = 0;
        if (tile == 0 && c == 4) x = f16_c ? 0x8000u : 0x80000000u;
        if (tile == 0 && c == 6) x = f16_c ? dc.Near(8, 12) : dc.Near(20, 30);
        if (tile == 2 && (c == 2 || c == 3)) x = dc.Subnormal();
        if (tile == 2 && c >= 4 && r % 2 == 0) x = dc.Bits();
        if (tile == 0 && c == 7) {
          const uint32_t kSpecials[] = {dc.Nan(),
                                        dc.Inf(false),
                                        dc.Inf(true),
                                        dc.Subnormal(),
                                        dc.Largest(),
                                        dc.Largest(),
                                        dc.One(false) - (f16_c ? 0x3800u : 0x3f000000u),
                                        dc.Near(-30, -20)};
          x = kSpecials[r % 8];
        }
        put(384 + tile * 128, MmaCSlot(f16_c, r, c), 4, x);
      }
    }
  }
}

}  // namespace bankcheck::conformance
