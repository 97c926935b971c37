// The memory handler: the one place where an instruction that reaches memory is executed. Shared
// memory (LDS, STS, LDSM, STSM, LDGSTS, ATOMS) is costed by the bank model (shared_cost.cc); what
// it loads is unknown. Global, local and generic accesses are costed in sectors (sector_cost.cc).
// HGMMA's operand reads are costed by the measured wgmma rule (shared_cost.cc)
// and its accumulators become unknown. An LDG of bytes the launch's known memory holds
// (global_memory.h) gives their values; other global, local and generic loads and atomics give
// unknowns; stores change no register. Instructions of a later stage (bulk and tensor copies) stop
// the launch when a lane runs them.

#include <array>
#include <optional>
#include <string>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/global_memory.h"

namespace bankcheck::emulate::internal {

void LaunchEvaluator::MemoryAccess(const Instruction& in, size_t index, uint32_t mask) {
  const Semantics semantics = in.info->semantics;
  if (semantics == Semantics::kLaterStage) {
    if (Decide(in, mask, "whether it runs") != 0)
      Stop(in, in.base + " (stage " + std::to_string(in.info->stage) +
                   " of docs/emulate.md) is not emulated yet");
    return;
  }
  if (semantics == Semantics::kWgmma) {
    const uint32_t lanes = Decide(in, mask, "whether it runs");
    if (lanes == 0) return;
    const int accumulators = CostWgmma(in, index, lanes);  // the output pass: unknown too
    ForEachLane(in, lanes, [&](int, Writes& out) { out.AddUnknown(in, 1, accumulators, Origin(index)); });
    return;
  }
  const bool shared = IsShared(in.info->memory);
  const uint32_t lanes = shared || output_ != nullptr ? Decide(in, mask, "whether it runs") : 0;
  if (shared && lanes != 0) CostShared(in, index, lanes);
  if (in.info->memory == Memory::kGeneric || in.info->memory == Memory::kGenericAtomic)
    GenericAccess(in, index, mask);
  if (SectorKindOf(semantics, in.info->memory)) CostSectors(in, index, mask);
  if (output_ != nullptr) return ComputeMemory(in, index, lanes);  // costed as counting, and run with values
  const Operand* known_address = semantics == Semantics::kLoad ? KnownLoadAddress(in) : nullptr;
  // The destinations (a load's, an atomic's) become unknown; a store's guards are still read, as
  // they may depend on the block.
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    switch (semantics) {
      case Semantics::kLoad:
        if (known_address != nullptr && LoadKnown(in, *known_address, lane, index, out)) return;
        out.AddUnknown(in, 1, in.decoded.width, Origin(index));
        return;
      case Semantics::kSharedLoad:
      case Semantics::kSharedAtomic:
        // ATOMG/ATOM with RZ destinations write nothing; a 64-bit atomic writes two registers.
        out.AddUnknown(in, 1, in.decoded.width, Origin(index));
        return;
      case Semantics::kSharedMatrixLoad:
        out.AddUnknown(in, 1, in.decoded.matrices, Origin(index));  // a register per matrix
        return;
      default:
        return;
    }
  });
}

// The address operand of an LDG that may read known memory: the launch has some, the destination
// is a register, the address a 64-bit register pair (or RZ) plus an offset, with no uniform
// register added. nullptr otherwise: its value is unknown.
const Operand* LaunchEvaluator::KnownLoadAddress(const Instruction& in) const {
  if (launch_.memory == nullptr || in.operands.empty() || in.operands[0].kind != OperandKind::kRegister)
    return nullptr;
  const Operand* address = nullptr;
  for (const Operand& operand : in.operands)
    if (operand.kind == OperandKind::kGlobalMemory) address = &operand;
  if (address == nullptr || (address->uniform_base >= 0 && address->uniform_base != kUniformRegisterZero) ||
      (address->base >= 0 && address->text.find(".64") == std::string::npos))
    return nullptr;
  return address;
}

// A lane's load from known memory: the bytes' values, which depend on the block (not affinely)
// when the address does. false when the address or any byte is unknown.
bool LaunchEvaluator::LoadKnown(const Instruction& in, const Operand& address, int lane, size_t index,
                                Writes& out) const {
  uint64_t base = 0;
  const Value where = ReadRegisterPair(OperandKind::kRegister,
                                       address.base >= 0 ? address.base : kRegisterZero, lane, index, &base);
  if (!where.known()) return false;
  const std::optional<std::array<uint32_t, 4>> words =
      KnownLoad(in, *launch_.memory, base + static_cast<uint64_t>(address.offset), kernel_writes_global_);
  if (!words) return false;
  const BlockDependence block = where.block.any() ? NotAffine() : BlockDependence{};
  const Operand& destination = in.operands[0];
  for (int part = 0; part < in.decoded.width && destination.index != kRegisterZero; ++part)
    out.Add(destination.kind, destination.index + part, Known((*words)[part], block));
  return true;
}

}  // namespace bankcheck::emulate::internal
