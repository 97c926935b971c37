// The integer handlers: IMAD, IADD3, VIADD, LEA, SHF, LOP3, IMNMX, POPC, FLO, BREV, PRMT, IABS (and their
// uniform forms). A result is affine in the block index where the operation keeps it so (sums,
// multiples by a value the same in every block, left shifts by such a count).

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {
namespace {

constexpr size_t kMaxLeaOperands = 8;

// Some of an instruction's operands, without allocating per lane.
class OperandList {
 public:
  void Add(const Operand* operand) { items_[size_++] = operand; }
  const Operand* at(size_t i) const {
    if (i >= size_) throw std::out_of_range("operand");  // Execute: fewer operands than read
    return items_[i];
  }
  const Operand* const* begin() const { return items_.data(); }
  const Operand* const* end() const { return items_.data() + size_; }

 private:
  std::array<const Operand*, kMaxLeaOperands> items_{};
  size_t size_ = 0;
};

// How LOP3's result depends on the block: as its one block-dependent source does when, in every bit
// from that source's steps' lowest set bit up, the table passes the source's bit through (given the
// other sources' bits there, which are the same in every block); the bits below are then the same in
// every block too, so the result moves exactly as the source does (an address merged from a
// block-dependent high part and a thread-dependent low part). NotAffine otherwise.
BlockDependence Lop3Dependence(const Value (&sources)[3], const Value& lut) {
  int moving = -1;
  for (int at = 0; at < 3; ++at)
    if (sources[at].block.any()) {
      if (moving >= 0) return NotAffine();
      moving = at;
    }
  if (moving < 0 || lut.block.any()) return {};
  const BlockDependence& block = sources[moving].block;
  const uint32_t steps = block.step[0] | block.step[1] | block.step[2];
  if (block.other || steps == 0) return NotAffine();
  for (int bit = __builtin_ctz(steps); bit < 32; ++bit) {
    uint32_t selector = 0;  // a in bit 2, b in bit 1, c in bit 0
    for (int at = 0; at < 3; ++at)
      if (at != moving) selector |= (sources[at].bits >> bit & 1u) << (2 - at);
    const uint32_t moving_bit = 1u << (2 - moving);
    if ((lut.bits >> selector & 1u) != 0 || (lut.bits >> (selector | moving_bit) & 1u) != 1)
      return NotAffine();
  }
  return block;
}

bool HasRelu(const Instruction& in) {
  return std::find(in.modifiers.begin(), in.modifiers.end(), "RELU") != in.modifiers.end();
}

}  // namespace

// BMSK d, a, b: b bits set from bit a (.W: a and b modulo 32; else each clamped to 32), SGXT d, a,
// b: a's low n bits sign-extended (.U32: zero-extended), n b modulo 32 (.W) or b clamped to 32, none
// kept where n is 0 (PTX's szext), and
// VIADDMNMX d, a, b, c, p: the minimum (p) or maximum of a + b and c (.U32: unsigned; .RELU: a
// signed result below 0 is 0, as PTX's viaddmax.s32.relu). Computed only in the forms the conformance
// vectors check, in either pass (the families are new to the emulator).
void LaunchEvaluator::MaskExtendOrAddMinMax(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  if (in.unchecked_form) return out.Add(ops.at(0), Unknown(Origin(index)));
  const Value a = Read(ops.at(1), lane, index), b = Read(ops.at(2), lane, index);
  if (in.info->semantics == Semantics::kBitMask) {
    const bool wrap = in.Is(mod::kW);
    const uint32_t from = wrap ? a.bits & 31u : std::min(a.bits, 32u);
    const uint32_t count = wrap ? b.bits & 31u : std::min(b.bits, 32u);
    const uint64_t mask = ((uint64_t{1} << count) - 1) << from;
    return out.Add(ops[0], From(static_cast<uint32_t>(mask), a, b));
  }
  if (in.info->semantics == Semantics::kSignExtend) {
    const uint32_t n = in.Is(mod::kW) ? b.bits & 31u : std::min(b.bits, 32u);
    if (n == 0 || n == 32) return out.Add(ops[0], From(n == 0 ? 0u : a.bits, a, b));
    const uint32_t kept = a.bits & ((1u << n) - 1u);
    const bool negative = !in.Is(mod::kU32) && ((a.bits >> (n - 1)) & 1u);
    return out.Add(ops[0], From(negative ? kept | ~((1u << n) - 1u) : kept, a, b));
  }
  static constexpr std::string_view kComputed[] = {"U32", "RELU"};
  const bool relu = HasRelu(in);
  if (!OnlyModifiers(in, kComputed) || (relu && in.Is(mod::kU32)))
    return out.Add(ops[0], Unknown(Origin(index)));
  const Value c = Read(ops.at(3), lane, index), p = ReadPredicate(ops.at(4), lane);
  const uint32_t sum = a.bits + b.bits;
  const bool sum_less = Compare(Test::kLess, in.Is(mod::kU32), sum, c.bits);
  const uint32_t chosen = (p.bits != 0) == sum_less ? sum : c.bits;
  out.Add(ops[0], From(relu && static_cast<int32_t>(chosen) < 0 ? 0u : chosen, a, b, c, p));
}

// VIMNMX3 d, a, b, c, p: the minimum (p) or maximum of three (.U32: unsigned), and VIMNMX d, a, b,
// p.RELU; .RELU makes a signed result below 0 0 (PTX's max.relu.s32, __vimax3_s32_relu). Computed
// only in the forms the conformance vectors check, in either pass.
void LaunchEvaluator::MinMaxOfThree(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  const bool three = in.base == "VIMNMX3", relu = HasRelu(in), is_unsigned = in.Is(mod::kU32);
  if (in.unchecked_form || (relu && is_unsigned)) return out.Add(ops.at(0), Unknown(Origin(index)));
  const Value a = Read(ops.at(1), lane, index), b = Read(ops.at(2), lane, index);
  const Value c = three ? Read(ops.at(3), lane, index) : b;
  const Value p = ReadPredicate(ops.at(three ? 4 : 3), lane);
  const auto pick = [&](uint32_t x, uint32_t y) {
    return (p.bits != 0) == Compare(Test::kLess, is_unsigned, x, y) ? x : y;
  };
  const uint32_t chosen = pick(pick(a.bits, b.bits), c.bits);
  out.Add(ops[0], From(relu && static_cast<int32_t>(chosen) < 0 ? 0u : chosen, a, b, c, p));
}

// I2I.U8.S32.SAT d, a: a clamped to 0..255 (PTX's cvt.sat.u8.s32). IDP.2A.<LO|HI>.<U16|S16>.<U8|S8>
// d, a, b, c: c plus a's two 16-bit halves times b's bytes 0 and 1 (.LO) or 2 and 3 (.HI), and
// IDP.4A.<U8|S8>.<U8|S8> c plus a's and b's four bytes' products (PTX's dp2a, dp4a), modulo 2^32.
// Any other I2I is unknown (I2I.S8.S32.SAT: ptxas reads only its low byte, through a PRMT, so no
// vector shows the others). Computed only in the forms the conformance vectors check, in either pass.
void LaunchEvaluator::NarrowOrDotProduct(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  const std::vector<std::string>& m = in.modifiers;
  if (in.unchecked_form) return out.Add(ops.at(0), Unknown(Origin(index)));
  const Value a = Read(ops.at(1), lane, index);
  if (in.base == "I2I") {
    if (m != std::vector<std::string>{"U8", "S32", "SAT"}) return out.Add(ops[0], Unknown(Origin(index)));
    return out.Add(ops[0], From(static_cast<uint32_t>(std::clamp(static_cast<int32_t>(a.bits), 0, 255)), a));
  }
  const bool two = m.size() == 4 && m[0] == "2A" && (m[1] == "LO" || m[1] == "HI");
  const bool four = m.size() == 3 && m[0] == "4A";
  const std::string a_type = two ? m[2] : four ? m[1] : "", b_type = two ? m[3] : four ? m[2] : "";
  const bool byte_b = b_type == "U8" || b_type == "S8";
  if (!byte_b || !(two ? a_type == "U16" || a_type == "S16" : four && (a_type == "U8" || a_type == "S8")))
    return out.Add(ops[0], Unknown(Origin(index)));
  const Value b = Read(ops.at(2), lane, index), c = Read(ops.at(3), lane, index);
  const auto element = [](uint32_t word, int at, int bits, bool is_signed) {
    const int64_t raw = (word >> (at * bits)) & ((1u << bits) - 1);
    return is_signed && (raw >> (bits - 1)) != 0 ? raw - (int64_t{1} << bits) : raw;
  };
  const int width = two ? 16 : 8, first = two && m[1] == "HI" ? 2 : 0;
  uint32_t sum = c.bits;
  for (int i = 0; i < (two ? 2 : 4); ++i)
    sum += static_cast<uint32_t>(element(a.bits, i, width, a_type[0] == 'S') *
                                 element(b.bits, first + i, 8, b_type[0] == 'S'));
  out.Add(ops[0], From(sum, a, b, c));
}

// IMAD (.WIDE, .HI, .X, with a carry out): a*b + c, affine in the block when at most one factor
// depends on it.
void LaunchEvaluator::MultiplyAdd(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  const bool is_unsigned = in.Is(mod::kU32);
  size_t next = 1;
  const Operand* carry_out = nullptr;
  if (ops.size() > 1 && IsPredicate(ops[1])) carry_out = &ops[next++];
  const Value a = Read(ops.at(next), lane, index);
  const Value b = Read(ops.at(next + 1), lane, index);
  const Operand& c_operand = ops.at(next + 2);
  Value carry_in = Known(0);
  if (in.Is(mod::kX) && ops.size() > next + 3) carry_in = ReadPredicate(ops[next + 3], lane);
  if (in.Is(mod::kWide | mod::kHi)) {
    uint64_t c_bits = 0;
    Value c = ReadPair(c_operand, lane, index, &c_bits);
    if (c_operand.negate) c_bits = 0 - c_bits;
    const uint64_t product = is_unsigned
                                 ? uint64_t{a.bits} * b.bits
                                 : static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(a.bits)) *
                                                         static_cast<int32_t>(b.bits));
    const uint64_t sum = product + c_bits;  // a*b + c, modulo 2^64
    const uint32_t carry = sum < product ? 1u : 0u;
    const Value inputs = From(0, a, b, c, carry_in);
    if (in.Is(mod::kHi)) {
      out.Add(ops[0], From(static_cast<uint32_t>(sum >> 32), inputs));  // the high word of a*b + c
    } else {
      // The low word is a*b + c's low word modulo 2^32: affine in the block as the 32-bit IMAD
      // (so a global address's sectors can be known the same in blocks counted together).
      const Value c_low = Read(c_operand, lane, index);
      BlockDependence block = NotAffine();
      if (!(a.block.any() && b.block.any()) && !carry_in.block.any())
        block = Plus(Plus(Times(a.block, b.bits), Times(b.block, a.bits)), c_low.block);
      out.Add(ops[0], Affine(static_cast<uint32_t>(sum), block, inputs));
      if (ops[0].index != ZeroRegister(ops[0].kind))
        out.Add(ops[0].kind, ops[0].index + 1, From(static_cast<uint32_t>(sum >> 32), inputs));
    }
    if (carry_out != nullptr) out.Add(*carry_out, From(carry, inputs));
    return;
  }
  const Value c = Read(c_operand, lane, index);
  const uint64_t sum = uint64_t{a.bits * b.bits} + c.bits + (carry_in.known() ? carry_in.bits : 0);
  // a*b + c is affine when at most one factor depends on the block.
  BlockDependence block = NotAffine();
  if (!(a.block.any() && b.block.any()) && !carry_in.block.any())
    block = Plus(Plus(Times(a.block, b.bits), Times(b.block, a.bits)), c.block);
  out.Add(ops[0], Affine(static_cast<uint32_t>(sum), block, a, b, c, carry_in));
  if (carry_out != nullptr)
    out.Add(*carry_out, From(static_cast<uint32_t>(sum >> 32) & 1u, a, b, c, carry_in));
}

