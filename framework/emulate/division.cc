// Which MUFU.RCP instructions are the reciprocal of ptxas's 32-bit integer division (div.u32,
// rem.u32, div.s32, rem.s32), recognised by following registers through the sequence:
//
//   I2F.U32.RP f, d          (signed: IABS d, x ; I2F.RP f, d)
//   MUFU.RCP r, f
//   VIADD a, r, 0xffffffe     (or IADD3 a, r, 0xffffffe, RZ)
//   F2I.FTZ.U32.TRUNC.NTZ q0, a
//   IMAD e, -d, q0, RZ        (or -q0, d: the negation by IADD3 or IMAD.MOV)
//   IMAD.HI.U32 q1, q0, e, q0-1      (the pair q0-1:q0, whose low word is 0: one Newton step)
//   IMAD.HI.U32 q, q1, n, RZ
//   IADD3 t, -q, RZ, RZ ; IMAD m, d, t, n    (the remainder n - q*d)
//   ISETP.GE.U32 / ISETP.GT.U32 on m      (then up to two corrections of q and m)
//
// The Newton step and the two corrections make the quotient and remainder exact for any reciprocal
// within MUFU.RCP's error bound, so the correctly rounded reciprocal (what the evaluator computes
// for a marked MUFU.RCP) gives the GPU's quotient and remainder. The instructions in between may
// be anything (ptxas interleaves divisions and unrelated work), so the matching follows registers
// within straight-line code, never fixed distances. The reciprocal itself and a + 0xffffffe may
// differ from the GPU's: they must have no reader outside the sequence. In the signed form IABS
// makes d non-negative (or INT_MIN, whose reciprocal is a power of two and exact), so I2F.RP reads
// it as I2F.U32.RP would.
#include <algorithm>
#include <optional>
#include <string>
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
            !HasNewtonStep(truncation, *convert))
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

  // Whether operand `op` of instruction `at` is the value of register `reg` that `def` wrote, or
  // its negation (negated true).
  bool IsValueOf(size_t at, const Operand& op, int reg, size_t def, bool negated) const {
    if (!IsPlainRegister(op)) return false;
    if (!negated) return op.index == reg && flow_.Unchanged(reg, def, at);
    const std::optional<size_t> negation = flow_.Definition(at, op.index);
    return negation && *negation > def && Negated(code_[*negation]) == reg &&
           flow_.Unchanged(reg, def, *negation);
  }

  // Whether the divisor `d` (operand 1 of I2F at `convert`), or its negation, is operand `op` of
  // instruction `at`.
  bool IsDivisor(size_t at, const Operand& op, size_t convert, bool negated) const {
    const Operand& d = code_[convert].operands[1];
    size_t read_at = at;
    const Operand* divisor = &op;
    if (negated) {
      if (!IsPlainRegister(op)) return false;
      const std::optional<size_t> negation = flow_.Definition(at, op.index);
      if (!negation || NegatedOperand(code_[*negation]) == nullptr) return false;
      read_at = *negation;
      divisor = NegatedOperand(code_[*negation]);
    }
    Operand plain = *divisor;
    plain.negate = false;
    // The same value where I2F reads it and where the product does (ptxas may negate it first).
    const bool same =
        read_at > convert ? flow_.Unchanged(d, convert, read_at) : flow_.Unchanged(d, read_at, convert);
    return (negated || !divisor->negate) && SameOperand(plain, d) && same;
  }

  // q1 = IMAD.HI.U32 q0, e, (q0-1:q0) with e = -d * q0, then a quotient from q1 (HasQuotient).
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
      bool product = false;
      for (int negate_divisor = 0; negate_divisor < 2; ++negate_divisor)
        for (size_t k = 1; k < 3; ++k)
          product = product || (IsDivisor(*error, e.operands[k], convert, negate_divisor != 0) &&
                                IsValueOf(*error, e.operands[3 - k], q0, truncation, negate_divisor == 0));
      if (product && HasQuotient(step)) return true;
    }
    return false;
  }

  // q = IMAD.HI.U32 q1, n, RZ; t = -q; m = IMAD t, d, n (either order of the products); and an
  // unsigned compare of m (the corrections' first).
  bool HasQuotient(size_t newton) const {
    const int q1 = code_[newton].operands[0].index;
    for (size_t at : flow_.SomeReaders(newton)) {
      const Instruction& in = code_[at];
      if (in.base != "IMAD" || !in.Is(mod::kHi) || !in.Is(mod::kU32) || in.modifiers.size() != 2 ||
          in.guard != kPredicateTrue || in.operands.size() != 4 || !IsPlainRegister(in.operands[0]) ||
          !IsZero(in.operands[3]))
        continue;
      const int k = IsPlainRegister(in.operands[1], q1) ? 2 : IsPlainRegister(in.operands[2], q1) ? 1 : 0;
      if (k == 0) continue;
      const Operand& numerator = in.operands[k];
      for (size_t negation : flow_.SomeReaders(at)) {
        if (Negated(code_[negation]) != in.operands[0].index) continue;
        for (size_t remainder : flow_.SomeReaders(negation)) {
          const Instruction& m = code_[remainder];
          if (m.base != "IMAD" || !m.modifiers.empty() || m.guard != kPredicateTrue ||
              m.operands.size() != 4 || !IsPlainRegister(m.operands[0]) ||
              !SameOperand(m.operands[3], numerator) ||
              (numerator.kind == OperandKind::kRegister && !flow_.Unchanged(numerator.index, at, remainder)))
            continue;
          if (!IsPlainRegister(m.operands[1], code_[negation].operands[0].index) &&
              !IsPlainRegister(m.operands[2], code_[negation].operands[0].index))
            continue;
          for (size_t compare : flow_.SomeReaders(remainder))
            if (code_[compare].base == "ISETP" && code_[compare].Is(mod::kU32) &&
                (code_[compare].Is(mod::kGe) || code_[compare].Is(mod::kGt)))
              return true;
        }
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
