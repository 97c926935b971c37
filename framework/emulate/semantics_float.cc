// The floating-point and conversion handlers: I2F, I2FP and F2I (rounded by hand: the host's rounding mode
// is not the instruction's; 64-bit integers, I2F.S64 and F2I.S64.TRUNC, only in the forms of the table),
// MUFU.RCP, .RSQ and .SQRT by the model of the GPU's tables (mufu_tables.h), the half-precision constants
// nvcc makes with HFMA2.MMA, half and bfloat16 pairs (HFMA2.MMA.BF16_V2); any other data makes its
// destinations unknown.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/float_bits.h"
#include "emulate/internal/mufu_tables.h"

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

// A float (or ±inf) rounded to an integral value as `rounding` says: exact, whatever the host's
// rounding mode (nearbyint's default, to nearest even, is the host's own: nothing here changes it).
double Integral(double x, Rounding rounding) {
  switch (rounding) {
    case Rounding::kZero:
      return std::trunc(x);
    case Rounding::kDown:
      return std::floor(x);
    case Rounding::kUp:
      return std::ceil(x);
    case Rounding::kNearest:
      break;
  }
  return std::nearbyint(x);
}

uint32_t FloatToInt(uint32_t bits, const Instruction& in) {
  float x = AsFloat(bits);
  if (in.Is(mod::kFtz) && std::fpclassify(x) == FP_SUBNORMAL) x = 0;
  const bool is_unsigned = in.Is(mod::kU32);
  if (std::isnan(x)) return 0;  // S32 and U32 alike (conformance/vectors.txt: every payload, either sign)
  const double rounded = Integral(x, in.decoded.rounding);
  if (is_unsigned)
    return rounded <= 0 ? 0u : rounded >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(rounded);
  return rounded <= -2147483648.0  ? 0x80000000u
         : rounded >= 2147483647.0 ? 0x7fffffffu
                                   : static_cast<uint32_t>(static_cast<int32_t>(rounded));
}

// Half precision (IEEE binary16): a finite half's magnitude in units of 2^-24, its smallest
// subnormal (below 2^41), and -1 for infinity and NaN.
int64_t HalfUnits(uint16_t half) {
  const uint32_t exponent = half >> 10 & 0x1f, fraction = half & 0x3ffu;
  if (exponent == 0x1f) return -1;
  return exponent == 0 ? int64_t{fraction} : int64_t{1024 + fraction} << (exponent - 1);
}

constexpr uint16_t kCanonicalHalfNan = 0x7fff;  // every NaN result (conformance/vectors.txt)

// fma(a, b, c) in binary16, one rounding to nearest even, subnormals kept: the product and the sum are
// exact in units of 2^-48 (below 2^82, in 128 bits) before the one rounding.
uint16_t HalfFma(uint16_t a, uint16_t b, uint16_t c) {
  __extension__ typedef __int128 Exact;
  const auto is_nan = [](uint16_t h) { return (h & 0x7fffu) > 0x7c00u; };
  const uint16_t product_sign = (a ^ b) & 0x8000u, c_sign = c & 0x8000u;
  const int64_t ua = HalfUnits(a), ub = HalfUnits(b), uc = HalfUnits(c);
  if (is_nan(a) || is_nan(b) || is_nan(c)) return kCanonicalHalfNan;
  const bool product_infinite = ua < 0 || ub < 0;
  if (product_infinite && (ua == 0 || ub == 0)) return kCanonicalHalfNan;  // inf * 0
  if (product_infinite || uc < 0) {
    if (product_infinite && uc < 0 && product_sign != c_sign) return kCanonicalHalfNan;  // inf - inf
    return product_infinite ? static_cast<uint16_t>(product_sign | 0x7c00u) : c;
  }
  const Exact product = Exact{ua} * ub, addend = Exact{uc} << 24;
  const Exact sum = (product_sign ? -product : product) + (c_sign ? -addend : addend);
  if (sum == 0)  // an exact zero: -0 only when both terms are -0 (round to nearest)
    return product == 0 && addend == 0 ? static_cast<uint16_t>(product_sign & c_sign) : 0;
  const uint16_t sign = sum < 0 ? 0x8000u : 0;
  const Exact magnitude = sum < 0 ? -sum : sum;
  int top = 127;
  while (((magnitude >> top) & 1) == 0) --top;
  // 11 significant bits, and never below the smallest subnormal (2^24 units of 2^-48).
  const int shift = std::max(top - 10, 24);
  Exact kept = magnitude >> shift;
  const Exact rest = magnitude - (kept << shift), halfway = Exact{1} << (shift - 1);
  if (rest > halfway || (rest == halfway && (kept & 1) != 0)) ++kept;
  constexpr int64_t kLargest = int64_t{2047} << 29;  // 65504 in units of 2^-24
  if (shift - 24 > 29 || (static_cast<int64_t>(kept) << (shift - 24)) > kLargest)
    return static_cast<uint16_t>(sign | 0x7c00u);
  const int64_t units = static_cast<int64_t>(kept) << (shift - 24);
  if (units < 1024) return static_cast<uint16_t>(sign | units);  // subnormal (or a zero)
  const int high = 63 - __builtin_clzll(static_cast<uint64_t>(units));
  return static_cast<uint16_t>(sign | (high - 9) << 10 | ((units >> (high - 10)) - 1024));
}

