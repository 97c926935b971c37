// Which MUFU.RCP instructions are the reciprocal of ptxas's 32-bit integer division (div.u32,
// rem.u32, div.s32, rem.s32), recognised by following registers through the sequence:
//
//   I2F.U32.RP f, d          (signed: IABS d, x ; I2F.RP f, d)
//   MUFU.RCP r, f
//   VIADD a, r, 0xffffffe     (or IADD3 a, r, 0xffffffe, RZ)
//   F2I.FTZ.U32.TRUNC.NTZ q0, a
//   IMAD e, -d, q0, RZ        (or -q0, d: the negation by IADD3 or IMAD.MOV)
//   IMAD.HI.U32 q1, q0, e, q0-1      (the pair q0-1:q0, whose low word is 0: one Newton step)
//   IMAD.HI.U32 q, q1, n, RZ         (one or more quotients of the same divisor)
//   IADD3 t, -q, RZ, RZ ; IMAD m, d, t, n    (the remainder n - q*d; or IMAD m, q, -d, n)
//   ISETP.GE.U32 m, d / ISETP.GT.U32 d, m    (then up to two corrections of q and m)
//
// or, after F2I, on the uniform datapath (a uniform divisor; straight-line code only):
//
//   R2UR u, q0 ; UIMAD e, -d, u, URZ
//   UIMAD.WIDE.U32 (u-1:u), u, e, (u-1:u)    (u-1 zero before: u = q1, u-1 an unread low word)
//   UIMAD.WIDE.U32 (l:q), q1, n, URZ ; UIADD3 t, -q, URZ, URZ ; UIMAD m, d, t, n ; UISETP ...
//
// The Newton step and the two corrections make the quotient and remainder exact for any reciprocal
// within MUFU.RCP's error bound, so the correctly rounded reciprocal (what the evaluator computes
// for a marked MUFU.RCP) gives the GPU's quotient and remainder. The values before them (r, a +
// 0xffffffe, q0, -q0, u, e, q1, the low words, t) may differ from the GPU's: every reader of each, on every
// path, must be the sequence's next step. The instructions in between may be anything (ptxas interleaves
// divisions and unrelated work), so the matching follows registers within straight-line code, never
// fixed distances, except that a quotient may follow its Newton step past a branch target (the
// reciprocal computed before a loop, the quotient in it) where every path into it comes from the
// Newton step with q1 and the divisor unwritten; the divisor is the same value wherever the
// sequence reads it (the same operand unchanged, through copies, or IABS of the same value
// recomputed). In the signed form IABS makes d non-negative (or INT_MIN, whose reciprocal is a
// power of two and exact), so I2F.RP reads it as I2F.U32.RP would. Not checked: the corrections
// themselves past the first compare, and the readers of the estimate q and remainder m before them
// (the corrections read and rewrite them).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "emulate/internal/register_flow.h"

namespace bankcheck::emulate::internal {
namespace {

class Matcher {
 public:
  explicit Matcher(const std::vector<Instruction>& code) : code_(code), flow_(code) {}

  bool IsDivisionReciprocal(size_t at) const {
    const Instruction& rcp = code_[at];
    if (rcp.base != "MUFU" || rcp.modifiers.size() != 1 || !rcp.Is(mod::kRcp) ||
        rcp.guard != kPredicateTrue || rcp.operands.size() != 2 || !IsPlainRegister(rcp.operands[0]) ||
        !IsPlainRegister(rcp.operands[1]))
      return false;
    const std::optional<size_t> convert = flow_.Definition(at, rcp.operands[1].index);
    if (!convert || !IsRoundedUpConversion(*convert)) return false;
    const std::optional<std::vector<size_t>> adds = flow_.AllReaders(at);
    if (!adds || adds->empty()) return false;
    for (size_t add : *adds) {
      if (!IsReciprocalAdjustment(code_[add], rcp.operands[0].index)) return false;
      const std::optional<std::vector<size_t>> truncations = flow_.AllReaders(add);
      if (!truncations || truncations->empty()) return false;
      for (size_t truncation : *truncations)
        if (!IsTruncation(code_[truncation], code_[add].operands[0].index) ||
            !(HasNewtonStep(truncation, *convert) || HasUniformNewtonStep(truncation, *convert)))
          return false;
    }
    return true;
  }

