// Single-precision arithmetic and comparison (FADD, FMUL, FFMA, FMNMX, FSETP), bit for bit as sm_90 computes
// it: IEEE binary32 rounded to nearest even (FFMA fused: one rounding), subnormals kept unless .FTZ flushes
// inputs and results to a zero of their sign, every NaN result the canonical 0x7fffffff. FMNMX takes -0
// as below +0. FADD and FFMA also round toward zero, down or up (.RZ .RM .RP) and saturate (.SAT),
// rounded by hand from the exact sum (RoundExact), computed only in the forms the conformance vectors
// check (FADD.RZ, FADD.SAT, FFMA.RM, FFMA.SAT), in either pass. What this does not know exactly makes
// the result unknown, never a guess: any other modifier or form.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/float_bits.h"

namespace bankcheck::emulate::internal {
namespace {

constexpr uint32_t kCanonicalNan = 0x7fffffffu;

bool Subnormal(uint32_t bits) { return (bits & 0x7f800000u) == 0 && (bits & 0x007fffffu) != 0; }

// A subnormal flushed to the zero of its sign, under .FTZ.
uint32_t Flushed(uint32_t bits, bool ftz) { return ftz && Subnormal(bits) ? bits & 0x80000000u : bits; }

// A result as the GPU writes it: NaN canonical, a subnormal flushed under .FTZ.
uint32_t Result(float value, bool ftz) {
  return std::isnan(value) ? kCanonicalNan : Flushed(Bits32(value), ftz);
}

}  // namespace

uint32_t RoundExact(double sum, double error, int fraction_bits, Rounding rounding) {
  const uint64_t bits = Bits64(sum);
  const bool negative = (bits >> 63) != 0;
  // Whether the exact magnitude is above (1) or below (-1) |sum|, or is it (0).
  const int beyond = error == 0 ? 0 : (error > 0) != negative ? 1 : -1;
  // sum is a normal double (a sum of binary32 products is a multiple of 2^-298): |sum| = significand *
  // 2^(exponent - 52), significand of 53 bits.
  const int exponent = static_cast<int>((bits >> 52) & 0x7ffu) - 1023;
  const uint64_t significand = (bits & ((uint64_t{1} << 52) - 1)) | uint64_t{1} << 52;
  const uint32_t largest = (0xffu << fraction_bits) - 1;  // the largest finite magnitude's bits
  uint32_t kept = 0;  // the magnitude cut toward zero, as the format's bits
  int dropped = 0;    // what was cut against half a unit: below (-1), half (0), above (1)
  bool inexact = true;
  if (exponent >= 128) {  // beyond the largest finite value: to nearest, an infinity
    kept = largest;
    dropped = 1;
  } else {
    // The format's unit at this exponent (subnormals: the smallest's), and the significand's bits below it.
    const int unit = std::max(exponent, -126) - fraction_bits;
    const int below = unit - (exponent - 52);  // at least 52 - 23
    uint64_t units = 0, rest = significand;
    if (below < 64) {
      units = significand >> below;
      rest = significand & ((uint64_t{1} << below) - 1);
    }
    const uint64_t half = below < 64 ? uint64_t{1} << (below - 1) : ~uint64_t{0};
    // The encoding: the biased exponent of unit's binade (0 for subnormals) and the units past its
    // leading one, which units holds (a carry into the next binade is the next encoding).
    kept = (static_cast<uint32_t>(std::max(exponent, -126) + 126) << fraction_bits) +
           static_cast<uint32_t>(units);
    if (rest != 0) {
      dropped = rest > half ? 1 : rest < half ? -1 : beyond;  // a tie in sum: the error decides
    } else if (beyond > 0) {
      dropped = -1;  // just above kept
    } else if (beyond < 0) {
      --kept;  // just below |sum|, a unit above the next magnitude down
      dropped = 1;
    } else {
      inexact = false;
    }
  }
  const bool nearest_up = dropped > 0 || (dropped == 0 && (kept & 1u) != 0);
  const uint32_t magnitude = kept + (inexact && RoundsAway(rounding, negative, nearest_up) ? 1u : 0u);
  return (negative ? 1u << (8 + fraction_bits) : 0u) | magnitude;
}

uint32_t FusedMultiplyAdd32(uint32_t a, uint32_t b, uint32_t c, Rounding rounding) {
  const double x = AsFloat(a), y = AsFloat(b), z = AsFloat(c);
  if (std::isnan(x) || std::isnan(y) || std::isnan(z)) return kCanonicalNan;
  const double product = x * y;  // exact: 24 by 24 significant bits, within the double's exponents
  if (std::isnan(product)) return kCanonicalNan;  // inf * 0
  if (std::isinf(product) || std::isinf(z)) {
    const double sum = product + z;  // an infinity, or NaN for inf - inf
    return std::isnan(sum) ? kCanonicalNan : Bits32(static_cast<float>(sum));
  }
  // TwoSum (Knuth): sum + error is product + z exactly, sum the double nearest it.
  const double sum = product + z, after = sum - product;
  const double error = (product - (sum - after)) + (z - after);
  if (sum == 0) {  // exact: -0 where both terms are, else +0, but -0 rounding down (IEEE 754)
    const bool both_negative = product == 0 && z == 0 && std::signbit(product) && std::signbit(z);
    const bool both_positive = product == 0 && z == 0 && !std::signbit(product) && !std::signbit(z);
    return both_negative || (rounding == Rounding::kDown && !both_positive) ? 0x80000000u : 0u;
  }
  return RoundExact(sum, error, 23, rounding);
}

uint32_t Saturated32(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u || (bits & 0x80000000u) != 0) return 0;  // NaN, negatives, -0
  return std::min(bits, 0x3f800000u);  // the bits of non-negative floats order as their values
}