// A bfloat16 as a double, exactly (its bits are a binary32's high half).
double Bf16Value(uint16_t half) { return AsFloat(uint32_t{half} << 16); }

// A half converted to single precision exactly, but for a NaN: 0x7fffffff whatever its payload and
// sign (form_hadd2_f32's GPU vectors).
uint32_t HalfToSingle(uint16_t half) {
  const uint32_t sign = uint32_t{half & 0x8000u} << 16, exponent = (half >> 10) & 0x1fu,
                 fraction = half & 0x3ffu;
  if (exponent == 0x1f) return fraction != 0 ? 0x7fffffffu : sign | 0x7f800000u;
  if (exponent == 0) return sign | Bits32(std::ldexp(static_cast<float>(fraction), -24));  // ±0, denormals
  return sign | (exponent + 112) << 23 | fraction << 13;
}

// The register and half (0 or 16: the shift) of a source written R2.H0_H0 or R2.H1_H1, which the
// parser keeps as text (kOther); false for any other operand, or one negated or absolute.
bool HalfSelected(const Operand& operand, Operand* reg, int* shift) {
  std::string text = operand.text;
  for (size_t at = text.find(".reuse"); at != std::string::npos; at = text.find(".reuse")) text.erase(at, 6);
  constexpr std::string_view kSelectors[] = {".H0_H0", ".H1_H1"};
  for (int half = 0; half < 2; ++half) {
    const std::string_view selector = kSelectors[half];
    if (operand.kind != OperandKind::kOther || text.size() <= selector.size() ||
        text.compare(text.size() - selector.size(), selector.size(), selector) != 0)
      continue;
    const std::vector<Operand> parsed = ParseOperands(text.substr(0, text.size() - selector.size()));
    if (parsed.size() != 1 || parsed[0].kind != OperandKind::kRegister || parsed[0].negate ||
        parsed[0].absolute || parsed[0].invert)
      return false;
    *reg = parsed[0];
    *shift = 16 * half;
    return true;
  }
  return false;
}

}  // namespace

uint32_t IntToFloat(uint64_t magnitude, bool negative, Rounding rounding) {
  if (magnitude == 0) return 0;
  int exponent = 63 - __builtin_clzll(magnitude);  // value in [2^exponent, 2^(exponent+1))
  uint64_t mantissa = magnitude;
  if (exponent > 23) {
    const int drop = exponent - 23;
    const uint64_t remainder = magnitude & ((uint64_t{1} << drop) - 1);
    const uint64_t half = uint64_t{1} << (drop - 1);
    mantissa = magnitude >> drop;
    const bool up = remainder != 0 && RoundsAway(rounding, negative,
                                                 remainder > half || (remainder == half && (mantissa & 1u)));
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

uint64_t FloatToInt64(uint32_t bits, Rounding rounding) {
  constexpr uint64_t kMost = uint64_t{1} << 63;  // INT64_MIN's bits, and 2^63
  const float x = AsFloat(bits);
  if (std::isnan(x)) return kMost;  // every payload, either sign (form_f2i_s64_trunc's vectors)
  const double rounded = Integral(x, rounding);
  if (rounded <= -0x1p63) return kMost;
  if (rounded >= 0x1p63) return kMost - 1;
  return static_cast<uint64_t>(static_cast<int64_t>(rounded));
}

std::optional<uint16_t> Bf16Fma(uint16_t a, uint16_t b, uint16_t c) {
  const double x = Bf16Value(a), y = Bf16Value(b), z = Bf16Value(c);
  if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z)) return std::nullopt;
  // The product is exact (8 by 8 significant bits); TwoSum makes sum + error the exact fma.
  const double product = x * y, sum = product + z, after = sum - product;
  const double error = (product - (sum - after)) + (z - after);
  if (sum == 0) return std::nullopt;
  const uint16_t result = static_cast<uint16_t>(RoundExact(sum, error, 7, Rounding::kNearest));
  if ((result & 0x7fffu) == 0) return std::nullopt;  // rounded to a zero
  return result;
}

