#include "emulate/internal/data_flow.h"

#include <algorithm>

namespace bankcheck::emulate::internal {
namespace {

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

bool IsPlainRegister(const Operand& op) {
  return op.kind == OperandKind::kRegister && !op.negate && !op.invert && !op.absolute;
}
bool IsPlainRegister(const Operand& op, int index) { return IsPlainRegister(op) && op.index == index; }

int DestinationSpan(const Instruction& in) {
  if (in.Is(mod::k128)) return 4;
  if (in.Is(mod::kWide | mod::k64 | mod::kF64 | mod::kU64 | mod::kS64))
    return std::max(2, int{in.decoded.width});
  return std::max(1, int{in.decoded.width});
}

int Destinations(const Instruction& in) { return in.info == nullptr ? 0 : in.info->destinations; }

bool MayRead(const Instruction& in, int reg) {
  if (in.info == nullptr || !in.unreadable.empty()) return true;
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

bool MayWrite(const Instruction& in, int reg) {
  if (in.info == nullptr || !in.unreadable.empty()) return true;
  const int destinations = std::min(Destinations(in), static_cast<int>(in.operands.size()));
  for (int k = 0; k < destinations; ++k) {
    const Operand& op = in.operands[k];
    if (op.kind == OperandKind::kRegister && reg >= op.index && reg < op.index + DestinationSpan(in))
      return true;
  }
  return false;
}

bool MayWritePredicate(const Instruction& in, int p) {
  if (in.base == "R2P" || in.base == "P2R") return true;
  for (const Operand& op : in.operands)
    if (op.kind == OperandKind::kPredicate && op.index == p) return true;
  return false;
}

bool Defines(const Instruction& in, int reg) {
  return in.info != nullptr && in.unreadable.empty() && in.guard == kPredicateTrue && Destinations(in) >= 1 &&
         !in.operands.empty() && IsPlainRegister(in.operands[0], reg);
}

bool EndsStraightLine(const Instruction& in) {
  return in.info == nullptr || in.info->semantics == Semantics::kBranch ||
         in.info->semantics == Semantics::kExit;
}

StraightLineCode::StraightLineCode(const std::vector<Instruction>& code)
    : code_(code), target_(code.size(), false) {
  for (const Instruction& in : code)
    if (in.target >= 0 && static_cast<size_t>(in.target) < code.size()) target_[in.target] = true;
}

std::optional<size_t> StraightLineCode::Definition(size_t at, int reg) const {
  for (size_t j = at; j-- > 0;) {
    if (EndsStraightLine(code_[j])) return std::nullopt;
    if (MayWrite(code_[j], reg)) return Defines(code_[j], reg) ? std::optional<size_t>(j) : std::nullopt;
    if (target_[j]) return std::nullopt;
  }
  return std::nullopt;
}

std::vector<size_t> StraightLineCode::SomeReaders(size_t def, size_t window) const {
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

bool StraightLineCode::Unchanged(int reg, size_t from, size_t to) const {
  for (size_t j = from + 1; j < to; ++j)
    if (MayWrite(code_[j], reg) || target_[j] || EndsStraightLine(code_[j])) return false;
  return from < to;
}

bool StraightLineCode::Unchanged(const Operand& op, size_t from, size_t to) const {
  if (op.kind == OperandKind::kRegister) return Unchanged(op.index, from, to);
  if (op.kind == OperandKind::kConstant) return op.base < 0 && from < to;
  if (op.kind != OperandKind::kUniformRegister) return false;
  for (size_t j = from + 1; j < to; ++j) {
    const Instruction& in = code_[j];
    if (in.info == nullptr || target_[j] || EndsStraightLine(in)) return false;
    for (int k = 0; k < std::min(Destinations(in), static_cast<int>(in.operands.size())); ++k)
      if (in.operands[k].kind == OperandKind::kUniformRegister && op.index >= in.operands[k].index &&
          op.index < in.operands[k].index + DestinationSpan(in))
        return false;
  }
  return from < to;
}

}  // namespace bankcheck::emulate::internal