 private:
  // I2F.U32.RP f, d; or I2F.RP f, d where d is IABS's result.
  bool IsRoundedUpConversion(size_t at) const {
    const Instruction& in = code_[at];
    if (in.base != "I2F" || !in.Is(mod::kRp) || in.guard != kPredicateTrue || in.operands.size() != 2)
      return false;
    for (const std::string& modifier : in.modifiers)
      if (modifier != "RP" && modifier != "U32" && modifier != "S32") return false;
    const Operand& d = in.operands[1];
    if (d.negate || d.invert || d.absolute) return false;
    if (in.Is(mod::kU32))
      return d.kind == OperandKind::kRegister || d.kind == OperandKind::kUniformRegister ||
             d.kind == OperandKind::kConstant;
    if (!IsPlainRegister(d)) return false;
    const std::optional<size_t> abs = flow_.Definition(at, d.index);
    return abs && code_[*abs].base == "IABS" && code_[*abs].modifiers.empty() &&
           code_[*abs].operands.size() == 2;
  }

  static bool IsReciprocalAdjustment(const Instruction& in, int reciprocal) {
    const bool form =
        (in.base == "VIADD" && in.modifiers.empty() && in.operands.size() == 3) ||
        (in.base == "IADD3" && in.modifiers.empty() && in.operands.size() == 4 && IsZero(in.operands[3]));
    return form && in.guard == kPredicateTrue && IsPlainRegister(in.operands[0]) &&
           IsPlainRegister(in.operands[1], reciprocal) && in.operands[2].kind == OperandKind::kImmediate &&
           !in.operands[2].negate && in.operands[2].value == 0xffffffe;
  }

  static bool IsTruncation(const Instruction& in, int adjusted) {
    return in.base == "F2I" && in.Is(mod::kU32) && in.Is(mod::kTrunc) &&
           !in.Is(mod::kF64 | mod::kU64 | mod::kS64) && in.guard == kPredicateTrue &&
           in.operands.size() == 2 && IsPlainRegister(in.operands[0]) &&
           IsPlainRegister(in.operands[1], adjusted);
  }

  // The operand `in` negates (IADD3 t, RZ, -x, RZ in any order; IMAD.MOV t, RZ, RZ, -x), or nullptr.
  static const Operand* NegatedOperand(const Instruction& in) {
    if (in.guard != kPredicateTrue || in.operands.size() != 4 || !IsPlainRegister(in.operands[0]))
      return nullptr;
    const bool move = in.base == "IMAD" && in.Is(mod::kU32 | mod::kS32) == (in.modifiers.size() == 2) &&
                      !in.modifiers.empty() && in.modifiers.size() <= 2 && in.modifiers[0] == "MOV";
    if (!move && (in.base != "IADD3" || !in.modifiers.empty())) return nullptr;
    const Operand* negated = nullptr;
    int zeros = 0;
    for (size_t k = 1; k < 4; ++k) {
      const Operand& op = in.operands[k];
      if (IsZero(op))
        ++zeros;
      else if (op.negate && !op.invert && !op.absolute && op.index != kRegisterZero &&
               (op.kind == OperandKind::kRegister || op.kind == OperandKind::kUniformRegister) &&
               (!move || k == 3))
        negated = &op;
    }
    return zeros == 2 ? negated : nullptr;
  }

  // The register `in` negates, or -1.
  static int Negated(const Instruction& in) {
    const Operand* op = NegatedOperand(in);
    return op != nullptr && op->kind == OperandKind::kRegister ? op->index : -1;
  }