// F2IP.U8.F32.NTZ d, RZ, a, RZ: ptxas's cvt.rni.sat.u8.f32, a rounded to the nearest integer (ties
// to even), clamped to 0..255, a NaN 0, the upper bytes 0. Any other form of it (other bytes packed
// from the other sources, other types) is unknown; computed only in the forms the conformance
// vectors check, in either pass.
void LaunchEvaluator::FloatToByte(const Instruction& in, size_t index, int lane, Writes& out) const {
  const std::vector<Operand>& ops = in.operands;
  const auto zero = [](const Operand& operand) {
    return operand.kind == OperandKind::kRegister && operand.index == kRegisterZero;
  };
  if (in.unchecked_form || in.opcode != "F2IP.U8.F32.NTZ" || ops.size() != 4 || !zero(ops[1]) ||
      !zero(ops[3]) || ops[2].kind != OperandKind::kRegister || ops[2].negate || ops[2].absolute)
    return out.Add(ops.at(0), Unknown(Origin(index)));
  const Value a = Read(ops[2], lane, index);
  const double x = AsFloat(a.bits);
  double rounded = std::floor(x);
  if (x - rounded > 0.5 || (x - rounded == 0.5 && std::fmod(rounded, 2.0) != 0)) rounded += 1;
  const uint32_t byte = std::isnan(x) ? 0u : static_cast<uint32_t>(std::clamp(rounded, 0.0, 255.0));
  out.Add(ops[0], From(byte, a));
}

// HADD2.F32 d, -RZ, a.H0_H0 (or .H1_H1): ptxas's cvt.f32.f16, one half of a made a float (-0 + x is
// x, +0 too). Any other form of it (another first source, a negated or absolute half) is unknown.
void LaunchEvaluator::HalfToFloat(const Instruction& in, size_t index, int lane, Writes& out) const {
  const std::vector<Operand>& ops = in.operands;
  Operand reg;
  int shift = 0;
  if (in.unchecked_form || ops.size() != 3 || ops[1].kind != OperandKind::kRegister ||
      ops[1].index != kRegisterZero || !ops[1].negate || ops[1].absolute ||
      !HalfSelected(ops[2], &reg, &shift))
    return out.Add(ops.at(0), Unknown(Origin(index)));
  const Value a = ReadRaw(reg, lane, index);
  out.Add(ops[0], From(HalfToSingle(static_cast<uint16_t>(a.bits >> shift)), a));
}

// HFMA2.MMA.BF16_V2 d, a, b, c (fma.rn.bf16x2): each bfloat16 of the pair fma(a, b, c) rounded once to
// nearest even (Bf16Fma). Sources are registers (-x and |x| on both halves' signs); an immediate, any
// other form (HFMA2.BF16_V2 without .MMA, HADD2.BF16_V2, ...) or a pair with a half Bf16Fma does not
// compute is unknown, in the counting pass too.
void LaunchEvaluator::Bf16Arithmetic(const Instruction& in, size_t index, int lane, Writes& out) const {
  const std::vector<Operand>& ops = in.operands;
  if (in.unchecked_form || in.base != "HFMA2" || ops.size() != 4)
    return out.Add(ops.at(0), Unknown(Origin(index)));
  Value sources[3];
  for (size_t at = 1; at < 4; ++at) {
    if (ops[at].kind != OperandKind::kRegister || ops[at].invert)
      return out.Add(ops[0], Unknown(Origin(index)));
    sources[at - 1] = ReadRaw(ops[at], lane, index);
    if (ops[at].absolute) sources[at - 1].bits &= 0x7fff7fffu;
    if (ops[at].negate) sources[at - 1].bits ^= 0x80008000u;
  }
  const Value inputs = From(0, sources[0], sources[1], sources[2]);
  if (!inputs.known()) return out.Add(ops[0], inputs);
  uint32_t bits = 0;
  for (const int half : {0, 16}) {
    const auto part = [&](const Value& v) { return static_cast<uint16_t>(v.bits >> half); };
    const std::optional<uint16_t> result = Bf16Fma(part(sources[0]), part(sources[1]), part(sources[2]));
    if (!result) return out.Add(ops[0], Unknown(Origin(index)));
    bits |= uint32_t{*result} << half;
  }
  out.Add(ops[0], From(bits, inputs));
}

