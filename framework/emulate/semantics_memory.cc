// The memory handler: the one place where an instruction that reaches memory is executed. Shared
// memory (LDS, STS, LDSM, STSM, LDGSTS, ATOMS) is costed by the bank model (shared_cost.cc); what
// it loads is unknown. Global, local and generic loads and atomics give unknowns; stores change no
// register. Instructions of a later stage (HGMMA, bulk and tensor copies) stop the launch when a
// lane runs them.

#include <string>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {

void LaunchEvaluator::MemoryAccess(const Instruction& in, size_t index, uint32_t mask) {
  const Semantics semantics = in.info->semantics;
  if (semantics == Semantics::kLaterStage) {
    if (Decide(in, mask, "whether it runs") != 0)
      Stop(in, in.base + " (stage " + std::to_string(in.info->stage) +
                   " of docs/emulate.md) is not emulated yet");
    return;
  }
  if (IsShared(in.info->memory)) {
    const uint32_t lanes = Decide(in, mask, "whether it runs");
    if (lanes != 0) CostShared(in, index, lanes);
  }
  // The destinations (a load's, an atomic's) become unknown; a store's guards are still read, as
  // they may depend on the block.
  ForEachLane(in, mask, [&](int, Writes& out) {
    switch (semantics) {
      case Semantics::kLoad:
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

}  // namespace bankcheck::emulate::internal