  // Whether `in` writes zero to its first operand: the low word of the Newton step's addend.
  static bool WritesZero(const Instruction& in) {
    const auto& ops = in.operands;
    if (in.guard != kPredicateTrue) return false;
    if (in.base == "MOV" && in.modifiers.empty() && ops.size() == 2) return IsZero(ops[1]);
    if (in.base == "IMAD" && in.modifiers.size() == 2 && in.modifiers[0] == "MOV" && in.Is(mod::kU32) &&
        ops.size() == 4)
      return IsZero(ops[3]) && IsZero(ops[1]);
    if (in.base == "HFMA2" && in.modifiers.size() == 1 && in.modifiers[0] == "MMA" && ops.size() == 5)
      return ops[1].kind == OperandKind::kRegister && ops[1].index == kRegisterZero && IsZero(ops[2]) &&
             ops[3].kind == OperandKind::kImmediate && ops[3].value == 0 &&
             ops[4].kind == OperandKind::kImmediate && ops[4].value == 0;
    return false;
  }

  static bool SameOperand(const Operand& a, const Operand& b) {
    return a.kind == b.kind && a.index == b.index && a.value == b.value && a.bank == b.bank &&
           a.base == b.base && !a.negate && !b.negate && !a.invert && !b.invert && !a.absolute && !b.absolute;
  }

  // The operand whose value `op` holds where `at` reads it, through copies (MOV, IMAD.MOV.U32 x, RZ,
  // RZ, y), and where that operand is read.
  std::pair<size_t, Operand> Copied(size_t at, Operand op) const {
    for (int copies = 0; copies < 4 && IsPlainRegister(op); ++copies) {
      const std::optional<size_t> def = flow_.Definition(at, op.index);
      if (!def) break;
      const Instruction& in = code_[*def];
      const bool move = in.base == "MOV" && in.modifiers.empty() && in.operands.size() == 2;
      const bool imad = in.base == "IMAD" && in.modifiers.size() == 2 && in.modifiers[0] == "MOV" &&
                        in.Is(mod::kU32) && in.operands.size() == 4 && IsZero(in.operands[1]) &&
                        IsZero(in.operands[2]);
      const Operand& source = in.operands.back();
      if ((!move && !imad) || source.negate || source.invert || source.absolute ||
          (source.kind != OperandKind::kRegister && source.kind != OperandKind::kUniformRegister &&
           source.kind != OperandKind::kConstant))
        break;
      at = *def;
      op = source;
    }
    return {at, op};
  }

  // Whether operand `a` read at `at_a` and operand `b` read at `at_b` hold the same value: the same
  // operand unchanged in between, through copies, or IABS of the same value (straight-line code).
  bool SameValue(size_t at_a, const Operand& a, size_t at_b, const Operand& b, int depth = 0) const {
    const auto [from, x] = Copied(at_a, a);
    const auto [to, y] = Copied(at_b, b);
    if (SameOperand(x, y) &&
        (from == to || (from < to ? flow_.Unchanged(x, from, to) : flow_.Unchanged(x, to, from))))
      return true;
    if (depth > 0 || !IsPlainRegister(x) || !IsPlainRegister(y)) return false;
    const std::optional<size_t> abs_x = flow_.Definition(from, x.index);
    const std::optional<size_t> abs_y = flow_.Definition(to, y.index);
    const auto is_abs = [&](const std::optional<size_t>& at) {
      return at && code_[*at].base == "IABS" && code_[*at].modifiers.empty() &&
             code_[*at].operands.size() == 2;
    };
    return is_abs(abs_x) && is_abs(abs_y) &&
           SameValue(*abs_x, code_[*abs_x].operands[1], *abs_y, code_[*abs_y].operands[1], depth + 1);
  }

  // Whether every reader of what `def` writes is among `sequence` (its value may differ from the
  // GPU's: no instruction outside the division may see it).
  bool ReadOnlyBy(size_t def, const std::vector<size_t>& sequence) const {
    return ReadOnlyBy(def, RegisterNumber(code_[def].operands[0]), sequence);
  }

  // The same for register number `reg` that `def` writes.
  bool ReadOnlyBy(size_t def, int reg, const std::vector<size_t>& sequence) const {
    const std::optional<std::vector<size_t>> readers = flow_.AllReaders(def, reg);
    return readers && std::all_of(readers->begin(), readers->end(), [&](size_t reader) {
             return std::find(sequence.begin(), sequence.end(), reader) != sequence.end();
           });
  }

