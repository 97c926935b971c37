// ptxas's IEEE float division (div.rn.f32), recognised by following registers:
//
//   MUFU.RCP r, b
//   FCHK P, a, b                 (anywhere before the branch: P says the fast path may be inexact)
//   FFMA t1, -b, r, 1            (each product in either order)
//   FFMA t2, r, t1, r
//   FFMA t3, a, t2, RZ           (a a register, or the dividend as an immediate where it is constant)
//   FFMA t4, -b, t3, a
//   FFMA q, t2, t4, t3           (the fast path's quotient)
//   @!P BRA join
//   ... MOV ra, <pc after the call> ; CALL.REL.NOINC `($..._cuda_sm3x_div_rn_noftz_f32_slowpath) ; (MOV q,
//   result) join:                        (often BSYNC, after a BSSY before the sequence)
//
// with the subroutine ending in RET.REL.NODEC ra. Both paths leave the correctly rounded quotient
// in q at the join (the PTX ISA's div.rn.f32; the conformance vectors of form_fchk check it on the
// GPU's own edges). So where the skipped slow path does nothing the counts see (no memory
// instruction, barrier, warp-synchronous instruction or exit: only arithmetic, moves, branches
// within it and the subroutine's own convergence barriers), every lane may go straight to the join:
// the branch is decided, q holds a / b there, and whatever the slow path writes is unknown.
// Anything else, an instruction out of place or of another form included, is not recognised, and
// the branch stays undecided as FCHK's predicate is unknown.
#include "emulate/internal/float_division.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "emulate/internal/checked_forms.h"
#include "emulate/internal/float_bits.h"
#include "emulate/internal/register_flow.h"

namespace bankcheck::emulate::internal {
namespace {

// Instructions searched after each step of the fast path (straight-line code), and instructions
// walked in the slow path and its subroutine.
constexpr size_t kWindow = 64;
constexpr size_t kWalk = 4096;
constexpr uint32_t kOne = 0x3f800000u;  // 1.0f
constexpr std::string_view kSlowPath = "__cuda_sm3x_div_rn_noftz_f32_slowpath";

bool IsFfma(const Instruction& in) {
  return in.base == "FFMA" && in.modifiers.empty() && in.guard == kPredicateTrue && in.unreadable.empty() &&
         in.operands.size() == 4 && IsPlainRegister(in.operands[0]) && in.operands[0].index != kRegisterZero;
}

// Whether FFMA's product is of an operand `x` accepts and one `y` accepts, in either order.
template <typename X, typename Y>
bool Product(const Instruction& in, X&& x, Y&& y) {
  return (x(in.operands[1]) && y(in.operands[2])) || (y(in.operands[1]) && x(in.operands[2]));
}

bool IsNegated(const Operand& op, int reg) {
  return op.kind == OperandKind::kRegister && op.index == reg && op.negate && !op.invert && !op.absolute;
}

// The dividend as the sequence reads it: a register, or a float immediate where it is a constant.
bool IsDividend(const Operand& op) {
  if (op.kind == OperandKind::kImmediate) return op.is_float && !op.negate && !op.invert && !op.absolute;
  return IsPlainRegister(op) && op.index != kRegisterZero;
}

int Register(const Instruction& in) { return in.operands[0].index; }

// The families a skipped slow path may hold: they write registers and predicates only.
bool IsArithmetic(Semantics semantics) {
  switch (semantics) {
    case Semantics::kMove:
    case Semantics::kImad:
    case Semantics::kIadd3:
    case Semantics::kViadd:
    case Semantics::kLea:
    case Semantics::kShf:
    case Semantics::kLop3:
    case Semantics::kPlop3:
    case Semantics::kIsetp:
    case Semantics::kSel:
    case Semantics::kMinMax:
    case Semantics::kPopc:
    case Semantics::kFlo:
    case Semantics::kBrev:
    case Semantics::kPrmt:
    case Semantics::kAbs:
    case Semantics::kBitMask:
    case Semantics::kSignExtend:
    case Semantics::kAddMinMax:
    case Semantics::kHalfConstant:
    case Semantics::kHalfArithmetic:
    case Semantics::kIntToFloat:
    case Semantics::kFloatToInt:
    case Semantics::kSpecialFunction:
    case Semantics::kFloatAdd:
    case Semantics::kFloatMultiply:
    case Semantics::kFloatFma:
    case Semantics::kFloatMinMax:
    case Semantics::kFloatCompare:
    case Semantics::kRound:
    case Semantics::kData:
      return true;
    default:
      return false;
  }
}

// Marks what `in` may write: its destinations (a predicate first, as LOP3's, is followed by a
// register destination) and every predicate it names (carry-outs).
void MarkWrites(const Instruction& in, FloatDivision& division) {
  const int destinations = WrittenOperands(in);
  for (size_t k = 0; k < in.operands.size(); ++k) {
    const Operand& op = in.operands[k];
    if (op.kind == OperandKind::kPredicate && op.index < kPredicateTrue) division.predicates.set(op.index);
    if (op.kind == OperandKind::kUniformPredicate && op.index < kPredicateTrue)
      division.uniform_predicates.set(op.index);
    if (static_cast<int>(k) >= destinations) continue;
    for (int part = 0; part < DestinationSpan(in); ++part) {
      if (op.kind == OperandKind::kRegister && op.index + part < kRegisterZero)
        division.registers.set(op.index + part);
      if (op.kind == OperandKind::kUniformRegister && op.index + part < kUniformRegisterZero)
        division.uniform_registers.set(op.index + part);
    }
  }
}

class Matcher {
 public:
  explicit Matcher(const std::vector<Instruction>& code) : code_(code), flow_(code) {}

