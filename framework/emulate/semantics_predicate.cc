// The predicate handlers: ISETP, PLOP3, SEL/FSEL, R2P, P2R, and the warp's collectives that read its
// lanes together: the votes (VOTE, VOTEU), the reductions (REDUX) and the matches (MATCH.ANY).

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {

// Comparisons, predicate logic and selections.
void LaunchEvaluator::Predicates(const Instruction& in, size_t index, uint32_t mask) {
  // FSEL selects floats: what an immediate (a float nvdisasm may write as an integer) or a -, |x|
  // or ~ on a source gives, SEL's reading or another, no GPU vector says, so those are unknown.
  const auto float_modified = [](const Operand& operand) {
    return operand.kind == OperandKind::kImmediate || operand.negate || operand.absolute || operand.invert;
  };
  const bool unknown_selection = in.info->semantics == Semantics::kSel && in.base == "FSEL" &&
                                 (float_modified(in.operands.at(1)) || float_modified(in.operands.at(2)));
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    const std::vector<Operand>& ops = in.operands;
    switch (in.info->semantics) {
      case Semantics::kPlop3: {
        const Value a = ReadPredicate(ops.at(2), lane), b = ReadPredicate(ops.at(3), lane),
                    c = ReadPredicate(ops.at(4), lane);
        const uint32_t selector = (a.bits << 2) | (b.bits << 1) | c.bits;
        const uint32_t lut1 = static_cast<uint32_t>(ops.at(5).value),
                       lut2 = static_cast<uint32_t>(ops.at(6).value);
        out.Add(ops[0], From((lut1 >> selector) & 1u, a, b, c));
        out.Add(ops[1], From((lut2 >> selector) & 1u, a, b, c));
        return;
      }
      case Semantics::kIsetp:
        Isetp(in, index, lane, out);
        return;
      case Semantics::kSel: {
        if (unknown_selection) return out.Add(ops[0], Unknown(Origin(index)));
        const Value a = Read(ops.at(1), lane, index), b = Read(ops.at(2), lane, index);
        const Value p = ReadPredicate(ops.at(3), lane);
        if (!p.known()) {
          out.Add(ops[0], p);
          return;
        }
        Value chosen = p.bits ? a : b;
        if (p.block.any()) chosen.block = NotAffine();
        out.Add(ops[0], chosen);
        return;
      }
      case Semantics::kRegisterToPredicates: {
        if (ops.size() != 3 || ops[0].text != "PR" || ops[1].kind != OperandKind::kRegister ||
            ops[2].kind != OperandKind::kImmediate)
          Stop(in, in.opcode + " is a form the emulator does not understand");
        const Value a = Read(ops[1], lane, index);
        for (int bit = 0; bit < kPredicateTrue; ++bit)
          if (ops[2].value >> bit & 1u) out.Add(OperandKind::kPredicate, bit, From((a.bits >> bit) & 1u, a));
        return;
      }
      case Semantics::kPredicatesToRegister:
        PredicatesToRegister(in, index, lane, out);
        return;
      default:
        Stop(in, in.opcode + " reached the wrong handler (Predicates)");
    }
  });
}

// P2R d, PR, a, mask: bit i of d is P<i> (P0 to P6) where mask has bit i, else a's bit i. ptxas
// writes it to spill a predicate (P2R R6, PR, RZ, 0x40, read back by ISETP.NE). A mask reaching bit 7
// (PT's place) and the byte forms (P2R.B1 ...: not in checked_forms.def) are unknown, in either
// pass: no vector says what they give.
void LaunchEvaluator::PredicatesToRegister(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  if (ops.size() != 4 || ops[1].text != "PR" || ops[2].kind != OperandKind::kRegister ||
      ops[3].kind != OperandKind::kImmediate)
    Stop(in, in.opcode + " is a form the emulator does not understand");
  const uint32_t mask = static_cast<uint32_t>(ops[3].value);
  if (in.unchecked_form || mask > 0x7fu) return out.Add(ops[0], Unknown(Origin(index)));
  const Value a = Read(ops[2], lane, index);
  Value inputs = a;
  uint32_t predicates = 0;
  Operand predicate;
  predicate.kind = OperandKind::kPredicate;
  for (predicate.index = 0; predicate.index < kPredicateTrue; ++predicate.index) {
    if (!(mask >> predicate.index & 1u)) continue;
    const Value p = ReadPredicate(predicate, lane);
    inputs = From(0, inputs, p);
    predicates |= (p.bits & 1u) << predicate.index;
  }
  out.Add(ops[0], From(PackPredicates(predicates, a.bits, mask), inputs));
}