  // The instruction that negates register `reg` into operand `op` read at `at` (after `def`, the
  // register's value unchanged from `def`), or nullopt.
  std::optional<size_t> NegationOf(size_t at, const Operand& op, int reg, size_t def) const {
    if (!IsPlainRegister(op)) return std::nullopt;
    const std::optional<size_t> negation = flow_.Definition(at, op.index);
    if (negation && *negation > def && Negated(code_[*negation]) == reg &&
        flow_.Unchanged(reg, def, *negation))
      return negation;
    return std::nullopt;
  }

  // Whether the divisor `d` (operand 1 of I2F at `convert`), or its negation, is operand `op` of
  // instruction `at`: in straight-line code, through copies and a recomputed IABS; or, given the
  // Newton step, d's operand itself read after it (a quotient in a loop), unchanged on every path.
  bool IsDivisor(size_t at, const Operand& op, size_t convert, bool negated,
                 std::optional<size_t> newton = std::nullopt) const {
    const Operand& d = code_[convert].operands[1];
    const auto is_d = [&](size_t read_at, const Operand& x) {
      if (SameValue(read_at, x, convert, d)) return true;
      const auto [from, y] = Copied(read_at, x);
      return newton && *newton < from && SameOperand(y, d) && flow_.Unchanged(d, convert, *newton) &&
             flow_.ComesFrom(from, *newton, {y});
    };
    if (!negated) return is_d(at, op);
    const auto [read_at, copied] = Copied(at, op);
    if (!IsPlainRegister(copied)) return false;
    const std::optional<size_t> negation = flow_.Definition(read_at, copied.index);
    if (!negation || NegatedOperand(code_[*negation]) == nullptr) return false;
    Operand plain = *NegatedOperand(code_[*negation]);
    plain.negate = false;
    return is_d(*negation, plain);
  }

  // q1 = IMAD.HI.U32 q0, e, (q0-1:q0) with e = -d * q0; q0, its negation, e and q1 read only by the
  // sequence, q1 by its quotients (IsQuotient), one at least.
  bool HasNewtonStep(size_t truncation, size_t convert) const {
    const int q0 = code_[truncation].operands[0].index;
    for (size_t step : flow_.SomeReaders(truncation)) {
      const Instruction& in = code_[step];
      if (in.base != "IMAD" || !in.Is(mod::kHi) || !in.Is(mod::kU32) || in.modifiers.size() != 2 ||
          in.guard != kPredicateTrue || in.operands.size() != 4 || !IsPlainRegister(in.operands[0]) ||
          !IsPlainRegister(in.operands[1], q0) || !IsPlainRegister(in.operands[2]) ||
          !IsPlainRegister(in.operands[3], q0 - 1))
        continue;
      const std::optional<size_t> error = flow_.Definition(step, in.operands[2].index);
      const std::optional<size_t> low = flow_.Definition(step, q0 - 1);
      if (!error || !low || !WritesZero(code_[*low])) continue;
      const Instruction& e = code_[*error];
      if (e.base != "IMAD" || !e.modifiers.empty() || e.guard != kPredicateTrue || e.operands.size() != 4 ||
          !IsZero(e.operands[3]) || *error < truncation)
        continue;
      // e = (-d) * q0 or d * (-q0), either order; the sequence's instructions that read q0.
      std::vector<size_t> reads_q0;
      for (size_t k = 1; k < 3 && reads_q0.empty(); ++k) {
        const Operand& other = e.operands[3 - k];
        if (IsDivisor(*error, e.operands[k], convert, true) && IsPlainRegister(other, q0) &&
            flow_.Unchanged(q0, truncation, *error))
          reads_q0 = {step, *error};
        const std::optional<size_t> negation = NegationOf(*error, other, q0, truncation);
        if (reads_q0.empty() && IsDivisor(*error, e.operands[k], convert, false) && negation &&
            ReadOnlyBy(*negation, {*error}))
          reads_q0 = {step, *negation};
      }
      if (reads_q0.empty() || !ReadOnlyBy(truncation, reads_q0) || !ReadOnlyBy(*error, {step})) continue;
      const std::optional<std::vector<size_t>> quotients = flow_.AllReaders(step);
      if (quotients && !quotients->empty() &&
          std::all_of(quotients->begin(), quotients->end(),
                      [&](size_t quotient) { return IsQuotient(quotient, step, convert); }))
        return true;
    }
    return false;
  }