// IADD3 (.X, up to two carries out): the sum of three terms, each negated or inverted as written.
void LaunchEvaluator::AddThree(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  size_t next = 1;
  std::array<const Operand*, 2> carry_outs{};
  size_t carry_count = 0;
  while (next < ops.size() && IsPredicate(ops[next]) && carry_count < carry_outs.size())
    carry_outs[carry_count++] = &ops[next++];
  Value inputs = Known(0);
  BlockDependence block;  // of the sum: the terms' steps, negated as the terms are
  uint64_t sum = 0;
  for (int term = 0; term < 3; ++term) {
    const Operand& operand = ops.at(next + term);
    const Value raw = ReadRaw(operand, lane, index);
    inputs = From(0, inputs, raw);
    uint64_t value = raw.bits;
    block = Plus(block, operand.negate || operand.invert ? Negated(raw.block) : raw.block);
    if (operand.negate) value = uint64_t{static_cast<uint32_t>(~raw.bits)} + 1;
    if (operand.invert) value = static_cast<uint32_t>(~raw.bits);
    sum += value;
  }
  for (size_t i = next + 3; i < ops.size(); ++i)
    if (IsPredicate(ops[i])) {
      const Value carry = ReadPredicate(ops[i], lane);
      inputs = From(0, inputs, carry);
      if (carry.block.any()) block = NotAffine();
      sum += carry.bits;
    }
  out.Add(ops[0], Affine(static_cast<uint32_t>(sum), block, inputs));
  for (size_t i = 0; i < carry_count; ++i)
    out.Add(*carry_outs[i], From(static_cast<uint32_t>(sum >> (32 + i)) & 1u, inputs));
}

