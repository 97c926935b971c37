// Other precisions, each computed only in the forms its conformance vectors check (checked_forms.h;
// an instruction of another form writes unknowns, in either pass): F2F between f32 and f64 (exact,
// or rounded to nearest even; a NaN keeps its payload), F2FP's packs of two f32 into bf16x2 or
// f16x2 (rounded to nearest even, a NaN the canonical 0x7fff), DSETP; DADD, DMUL and DFMA as IEEE
// binary64 rounded to nearest, which the host computes, with the GPU's NaNs (DoubleResult).

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/float_bits.h"

namespace bankcheck::emulate::internal {
namespace {

constexpr uint16_t kCanonicalNan16 = 0x7fffu;

bool IsNan32(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }
bool IsNan64(uint64_t bits) { return (bits & ~(uint64_t{1} << 63)) > 0x7ff0000000000000ull; }

// DADD a, b, DMUL a, b and DFMA a, b, c as the GPU's vectors show them: a NaN operand is returned
// quieted (sign and payload kept), the first of b, c, a that is one (b before a whichever of them
// signals); an invalid operation of numbers (inf - inf, 0 * inf) gives 0xfff8000000000000, not the
// host's NaN.
uint64_t DoubleResult(const std::string& base, double a, double b, double c) {
  constexpr uint64_t kQuiet = uint64_t{1} << 51;
  for (const double operand : {b, c, a}) {
    if (IsNan64(Bits64(operand))) return Bits64(operand) | kQuiet;
  }
  const double result = base == "DADD" ? a + b : base == "DMUL" ? a * b : std::fma(a, b, c);
  return std::isnan(result) ? 0xfff8000000000000ull : Bits64(result);
}

// Whether a NaN is read through - or |x|: no vector says which sign the GPU then returns.
bool ModifiedNan(const Instruction& in, std::initializer_list<double> sources) {
  size_t operand = 1;
  for (const double source : sources) {
    if (operand < in.operands.size() && (in.operands[operand].negate || in.operands[operand].absolute) &&
        IsNan64(Bits64(source))) {
      return true;
    }
    ++operand;
  }
  return false;
}

// F2F of a NaN keeps its sign and payload (shifted to the other width) and sets the quiet bit, as the
// vectors show: 0x7fc12345 becomes 0x7ff82468a0000000 and back.
uint64_t WidenedNan(uint32_t bits) {
  return uint64_t{bits >> 31} << 63 | 0x7ff8000000000000ull | uint64_t{bits & 0x7fffffu} << 29;
}
uint32_t NarrowedNan(uint64_t bits) {
  return static_cast<uint32_t>(bits >> 63) << 31 | 0x7fc00000u |
         static_cast<uint32_t>((bits >> 29) & 0x7fffffu);
}

// f32 to bf16, to nearest even: the high half, rounded by what is below it.
uint16_t ToBf16(uint32_t bits) {
  if (IsNan32(bits)) return kCanonicalNan16;
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// `magnitude` >> shift, rounded to nearest even.
uint32_t ShiftRoundedEven(uint32_t magnitude, uint32_t shift) {
  const uint32_t kept = magnitude >> shift, rest = magnitude & ((1u << shift) - 1), half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

// f32 to f16, to nearest even: overflow to infinity, subnormal halves where the value is below 2^-14.
uint16_t ToHalf(uint32_t bits) {
  if (IsNan32(bits)) return kCanonicalNan16;
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and up: infinity (65504 is the largest)
  const uint32_t exponent = magnitude >> 23;
  if (exponent >= 113) {  // a normal half: the exponent rebased, 13 bits rounded off
    return static_cast<uint16_t>(sign | ShiftRoundedEven(magnitude - (112u << 23), 13));
  }
  if (exponent < 101) return sign;  // below 2^-26: rounds to zero
  // A subnormal half: the value in units of 2^-24, rounded (a carry into the exponent gives 2^-14).
  const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  return static_cast<uint16_t>(sign | ShiftRoundedEven(significand, 126 - exponent));
}

}  // namespace

std::optional<double> LaunchEvaluator::WideSource(const Operand& operand, int lane, size_t index,
                                                  Value* value) const {
  // Registers only: an immediate or constant of a double instruction is not read as a double here.
  if (!IsRegister(operand)) {
    *value = Unknown(Origin(index));
    return std::nullopt;
  }
  uint64_t bits = 0;
  *value = ReadRegisterPair(operand.kind, operand.index, lane, index, &bits);
  if (operand.absolute) bits &= ~(uint64_t{1} << 63);
  if (operand.negate) bits ^= uint64_t{1} << 63;
  return AsDouble(bits);
}

void LaunchEvaluator::OtherPrecision(const Instruction& in, size_t index, uint32_t mask) {
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    const std::vector<Operand>& ops = in.operands;
    const int width =
        in.Is(mod::kF64) && in.info->semantics == Semantics::kFloatConvert ? 2 : in.decoded.width;
    if (in.unchecked_form) {  // a form no vector checks: unknown in the counting pass too
      out.AddUnknown(in, in.info->destinations, width, Origin(index));
      return;
    }
    switch (in.info->semantics) {
      case Semantics::kFloatPack: {  // F2FP.<BF16|F16>.F32.PACK_AB d, a, b: a's in the high half
        const Value a = FloatSource(ops.at(1), lane, index), b = FloatSource(ops.at(2), lane, index);
        const bool bf16 = in.Is(mod::kBf16);
        const uint32_t high = bf16 ? ToBf16(a.bits) : ToHalf(a.bits),
                       low = bf16 ? ToBf16(b.bits) : ToHalf(b.bits);
        out.Add(ops[0], From(high << 16 | low, a, b));
        return;
      }
      case Semantics::kFloatConvert: {
        if (in.Is(mod::kF64) && ops.size() == 2 && in.opcode == "F2F.F64.F32") {
          const Value a = FloatSource(ops[1], lane, index);
          const float x = AsFloat(a.bits);
          out.AddPair(ops[0], std::isnan(x) ? WidenedNan(a.bits) : Bits64(static_cast<double>(x)),
                      From(0, a));
          return;
        }
        Value a;
        const std::optional<double> x = WideSource(ops.at(1), lane, index, &a);
        if (!x || in.opcode != "F2F.F32.F64") return out.AddUnknown(in, 1, width, Origin(index));
        out.Add(ops[0], From(std::isnan(*x) ? NarrowedNan(Bits64(*x)) : Bits32(static_cast<float>(*x)), a));
        return;
      }
      case Semantics::kDoubleArithmetic: {
        Value a, b, c = Known(0);
        const std::optional<double> x = WideSource(ops.at(1), lane, index, &a),
                                    y = WideSource(ops.at(2), lane, index, &b);
        std::optional<double> z = 0.0;
        if (in.base == "DFMA") z = WideSource(ops.at(3), lane, index, &c);
        if (!x || !y || !z || ModifiedNan(in, {*x, *y, *z})) return out.AddUnknown(in, 1, 2, Origin(index));
        out.AddPair(ops[0], DoubleResult(in.base, *x, *y, *z), From(0, a, b, c));
        return;
      }
      case Semantics::kDoubleCompare: {  // DSETP p, q, a, b, c: as FSETP
        Value a, b;
        const std::optional<double> x = WideSource(ops.at(2), lane, index, &a),
                                    y = WideSource(ops.at(3), lane, index, &b);
        const Value c = ReadPredicate(ops.at(4), lane);
        const std::optional<bool> test = x && y ? FloatTest(in, *x, *y) : std::nullopt;
        if (!test) return out.AddUnknown(in, 2, 1, Origin(index));
        out.Add(ops[0], From(CombinePredicate(in, *test, c) ? 1u : 0u, a, b, c));
        out.Add(ops[1], From(CombinePredicate(in, !*test, c) ? 1u : 0u, a, b, c));
        return;
      }
      default:
        Stop(in, in.opcode + " reached the wrong handler (OtherPrecision)");
    }
  });
}

}  // namespace bankcheck::emulate::internal