// ISETP d, q, a, b, c: d = (a test b) combined with c, q = !(a test b) combined with c.
void LaunchEvaluator::Isetp(const Instruction& in, size_t index, int lane, Writes& out) {
  const std::vector<Operand>& ops = in.operands;
  const bool is_unsigned = in.Is(mod::kU32);
  const Value a = Read(ops.at(2), lane, index), b = Read(ops.at(3), lane, index);
  const Value c = ReadPredicate(ops.at(4), lane);
  const Test kind = in.decoded.test;
  if (kind == Test::kNone) Stop(in, "the comparison of " + in.Where() + " is not understood");
  const auto combine = [&](bool t) {
    if (in.Is(mod::kAnd)) return t && c.bits;
    if (in.Is(mod::kOr)) return t || c.bits;
    return static_cast<bool>(t != static_cast<bool>(c.bits));  // XOR
  };
  if (in.Is(mod::kEx)) {
    // The high words of a 64-bit compare (ISETP.<test>.EX d, q, a_hi, b_hi, c, low): `low` is
    // the low words' unsigned result of the same test. The second destination is not computed
    // (no GPU vector checks it).
    if (kind == Test::kTrue || kind == Test::kFalse) {
      out.AddUnknown(in, 2, 1, Origin(index));
      return;
    }
    const Value low = ReadPredicate(ops.at(5), lane);
    const bool equal = a.bits == b.bits;
    bool test = false;
    if (kind == Test::kEqual)
      test = equal && low.bits;
    else if (kind == Test::kNotEqual)
      test = !equal || low.bits;
    else
      test = Compare(kind == Test::kLess || kind == Test::kLessOrEqual ? Test::kLess : Test::kGreater,
                     is_unsigned, a.bits, b.bits) ||
             (equal && low.bits);
    out.Add(ops[0], From(combine(test) ? 1u : 0u, a, b, c, low));
    out.Add(ops[1], Unknown(Origin(index)));
    return;
  }
  // Kleene's logic: an unknown comparison ANDed with a false predicate is false, ORed with a
  // true one true, whatever the comparison would give (both destinations).
  if ((!a.known() || !b.known()) && c.known() && (in.Is(mod::kAnd) || in.Is(mod::kOr)) &&
      static_cast<bool>(c.bits) == in.Is(mod::kOr)) {
    out.Add(ops[0], From(c.bits, c));
    out.Add(ops[1], From(c.bits, c));
    return;
  }
  const std::optional<bool> outcome = CompareInGroup(kind, is_unsigned, a, b);
  if (a.known() && b.known() && !c.known() && (in.Is(mod::kAnd) || in.Is(mod::kOr))) {
    // And a known comparison decides each destination it dominates; the other stays unknown.
    const bool test = outcome.value_or(Compare(kind, is_unsigned, a.bits, b.bits));
    const BlockDependence block = outcome ? BlockDependence{} : NotAffine();
    const bool dominating = in.Is(mod::kOr);
    out.Add(ops[0], test == dominating ? Affine(test ? 1u : 0u, block, a, b) : c);
    out.Add(ops[1], !test == dominating ? Affine(!test ? 1u : 0u, block, a, b) : c);
    return;
  }
  const bool test = outcome.value_or(Compare(kind, is_unsigned, a.bits, b.bits));
  // The same in every block of the group unless the comparison or c could not be followed.
  const BlockDependence block = outcome ? c.block : NotAffine();
  out.Add(ops[0], Affine(combine(test) ? 1u : 0u, block, a, b, c));
  out.Add(ops[1], Affine(combine(!test) ? 1u : 0u, block, a, b, c));
}

void LaunchEvaluator::Vote(const Instruction& in, size_t /*index*/, uint32_t mask) {
  // VOTE.ANY/ALL/EQ Rd, Pd, Ps: Rd the ballot of Ps over the lanes that run it, Pd the vote;
  // VOTE.ALL Pd, Ps and VOTEU.ALL UPd, Ps (no ballot register) as VOTE.ALL RZ, Pd, Ps.
  std::vector<Operand> three;
  if (in.operands.size() == 2) {
    three = {Operand{}, in.operands[0], in.operands[1]};
    three[0].kind = in.info->uniform() ? OperandKind::kUniformRegister : OperandKind::kRegister;
    three[0].index = in.info->uniform() ? kUniformRegisterZero : kRegisterZero;
  }
  const std::vector<Operand>& ops = three.empty() ? in.operands : three;
  uint32_t ballot = 0, voters = 0;
  Value inputs = Known(0);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const Value guard = Guard(in, lane);
    inputs = From(0, inputs, guard);
    if (guard.known() && !guard.bits) continue;
    const Value p = ReadPredicate(ops.at(2), lane);
    inputs = From(0, inputs, p);
    voters |= 1u << lane;
    if (p.bits) ballot |= 1u << lane;
  }
  bool vote = false;
  if (in.Is(mod::kAny))
    vote = ballot != 0;
  else if (in.Is(mod::kAll))
    vote = ballot == voters;
  else if (in.Is(mod::kEq))
    vote = ballot == 0 || ballot == voters;
  else
    Stop(in, in.opcode + " is a vote the emulator does not understand");
  const Value register_value = From(ballot, inputs), predicate_value = From(vote ? 1u : 0u, inputs);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!in.info->uniform() && !(voters >> lane & 1u)) continue;
    Writes writes(*warp_, lane, WriteGuard(Known(1)));
    writes.Add(ops.at(0), register_value);
    writes.Add(ops.at(1), predicate_value);
    if (in.info->uniform()) return;  // once for the warp
  }
}