  // q = IMAD.HI.U32 q1, n, RZ (q1 the Newton step's, unchanged since in straight-line code, or on
  // every path into it: a reciprocal computed before a loop, the quotient in it); then the remainder m = n -
  // q*d, as t = -q, IMAD t, d, n (t read by nothing else), or as IMAD q, -d, n; then m compared with d.
  bool IsQuotient(size_t at, size_t newton, size_t convert) const {
    const Instruction& in = code_[at];
    const int q1 = code_[newton].operands[0].index;
    if (in.base != "IMAD" || !in.Is(mod::kHi) || !in.Is(mod::kU32) || in.modifiers.size() != 2 ||
        in.guard != kPredicateTrue || in.operands.size() != 4 || !IsPlainRegister(in.operands[0]) ||
        !IsZero(in.operands[3]) ||
        !(flow_.Unchanged(q1, newton, at) ||
          (newton < at && flow_.ComesFrom(at, newton, {code_[newton].operands[0]}))))
      return false;
    const int k = IsPlainRegister(in.operands[1], q1) ? 2 : IsPlainRegister(in.operands[2], q1) ? 1 : 0;
    if (k == 0) return false;
    const Operand& numerator = in.operands[k];
    const int q = in.operands[0].index;
    for (size_t negation : flow_.SomeReaders(at)) {
      if (Negated(code_[negation]) != q) continue;
      for (size_t remainder : flow_.SomeReaders(negation))
        if (IsRemainder(remainder, code_[negation].operands[0].index, false, numerator, at, convert,
                        newton) &&
            ReadOnlyBy(negation, {remainder}))
          return true;
    }
    for (size_t remainder : flow_.SomeReaders(at))
      if (IsRemainder(remainder, q, true, numerator, at, convert, newton)) return true;
    return false;
  }

  // IMAD m, x, D, n (either order of the products) with x register `x`, D the divisor (its negation
  // where `negated`), n the quotient's `numerator` unchanged since `quotient`; then an unsigned
  // compare of m with the divisor (the corrections' first: m >= d, or d > m).
  bool IsRemainder(size_t at, int x, bool negated, const Operand& numerator, size_t quotient, size_t convert,
                   size_t newton) const {
    const Instruction& m = code_[at];
    if (m.base != "IMAD" || !m.modifiers.empty() || m.guard != kPredicateTrue || m.operands.size() != 4 ||
        !IsPlainRegister(m.operands[0]) || !SameValue(quotient, numerator, at, m.operands[3]))
      return false;
    const int k = IsPlainRegister(m.operands[1], x) ? 2 : IsPlainRegister(m.operands[2], x) ? 1 : 0;
    if (k == 0 || !IsDivisor(at, m.operands[k], convert, negated, newton)) return false;
    return HasCompare(at, RegisterNumber(m.operands[0]), convert, "ISETP", newton);
  }

  // An unsigned compare (`base`: ISETP, UISETP) of the remainder, register number `m` that `at`
  // writes, with the divisor: m >= d or d > m (the corrections' first).
  bool HasCompare(size_t at, int m, size_t convert, const std::string& base,
                  std::optional<size_t> newton) const {
    for (size_t compare : flow_.SomeReadersOf(at, m)) {
      const Instruction& c = code_[compare];
      if (c.base != base || !c.Is(mod::kU32) || c.guard != kPredicateTrue || c.operands.size() != 5) continue;
      if (c.Is(mod::kGe) && RegisterNumber(c.operands[2]) == m &&
          IsDivisor(compare, c.operands[3], convert, false, newton))
        return true;
      if (c.Is(mod::kGt) && RegisterNumber(c.operands[3]) == m &&
          IsDivisor(compare, c.operands[2], convert, false, newton))
        return true;
    }
    return false;
  }

