// Shared-memory costing: an executed shared instruction's lane addresses (known, or the launch is
// undecided) given to the core's bank model for its kind, the block-dependent ones recorded as
// conditions of the block's group.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/bank_model.h"
#include "bankcheck/error.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {

void LaunchEvaluator::CostShared(const Instruction& in, size_t index, uint32_t lanes) {
  const SharedKind kind = in.info->shared_kind;
  const Operand* address = nullptr;
  for (const Operand& operand : in.operands)
    if (operand.kind == OperandKind::kMemory) address = &operand;
  if (address == nullptr) Stop(in, in.opcode + " has no address operand");
  if (kind == SharedKind::kLdmatrix || kind == SharedKind::kStmatrix) {
    // Every lane runs ldmatrix/stmatrix (.sync.aligned); the first 8 per matrix give the rows.
    const uint32_t row_lanes = sm90::MatrixRowLanes(in.decoded.matrices);
    if ((row_lanes & ~lanes) != 0) Stop(in, Located(in) + " runs with lanes that give its rows off");
    lanes = row_lanes;
  }
  WarpCopy instruction;
  if (kind == SharedKind::kCpAsync) ReadSources(in, index, lanes, instruction.sources);
  WarpAccess& access = instruction.destination;
  access.bytes = in.decoded.access_bytes;
  std::vector<std::array<uint32_t, 3>> steps;  // of lanes whose address depends on the block
  bool some_lane_still = false;                // a lane whose address is the same in every block
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    Value sum = Known(static_cast<uint32_t>(address->offset));
    if (address->base >= 0 && address->base != kRegisterZero) {
      const Value base = warp_.registers[address->base * kWarpSize + lane];
      sum = Affine(sum.bits + base.bits, Plus(sum.block, base.block), sum, base);
    }
    if (address->uniform_base >= 0 && address->uniform_base != kUniformRegisterZero) {
      const Value base = warp_.uniform[address->uniform_base];
      sum = Affine(sum.bits + base.bits, Plus(sum.block, base.block), sum, base);
    }
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
  Row& row = rows_[index];
  ++row.executions;
  row.wavefronts += cost.wavefronts;
  row.ideal += cost.ideal;
}

// A cp.async's global source per lane: its 64-bit register pair plus the offset. The 16-byte
// copy's cost depends on it (IsRowCopy); a source that depends on the block makes every block
// evaluated (its 64-bit arithmetic is not followed).
void LaunchEvaluator::ReadSources(const Instruction& in, size_t index, uint32_t lanes,
                                  std::array<uint64_t, kWarpSize>& sources) {
  const Operand* global = nullptr;
  for (const Operand& operand : in.operands)
    if (operand.kind == OperandKind::kGlobalMemory) global = &operand;
  if (global == nullptr || in.operands.size() != 2 || in.Is(mod::kZfill))
    Stop(in, in.opcode + " is a cp.async form the emulator does not understand");
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    uint64_t base = 0;
    Value value = Known(0);
    if (global->base >= 0 && global->base != kRegisterZero) {
      value = ReadRegisterPair(OperandKind::kRegister, global->base, lane, index, &base);
    }
    if (!value.known()) StopOnUnknown(in, value, "the global source address");
    if (value.block.any()) not_affine_ = true;
    sources[lane] = base + static_cast<uint64_t>(global->offset);
  }
}

}  // namespace bankcheck::emulate::internal