  std::optional<FloatDivision> Match(size_t branch) const {
    const Instruction& br = code_[branch];
    if (br.base != "BRA" || br.info == nullptr || !br.modifiers.empty() || !br.unreadable.empty() ||
        br.guard == kPredicateTrue || br.guard_uniform || !br.guard_negated || br.operands.size() != 1 ||
        br.target <= static_cast<int>(branch))
      return std::nullopt;
    const std::optional<size_t> check = Check(branch, br.guard);
    if (!check) return std::nullopt;
    // The reciprocal of FCHK's divisor, in the same straight-line code.
    for (size_t j = branch; j-- > 0 && !EndsStraightLine(code_[j]);) {
      const Instruction& rcp = code_[j];
      if (rcp.base == "MUFU" && rcp.modifiers.size() == 1 && rcp.Is(mod::kRcp) &&
          rcp.guard == kPredicateTrue && rcp.unreadable.empty() && rcp.operands.size() == 2 &&
          IsPlainRegister(rcp.operands[0]) &&
          IsPlainRegister(rcp.operands[1], code_[*check].operands[2].index))
        if (std::optional<FloatDivision> division = FastPath(j, *check, branch)) {
          division->join = static_cast<size_t>(br.target);
          if (SlowPath(branch, *division)) return division;
        }
      if (flow_.IsTarget(j)) break;
    }
    return std::nullopt;
  }

 private:
  // FCHK P, a, b: the last write of the branch's predicate P before it, in straight-line code.
  std::optional<size_t> Check(size_t branch, int p) const {
    for (size_t j = branch; j-- > 0;) {
      const Instruction& in = code_[j];
      if (EndsStraightLine(in)) return std::nullopt;
      if (MayWritePredicate(in, p)) {
        const bool check = in.base == "FCHK" && in.modifiers.empty() && in.guard == kPredicateTrue &&
                           in.unreadable.empty() && in.operands.size() == 3 &&
                           in.operands[0].kind == OperandKind::kPredicate && in.operands[0].index == p &&
                           IsDividend(in.operands[1]) && IsPlainRegister(in.operands[2]) &&
                           in.operands[2].index != kRegisterZero;
        return check ? std::optional<size_t>(j) : std::nullopt;
      }
      if (flow_.IsTarget(j)) return std::nullopt;
    }
    return std::nullopt;
  }

