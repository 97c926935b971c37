#pragma once
// The evaluator's memory models (docs/design/emulate.md): what a launch's memory instructions do
// beyond their costs, which LaunchEvaluator counts the same way under both. LaunchEvaluator takes one
// by reference and asks it, never which pass it runs:
// - CountingMemory (Emulate): blocks grouped where they can be, each block's warps one after another;
//   a load's registers unknown but for an LDG of known memory (global_memory.h), a store's bytes
//   dropped, barriers ordering nothing counted.
// - ValuesMemory (ComputeOutputs, output_pass.h): every block with values, its warps interleaved at
//   its barriers, shared, global and local bytes followed.

#include <cstddef>
#include <cstdint>

#include "emulate/internal/block_groups.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {

class LaunchEvaluator;
class Writes;

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  // Runs the launch's grid through `evaluator`: every block's counts by instruction index.
  virtual Rows RunGrid(LaunchEvaluator& evaluator) = 0;
  // A memory instruction (its MemoryOp) at `index`, reached by the lanes of `mask` and costed already:
  // what it writes to registers and memory.
  virtual void Access(LaunchEvaluator& evaluator, const Instruction& in, size_t index, uint32_t mask) = 0;
  // A block barrier (BAR.SYNC or BAR.ARV) reached by the lanes of `mask`: their pcs moved on, or the
  // warp parked at it.
  virtual void Barrier(LaunchEvaluator& evaluator, const Instruction& in, uint32_t mask) = 0;
  // Whether the running warp waits at a block barrier, for the block's other warps to run first.
  virtual bool AtBarrier() const = 0;
  // A tensor copy or an mbarrier operation (semantics_async.cc) about to run: Stop where the model does
  // not follow what it orders or writes.
  virtual void TensorCopyOrMbarrier(const Instruction& in) const = 0;
  // The origin of the unknowns `in` (at `index`) writes when its form has no GPU conformance vectors
  // (Instruction::unchecked_form); 0: its values are computed.
  virtual uint32_t UncheckedOrigin(const Instruction& in, size_t index) const = 0;
  // Whether the words of constant bank 0 that hold the parameters' generic address (sm90.h) are known:
  // the counting pass follows that stand-in address into UTMALDG's tensor map.
  virtual bool KnowsParameterWindow() const = 0;
};

class CountingMemory final : public MemoryModel {
 public:
  Rows RunGrid(LaunchEvaluator& evaluator) override;  // evaluator.cc
  // Loads' and atomics' destinations unknown, but for an LDG of known memory (semantics_memory.cc).
  void Access(LaunchEvaluator& evaluator, const Instruction& in, size_t index, uint32_t mask) override;
  // A block's warps run one after another: a barrier orders nothing counted.
  void Barrier(LaunchEvaluator& evaluator, const Instruction& in, uint32_t mask) override;
  bool AtBarrier() const override { return false; }
  void TensorCopyOrMbarrier(const Instruction&) const override {}
  uint32_t UncheckedOrigin(const Instruction&, size_t) const override { return 0; }
  bool KnowsParameterWindow() const override { return true; }

 private:
  // A lane's load from known memory: false when its address or any byte is unknown.
  static bool LoadKnown(LaunchEvaluator& evaluator, const Instruction& in, int lane, Writes& out);
};

}  // namespace bankcheck::emulate::internal
