// FRND d, a (cvt.rni/rzi/rmi/rpi.f32.f32 and .f64.f64: rintf, truncf, floorf, ceilf and their double
// forms): a rounded to an integral value of its own format, in the direction its modifier names
// (none: to nearest even; .TRUNC, .FLOOR, .CEIL), as IEEE roundToIntegral defines it, done on the bits
// (the host's rounding mode is not the instruction's). .FTZ flushes a subnormal source to the zero of
// its sign first; .F64 reads and writes a register pair. Computed only in the forms the conformance
// vectors check (checked_forms.h), in either pass; any other form, or a modifier not read here, leaves
// every register it writes unknown.

#include <optional>
#include <string_view>
#include <vector>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/float_bits.h"

namespace bankcheck::emulate::internal {
namespace {

// roundToIntegral on the bits of a binary format of `fraction_bits` (23 or 52) stored fraction bits.
template <typename Bits, int fraction_bits>
Bits RoundBits(Bits bits, Rounding rounding) {
  constexpr int kExponentBits = static_cast<int>(sizeof(Bits)) * 8 - 1 - fraction_bits;
  constexpr Bits kSign = Bits{1} << (sizeof(Bits) * 8 - 1);
  constexpr int kBias = (1 << (kExponentBits - 1)) - 1;
  constexpr int kAllOnes = (1 << kExponentBits) - 1;
  constexpr Bits kOne = Bits{kBias} << fraction_bits;  // 1.0
  const int exponent = static_cast<int>((bits >> fraction_bits) & kAllOnes);
  const bool negative = (bits & kSign) != 0;
  if (exponent == kAllOnes) {  // inf unchanged, a NaN quieted (the fraction's top bit set: FRND.F64)
    const bool nan = (bits & ((Bits{1} << fraction_bits) - 1)) != 0;
    return nan ? bits | Bits{1} << (fraction_bits - 1) : bits;
  }
  if (exponent >= kBias + fraction_bits) return bits;  // |a| >= 2^fraction_bits: integral already
  if ((bits & ~kSign) == 0) return bits;               // ±0
  const Bits sign = bits & kSign;
  if (exponent < kBias) {  // 0 < |a| < 1: ±0 or ±1; to nearest, above one half (one half goes to the even 0)
    const bool above_half = exponent == kBias - 1 && (bits & ((Bits{1} << fraction_bits) - 1)) != 0;
    return sign | (RoundsAway(rounding, negative, above_half) ? kOne : 0);
  }
  // 1 <= |a| < 2^fraction_bits: the low `dropped` fraction bits are below one.
  const int dropped = fraction_bits - (exponent - kBias);
  const Bits below = bits & ((Bits{1} << dropped) - 1), half = Bits{1} << (dropped - 1);
  const Bits kept = bits - below;
  if (below == 0) return bits;
  // Away from zero by one unit: a carry into the exponent is the next power of two.
  const bool away =
      RoundsAway(rounding, negative, below > half || (below == half && ((kept >> dropped) & 1) != 0));
  return away ? kept + (Bits{1} << dropped) : kept;
}

}  // namespace

uint32_t RoundToIntegral32(uint32_t bits, Rounding rounding, bool ftz) {
  // As every fp32 result of the GPU's (form_frnd's vectors): a NaN in gives the canonical NaN.
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fffffffu;
  if (ftz && (bits & 0x7f800000u) == 0) bits &= 0x80000000u;
  return RoundBits<uint32_t, 23>(bits, rounding);
}

uint64_t RoundToIntegral64(uint64_t bits, Rounding rounding) {
  return RoundBits<uint64_t, 52>(bits, rounding);
}

void LaunchEvaluator::RoundToIntegral(const Instruction& in, size_t index, uint32_t mask) {
  const bool wide = in.Is(mod::kF64);
  static constexpr std::string_view kRead[] = {"F64", "FTZ", "TRUNC", "FLOOR", "CEIL"};
  // A NaN read through - or |x|: its sign in the result is not measured.
  const bool modified = in.operands.size() > 1 && (in.operands[1].negate || in.operands[1].absolute);
  const bool computed = !in.unchecked_form && OnlyModifiers(in, kRead) && !(wide && in.Is(mod::kFtz));
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    const std::vector<Operand>& ops = in.operands;
    if (!computed) return out.AddUnknown(in, 1, wide ? 2 : 1, Origin(index));
    if (wide) {
      Value a;
      const std::optional<double> x = WideSource(ops.at(1), lane, index, &a);
      const uint64_t bits = x ? Bits64(*x) : 0;
      if (!x || (modified && (bits & ~(uint64_t{1} << 63)) > 0x7ff0000000000000ull))
        return out.AddUnknown(in, 1, 2, Origin(index));
      out.AddPair(ops[0], RoundToIntegral64(bits, in.decoded.rounding), From(0, a));
      return;
    }
    const Value a = FloatSource(ops.at(1), lane, index);
    if (modified && a.known() && (a.bits & 0x7fffffffu) > 0x7f800000u)
      return out.AddUnknown(in, 1, 1, Origin(index));
    out.Add(ops[0], From(RoundToIntegral32(a.bits, in.decoded.rounding, in.Is(mod::kFtz)), a));
  });
}

}  // namespace bankcheck::emulate::internal