// LEA and LEA.HI (.X, .SX32): (a << s) + b, or the high word of a 64-bit shift plus b.
void LaunchEvaluator::ShiftAdd(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  size_t next = 1;
  const Operand* carry_out = nullptr;
  if (IsPredicate(ops.at(1))) carry_out = &ops[next++];
  // At most a carry-out, four sources and a carry-in: more is not a LEA the emulator reads.
  if (ops.size() > kMaxLeaOperands) Stop(in, in.opcode + " has more operands than a LEA the emulator reads");
  OperandList sources, carries;
  for (size_t i = next; i < ops.size(); ++i) (IsPredicate(ops[i]) ? carries : sources).Add(&ops[i]);
  const Value a = Read(*sources.at(0), lane, index);
  const Value b = Read(*sources.at(1), lane, index);
  Value inputs = From(0, a, b);
  BlockDependence block = NotAffine();
  uint64_t shifted = 0;
  uint32_t shift = 0;
  if (in.Is(mod::kHi)) {
    Value c = Known(in.Is(mod::kSx32) ? static_cast<uint32_t>(static_cast<int32_t>(a.bits) >> 31) : 0);
    size_t shift_at = 2;
    if (!in.Is(mod::kSx32)) {
      c = Read(*sources.at(2), lane, index);
      shift_at = 3;
    }
    const Value s = Read(*sources.at(shift_at), lane, index);
    inputs = From(0, inputs, c, s);
    shift = s.bits & 63u;
    const uint64_t wide = (uint64_t{c.bits} << 32) | a.bits;
    shifted = shift == 0 ? c.bits : static_cast<uint32_t>((wide << shift) >> 32);
  } else {
    const Value s = Read(*sources.at(2), lane, index);
    inputs = From(0, inputs, s);
    shift = s.bits & 63u;
    shifted = shift >= 32 ? 0 : static_cast<uint32_t>(uint64_t{a.bits} << shift);
    // (a << s) + b with s the same in every block: affine.
    if (!s.block.any()) block = Plus(Times(a.block, shift >= 32 ? 0 : 1u << shift), b.block);
  }
  uint64_t sum = shifted + b.bits;
  if (in.Is(mod::kX))
    for (const Operand* carry : carries) {
      const Value bit = ReadPredicate(*carry, lane);
      inputs = From(0, inputs, bit);
      if (bit.block.any()) block = NotAffine();
      sum += bit.bits;
    }
  out.Add(ops[0], Affine(static_cast<uint32_t>(sum), block, inputs));
  if (carry_out != nullptr) out.Add(*carry_out, From(static_cast<uint32_t>(sum >> 32) & 1u, inputs));
}