  // t1 ... q from the reciprocal at `rcp`; the quotient and the operands read at the branch.
  std::optional<FloatDivision> FastPath(size_t rcp, size_t check, size_t branch) const {
    const int r = Register(code_[rcp]), b = code_[rcp].operands[1].index;
    if (r == b || !flow_.Unchanged(b, std::min(rcp, check), branch)) return std::nullopt;
    const auto plain = [](int reg) { return [reg](const Operand& op) { return IsPlainRegister(op, reg); }; };
    const auto negated_b = [b](const Operand& op) { return IsNegated(op, b); };
    for (size_t t1 : flow_.SomeReaders(rcp, kWindow)) {
      const Instruction& i1 = code_[t1];
      if (!IsFfma(i1) || !Product(i1, negated_b, plain(r)) ||
          i1.operands[3].kind != OperandKind::kImmediate || i1.operands[3].value != kOne ||
          i1.operands[3].negate)
        continue;
      for (size_t t2 : flow_.SomeReaders(t1, kWindow)) {
        const Instruction& i2 = code_[t2];
        if (!IsFfma(i2) || !Product(i2, plain(r), plain(Register(i1))) ||
            !IsPlainRegister(i2.operands[3], r) || !flow_.Unchanged(r, rcp, t2))
          continue;
        for (size_t t3 : flow_.SomeReaders(t2, kWindow)) {
          const Instruction& i3 = code_[t3];
          if (!IsFfma(i3) || !Product(i3, IsDividend, plain(Register(i2))) || !IsZero(i3.operands[3]))
            continue;
          const Operand& a3 = IsPlainRegister(i3.operands[1], Register(i2)) ? i3.operands[2] : i3.operands[1];
          for (size_t t4 : flow_.SomeReaders(t3, kWindow)) {
            const Instruction& i4 = code_[t4];
            if (!IsFfma(i4) || !Product(i4, negated_b, plain(Register(i3))) || !IsDividend(i4.operands[3]))
              continue;
            for (size_t q : flow_.SomeReaders(t4, kWindow)) {
              const Instruction& iq = code_[q];
              if (!IsFfma(iq) || !Product(iq, plain(Register(i2)), plain(Register(i4))) ||
                  !IsPlainRegister(iq.operands[3], Register(i3)) || !flow_.Unchanged(Register(i2), t2, q) ||
                  !flow_.Unchanged(Register(i3), t3, q) || !flow_.Unchanged(Register(iq), q, branch))
                continue;
              FloatDivision division;
              division.quotient = Register(iq);
              division.check = check;
              const std::pair<const Operand*, size_t> dividends[] = {
                  {&code_[check].operands[1], check}, {&a3, t3}, {&i4.operands[3], t4}};
              bool readable = true;
              for (const auto& [op, at] : dividends) {
                readable = readable &&
                           (op->kind == OperandKind::kImmediate || flow_.Unchanged(op->index, at, branch));
                division.dividends.push_back(*op);
              }
              Operand divisor = code_[check].operands[2];
              division.divisors.push_back(divisor);
              // The intermediates the branch still finds: unknown at the join, as the slow path may write
              // them.
              for (size_t step : {rcp, t1, t2, t3, t4})
                if (Register(code_[step]) != division.quotient &&
                    flow_.Unchanged(Register(code_[step]), step, branch))
                  division.registers.set(Register(code_[step]));
              if (readable) return division;
            }
          }
        }
      }
    }
    return std::nullopt;
  }

  // Whether `in` may be skipped: it writes registers and predicates only (`subroutine`: the slow
  // path's subroutine, which may also use convergence barriers of its own).
  static bool Skippable(const Instruction& in, bool subroutine) {
    if (in.info == nullptr || !in.unreadable.empty() || in.info->memory != Memory::kNone) return false;
    const Semantics semantics = in.info->semantics;
    if (semantics == Semantics::kNop) return in.base == "NOP";
    if (semantics == Semantics::kBranch) return in.modifiers.empty() && in.target >= 0;
    if (semantics == Semantics::kSyncStart || semantics == Semantics::kSyncWait) return subroutine;
    return IsArithmetic(semantics) && (in.info->scope == Scope::kLane || in.info->scope == Scope::kUniform) &&
           in.base != "HMMA";
  }

  // The next instructions of a path through `in` at `at` (a branch: its target, and the next one
  // unless it is unconditional).
  static void Follow(const Instruction& in, size_t at, std::vector<size_t>& pending) {
    if (in.info != nullptr && in.info->semantics == Semantics::kBranch) {
      pending.push_back(static_cast<size_t>(in.target));
      const bool always = in.guard == kPredicateTrue && !in.guard_negated && in.operands.size() == 1;
      if (always) return;
    }
    pending.push_back(at + 1);
  }