// HADD2 d, a, b (a + b), HMUL2 d, a, b (a * b) and HFMA2 d, a, b, c (.MMA too), each half of the
// pair on its own, as fma(a, 1, b), fma(a, b, -0) and fma(a, b, c) round the same (one rounding, and
// the same signed zeros). A source is a register (-x and |x| on both halves' signs) or two immediates,
// the high half first; any modifier (.F32, .FTZ, .BF16_V2, ...), a half selector (R2.H0_H0) or a form
// no GPU vectors check leaves the destination unknown, in the counting pass too.
void LaunchEvaluator::HalfArithmetic(const Instruction& in, size_t index, int lane, Writes& out) const {
  const std::vector<Operand>& ops = in.operands;
  if (in.opcode == "HADD2.F32") return HalfToFloat(in, index, lane, out);
  if (std::find(in.modifiers.begin(), in.modifiers.end(), "BF16_V2") != in.modifiers.end())
    return Bf16Arithmetic(in, index, lane, out);
  const bool plain =
      in.modifiers.empty() || (in.base == "HFMA2" && in.modifiers.size() == 1 && in.modifiers[0] == "MMA");
  std::vector<Value> sources;
  for (size_t at = 1; plain && !in.unchecked_form && at < ops.size(); ++at) {
    uint16_t high = 0, low = 0;
    if (ops[at].kind == OperandKind::kImmediate && at + 1 < ops.size() && HalfOf(ops[at], &high) &&
        HalfOf(ops[at + 1], &low)) {
      sources.push_back(Known(uint32_t{high} << 16 | low));
      ++at;
      continue;
    }
    if (ops[at].kind != OperandKind::kRegister || ops[at].invert)
      return out.Add(ops.at(0), Unknown(Origin(index)));
    Value value = ReadRaw(ops[at], lane, index);
    if (ops[at].absolute) value.bits &= 0x7fff7fffu;
    if (ops[at].negate) value.bits ^= 0x80008000u;
    sources.push_back(value);
  }
  const size_t count = in.base == "HFMA2" ? 3 : 2;
  if (sources.size() != count) return out.Add(ops.at(0), Unknown(Origin(index)));
  if (in.base == "HADD2") sources.insert(sources.begin() + 1, Known(0x3c003c00u));  // a * 1 + b
  if (in.base == "HMUL2") sources.push_back(Known(0x80008000u));                    // a * b - 0
  uint32_t bits = 0;
  for (const int half : {0, 16}) {
    const auto part = [&](const Value& v) { return static_cast<uint16_t>(v.bits >> half); };
    bits |= uint32_t{HalfFma(part(sources[0]), part(sources[1]), part(sources[2]))} << half;
  }
  out.Add(ops[0], From(bits, sources[0], sources[1], sources[2]));
}

// A 32-bit integer to F32 (I2F, I2FP.F32): the forms the conformance vectors check; any other (F64,
// F16, BF16, narrow sources) is not computed. A 64-bit signed source (I2F.S64, a register pair) only
// in the forms of the table, in either pass.
void LaunchEvaluator::IntegerToFloat(const Instruction& in, size_t index, int lane, Writes& out) const {
  const std::vector<Operand>& ops = in.operands;
  static constexpr std::string_view kComputed[] = {"F32", "S32", "U32", "RZ", "RM", "RP"};
  static constexpr std::string_view kWide[] = {"F32", "S64", "RZ", "RM", "RP"};
  const bool wide = in.Is(mod::kS64) && !in.unchecked_form && OnlyModifiers(in, kWide) &&
                    ops.at(1).kind == OperandKind::kRegister && !ops[1].negate && !ops[1].absolute &&
                    !ops[1].invert;
  if (!wide && !OnlyModifiers(in, kComputed))
    return out.AddUnknown(in, 1, in.Is(mod::kF64) ? 2 : 1, Origin(index));
  if (wide) {
    uint64_t bits = 0;
    const Value a = ReadPair(ops[1], lane, index, &bits);
    const bool negative = (bits >> 63) != 0;
    return out.Add(ops[0],
                   From(IntToFloat(negative ? uint64_t{0} - bits : bits, negative, in.decoded.rounding), a));
  }
  const Value a = Read(ops.at(1), lane, index);
  const bool negative = !in.Is(mod::kU32) && static_cast<int32_t>(a.bits) < 0;
  out.Add(ops[0],
          From(IntToFloat(negative ? uint32_t{0} - a.bits : a.bits, negative, in.decoded.rounding), a));
}