  // The same division on the uniform datapath (FlashInfer's norm kernels, a uniform divisor):
  //   R2UR u, q0 ; UIMAD e, -d, u, URZ ; UIMAD.WIDE.U32 (u-1:u), u, e, (z:u) with z = 0 (u-1 left
  //   holding the low word, q1 in u) ; then IsUniformQuotient. u, e and the low word read by the
  //   sequence alone, q1 by its quotients (straight-line code).
  bool HasUniformNewtonStep(size_t truncation, size_t convert) const {
    const int q0 = code_[truncation].operands[0].index;
    for (size_t move : flow_.SomeReaders(truncation)) {
      const Instruction& r2ur = code_[move];
      const int u = r2ur.operands.empty() ? -1 : RegisterNumber(r2ur.operands[0]);
      if (r2ur.base != "R2UR" || !r2ur.modifiers.empty() || r2ur.guard != kPredicateTrue ||
          r2ur.operands.size() != 2 || u <= kUniform || (u - kUniform) % 2 != 1 ||
          !IsPlainRegister(r2ur.operands[1], q0) || !ReadOnlyBy(truncation, {move}))
        continue;
      for (size_t step : flow_.SomeReaders(move)) {
        const Instruction& in = code_[step];
        if (in.base != "UIMAD" || in.modifiers.size() != 2 || !in.Is(mod::kWide) || !in.Is(mod::kU32) ||
            in.guard != kPredicateTrue || in.operands.size() != 4 ||
            RegisterNumber(in.operands[0]) != u - 1 || RegisterNumber(in.operands[1]) != u ||
            RegisterNumber(in.operands[2]) <= kUniform || RegisterNumber(in.operands[3]) != u - 1)
          continue;
        const std::optional<size_t> low = flow_.Definition(step, u - 1);
        const std::optional<size_t> error = flow_.Definition(step, RegisterNumber(in.operands[2]));
        if (!low || !WritesUniformZero(code_[*low]) || !error || *error < move) continue;
        const Instruction& e = code_[*error];
        if (e.base != "UIMAD" || !e.modifiers.empty() || e.guard != kPredicateTrue ||
            e.operands.size() != 4 || RegisterNumber(e.operands[3]) != kUniform + kUniformRegisterZero)
          continue;
        bool product = false;
        for (size_t k = 1; k < 3; ++k)
          product = product || (RegisterNumber(e.operands[3 - k]) == u && flow_.Unchanged(u, move, *error) &&
                                IsUniformNegatedDivisor(*error, e.operands[k], convert));
        if (!product || !ReadOnlyBy(move, {*error, step}) || !ReadOnlyBy(*error, {step}) ||
            !ReadOnlyBy(step, u - 1, {}))
          continue;
        const std::optional<std::vector<size_t>> quotients = flow_.AllReaders(step, u);
        if (quotients && !quotients->empty() &&
            std::all_of(quotients->begin(), quotients->end(),
                        [&](size_t quotient) { return IsUniformQuotient(quotient, step, u, convert); }))
          return true;
      }
    }
    return false;
  }

  // UMOV x, URZ (or 0x0): the low word of the uniform Newton step's addend.
  static bool WritesUniformZero(const Instruction& in) {
    return in.base == "UMOV" && in.modifiers.empty() && in.guard == kPredicateTrue &&
           in.operands.size() == 2 &&
           (RegisterNumber(in.operands[1]) == kUniform + kUniformRegisterZero ||
            (in.operands[1].kind == OperandKind::kImmediate && in.operands[1].value == 0 &&
             !in.operands[1].negate));
  }

