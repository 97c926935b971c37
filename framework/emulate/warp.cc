// A warp's SIMT scheduling: the lanes at the lowest pc run together, each instruction dispatched to
// its handler family (the opcode table's semantics); lanes waiting at a convergence barrier or
// WARPSYNC are released when every lane the barrier names has arrived or exited.

#include <algorithm>
#include <stdexcept>
#include <string>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {

// ---- a warp ----
// A lane's guard. Predicates that hold in every block of a group (BlockConditions) carry no
// dependence; one that does makes every block evaluated.
Value LaunchEvaluator::Guard(const Instruction& in, int lane) {
  if (in.guard == kPredicateTrue) return Known(in.guard_negated ? 0 : 1);
  Value value =
      in.guard_uniform ? warp_.uniform_predicates[in.guard] : warp_.predicates[in.guard * kWarpSize + lane];
  if (value.known() && in.guard_negated) value.bits ^= 1u;
  if (value.block.any()) not_affine_ = true;
  return value;
}

void LaunchEvaluator::Release() {
  for (int b = 0; b <= kWarpSyncBarrier; ++b) {
    uint32_t waiters = 0;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if ((warp_.waiting >> lane & 1u) && warp_.waits_on[lane] == b) waiters |= 1u << lane;
    if (waiters == 0) continue;
    const uint32_t required = warp_.barrier[b] & warp_.present & ~warp_.exited;
    if ((required & ~waiters) != 0) continue;
    warp_.waiting &= ~waiters;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (waiters >> lane & 1u) {
        ++warp_.pc[lane];
        warp_.waits_on[lane] = -1;
        warp_.together[lane] = waiters;  // converged by the barrier
      }
  }
}

void LaunchEvaluator::RunWarp() {
  const size_t size = kernel_.code.size();
  while (true) {
    const uint32_t runnable = warp_.present & ~warp_.exited & ~warp_.waiting;
    if (runnable == 0) {
      if (warp_.waiting == 0) return;
      const uint32_t before = warp_.waiting;
      Release();
      if (warp_.waiting == before) {
        const Instruction& at = kernel_.code.at(warp_.pc[__builtin_ctz(warp_.waiting)]);
        Stop(at, "lanes wait at " + Located(at) + " for lanes that never arrive");
      }
      continue;
    }
    uint32_t index = UINT32_MAX;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (runnable >> lane & 1u) index = std::min(index, warp_.pc[lane]);
    uint32_t mask = 0;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if ((runnable >> lane & 1u) && warp_.pc[lane] == index) mask |= 1u << lane;
    if (index >= size) {
      Stop(kernel_.code.back(), "the code runs past the kernel's last instruction");
    }
    if (!meter_.SpendInstructions(1)) Stop(kernel_.code[index], meter_.WhyInstructions());
    Execute(index, mask);
    if (output_ != nullptr && output_->at_barrier) return;  // the block's other warps run first
  }
}

void LaunchEvaluator::Split(uint32_t mask, uint32_t side) {
  side &= mask;
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    warp_.together[lane] &= (side >> lane & 1u) ? side : mask & ~side;
  }
}

void LaunchEvaluator::Advance(uint32_t mask) {
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (mask >> lane & 1u) ++warp_.pc[lane];
}

uint32_t LaunchEvaluator::Decide(const Instruction& in, uint32_t mask, const std::string& what) {
  uint32_t taken = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const Value guard = Guard(in, lane);
    if (!guard.known()) StopOnUnknown(in, guard, what);
    if (guard.bits) taken |= 1u << lane;
  }
  return taken;
}

void LaunchEvaluator::Execute(uint32_t index, uint32_t mask) {
  const Instruction& in = kernel_.code[index];
  executing_ = &in;
  try {
    Dispatch(in, index, mask);
  } catch (const std::out_of_range&) {
    // An operand the instruction's form needs is missing (ops.at): a listing the emulator cannot read.
    Stop(in, in.opcode + " has fewer operands than the emulator reads for it (" + Located(in) + ")");
  }
}

