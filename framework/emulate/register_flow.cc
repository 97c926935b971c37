// register_flow.h: the registers' flow through straight-line code and along every path.
#include "emulate/internal/register_flow.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <string_view>
#include <utility>

namespace bankcheck::emulate::internal {
namespace {

// Instructions walked for every reader of a value (AllReaders).
constexpr size_t kWalk = 4096;

// Registers source operand `k` of `in` may span: a 64-bit address or operand a pair, a wide one four.
int SourceSpan(const Instruction& in, size_t k) {
  const Operand& op = in.operands[k];
  if (op.kind == OperandKind::kGlobalMemory) return 2;
  if (op.kind == OperandKind::kMemory) return in.info != nullptr && IsGeneric(in.info->memory) ? 2 : 1;
  if (op.kind != OperandKind::kRegister) return 1;
  if (in.base == "IMAD" && !in.Is(mod::kX)) return in.Is(mod::kWide | mod::kHi) && k == 3 ? 2 : 1;
  if (in.Is(mod::k128)) return 4;
  if (in.Is(mod::kWide | mod::kHi | mod::k64 | mod::kF64 | mod::kU64 | mod::kS64))
    return std::max(2, int{in.decoded.width});
  return std::max(1, int{in.decoded.width});
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
         in.info->semantics == Semantics::kExit;
}

bool MayWritePredicate(const Instruction& in, int p) {
  if (in.base == "R2P" || in.base == "P2R") return true;
  for (const Operand& op : in.operands)
    if (op.kind == OperandKind::kPredicate && op.index == p) return true;
  return false;
}

bool MayRead(const Instruction& in, int reg) {
  if (StopsEmulation(in)) return true;
  for (size_t k = static_cast<size_t>(Destinations(in)); k < in.operands.size(); ++k) {
    const Operand& op = in.operands[k];
    int base = -1;
    if (op.kind == OperandKind::kRegister) base = op.index;
    if ((op.kind == OperandKind::kMemory || op.kind == OperandKind::kGlobalMemory ||
         op.kind == OperandKind::kConstant) &&
        !op.base_uniform)
      base = op.base;
    if (base >= 0 && base != kRegisterZero && reg >= base && reg < base + SourceSpan(in, k)) return true;
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
    const Operand& op = in.operands[k];
    if (op.kind == OperandKind::kRegister && reg >= op.index && reg < op.index + DestinationSpan(in))
      return true;
  }
  return false;
}

// Registers the first destination of `in` certainly spans (fewer than it may, never more): a pair
// or four for the loads that say so and IMAD.WIDE, a pair for CS2R (64 bits unless .32), else one.
int CertainDestinationSpan(const Instruction& in) {
  static constexpr std::string_view kLoads[] = {"LDC", "LDG", "LDS", "LDL", "LD"};
  if (std::find(std::begin(kLoads), std::end(kLoads), in.base) != std::end(kLoads))
    return in.Is(mod::k128) ? 4 : in.Is(mod::k64) ? 2 : 1;
  if (in.base == "IMAD" && in.Is(mod::kWide)) return 2;
  if (in.base == "CS2R" && !in.Is(mod::k32)) return 2;
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
    if (IsPlainRegister(op) && op.index != kRegisterZero && reg >= op.index && reg < op.index + span)
      return true;
  }
  return false;
}

// The instructions that may run just before each: the one above unless it is an unguarded BRA or
// EXIT or stops the evaluator, and the branches to it. A branch whose target is not known leaves
// them unknown (indirect_).
RegisterFlow::RegisterFlow(const std::vector<Instruction>& code)
    : code_(code), target_(code.size(), false), predecessors_(code.size()) {
  for (size_t j = 0; j < code.size(); ++j) {
    const Instruction& in = code[j];
    if (in.target >= 0 && static_cast<size_t>(in.target) < code.size()) target_[in.target] = true;
    if (StopsEmulation(in)) continue;
    const bool guarded = in.guard != kPredicateTrue || in.guard_negated;
    bool falls_through = true;
    if (in.info->semantics == Semantics::kBranch) {
      if (in.target < 0 || static_cast<size_t>(in.target) >= code.size())
        indirect_ = true;
      else
        predecessors_[in.target].push_back(j);
      falls_through = guarded || !in.modifiers.empty();  // BRA.DIV, BRA.U.ANY: either way
    }
    if (in.info->semantics == Semantics::kExit) falls_through = guarded;
    if (falls_through && j + 1 < code.size()) predecessors_[j + 1].push_back(j);
  }
}

bool MayWriteOperand(const Instruction& in, const Operand& op) {
  if (StopsEmulation(in)) return true;
  if (op.kind == OperandKind::kRegister) return MayWrite(in, op.index);
  if (op.kind == OperandKind::kConstant) return op.base >= 0;
  if (op.kind != OperandKind::kUniformRegister) return true;
  for (int k = 0; k < WrittenOperands(in); ++k)
    if (in.operands[k].kind == OperandKind::kUniformRegister && op.index >= in.operands[k].index &&
        op.index < in.operands[k].index + DestinationSpan(in))
      return true;
  return false;
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
      return Defines(code_[j], reg) && IsPlainRegister(code_[j].operands[0], reg) ? std::optional<size_t>(j)
                                                                                  : std::nullopt;
    if (target_[j]) return std::nullopt;
  }
  return std::nullopt;
}

