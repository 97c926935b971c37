// register_flow.h: the registers' flow through straight-line code and along every path.
#include "emulate/internal/register_flow.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <set>
#include <string_view>
#include <utility>

namespace bankcheck::emulate::internal {
namespace {

// Instructions walked for every reader of a value (AllReaders).
constexpr size_t kWalk = 4096;

// Registers source operand `k` of `in` may span (uniform ones too): a 64-bit address or operand a
// pair, a wide one four.
int SourceSpan(const Instruction& in, size_t k) {
  const Operand& op = in.operands[k];
  if (op.kind == OperandKind::kGlobalMemory) return 2;
  if (op.kind == OperandKind::kMemory) return in.info != nullptr && IsGeneric(in.info->memory) ? 2 : 1;
  if (op.kind != OperandKind::kRegister && op.kind != OperandKind::kUniformRegister) return 1;
  if (in.info != nullptr && in.info->semantics == Semantics::kReturn) return 2;  // the return address
  // F2I's .U64/.S64 is its destination's type: its source is a float, a pair only as .F64.
  if (in.base == "F2I") return in.Is(mod::kF64) ? 2 : 1;
  if ((in.base == "IMAD" || in.base == "UIMAD") && !in.Is(mod::kX))
    return in.Is(mod::kWide | mod::kHi) && k == 3 ? 2 : 1;
  if (in.Is(mod::k128)) return 4;
  if (in.Is(mod::kWide | mod::kHi | mod::k64 | mod::kF64 | mod::kU64 | mod::kS64))
    return std::max(2, int{in.decoded.width});
  return std::max(1, int{in.decoded.width});
}

// Whether operand `op`, spanning `span` registers, names register number `reg` (RegisterNumber's).
bool Covers(const Operand& op, int reg, int span) {
  if (op.kind == OperandKind::kRegister)
    return op.index != kRegisterZero && reg >= op.index && reg < op.index + span;
  if (op.kind == OperandKind::kUniformRegister)
    return op.index != kUniformRegisterZero && reg >= kUniform + op.index && reg < kUniform + op.index + span;
  return false;
}

// A guard as one bit: @P0-@P6 and @!P0-@!P6 bits 0-13 (predicate * 2 + negated), the uniform
// predicates' from kGuardBitsUniform on; no bit for none (@PT, @UPT).
constexpr int kGuardBitsUniform = 16;
uint32_t GuardBit(const Instruction& in) {
  if (in.guard == kPredicateTrue) return 0;
  return 1u << ((in.guard_uniform ? kGuardBitsUniform : 0) + in.guard * 2 + (in.guard_negated ? 1 : 0));
}

}  // namespace

int DestinationSpan(const Instruction& in) {
  if (in.Is(mod::k128)) return 4;
  if (in.Is(mod::kWide | mod::k64 | mod::kF64 | mod::kU64 | mod::kS64))
    return std::max(2, int{in.decoded.width});
  return std::max(1, int{in.decoded.width});
}

int Destinations(const Instruction& in) { return in.info == nullptr ? 0 : in.info->destinations; }

bool EndsStraightLine(const Instruction& in) {
  return StopsEmulation(in) || in.info->semantics == Semantics::kBranch ||
         in.info->semantics == Semantics::kExit || in.info->semantics == Semantics::kCall ||
         in.info->semantics == Semantics::kReturn;
}

bool MayWritePredicate(const Instruction& in, int p, bool uniform) {
  if (in.base == "R2P" || in.base == "P2R" || in.base == "R2UP" || in.base == "UP2UR" || in.base == "UR2UP")
    return true;
  const OperandKind kind = uniform ? OperandKind::kUniformPredicate : OperandKind::kPredicate;
  for (const Operand& op : in.operands)
    if (op.kind == kind && op.index == p) return true;
  return false;
}

namespace {

// Whether `in` may change the predicate of guard bit `bit` (GuardBit's).
bool MayWriteGuard(const Instruction& in, int bit) {
  return MayWritePredicate(in, bit % kGuardBitsUniform / 2, bit >= kGuardBitsUniform);
}

}  // namespace

bool MayRead(const Instruction& in, int reg) {
  if (StopsEmulation(in)) return true;
  const bool uniform = reg >= kUniform;
  for (size_t k = static_cast<size_t>(Destinations(in)); k < in.operands.size(); ++k) {
    const Operand& op = in.operands[k];
    if (Covers(op, reg, SourceSpan(in, k))) return true;
    if (op.kind == OperandKind::kOther && op.selected >= 0) {
      Operand selected;
      selected.kind = op.selected_uniform ? OperandKind::kUniformRegister : OperandKind::kRegister;
      selected.index = op.selected;
      if (Covers(selected, reg, 1)) return true;
      continue;
    }
    // The text of other operands (gdesc[...], desc[UR12] alone) is not read.
    if (uniform && op.kind == OperandKind::kOther) return true;
    if (op.kind != OperandKind::kMemory && op.kind != OperandKind::kGlobalMemory &&
        op.kind != OperandKind::kConstant)
      continue;
    Operand base;
    base.kind = op.base_uniform ? OperandKind::kUniformRegister : OperandKind::kRegister;
    base.index = op.base;
    if (op.base >= 0 && Covers(base, reg, op.base_uniform ? 2 : SourceSpan(in, k))) return true;
    base.kind = OperandKind::kUniformRegister;
    base.index = op.uniform_base;
    if (op.uniform_base >= 0 && Covers(base, reg, 2)) return true;
    base.index = op.descriptor;
    if (op.descriptor >= 0 && Covers(base, reg, 2)) return true;
  }
  return false;
}

int WrittenOperands(const Instruction& in) {
  int written = Destinations(in);
  const auto is = [&](size_t k, OperandKind a, OperandKind b) {
    return in.operands.size() > k && (in.operands[k].kind == a || in.operands[k].kind == b);
  };
  if (written == 1 && is(0, OperandKind::kPredicate, OperandKind::kUniformPredicate) &&
      is(1, OperandKind::kRegister, OperandKind::kUniformRegister))
    written = 2;
  return std::min(written, static_cast<int>(in.operands.size()));
}

bool MayWrite(const Instruction& in, int reg) {
  if (StopsEmulation(in)) return true;
  const int destinations = WrittenOperands(in);
  for (int k = 0; k < destinations; ++k) {
    if (Covers(in.operands[k], reg, DestinationSpan(in))) return true;
  }
  return false;
}

// Registers the first destination of `in` certainly spans (fewer than it may, never more): a pair
// or four for the loads that say so and IMAD.WIDE, a pair for CS2R (64 bits unless .32) and F2I to
// a 64-bit integer, else one.
int CertainDestinationSpan(const Instruction& in) {
  static constexpr std::string_view kLoads[] = {"LDC", "ULDC", "LDG", "LDS", "LDL", "LD"};
  if (std::find(std::begin(kLoads), std::end(kLoads), in.base) != std::end(kLoads))
    return in.Is(mod::k128) ? 4 : in.Is(mod::k64) ? 2 : 1;
  if ((in.base == "IMAD" || in.base == "UIMAD") && in.Is(mod::kWide)) return 2;
  if (in.base == "CS2R" && !in.Is(mod::k32)) return 2;
  // F2I's type is its destination's (cvt to u64/s64: a pair), as the 64-bit division's subroutine
  // writes its estimate.
  if (in.base == "F2I" && in.Is(mod::kU64 | mod::kS64)) return 2;
  return 1;
}

bool Defines(const Instruction& in, int reg) {
  if (StopsEmulation(in) || in.guard != kPredicateTrue) return false;
  // LOP3 writes its register after its predicate too (the evaluator's handler); other rows, only
  // the table's destinations, certainly.
  const int destinations = in.base == "LOP3"
                               ? WrittenOperands(in)
                               : std::min(Destinations(in), static_cast<int>(in.operands.size()));
  for (int k = 0; k < destinations; ++k) {
    const Operand& op = in.operands[k];
    const int span = k == 0 ? CertainDestinationSpan(in) : 1;
    if (!op.negate && !op.invert && !op.absolute && Covers(op, reg, span)) return true;
  }
  return false;
}

// The instructions that may run just before each: the one above unless it is an unguarded BRA,
// EXIT, CALL or RET or stops the evaluator, the branches and calls to it, and, after a call, every
// return (a return goes to the instruction after some call: the evaluator stops where it would go
// elsewhere). A branch whose target is not known leaves them unknown (indirect_).
RegisterFlow::RegisterFlow(const std::vector<Instruction>& code)
    : code_(code), target_(code.size(), false), predecessors_(code.size()) {
  std::vector<size_t> returns;
  for (size_t j = 0; j < code.size(); ++j) {
    const Instruction& in = code[j];
    if (in.target >= 0 && static_cast<size_t>(in.target) < code.size()) target_[in.target] = true;
    if (StopsEmulation(in)) continue;
    const bool guarded = in.guard != kPredicateTrue || in.guard_negated;
    bool falls_through = true;
    const Semantics semantics = in.info->semantics;
    if (semantics == Semantics::kBranch || semantics == Semantics::kCall) {
      if (in.target < 0 || static_cast<size_t>(in.target) >= code.size())
        indirect_ = true;
      else
        predecessors_[in.target].push_back(j);
      falls_through =
          guarded || (semantics == Semantics::kBranch && !in.modifiers.empty());  // BRA.DIV, BRA.U.ANY
    }
    if (semantics == Semantics::kCall && j + 1 < code.size()) return_sites_.push_back(j + 1);
    if (semantics == Semantics::kReturn) returns.push_back(j);
    if (semantics == Semantics::kExit || semantics == Semantics::kReturn) falls_through = guarded;
    if (falls_through && j + 1 < code.size()) predecessors_[j + 1].push_back(j);
  }
  for (const size_t site : return_sites_) {
    target_[site] = true;
    predecessors_[site].insert(predecessors_[site].end(), returns.begin(), returns.end());
  }
}

bool MayWriteOperand(const Instruction& in, const Operand& op) {
  if (op.kind == OperandKind::kRegister) return MayWrite(in, op.index);
  if (op.kind == OperandKind::kUniformRegister) return MayWrite(in, kUniform + op.index);
  if (op.kind == OperandKind::kConstant) return StopsEmulation(in) || op.base >= 0;
  return true;
}

bool RegisterFlow::ComesFrom(size_t at, size_t from, const std::vector<Operand>& operands) const {
  if (indirect_ || at == 0) return false;  // at 0 a path starts: the kernel's entry
  std::vector<size_t> pending = predecessors_[at];
  std::vector<bool> seen(code_.size(), false);
  size_t walked = 0;
  while (!pending.empty()) {
    const size_t j = pending.back();
    pending.pop_back();
    if (j == from || seen[j]) continue;
    seen[j] = true;
    if (++walked > kWalk || j == 0) return false;
    for (const Operand& op : operands)
      if (MayWriteOperand(code_[j], op)) return false;
    pending.insert(pending.end(), predecessors_[j].begin(), predecessors_[j].end());
  }
  return true;
}

std::optional<size_t> RegisterFlow::Definition(size_t at, int reg) const {
  if (target_[at]) return std::nullopt;  // a path may enter at `at` itself
  for (size_t j = at; j-- > 0;) {
    if (EndsStraightLine(code_[j])) return std::nullopt;
    if (MayWrite(code_[j], reg))
      return Defines(code_[j], reg) && RegisterNumber(code_[j].operands[0]) == reg ? std::optional<size_t>(j)
                                                                                   : std::nullopt;
    if (target_[j]) return std::nullopt;
  }
  return std::nullopt;
}

// The paths are followed through branches (both ways where guarded), into the functions calls
// enter and from each return to the instruction after every call (more paths than run, never
// fewer), each up to the register's next unguarded definition or an unguarded EXIT. A path ends too
// at an instruction the evaluator stops at (StopsEmulation: an opcode not in the table, a call out
// of the kernel): the launch is undecided there, so no value past it is ever reported. nullopt where a path
// leaves what can be followed (an indirect branch, a partial write) or the walk grows too long. A write under
// a guard (@!P1 IADD3 R6, ...) ends the value for the instructions under the same guard until the predicate
// may change.
std::optional<std::vector<size_t>> RegisterFlow::AllReaders(size_t def) const {
  return AllReaders(def, RegisterNumber(code_[def].operands[0]));
}

std::optional<std::vector<size_t>> RegisterFlow::AllReaders(size_t def, int reg) const {
  if (reg < 0) return std::nullopt;
  // A path's place and the guards (GuardBit's) under which the value was overwritten.
  std::vector<std::pair<size_t, uint32_t>> pending{{def + 1, 0}};
  std::set<std::pair<size_t, uint32_t>> seen;
  std::vector<size_t> readers;
  while (!pending.empty()) {
    const auto [j, overwritten] = pending.back();
    pending.pop_back();
    if (j >= code_.size()) return std::nullopt;  // past the last instruction
    if (!seen.insert({j, overwritten}).second) continue;
    if (seen.size() > kWalk) return std::nullopt;
    const Instruction& in = code_[j];
    if (StopsEmulation(in)) continue;  // no lane goes past it
    const uint32_t guard = GuardBit(in);
    if (MayRead(in, reg) && (overwritten & guard) == 0) readers.push_back(j);
    if (Defines(in, reg)) continue;
    if (MayWrite(in, reg) && guard == 0) return std::nullopt;  // a partial write
    uint32_t next = overwritten;
    for (int bit = 0; bit < 32; ++bit)
      if ((next >> bit & 1u) != 0 && MayWriteGuard(in, bit)) next = 0;
    if (guard != 0 && Destinations(in) >= 1 && !in.operands.empty() && RegisterNumber(in.operands[0]) == reg)
      next = guard | ImpliedGuards(j);
    if (in.info->semantics == Semantics::kExit) {
      if (guard != 0) pending.push_back({j + 1, next});
      continue;
    }
    if (in.info->semantics == Semantics::kBranch || in.info->semantics == Semantics::kCall) {
      if (in.target < 0) return std::nullopt;
      pending.push_back({static_cast<size_t>(in.target), next});
      const bool either_way = in.info->semantics == Semantics::kBranch && !in.modifiers.empty();  // BRA.DIV
      if (guard != 0 || either_way) pending.push_back({j + 1, next});
      continue;
    }
    if (in.info->semantics == Semantics::kReturn) {  // to the instruction after any call
      for (const size_t site : return_sites_) pending.push_back({site, next});
      if (guard != 0) pending.push_back({j + 1, next});
      continue;
    }
    pending.push_back({j + 1, next});
  }
  std::sort(readers.begin(), readers.end());
  readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  return readers;
}

// VOTEU.ALL UPx, Py makes UPx true only where Py holds in every lane that runs it: a lane that runs
// @!Py runs @!UPx too, while neither changes (straight-line code from the vote to `at`; the mask
// is cleared where either may be written after `at`).
uint32_t RegisterFlow::ImpliedGuards(size_t at) const {
  const Instruction& write = code_[at];
  if (!write.guard_uniform || !write.guard_negated || write.guard == kPredicateTrue) return 0;
  const int up = kGuardBitsUniform + write.guard * 2;
  for (size_t k = at; k-- > 0 && !target_[k + 1];) {
    const Instruction& in = code_[k];
    if (EndsStraightLine(in)) return 0;
    const auto is = [&](size_t n, OperandKind kind) {
      const Operand& op = in.operands[n];
      return op.kind == kind && !op.negate && !op.invert && op.index != kPredicateTrue;
    };
    if (in.base == "VOTEU" && in.modifiers.size() == 1 && in.modifiers[0] == "ALL" &&
        in.guard == kPredicateTrue && in.operands.size() == 2 && is(0, OperandKind::kUniformPredicate) &&
        in.operands[0].index == write.guard && is(1, OperandKind::kPredicate)) {
      const int p = in.operands[1].index * 2;
      for (size_t m = k + 1; m < at; ++m)
        if (MayWriteGuard(code_[m], p)) return 0;
      return 1u << (p + 1);
    }
    if (MayWriteGuard(in, up)) return 0;
  }
  return 0;
}

std::vector<size_t> RegisterFlow::SomeReaders(size_t def, size_t window) const {
  return SomeReadersOf(def, RegisterNumber(code_[def].operands[0]), window);
}

std::vector<size_t> RegisterFlow::SomeReadersOf(size_t def, int reg, size_t window) const {
  if (reg < 0) return {};
  std::vector<size_t> readers;
  for (size_t j = def + 1; j < code_.size() && j <= def + window; ++j) {
    const Instruction& in = code_[j];
    if (target_[j] || EndsStraightLine(in)) break;
    if (MayRead(in, reg)) readers.push_back(j);
    if (MayWrite(in, reg)) break;
  }
  return readers;
}

bool RegisterFlow::Unchanged(int reg, size_t from, size_t to) const {
  if (to < code_.size() && target_[to]) return false;  // a path may enter at `to` itself
  for (size_t j = from + 1; j < to; ++j)
    if (MayWrite(code_[j], reg) || target_[j] || EndsStraightLine(code_[j])) return false;
  return from < to;
}

bool RegisterFlow::Unchanged(const Operand& op, size_t from, size_t to) const {
  if (op.kind == OperandKind::kRegister) return Unchanged(op.index, from, to);
  if (to < code_.size() && target_[to]) return false;
  if (op.kind == OperandKind::kConstant) return op.base < 0 && from < to;
  if (op.kind != OperandKind::kUniformRegister) return false;
  for (size_t j = from + 1; j < to; ++j)
    if (target_[j] || EndsStraightLine(code_[j]) || MayWriteOperand(code_[j], op)) return false;
  return from < to;
}

}  // namespace bankcheck::emulate::internal
