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
  const uint32_t lanes = shared ? Decide(in, mask, "whether it runs") : 0;
  if (shared && lanes != 0) CostShared(in, index, lanes);
  if (in.info->memory == Memory::kGeneric || in.info->memory == Memory::kGenericAtomic)
    GenericAccess(in, index, mask);
  if (SectorKindOf(semantics, in.info->memory)) CostSectors(in, index, mask);
  memory_.Access(*this, in, index, mask);  // costed alike, what it does the model's
}

void CountingMemory::Access(LaunchEvaluator& evaluator, const Instruction& in, size_t index, uint32_t mask) {
  // The destinations (a load's, an atomic's) become unknown, but for an LDG of known memory; a store's
  // guards are still read, as they may depend on the block.
  const MemoryOp& op = in.memory_op;
  if (op.destination < 0) return evaluator.ForEachLane(in, mask, [](int, Writes&) {});
  const Operand& destination = in.operands[static_cast<size_t>(op.destination)];
  const bool may_know =
      evaluator.launch_.memory != nullptr && op.memory == Memory::kGlobal && op.access == Access::kLoad;
  evaluator.ForEachLane(in, mask, [&](int lane, Writes& out) {
    if (may_know && LoadKnown(evaluator, in, lane, out)) return;
    WriteLoaded(out, op, destination, nullptr, Origin(index));
  });
}

bool CountingMemory::LoadKnown(LaunchEvaluator& evaluator, const Instruction& in, int lane, Writes& out) {
  const MemoryOp& op = in.memory_op;
  if (op.form != AddressForm::kWide) return false;
  const LaneAddress address =
      evaluator.ReadAddress(in.operands[static_cast<size_t>(op.address)], op.form, lane);
  if (!address.value.known()) return false;
  uint8_t bytes[16] = {};
  if (!KnownLoad(in, *evaluator.launch_.memory, address.bits, evaluator.kernel_writes_global_, bytes))
    return false;
  // The bytes' values depend on the block (not affinely) when the address does.
  const BlockDependence block = address.block_dependent ? NotAffine() : BlockDependence{};
  WriteLoaded(out, op, in.operands[static_cast<size_t>(op.destination)], bytes, 0, block);
  return true;
}

}  // namespace bankcheck::emulate::internal