// The paths are followed through branches (both ways where guarded), each up to the register's next
// unguarded definition or an unguarded EXIT. A path ends too at an instruction the evaluator stops
// at (StopsEmulation: a call, an opcode not in the table): the launch is undecided there, so no value
// past it is ever reported. nullopt where a path leaves what can be followed (an indirect branch, a
// partial write) or the walk grows too long. A write
// under a guard (@!P1 IADD3 R6, ...) ends the value for the instructions under the same guard until the
// predicate may change.
std::optional<std::vector<size_t>> RegisterFlow::AllReaders(size_t def) const {
  const int reg = code_[def].operands[0].index;
  constexpr int kNoGuard = -1;
  // A path's place and the guard (predicate * 2 + negated) under which the value was overwritten.
  std::vector<std::pair<size_t, int>> pending{{def + 1, kNoGuard}};
  std::set<std::pair<size_t, int>> seen;
  std::vector<size_t> readers;
  while (!pending.empty()) {
    const auto [j, overwritten] = pending.back();
    pending.pop_back();
    if (j >= code_.size()) return std::nullopt;  // past the last instruction
    if (!seen.insert({j, overwritten}).second) continue;
    if (seen.size() > kWalk) return std::nullopt;
    const Instruction& in = code_[j];
    if (StopsEmulation(in)) continue;  // no lane goes past it
    const int guard =
        in.guard == kPredicateTrue || in.guard_uniform ? kNoGuard : in.guard * 2 + in.guard_negated;
    if (MayRead(in, reg) && (guard == kNoGuard || guard != overwritten)) readers.push_back(j);
    if (Defines(in, reg)) continue;
    if (MayWrite(in, reg) && guard == kNoGuard) return std::nullopt;  // a partial write
    int next = overwritten;
    if (next != kNoGuard && MayWritePredicate(in, next / 2)) next = kNoGuard;
    if (guard != kNoGuard && Destinations(in) >= 1 && !in.operands.empty() &&
        IsPlainRegister(in.operands[0], reg))
      next = guard;
    if (in.info->semantics == Semantics::kExit) {
      if (guard != kNoGuard) pending.push_back({j + 1, next});
      continue;
    }
    if (in.info->semantics == Semantics::kBranch) {
      if (in.target < 0) return std::nullopt;
      pending.push_back({static_cast<size_t>(in.target), next});
      if (guard != kNoGuard || !in.modifiers.empty())
        pending.push_back({j + 1, next});  // BRA.DIV: either way
      continue;
    }
    pending.push_back({j + 1, next});
  }
  std::sort(readers.begin(), readers.end());
  readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  return readers;
}

std::vector<size_t> RegisterFlow::SomeReaders(size_t def, size_t window) const {
  const int reg = code_[def].operands[0].index;
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