// SHF.L/.R (.W, .HI, .U64/.S64/.S32): a funnel shift of high:low.
void LaunchEvaluator::FunnelShift(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  const Value low = Read(ops.at(1), lane, index), s = Read(ops.at(2), lane, index),
              high = Read(ops.at(3), lane, index);
  const bool wide = in.Is(mod::kU64 | mod::kS64);
  uint32_t shift = s.bits;
  if (in.Is(mod::kW)) {
    shift &= wide ? 63u : 31u;
  } else {
    shift = std::min<uint32_t>(shift, wide ? 64u : 32u);
  }
  const uint64_t value = (uint64_t{high.bits} << 32) | low.bits;
  uint64_t result = 0;
  if (in.Is(mod::kL)) {
    result = shift >= 64 ? 0 : value << shift;
  } else if (in.Is(mod::kS32 | mod::kS64)) {
    result = static_cast<uint64_t>(static_cast<int64_t>(value) >> std::min<uint32_t>(shift, 63));
  } else {
    result = shift >= 64 ? 0 : value >> shift;
  }
  // The low word of a left shift by a count the same in every block is low << count: affine.
  BlockDependence block = NotAffine();
  if (in.Is(mod::kL) && !in.Is(mod::kHi) && !s.block.any() && shift < 32)
    block = Times(low.block, 1u << shift);
  out.Add(ops[0],
          Affine(static_cast<uint32_t>(in.Is(mod::kHi) ? result >> 32 : result), block, low, s, high));
}

