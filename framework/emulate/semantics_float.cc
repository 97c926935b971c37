// The floating-point and conversion handlers: I2F, I2FP and F2I (rounded by hand: the host's rounding mode
// is not the instruction's), MUFU.RCP of nvcc's unsigned division sequence (sass.cc marks it), the
// half-precision constants nvcc makes with HFMA2.MMA; any other data makes its destinations unknown.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {
namespace {

bool HalfOf(const Operand& operand, uint16_t* half) {
  if (operand.kind != OperandKind::kImmediate) return false;
  const double value =
      operand.is_float ? std::strtod(operand.text.c_str(), nullptr) : static_cast<double>(operand.value);
  if (operand.is_float &&
      (operand.text.find("INF") != std::string::npos || operand.text.find("NAN") != std::string::npos))
    return false;
  if (value == 0) {
    *half = std::signbit(value) ? 0x8000 : 0;
    return true;
  }
  const uint16_t sign = value < 0 ? 0x8000 : 0;
  const double magnitude = std::fabs(value);
  int exponent = 0;
  const double fraction =
      std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent, fraction in [0.5, 1)
  // Normal halves: exponent - 1 in [-14, 15], 11 significant bits; subnormals: multiples of 2^-24.
  if (exponent - 1 > 15) return false;
  if (exponent - 1 >= -14) {
    const double significand = std::ldexp(fraction, 11);  // in [1024, 2048)
    if (significand != std::floor(significand)) return false;
    *half = static_cast<uint16_t>(sign | ((exponent - 1 + 15) << 10) |
                                  (static_cast<uint32_t>(significand) - 1024));
    return true;
  }
  const double units = std::ldexp(magnitude, 24);
  if (units != std::floor(units) || units >= 1024) return false;
  *half = static_cast<uint16_t>(sign | static_cast<uint32_t>(units));
  return true;
}

// A 32-bit integer as a float, rounded as asked (done by hand: the host's rounding mode is not
// the instruction's).
uint32_t IntToFloat(uint32_t bits, bool is_unsigned, Rounding rounding) {
  const bool negative = !is_unsigned && static_cast<int32_t>(bits) < 0;
  uint64_t magnitude =
      negative ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits))) : bits;
  if (magnitude == 0) return 0;
  int exponent = 63 - __builtin_clzll(magnitude);  // value in [2^exponent, 2^(exponent+1))
  uint64_t mantissa = magnitude;
  if (exponent > 23) {
    const int drop = exponent - 23;
    const uint64_t remainder = magnitude & ((uint64_t{1} << drop) - 1);
    const uint64_t half = uint64_t{1} << (drop - 1);
    mantissa = magnitude >> drop;
    bool up = false;
    switch (rounding) {
      case Rounding::kNearest:
        up = remainder > half || (remainder == half && (mantissa & 1u));
        break;
      case Rounding::kZero:
        break;
      case Rounding::kDown:
        up = negative && remainder != 0;
        break;
      case Rounding::kUp:
        up = !negative && remainder != 0;
        break;
    }
    if (up && ++mantissa == (uint64_t{1} << 24)) {
      mantissa >>= 1;
      ++exponent;
    }
  } else {
    mantissa <<= (23 - exponent);
  }
  return (negative ? 0x80000000u : 0u) | (static_cast<uint32_t>(exponent + 127) << 23) |
         static_cast<uint32_t>(mantissa & 0x7fffffu);
}

// Whether every modifier of `in` is one of `computed` (the forms the conformance vectors check).
template <size_t N>
bool OnlyModifiers(const Instruction& in, const std::string_view (&computed)[N]) {
  return std::all_of(in.modifiers.begin(), in.modifiers.end(), [&](const std::string& modifier) {
    return std::find(std::begin(computed), std::end(computed), modifier) != std::end(computed);
  });
}

uint32_t FloatToInt(uint32_t bits, const Instruction& in) {
  float x = 0;
  std::memcpy(&x, &bits, sizeof x);
  if (in.Is(mod::kFtz) && std::fpclassify(x) == FP_SUBNORMAL) x = 0;
  const bool is_unsigned = in.Is(mod::kU32);
  if (std::isnan(x)) return 0;  // S32 and U32 alike (conformance/vectors.txt: every payload, either sign)
  double rounded = x;
  switch (in.decoded.rounding) {
    case Rounding::kZero:
      rounded = std::trunc(rounded);
      break;
    case Rounding::kDown:
      rounded = std::floor(rounded);
      break;
    case Rounding::kUp:
      rounded = std::ceil(rounded);
      break;
    case Rounding::kNearest:
      rounded = std::nearbyint(rounded);
      break;
  }
  if (is_unsigned)
    return rounded <= 0 ? 0u : rounded >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(rounded);
  return rounded <= -2147483648.0  ? 0x80000000u
         : rounded >= 2147483647.0 ? 0x7fffffffu
                                   : static_cast<uint32_t>(static_cast<int32_t>(rounded));
}

}  // namespace