// FSETP p, q, a, b, c: p = (a test b) op c, q = !(a test b) op c, op .AND, .OR or .XOR as ISETP's. An
// ordered test is false when a or b is NaN, an unordered one (LTU ... NEU) true; NAN and NUM test
// only that.
void LaunchEvaluator::FloatCompare(const Instruction& in, size_t index, int lane, Writes& out) const {
  const std::vector<Operand>& ops = in.operands;
  const bool ftz = in.Is(mod::kFtz);
  const Value a = FloatSource(ops.at(2), lane, index), b = FloatSource(ops.at(3), lane, index);
  const Value c = ReadPredicate(ops.at(4), lane);
  const float x = AsFloat(Flushed(a.bits, ftz)), y = AsFloat(Flushed(b.bits, ftz));
  const std::optional<bool> test = FloatTest(in, x, y);
  if (!test) {
    out.AddUnknown(in, 2, 1, Origin(index));
    return;
  }
  out.Add(ops[0], From(CombinePredicate(in, *test, c) ? 1u : 0u, a, b, c));
  out.Add(ops[1], From(CombinePredicate(in, !*test, c) ? 1u : 0u, a, b, c));
}

std::optional<bool> FloatTest(const Instruction& in, double x, double y) {
  const bool nan = std::isnan(x) || std::isnan(y);
  using NanTest = DecodedModifiers::NanTest;
  if (in.decoded.nan_test != NanTest::kNone) return in.decoded.nan_test == NanTest::kNan ? nan : !nan;
  bool test = false;
  switch (in.decoded.test) {
    case Test::kLess:
      test = x < y;
      break;
    case Test::kLessOrEqual:
      test = x <= y;
      break;
    case Test::kGreater:
      test = x > y;
      break;
    case Test::kGreaterOrEqual:
      test = x >= y;
      break;
    case Test::kEqual:
      test = x == y;
      break;
    case Test::kNotEqual:
      test = !nan && x != y;  // NE is ordered: false for a NaN, as NEU is true
      break;
    case Test::kTrue:
      return true;
    case Test::kFalse:
      return false;
    case Test::kNone:
      return std::nullopt;
  }
  return nan ? in.decoded.unordered : test;
}

bool CombinePredicate(const Instruction& in, bool test, const Value& c) {
  if (in.Is(mod::kAnd)) return test && c.bits != 0;
  if (in.Is(mod::kOr)) return test || c.bits != 0;
  return test != (c.bits != 0);  // XOR
}

