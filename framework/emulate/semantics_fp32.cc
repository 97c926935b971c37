// Single-precision arithmetic and comparison (FADD, FMUL, FFMA, FMNMX, FSETP), bit for bit as sm_90 computes
// it: IEEE binary32 rounded to nearest even (FFMA fused: one rounding), subnormals kept unless .FTZ flushes
// inputs and results to a zero of their sign, every NaN result the canonical 0x7fffffff. FMNMX takes -0
// as below +0. What this does not know exactly makes the result unknown, never a guess: the other
// roundings (.RZ, .RM, .RP), .SAT.

#include <algorithm>
#include <cmath>
#include <optional>
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
  // Only round-to-nearest is computed: the host's other modes would need its rounding mode changed.
  // Only the modifiers the conformance vectors check (conformance/vectors.txt): .FTZ, and FMNMX's
  // .NAN; any other (.SAT, .RZ, FMUL's .D2, ...) leaves the destination unknown.
  const bool nan_propagating =
      semantics == Semantics::kFloatMinMax && in.decoded.nan_test == DecodedModifiers::NanTest::kNan;
  const bool exact = in.decoded.rounding == Rounding::kNearest &&
                     std::all_of(in.modifiers.begin(), in.modifiers.end(), [&](const std::string& modifier) {
                       return modifier == "FTZ" || (nan_propagating && modifier == "NAN");
                     });
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    const std::vector<Operand>& ops = in.operands;
    if (semantics == Semantics::kFloatCompare) return FloatCompare(in, index, lane, out);
    if (!exact) {
      out.AddUnknown(in, 1, 1, Origin(index));
      return;
    }
    const Value a = FloatSource(ops.at(1), lane, index), b = FloatSource(ops.at(2), lane, index);
    const float x = AsFloat(Flushed(a.bits, ftz)), y = AsFloat(Flushed(b.bits, ftz));
    switch (semantics) {
      case Semantics::kFloatAdd:
        out.Add(ops[0], From(Result(x + y, ftz), a, b));
        return;
      case Semantics::kFloatMultiply:
        out.Add(ops[0], From(Result(x * y, ftz), a, b));
        return;
      case Semantics::kFloatFma: {
        const Value c = FloatSource(ops.at(3), lane, index);
        out.Add(ops[0], From(Result(std::fma(x, y, AsFloat(Flushed(c.bits, ftz))), ftz), a, b, c));
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