// LOP3.LUT (with a predicate out): any function of three inputs, by its truth table.
void LaunchEvaluator::LogicOp3(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  size_t next = 0;
  const Operand* predicate_out = nullptr;
  const Operand* register_out = nullptr;
  if (IsPredicate(ops.at(0))) {
    predicate_out = &ops[0];
    register_out = &ops.at(1);
    next = 2;
  } else if (IsPredicate(ops.at(1))) {
    register_out = &ops[0];
    predicate_out = &ops[1];
    next = 2;
  } else {
    register_out = &ops[0];
    next = 1;
  }
  const Value a = Read(ops.at(next), lane, index), b = Read(ops.at(next + 1), lane, index),
              c = Read(ops.at(next + 2), lane, index), lut = Read(ops.at(next + 3), lane, index);
  // Bit i of the result is bit (a_i b_i c_i) of the table: the union, over the table's set
  // bits, of the bits where a, b and c take that pattern.
  uint32_t result = 0;
  for (uint32_t selector = 0; selector < 8; ++selector)
    if (lut.bits >> selector & 1u)
      result |= (selector & 4u ? a.bits : ~a.bits) & (selector & 2u ? b.bits : ~b.bits) &
                (selector & 1u ? c.bits : ~c.bits);
  const Value sources[3] = {a, b, c};
  out.Add(*register_out, Affine(result, Lop3Dependence(sources, lut), a, b, c, lut));
  if (predicate_out != nullptr) out.Add(*predicate_out, From(result != 0 ? 1u : 0u, a, b, c, lut));
}