void LaunchEvaluator::FloatArithmetic(const Instruction& in, size_t index, uint32_t mask) {
  const Semantics semantics = in.info->semantics;
  const bool ftz = in.Is(mod::kFtz);
  // Round to nearest with the modifiers the conformance vectors check (conformance/vectors.txt): .FTZ,
  // and FMNMX's .NAN. FADD's and FFMA's other directions and .SAT below; any other (FMUL.RZ, FMUL's
  // .D2, ...) leaves the destination unknown.
  const bool nan_propagating =
      semantics == Semantics::kFloatMinMax && in.decoded.nan_test == DecodedModifiers::NanTest::kNan;
  const bool exact = in.decoded.rounding == Rounding::kNearest &&
                     std::all_of(in.modifiers.begin(), in.modifiers.end(), [&](const std::string& modifier) {
                       return modifier == "FTZ" || (nan_propagating && modifier == "NAN");
                     });
  // FADD's and FFMA's directed roundings and .SAT, gated by form in either pass (the table's forms,
  // whose vectors they replay; FADD.RP, FFMA.SAT.RZ, ... stay unknown).
  static constexpr std::string_view kRoundedBy[] = {"RZ", "RM", "RP", "SAT"};
  const bool rounded = (semantics == Semantics::kFloatAdd || semantics == Semantics::kFloatFma) &&
                       !in.unchecked_form && !in.modifiers.empty() && OnlyModifiers(in, kRoundedBy);
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    const std::vector<Operand>& ops = in.operands;
    if (semantics == Semantics::kFloatCompare) return FloatCompare(in, index, lane, out);
    if (!exact && !rounded) {
      out.AddUnknown(in, 1, 1, Origin(index));
      return;
    }
    const Value a = FloatSource(ops.at(1), lane, index), b = FloatSource(ops.at(2), lane, index);
    const float x = AsFloat(Flushed(a.bits, ftz)), y = AsFloat(Flushed(b.bits, ftz));
    // FADD a, b as fma(a, 1, b) and FFMA: one exact sum, rounded once (-0 * 1 is -0: the same zeros).
    const auto fused = [&](uint32_t multiplier, uint32_t addend) {
      const uint32_t bits =
          Flushed(FusedMultiplyAdd32(Flushed(a.bits, ftz), multiplier, addend, in.decoded.rounding), ftz);
      return in.Is(mod::kSat) ? Saturated32(bits) : bits;
    };
    switch (semantics) {
      case Semantics::kFloatAdd:
        out.Add(ops[0], From(fused(0x3f800000u, Flushed(b.bits, ftz)), a, b));
        return;
      case Semantics::kFloatMultiply:
        out.Add(ops[0], From(Result(x * y, ftz), a, b));
        return;
      case Semantics::kFloatFma: {
        const Value c = FloatSource(ops.at(3), lane, index);
        out.Add(ops[0], From(fused(Flushed(b.bits, ftz), Flushed(c.bits, ftz)), a, b, c));
        return;
      }
      case Semantics::kFloatMinMax: {
        const Value min = ReadPredicate(ops.at(3), lane);
        if (!min.known()) {
          out.Add(ops[0], From(0, a, b, min));
          return;
        }
        uint32_t bits = 0;
        if ((std::isnan(x) && std::isnan(y)) || (nan_propagating && (std::isnan(x) || std::isnan(y)))) {
          bits = kCanonicalNan;
        } else if (std::isnan(x) || std::isnan(y)) {
          bits = Bits32(std::isnan(x) ? y : x);
        } else if (x == 0 && y == 0 && Bits32(x) != Bits32(y)) {
          bits = min.bits != 0 ? 0x80000000u : 0u;  // -0 is below +0, in either order (vectors.txt)
        } else {
          bits = Bits32(min.bits != 0 ? (y < x ? y : x) : (y > x ? y : x));
        }
        out.Add(ops[0], From(bits, a, b, min));
        return;
      }
      default:
        Stop(in, in.opcode + " reached the wrong handler (FloatArithmetic)");
    }
  });
}

}  // namespace bankcheck::emulate::internal
