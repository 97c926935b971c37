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
namespace {

// gdesc[URn]: a pair of uniform registers holding the A and B descriptors, neither transposed (a
// transposed operand is written after the bracket).
bool IsDescriptorOperand(const Operand& operand) {
  const std::string& text = operand.text;
  const std::string prefix = "gdesc[UR";
  if (operand.kind != OperandKind::kOther || text.size() <= prefix.size() + 1 || text.rfind(prefix, 0) != 0 ||
      text.back() != ']')
    return false;
  for (size_t at = prefix.size(); at + 1 < text.size(); ++at)
    if (text[at] < '0' || text[at] > '9') return false;
  return true;
}

// Why `in` is not the HGMMA form the measurements cover (sm90::kMeasuredWgmma), or nullopt: the
// modifiers .64x64x16.F32 and the operands `Rd, gdesc[URa], Rc|RZ[, scale-d predicate][, gsb0]`
// (the SS form: A and B from shared memory).
std::optional<std::string> UnmeasuredWgmma(const Instruction& in) {
  const std::string measure =
      ": only HGMMA.64x64x16.F32 with both operands read through shared-memory descriptors (f16 inputs, "
      "K-major) was measured (baselines/sm_90/wgmma_layouts.json); measure this form on an sm_90 GPU (a "
      "case like kernels/wgmma_layouts.cu) before the emulator costs it";
  bool measured = in.modifiers.size() == std::size(sm90::kMeasuredWgmmaModifiers);
  for (size_t at = 0; measured && at < in.modifiers.size(); ++at)
    measured = in.modifiers[at] == sm90::kMeasuredWgmmaModifiers[at];
  if (!measured)
    return in.opcode + " is a wgmma shape or type whose shared-memory cost is not measured" + measure;
  const std::vector<Operand>& ops = in.operands;
  if (ops.size() >= 2 && ops[1].kind == OperandKind::kRegister)
    return in.opcode + " reads its A operand from registers (the RS form), not measured" + measure;
  bool form = ops.size() >= 3 && ops[0].kind == OperandKind::kRegister &&
              ops[0].index + sm90::WgmmaAccumulators(sm90::kMeasuredWgmma) <= kRegisterZero &&
              IsDescriptorOperand(ops[1]) && ops[2].kind == OperandKind::kRegister && !ops[2].negate &&
              !ops[2].invert && !ops[2].absolute;
  for (size_t at = 3; form && at < ops.size(); ++at)
    form = IsPredicate(ops[at]) || (ops[at].kind == OperandKind::kOther && ops[at].text == "gsb0");
  if (!form) return in.opcode + " has operands of a form not measured" + measure;
  return std::nullopt;
}

}  // namespace

void LaunchEvaluator::CostShared(const Instruction& in, size_t index, uint32_t lanes) {
  const MemoryKind kind = in.info->shared_kind;
  const Operand* address = nullptr;
  for (const Operand& operand : in.operands)
    if (operand.kind == OperandKind::kMemory) address = &operand;
  if (address == nullptr) Stop(in, in.opcode + " has no address operand");
  if (kind == MemoryKind::kSharedLdmatrix || kind == MemoryKind::kSharedStmatrix) {
    // Every lane runs ldmatrix/stmatrix (.sync.aligned); the first 8 per matrix give the rows.
    const uint32_t row_lanes = sm90::MatrixRowLanes(in.decoded.matrices);
    if ((row_lanes & ~lanes) != 0) Stop(in, Located(in) + " runs with lanes that give its rows off");
    lanes = row_lanes;
  }
  WarpCopy instruction;
  if (kind == MemoryKind::kSharedCpAsync) ReadSources(in, index, lanes, instruction.sources);
  WarpAccess& access = instruction.destination;
  access.bytes = in.decoded.access_bytes;
  std::vector<std::array<uint32_t, 3>> steps;  // of lanes whose address depends on the block
  bool some_lane_still = false;                // a lane whose address is the same in every block
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    const Value sum = OffsetAddress(*address, lane);
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
  Row& row = rows_[{index, kind}];
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
    if (sm90::InParameterWindow(sources[lane]))
      Stop(in, Located(in) + " copies from the kernel's parameters' generic address, not global memory");
  }
}

// wgmma is .sync.aligned over a warpgroup: every lane of each of its four warps runs it, or the GPU's
// behaviour is undefined. Its descriptors are not read: the measured cost is the same in every
// GMMA layout.
int LaunchEvaluator::CostWgmma(const Instruction& in, size_t index, uint32_t lanes) {
  if (const std::optional<std::string> why = UnmeasuredWgmma(in)) Stop(in, *why);
  const uint64_t threads = uint64_t{launch_.block.x} * launch_.block.y * launch_.block.z;
  if (threads % sm90::kWarpgroupThreads != 0)
    Stop(in, Located(in) + " runs in a block of " + std::to_string(threads) +
                 " threads: wgmma needs whole warpgroups of 128 threads");
  if (lanes != 0xffffffffu)
    Stop(in, Located(in) + " runs with some of its warp's lanes off: every lane must run wgmma");
  const uint32_t wavefronts = sm90::WgmmaOperandWavefronts(sm90::kMeasuredWgmma);
  Row& row = rows_[{index, in.info->shared_kind}];
  ++row.executions;
  row.wavefronts += wavefronts;
  row.ideal += wavefronts;
  return sm90::WgmmaAccumulators(sm90::kMeasuredWgmma);
}

}  // namespace bankcheck::emulate::internal