// Integer arithmetic, shifts and bit operations, with how each result depends on the block.
void LaunchEvaluator::Integer(const Instruction& in, size_t index, uint32_t mask) {
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    const std::vector<Operand>& ops = in.operands;
    const bool is_unsigned = in.Is(mod::kU32);
    switch (in.info->semantics) {
      case Semantics::kImad:
        return MultiplyAdd(in, index, lane, out);
      case Semantics::kIadd3:
        return AddThree(in, index, lane, out);
      case Semantics::kViadd: {
        const Value a = Read(ops.at(1), lane, index), b = Read(ops.at(2), lane, index);
        out.Add(ops[0], Affine(a.bits + b.bits, Plus(a.block, b.block), a, b));
        return;
      }
      case Semantics::kLea:
        return ShiftAdd(in, index, lane, out);
      case Semantics::kShf:
        return FunnelShift(in, index, lane, out);
      case Semantics::kLop3:
        return LogicOp3(in, index, lane, out);
      case Semantics::kMinMax: {
        // Signed or unsigned min/max; any other modifier is not computed, in either pass: no
        // handler reads it. The three-way VIMNMX3 and .RELU are new with the conformance vectors.
        static constexpr std::string_view kComputed[] = {"U32", "S32", "RELU"};
        if (!OnlyModifiers(in, kComputed)) return out.Add(ops[0], Unknown(Origin(index)));
        if (in.base == "VIMNMX3" || HasRelu(in)) return MinMaxOfThree(in, index, lane, out);
        const Value a = Read(ops.at(1), lane, index), b = Read(ops.at(2), lane, index);
        const Value p = ReadPredicate(ops.at(3), lane);
        const std::optional<bool> less = CompareInGroup(Test::kLess, is_unsigned, a, b);
        const bool a_less = less.value_or(Compare(Test::kLess, is_unsigned, a.bits, b.bits));
        const Value& chosen = (p.bits != 0) == a_less ? a : b;  // the minimum when p, else the maximum
        const BlockDependence block = less && !p.block.any() ? chosen.block : NotAffine();
        out.Add(ops[0], Affine(chosen.bits, block, a, b, p));
        return;
      }
      case Semantics::kPopc: {
        const Value a = Read(ops.at(1), lane, index);
        out.Add(ops[0], From(static_cast<uint32_t>(__builtin_popcount(a.bits)), a));
        return;
      }
      case Semantics::kFlo: {
        Value a = Read(ops.at(1), lane, index);
        uint32_t bits = a.bits;
        if (!is_unsigned && static_cast<int32_t>(bits) < 0) bits = ~bits;
        uint32_t position = bits == 0 ? 0xffffffffu : 31u - static_cast<uint32_t>(__builtin_clz(bits));
        if (in.Is(mod::kSh) && bits != 0) position = 31u - position;
        out.Add(ops[0], From(position, a));
        return;
      }
      case Semantics::kBitMask:
      case Semantics::kSignExtend:
      case Semantics::kAddMinMax:
        return MaskExtendOrAddMinMax(in, index, lane, out);
      case Semantics::kNarrow:
      case Semantics::kDotProduct:
        return NarrowOrDotProduct(in, index, lane, out);
      case Semantics::kAbs: {
        const Value a = Read(ops.at(1), lane, index);
        const uint32_t magnitude = static_cast<int32_t>(a.bits) < 0 ? 0u - a.bits : a.bits;
        out.Add(ops[0], From(magnitude, a));
        return;
      }
      case Semantics::kBrev: {
        const Value a = Read(ops.at(1), lane, index);
        uint32_t reversed = 0;
        for (int bit = 0; bit < 32; ++bit) reversed |= ((a.bits >> bit) & 1u) << (31 - bit);
        out.Add(ops[0], From(reversed, a));
        return;
      }
      case Semantics::kPrmt: {
        if (in.modifiers.size() > 0) {
          out.Add(ops[0], Unknown(Origin(index)));
          return;
        }
        const Value a = Read(ops.at(1), lane, index), selector = Read(ops.at(2), lane, index),
                    b = Read(ops.at(3), lane, index);
        const uint64_t bytes = (uint64_t{b.bits} << 32) | a.bits;
        uint32_t result = 0;
        for (int i = 0; i < 4; ++i) {
          const uint32_t nibble = (selector.bits >> (4 * i)) & 0xfu;
          uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (nibble & 7u))) & 0xffu;
          if (nibble & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
          result |= byte << (8 * i);
        }
        out.Add(ops[0], From(result, a, selector, b));
        return;
      }
      default:
        Stop(in, in.opcode + " reached the wrong handler (Integer)");
    }
  });
}

}  // namespace bankcheck::emulate::internal