void LaunchEvaluator::Dispatch(const Instruction& in, uint32_t index, uint32_t mask) {
  if (StopsEmulation(in)) Stop(in, in.unreadable.empty() ? NotUnderstood(in) : in.unreadable);
  // The handlers write their destinations (the leading operands) without looking again.
  if (in.operands.size() < static_cast<size_t>(in.info->destinations))
    Stop(in, in.opcode + " has fewer operands than the emulator reads for it (" + Located(in) + ")");
  // The output pass computes only the forms checked against the GPU (checked_forms.h); the counting
  // pass computes every form it reads (addresses and guards).
  unchecked_origin_ = output_ != nullptr && in.unchecked_form ? Origin(index) : 0;
  switch (in.info->semantics) {
    case Semantics::kNop:
    case Semantics::kBarrier:
    case Semantics::kBranch:
    case Semantics::kExit:
    case Semantics::kSyncStart:
    case Semantics::kSyncWait:
    case Semantics::kWarpSync:
      Control(in, index, mask);  // moves the pcs itself
      return;
    case Semantics::kLoad:
    case Semantics::kStore:
    case Semantics::kSharedLoad:
    case Semantics::kSharedStore:
    case Semantics::kSharedMatrixLoad:
    case Semantics::kSharedMatrixStore:
    case Semantics::kSharedCopy:
    case Semantics::kSharedAtomic:
    case Semantics::kWgmma:
    case Semantics::kLaterStage:
      MemoryAccess(in, index, mask);
      break;
    case Semantics::kImad:
    case Semantics::kIadd3:
    case Semantics::kViadd:
    case Semantics::kLea:
    case Semantics::kShf:
    case Semantics::kLop3:
    case Semantics::kMinMax:
    case Semantics::kPopc:
    case Semantics::kFlo:
    case Semantics::kBrev:
    case Semantics::kPrmt:
    case Semantics::kAbs:
    case Semantics::kBitMask:
    case Semantics::kAddMinMax:
    case Semantics::kNarrow:
    case Semantics::kDotProduct:
      Integer(in, index, mask);
      break;
    case Semantics::kPlop3:
    case Semantics::kIsetp:
    case Semantics::kSel:
    case Semantics::kRegisterToPredicates:
    case Semantics::kPredicatesToRegister:
      Predicates(in, index, mask);
      break;
    case Semantics::kVote:
      Vote(in, mask);
      break;
    case Semantics::kWarpReduction:
      WarpReduction(in, index, mask);
      break;
    case Semantics::kWarpMatch:
      WarpMatch(in, index, mask);
      break;
    case Semantics::kTensorLoad:
    case Semantics::kMbarrier:
    case Semantics::kElect:
      Asynchronous(in, index, mask);
      break;
    case Semantics::kMove:
    case Semantics::kSpecialRegister:
    case Semantics::kSpecialRegisterPair:
    case Semantics::kLoadConstant:
      Moves(in, index, mask);
      break;
    case Semantics::kRegisterToUniform:
      RegisterToUniform(in, index, mask);
      break;
    case Semantics::kShuffle:
      Shuffle(in, index, mask);
      break;
    case Semantics::kMatrixMultiply:
      MatrixMultiply(in, index, mask);
      break;
    case Semantics::kFloatAdd:
    case Semantics::kFloatMultiply:
    case Semantics::kFloatFma:
    case Semantics::kFloatMinMax:
    case Semantics::kFloatCompare:
      FloatArithmetic(in, index, mask);
      break;
    case Semantics::kFloatConvert:
    case Semantics::kFloatPack:
    case Semantics::kDoubleArithmetic:
    case Semantics::kDoubleCompare:
      OtherPrecision(in, index, mask);
      break;
    case Semantics::kRound:
      RoundToIntegral(in, index, mask);
      break;
    case Semantics::kHalfConstant:
    case Semantics::kHalfArithmetic:
    case Semantics::kIntToFloat:
    case Semantics::kFloatToInt:
    case Semantics::kReciprocal:
    case Semantics::kData:
    case Semantics::kUnchecked:
      FloatAndConversion(in, index, mask);
      break;
  }
  Advance(mask);
}

}  // namespace bankcheck::emulate::internal
