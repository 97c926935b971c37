// Shared-memory costing: an executed shared instruction's lane addresses (known, or the launch is
// undecided) given to the core's bank model for its kind, the block-dependent ones recorded as
// conditions of the block's group; an HGMMA's operand reads by the measured wgmma rule (sm90.h).

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/core/error.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {

void LaunchEvaluator::CostShared(const Instruction& in, size_t index, uint32_t lanes) {
  const MemoryKind kind = in.info->shared_kind;
  const MemoryOp& op = in.memory_op;
  if (op.form != AddressForm::kOffset) Stop(in, in.opcode + " has no address operand the emulator reads");
  const Operand& address = in.operands[static_cast<size_t>(op.address)];
  if (kind == MemoryKind::kSharedLdmatrix || kind == MemoryKind::kSharedStmatrix) {
    // Every lane runs ldmatrix/stmatrix (.sync.aligned); the first 8 per matrix give the rows.
    const uint32_t row_lanes = sm90::MatrixRowLanes(in.decoded.matrices);
    if ((row_lanes & ~lanes) != 0) Stop(in, Located(in) + " runs with lanes that give its rows off");
    lanes = row_lanes;
  }
  WarpCopy instruction;
  if (kind == MemoryKind::kSharedCpAsync) ReadSources(in, lanes, instruction.sources);
  WarpAccess& access = instruction.destination;
  access.bytes = op.bytes;
  std::vector<std::array<uint32_t, 3>> steps;  // of lanes whose address depends on the block
  bool some_lane_still = false;                // a lane whose address is the same in every block
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    const Value sum = ReadAddress(address, op.form, lane).value;
    if (!sum.known()) StopOnUnknown(in, sum, "the address");
    if (sum.block.other) not_affine_ = true;
    // Only block-dependent addresses are collected: most accesses allocate nothing here.
    if (!sum.block.any())
      some_lane_still = true;
    else if (std::find(steps.begin(), steps.end(), sum.block.step) == steps.end())
      steps.push_back(sum.block.step);
    access.SetLane(lane, sum.bits);
  }
  if (!steps.empty()) {
    // A lane whose address is the same in every block has step 0: the others must then stay too.
    if (some_lane_still && std::find(steps.begin(), steps.end(), std::array<uint32_t, 3>{}) == steps.end())
      steps.push_back({});
    if (RoomForConditions()) conditions_.address_steps.push_back(std::move(steps));
  }
  if (kind == MemoryKind::kSharedCpAsync) CostCopySources(in, index, instruction);
  WarpCost cost;
  try {
    // Before the cost: a misaligned lane faults (ValidateWarpAccess), which says more.
    if (const std::optional<std::string> why = UnmeasuredWideAccess(kind, access)) {
      ValidateWarpAccess(access);
      Stop(in, "the access of " + Located(in) + ": " + *why);
    }
    cost = CostInstruction(kind, instruction);
  } catch (const Error& error) {
    Stop(in, std::string("the access of ") + Located(in) + " faults on the GPU: " + error.what());
  }
  Count(index, kind, cost.wavefronts, cost.ideal);
}

// A cp.async's global source per lane: its 64-bit register pair plus the offset. The 16-byte
// copy's cost depends on it (IsRowCopy); a source that depends on the block makes every block
// evaluated (its 64-bit arithmetic is not followed).
void LaunchEvaluator::ReadSources(const Instruction& in, uint32_t lanes,
                                  std::array<uint64_t, kWarpSize>& sources) {
  const MemoryOp& op = in.memory_op;
  if (op.source < 0) Stop(in, in.opcode + " is a cp.async form the emulator does not understand");
  const Operand& global = in.operands[static_cast<size_t>(op.source)];
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    const LaneAddress source = ReadAddress(global, AddressForm::kWide, lane);
    if (!source.value.known()) StopOnUnknown(in, source.value, "the global source address");
    if (source.block_dependent) not_affine_ = true;
    sources[lane] = source.bits;
    if (sm90::InParameterWindow(sources[lane]))
      Stop(in, Located(in) + " copies from the kernel's parameters' generic address, not global memory");
  }
}

// wgmma is .sync.aligned over a warpgroup: every lane of each of its four warps runs it, or the GPU's
// behaviour is undefined. Its descriptors are not read: the measured cost is the same in every
// GMMA layout.
int LaunchEvaluator::CostWgmma(const Instruction& in, size_t index, uint32_t lanes) {
  if (!in.memory_op.unmeasured.empty()) Stop(in, in.memory_op.unmeasured);
  const uint64_t threads = uint64_t{launch_.block.x} * launch_.block.y * launch_.block.z;
  if (threads % sm90::kWarpgroupThreads != 0)
    Stop(in, Located(in) + " runs in a block of " + std::to_string(threads) +
                 " threads: wgmma needs whole warpgroups of 128 threads");
  if (lanes != 0xffffffffu)
    Stop(in, Located(in) + " runs with some of its warp's lanes off: every lane must run wgmma");
  const uint32_t wavefronts = sm90::WgmmaOperandWavefronts(sm90::kMeasuredWgmma);
  Count(index, in.info->shared_kind, wavefronts, wavefronts);
  return sm90::WgmmaAccumulators(sm90::kMeasuredWgmma);
}

}  // namespace bankcheck::emulate::internal