std::optional<uint32_t> WarpReduce(const Instruction& in, const uint32_t* values, uint32_t lanes) {
  // One operation, and S32 only with MIN and MAX (SUM.S32 is SUM: a sum modulo 2^32 has no sign).
  const mod::Bits operation = in.decoded.bits & (mod::kSum | mod::kMin | mod::kMax | mod::kOr | mod::kXor);
  const mod::Bits known = operation | (in.decoded.bits & mod::kS32);
  if (lanes == 0 || mod::CountOf(operation) > 1 ||
      static_cast<size_t>(mod::CountOf(known)) != in.modifiers.size() ||
      (in.Is(mod::kS32) && !in.Is(mod::kSum | mod::kMin | mod::kMax)))
    return std::nullopt;
  const bool is_signed = in.Is(mod::kS32);
  const auto less = [is_signed](uint32_t x, uint32_t y) {
    return is_signed ? static_cast<int32_t>(x) < static_cast<int32_t>(y) : x < y;
  };
  std::optional<uint32_t> result;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    const uint32_t x = values[lane];
    if (!result)
      result = x;
    else if (in.Is(mod::kSum))
      *result += x;
    else if (in.Is(mod::kMin))
      *result = less(x, *result) ? x : *result;
    else if (in.Is(mod::kMax))
      *result = less(*result, x) ? x : *result;
    else if (in.Is(mod::kOr))
      *result |= x;
    else if (in.Is(mod::kXor))
      *result ^= x;
    else
      *result &= x;
  }
  return result;
}

void LaunchEvaluator::WarpReduction(const Instruction& in, size_t index, uint32_t mask) {
  // REDUX d, a: d, a uniform register, the reduction of a over the lanes that run it. Those are
  // redux.sync's members only where the warp's last WARPSYNC named exactly them in every lane, or,
  // with no WARPSYNC before it, where they are the whole warp (nvcc writes none for a full mask).
  // Else unknown: after a WARPSYNC.EXCLUSIVE of different masks (CUB's logical warps of 16) each
  // group reduces alone into its own value, which one uniform register cannot hold. Computed only
  // in the forms the conformance vectors check, in either pass (a family new to the emulator); a
  // guarded REDUX, which no vector checks (which lanes would join it?), is unknown.
  const std::vector<Operand>& ops = in.operands;
  Writes writes(*warp_, mask != 0 ? __builtin_ctz(mask) : 0, WriteGuard(Known(1)));
  const uint64_t members = warp_->sync_members == kNoWarpSync ? 0xffffffffu : warp_->sync_members;
  if (in.unchecked_form || in.guard != kPredicateTrue || in.guard_negated || mask == 0 || members != mask)
    return writes.Add(ops.at(0), Unknown(Origin(index)));
  std::array<uint32_t, kWarpSize> values{};
  Value inputs = Known(0);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const Value a = Read(ops.at(1), lane, index);
    inputs = From(0, inputs, a);
    values[lane] = a.bits;
  }
  const std::optional<uint32_t> result = WarpReduce(in, values.data(), mask);
  if (!result) Stop(in, in.opcode + " is a reduction the emulator does not understand");
  writes.Add(ops[0], From(*result, inputs));
}

uint32_t MatchAny(const uint64_t* values, uint32_t lanes, int lane) {
  uint32_t matching = 0;
  for (int other = 0; other < kWarpSize; ++other)
    if ((lanes >> other & 1u) && values[other] == values[lane]) matching |= 1u << other;
  return matching;
}

void LaunchEvaluator::WarpMatch(const Instruction& in, size_t index, uint32_t mask) {
  // MATCH.ANY d, a (.U64: a the pair a, a+1): in each lane that runs it, the mask of those lanes
  // whose a equals its own. Its members are those lanes as REDUX's are (WarpReduction): the mask the
  // warp's last WARPSYNC read, or the whole warp without one; else, guarded, or a form no vector
  // checks, unknown in either pass.
  const std::vector<Operand>& ops = in.operands;
  // MATCH.ALL writes a predicate besides the mask, which the table's one destination misses.
  if (!in.Is(mod::kAny)) Stop(in, in.opcode + " is a form the emulator does not understand");
  const uint64_t members = warp_->sync_members == kNoWarpSync ? 0xffffffffu : warp_->sync_members;
  const bool computed = !in.unchecked_form && in.guard == kPredicateTrue && !in.guard_negated && mask != 0 &&
                        members == mask && ops.size() == 2 && IsRegister(ops[1]);
  std::array<uint64_t, kWarpSize> values{};
  Value inputs = Known(0);
  for (int lane = 0; computed && lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    uint64_t bits = 0;
    const Value a = in.Is(mod::kU64) ? ReadPair(ops[1], lane, index, &bits) : Read(ops[1], lane, index);
    values[lane] = in.Is(mod::kU64) ? bits : a.bits;
    inputs = From(0, inputs, a);
  }
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    Writes writes(*warp_, lane, WriteGuard(Known(1)));
    writes.Add(ops.at(0),
               computed ? From(MatchAny(values.data(), mask, lane), inputs) : Unknown(Origin(index)));
  }
}

}  // namespace bankcheck::emulate::internal