  // The operand UIADD3 t, URZ, -x, URZ (any order) negates, or nullptr.
  static const Operand* UniformNegatedOperand(const Instruction& in) {
    if (in.base != "UIADD3" || !in.modifiers.empty() || in.guard != kPredicateTrue ||
        in.operands.size() != 4 || RegisterNumber(in.operands[0]) <= kUniform)
      return nullptr;
    const Operand* negated = nullptr;
    int zeros = 0;
    for (size_t k = 1; k < 4; ++k) {
      const Operand& op = in.operands[k];
      if (RegisterNumber(op) == kUniform + kUniformRegisterZero)
        ++zeros;
      else if (op.kind == OperandKind::kUniformRegister && op.negate && !op.invert && !op.absolute &&
               op.index != kUniformRegisterZero)
        negated = &op;
    }
    return zeros == 2 ? negated : nullptr;
  }

  // Whether uniform operand `op` of `at` holds -d, d the divisor I2F at `convert` reads.
  bool IsUniformNegatedDivisor(size_t at, const Operand& op, size_t convert) const {
    const int reg = RegisterNumber(op);
    const std::optional<size_t> negation = reg > kUniform ? flow_.Definition(at, reg) : std::nullopt;
    const Operand* negated = negation ? UniformNegatedOperand(code_[*negation]) : nullptr;
    if (negated == nullptr) return false;
    Operand plain = *negated;
    plain.negate = false;
    return SameValue(*negation, plain, convert, code_[convert].operands[1]);
  }

  // q = the high word of UIMAD.WIDE.U32 (l:q), q1, n, URZ (q1 unchanged since the Newton step, the
  // low word l read by nothing); t = -q (UIADD3, read by the remainder alone); UIMAD m, d, t, n
  // (either order of the products); then UISETP.GE.U32 m, d or UISETP.GT.U32 d, m.
  bool IsUniformQuotient(size_t at, size_t newton, int q1, size_t convert) const {
    const Instruction& in = code_[at];
    if (in.base != "UIMAD" || in.modifiers.size() != 2 || !in.Is(mod::kWide) || !in.Is(mod::kU32) ||
        in.guard != kPredicateTrue || in.operands.size() != 4 || RegisterNumber(in.operands[0]) < kUniform ||
        RegisterNumber(in.operands[3]) != kUniform + kUniformRegisterZero || !flow_.Unchanged(q1, newton, at))
      return false;
    const int k = RegisterNumber(in.operands[1]) == q1 ? 2 : RegisterNumber(in.operands[2]) == q1 ? 1 : 0;
    const int low = RegisterNumber(in.operands[0]);
    if (k == 0 || !ReadOnlyBy(at, low, {})) return false;
    const Operand& numerator = in.operands[k];
    for (size_t negation : flow_.SomeReadersOf(at, low + 1)) {
      const Operand* negated = UniformNegatedOperand(code_[negation]);
      if (negated == nullptr || kUniform + negated->index != low + 1) continue;
      const int t = RegisterNumber(code_[negation].operands[0]);
      for (size_t remainder : flow_.SomeReaders(negation)) {
        const Instruction& m = code_[remainder];
        if (m.base != "UIMAD" || !m.modifiers.empty() || m.guard != kPredicateTrue ||
            m.operands.size() != 4 || RegisterNumber(m.operands[0]) <= kUniform ||
            !SameValue(at, numerator, remainder, m.operands[3]) || !ReadOnlyBy(negation, {remainder}))
          continue;
        const int j = RegisterNumber(m.operands[1]) == t ? 2 : RegisterNumber(m.operands[2]) == t ? 1 : 0;
        if (j != 0 && IsDivisor(remainder, m.operands[j], convert, false) &&
            HasCompare(remainder, RegisterNumber(m.operands[0]), convert, "UISETP", std::nullopt))
          return true;
      }
    }
    return false;
  }

  const std::vector<Instruction>& code_;
  RegisterFlow flow_;
};

}  // namespace

void MarkDivisionReciprocals(std::vector<Instruction>& code) {
  const Matcher matcher(code);
  std::vector<bool> marked(code.size(), false);
  for (size_t i = 0; i < code.size(); ++i) marked[i] = matcher.IsDivisionReciprocal(i);
  for (size_t i = 0; i < code.size(); ++i) code[i].division_reciprocal = marked[i];
}

}  // namespace bankcheck::emulate::internal