// Conversions, the reciprocal of the division sequence, half constants; other data unknown.
void LaunchEvaluator::FloatAndConversion(const Instruction& in, size_t index, uint32_t mask) {
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    const std::vector<Operand>& ops = in.operands;
    switch (in.info->semantics) {
      case Semantics::kHalfConstant: {
        // HFMA2.MMA d, -RZ, RZ, hi, lo: nvdisasm prints the high half first (d = hi << 16 | lo, as
        // the GPU vectors of conformance/ check). The product is a zero whose sign the operands'
        // negations give: -0 + h is h, but +0 + -0 is +0.
        uint16_t low = 0, high = 0;
        const bool constant = ops.size() == 5 && (in.modifiers.empty() || in.opcode == "HFMA2.MMA") &&
                              ops[1].kind == OperandKind::kRegister && ops[1].index == kRegisterZero &&
                              ops[2].kind == OperandKind::kRegister && ops[2].index == kRegisterZero &&
                              !ops[1].absolute && !ops[2].absolute && HalfOf(ops[3], &high) &&
                              HalfOf(ops[4], &low);
        if (constant && ops[1].negate == ops[2].negate) {  // +0 + -0 = +0
          if (high == 0x8000) high = 0;
          if (low == 0x8000) low = 0;
        }
        out.Add(ops.at(0), constant ? Known((uint32_t{high} << 16) | low) : Unknown(Origin(index)));
        return;
      }
      case Semantics::kIntToFloat: {
        const Value a = Read(ops.at(1), lane, index);
        // A 32-bit integer to F32 (I2F, I2FP.F32): the forms the conformance vectors check; any
        // other (F64, F16, BF16, 64-bit or narrow sources) is not computed.
        static constexpr std::string_view kComputed[] = {"F32", "S32", "U32", "RZ", "RM", "RP"};
        if (!OnlyModifiers(in, kComputed)) {
          out.AddUnknown(in, 1, in.Is(mod::kF64) ? 2 : 1, Origin(index));
          return;
        }
        out.Add(ops[0], From(IntToFloat(a.bits, in.Is(mod::kU32), in.decoded.rounding), a));
        return;
      }
      case Semantics::kFloatToInt: {
        const Value a = Read(ops.at(1), lane, index);
        // F32 to a 32-bit integer, in the forms the conformance vectors check (.NTZ, nvcc's); any
        // other (F64, F16, 64-bit or narrow destinations) is not computed.
        static constexpr std::string_view kComputed[] = {"S32",   "U32",   "FTZ", "NTZ",
                                                         "TRUNC", "FLOOR", "CEIL"};
        if (!OnlyModifiers(in, kComputed) ||
            std::find(in.modifiers.begin(), in.modifiers.end(), "NTZ") == in.modifiers.end()) {
          out.AddUnknown(in, 1, (in.Is(mod::kS64 | mod::kU64)) ? 2 : 1, Origin(index));
          return;
        }
        out.Add(ops[0], From(FloatToInt(a.bits, in), a));
        return;
      }
      case Semantics::kReciprocal: {
        if (!in.division_reciprocal) {
          out.AddUnknown(in, 1, 1, Origin(index));
          return;
        }
        const Value a = Read(ops.at(1), lane, index);
        float x = 0;
        std::memcpy(&x, &a.bits, sizeof x);
        const float reciprocal = 1.0f / x;
        uint32_t bits = 0;
        std::memcpy(&bits, &reciprocal, sizeof bits);
        out.Add(ops[0], From(bits, a));
        return;
      }
      case Semantics::kUnchecked:
        // MATCH.ALL writes a predicate besides the mask, which the table's one destination misses.
        if (in.base == "MATCH" && !in.Is(mod::kAny))
          Stop(in, in.opcode + " is a form the emulator does not understand");
        out.AddUnknown(in, in.info->destinations, in.decoded.width, Origin(index));
        return;
      case Semantics::kData:
        out.AddUnknown(in, in.info->destinations, in.decoded.width, Origin(index));
        return;
      default:
        Stop(in, in.opcode + " reached the wrong handler (FloatAndConversion)");
    }
  });
}

}  // namespace bankcheck::emulate::internal