  // The instructions between the branch and the join, on every path: skippable, with one call of
  // the slow-path subroutine.
  bool SlowPath(size_t branch, FloatDivision& division) const {
    const size_t join = division.join;
    std::vector<size_t> pending{branch + 1};
    std::set<size_t> seen;
    std::optional<size_t> call;
    while (!pending.empty()) {
      const size_t j = pending.back();
      pending.pop_back();
      if (j == join) continue;
      if (j <= branch || j > join) return false;
      if (!seen.insert(j).second) continue;
      if (seen.size() > kWalk) return false;
      const Instruction& in = code_[j];
      if (in.base == "CALL") {
        if (call || !IsFollowedCall(in) || in.guard != kPredicateTrue ||
            in.operands[0].text.size() < kSlowPath.size() ||
            in.operands[0].text.compare(in.operands[0].text.size() - kSlowPath.size(), kSlowPath.size(),
                                        kSlowPath) != 0)
          return false;
        call = j;
        pending.push_back(j + 1);
        continue;
      }
      if (!Skippable(in, false)) return false;
      MarkWrites(in, division);
      Follow(in, j, pending);
    }
    if (!call) return false;
    division.skipped.assign(seen.begin(), seen.end());
    division.call = *call;
    const Instruction& at_join = code_[join];
    division.join_converges = at_join.info != nullptr && at_join.info->semantics == Semantics::kSyncWait;
    return Subroutine(*call, division);
  }

  // The subroutine the slow path calls, every path up to a RET to the instruction after the call.
  bool Subroutine(size_t call, FloatDivision& division) const {
    std::vector<size_t> pending{static_cast<size_t>(code_[call].target)};
    std::set<size_t> seen;
    std::set<int> barriers;
    int return_register = -1;
    while (!pending.empty()) {
      const size_t j = pending.back();
      pending.pop_back();
      if (j >= code_.size() || j == call) return false;
      if (!seen.insert(j).second) continue;
      if (seen.size() > kWalk) return false;
      const Instruction& in = code_[j];
      if (in.base == "RET") {
        const int ra = in.guard == kPredicateTrue ? ReturnRegister(in) : -1;
        if (ra < 0 || (return_register >= 0 && ra != return_register)) return false;
        return_register = ra;
        continue;
      }
      if (in.base == "BREAK") {  // leaves a convergence barrier of the subroutine's
        if (!in.modifiers.empty() || in.operands.size() != 1 || in.operands[0].kind != OperandKind::kBarrier)
          return false;
        barriers.insert(in.operands[0].index);
        pending.push_back(j + 1);
        continue;
      }
      if (!Skippable(in, true)) return false;
      if (!in.operands.empty() && in.operands[0].kind == OperandKind::kBarrier)
        barriers.insert(in.operands[0].index);
      MarkWrites(in, division);
      Follow(in, j, pending);
    }
    division.skipped.insert(division.skipped.end(), seen.begin(), seen.end());
    // The join's convergence barrier is the caller's: the subroutine must leave it alone.
    const Instruction& at_join = code_[division.join];
    if (division.join_converges && !at_join.operands.empty() && barriers.count(at_join.operands[0].index))
      return false;
    // It returns to the instruction after the call: MOV ra, <its pc> before the call, ra kept.
    if (return_register < 0) return false;
    for (size_t j : seen)
      if (code_[j].info != nullptr && MayWrite(code_[j], return_register)) return false;
    const std::optional<size_t> set = flow_.Definition(call, return_register);
    if (!set || call + 1 >= code_.size()) return false;
    const Instruction& mov = code_[*set];
    return mov.base == "MOV" && mov.modifiers.empty() && mov.operands.size() == 2 &&
           mov.operands[1].kind == OperandKind::kImmediate && !mov.operands[1].negate &&
           mov.operands[1].value == code_[call + 1].pc;
  }

  const std::vector<Instruction>& code_;
  RegisterFlow flow_;
};

}  // namespace

void MarkFloatDivisions(std::vector<Instruction>& code) {
  const Matcher matcher(code);
  const bool computed = HasConformanceVectors("FCHK");
  std::vector<std::shared_ptr<const FloatDivision>> found(code.size());
  for (size_t i = 0; i < code.size(); ++i)
    if (std::optional<FloatDivision> division = matcher.Match(i)) {
      division->computed = computed;
      found[i] = std::make_shared<const FloatDivision>(std::move(*division));
    }
  for (size_t i = 0; i < code.size(); ++i) code[i].float_division = std::move(found[i]);
}

std::optional<uint32_t> FloatQuotient(uint32_t a, uint32_t b) {
  const float x = AsFloat(a), y = AsFloat(b);
  const float quotient = x / y;
  if (std::isnan(x) || std::isnan(y) || std::isnan(quotient)) return std::nullopt;
  return Bits32(quotient);
}

}  // namespace bankcheck::emulate::internal