// F32 to an integer: F2IP.U8 (FloatToByte); F2I to a 64-bit signed integer (F2I.S64, a register
// pair) only in the forms of the table, in either pass; to a 32-bit integer in the forms the
// conformance vectors check (.NTZ, nvcc's). Any other (F64, F16, other widths) is not computed.
void LaunchEvaluator::FloatToInteger(const Instruction& in, size_t index, int lane, Writes& out) const {
  const std::vector<Operand>& ops = in.operands;
  if (in.base == "F2IP") return FloatToByte(in, index, lane, out);
  const Value a = Read(ops.at(1), lane, index);
  static constexpr std::string_view kWide[] = {"S64", "TRUNC", "FLOOR", "CEIL"};
  if (in.Is(mod::kS64) && !in.unchecked_form && OnlyModifiers(in, kWide) &&
      ops[1].kind == OperandKind::kRegister && !ops[1].negate && !ops[1].absolute && !ops[1].invert)
    return out.AddPair(ops[0], FloatToInt64(a.bits, in.decoded.rounding), From(0, a));
  static constexpr std::string_view kComputed[] = {"S32", "U32", "FTZ", "NTZ", "TRUNC", "FLOOR", "CEIL"};
  if (!OnlyModifiers(in, kComputed) ||
      std::find(in.modifiers.begin(), in.modifiers.end(), "NTZ") == in.modifiers.end())
    return out.AddUnknown(in, 1, (in.Is(mod::kS64 | mod::kU64)) ? 2 : 1, Origin(index));
  out.Add(ops[0], From(FloatToInt(a.bits, in), a));
}

// MUFU.RCP, .RSQ and .SQRT by the model (mufu_model.h), from the library's tables (mufu_tables.h), of
// a register, uniform register, constant or float immediate source (|x| and -x applied). Where the
// table cannot be read, the reciprocal of nvcc's integer division (sass.cc marks it) is still the
// correctly rounded one: the sequence's quotient is exact for any reciprocal within MUFU's error
// bound, and nothing else reads it. Every other MUFU (EX2, LG2, TANH, SIN, COS, the .F16 forms, the
// halves of a double's RCP64H and RSQ64H) is unknown: no model of it was checked on all inputs.
void LaunchEvaluator::SpecialFunction(const Instruction& in, size_t index, int lane, Writes& out) const {
  const std::vector<Operand>& ops = in.operands;
  const std::optional<MufuFunction> f = ModelledMufu(in);
  const bool source =
      ops.size() == 2 && ops[0].kind == OperandKind::kRegister &&
      (ops[1].kind == OperandKind::kRegister || ops[1].kind == OperandKind::kUniformRegister ||
       ops[1].kind == OperandKind::kConstant ||
       (ops[1].kind == OperandKind::kImmediate && ops[1].is_float)) &&
      !ops[1].invert;
  if (!f || !source) return out.AddUnknown(in, 1, 1, Origin(index));
  const Value a = FloatSource(ops[1], lane, index);
  const MufuTable& table = BuiltInMufuTable(*f);
  if (table.ok()) return out.Add(ops[0], From(table.Output(a.bits), a));
  if (in.division_reciprocal) return out.Add(ops[0], From(Bits32(1.0f / AsFloat(a.bits)), a));
  out.AddUnknown(in, 1, 1, Origin(index));
}

// Half constants and arithmetic, conversions, the special functions; other data unknown.
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
        if (constant) return out.Add(ops.at(0), Known((uint32_t{high} << 16) | low));
        HalfArithmetic(in, index, lane, out);
        return;
      }
      case Semantics::kHalfArithmetic: {
        HalfArithmetic(in, index, lane, out);
        return;
      }
      case Semantics::kIntToFloat:
        return IntegerToFloat(in, index, lane, out);
      case Semantics::kFloatToInt:
        return FloatToInteger(in, index, lane, out);
      case Semantics::kSpecialFunction:
        return SpecialFunction(in, index, lane, out);
      case Semantics::kUnchecked:
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
