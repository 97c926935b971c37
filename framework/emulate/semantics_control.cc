// The control handlers: branches, exits, calls and returns, convergence barriers (BSSY/BSYNC),
// WARPSYNC, block barriers and no-ops. Each moves its lanes' pcs itself (warp.cc schedules the lanes).

#include <array>
#include <cstdio>
#include <string>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/float_division.h"

namespace bankcheck::emulate::internal {

void LaunchEvaluator::Control(const Instruction& in, uint32_t index, uint32_t mask) {
  switch (in.info->semantics) {
    case Semantics::kNop:
      Advance(mask);
      return;
    case Semantics::kBarrier:
      if (!(in.Is(mod::kSync | mod::kArv)) || in.Is(mod::kRed))
        Stop(in, in.opcode + " is a barrier form the emulator does not understand");
      return memory_.Barrier(*this, in, mask);
    case Semantics::kBranch: {
      if (in.modifiers.size() == 1 && in.Is(mod::kDiv)) return BranchIfDiverged(in, index, mask);
      if (in.float_division != nullptr) return SkipDivisionSlowPath(in, index, mask);
      // BRA.U.ANY: every lane branches when any lane's condition holds (a warp-uniform loop).
      const bool any = in.modifiers.size() == 2 && in.Is(mod::kU) && in.Is(mod::kAny);
      if (in.target < 0 || (!in.modifiers.empty() && !(in.modifiers.size() == 1 && in.Is(mod::kU)) && !any))
        Stop(in, in.opcode + " is a branch the emulator does not follow");
      uint32_t taken = Decide(in, mask, "the condition");
      if (any && taken != 0) taken = mask;
      Split(mask, taken);
      for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(mask >> lane & 1u)) continue;
        warp_->pc[lane] = (taken >> lane & 1u) ? static_cast<uint32_t>(in.target) : index + 1;
      }
      return;
    }
    case Semantics::kCall:
      return Call(in, mask);
    case Semantics::kReturn:
      return Return(in, index, mask);
    case Semantics::kExit: {
      const uint32_t leaving = Decide(in, mask, "whether lanes exit");
      warp_->exited |= leaving;
      Advance(mask & ~leaving);
      Release();
      return;
    }
    case Semantics::kSyncStart: {
      if (in.operands.empty() || in.operands[0].kind != OperandKind::kBarrier)
        Stop(in, in.opcode + " names no convergence barrier");
      const uint32_t lanes = Decide(in, mask, "whether it runs");
      if (lanes != 0) warp_->barrier[in.operands[0].index] = lanes;
      Advance(mask);
      return;
    }
    case Semantics::kSyncWait:
    case Semantics::kWarpSync: {
      const uint32_t lanes = Decide(in, mask, "whether it runs");
      Split(mask, lanes);  // the lanes that run it wait; the others go on
      int barrier = kWarpSyncBarrier;
      if (in.info->semantics == Semantics::kSyncWait) {
        if (in.operands.empty() || in.operands[0].kind != OperandKind::kBarrier)
          Stop(in, in.opcode + " names no convergence barrier");
        barrier = in.operands[0].index;
      } else {
        uint32_t warp_mask = 0xffffffffu;
        if (!in.Is(mod::kAll)) {
          if (in.operands.empty()) Stop(in, in.opcode + " has no mask");
          const Value value = Read(in.operands[0], __builtin_ctz(mask), index);
          if (!value.known()) StopOnUnknown(in, value, "the mask");
          if (value.block.any()) not_affine_ = true;
          warp_mask = value.bits;
        }
        warp_->barrier[kWarpSyncBarrier] = warp_mask;
        warp_->sync_members = warp_mask;
        for (int lane = 0; lane < kWarpSize && !in.Is(mod::kAll); ++lane) {
          if (!(lanes >> lane & 1u)) continue;
          const Value value = Read(in.operands[0], lane, index);
          if (!value.known() || value.bits != warp_mask) warp_->sync_members = kMixedWarpSync;
        }
      }
      Advance(mask & ~lanes);
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (lanes >> lane & 1u) {
          warp_->waiting |= 1u << lane;
          warp_->waits_on[lane] = barrier;
        }
      Release();
      return;
    }
    default:
      Stop(in, in.opcode + " reached the wrong handler (Control)");
  }
}

// @!P BRA join past an IEEE float division's slow path (float_division.cc): the slow path does
// nothing the counts see, and both paths leave the correctly rounded quotient in the same register,
// so every lane goes to the join, whatever FCHK's predicate. What the slow path writes is unknown
// there (as are the fast path's intermediates: the lanes that took the slow path need not hold them); the
// quotient is a / b, computed where its operands are known, agree, and neither they nor it is NaN.
void LaunchEvaluator::SkipDivisionSlowPath(const Instruction& in, uint32_t index, uint32_t mask) {
  const FloatDivision& division = *in.float_division;
  const Value clobbered = Unknown(Origin(division.call));
  for (int u = 0; u < kUniformRegisterZero; ++u)
    if (division.uniform_registers.test(u)) warp_->uniform[u] = clobbered;
  for (int p = 0; p < kPredicateTrue; ++p)
    if (division.uniform_predicates.test(p)) warp_->uniform_predicates[p] = clobbered;
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    // Read before anything is made unknown: the slow path's moves may name the operands.
    const auto agreed = [&](const std::vector<Operand>& operands) {
      Value value = FloatSource(operands.front(), lane, index);
      for (const Operand& op : operands) {
        const Value other = FloatSource(op, lane, index);
        if (!other.known()) return other;
        if (value.known() && other.bits != value.bits) return Unknown(Origin(division.check));
      }
      return value;
    };
    const Value a = agreed(division.dividends), b = agreed(division.divisors);
    Value quotient = Unknown(Origin(division.check));
    if (!a.known() || !b.known()) {
      quotient = a.known() ? b : a;
    } else if (division.computed) {
      if (const std::optional<uint32_t> bits = FloatQuotient(a.bits, b.bits)) quotient = From(*bits, a, b);
    }
    for (int r = 0; r < kRegisterZero; ++r)
      if (division.registers.test(r)) warp_->registers[r * kWarpSize + lane] = clobbered;
    for (int p = 0; p < kPredicateTrue; ++p)
      if (division.predicates.test(p)) warp_->predicates[p * kWarpSize + lane] = clobbered;
    warp_->registers[division.quotient * kWarpSize + lane] = quotient;
    // Without a BSYNC at the join, lanes that went different ways need not run together after it.
    if (!division.join_converges) warp_->together[lane] &= 1u << lane;
    warp_->pc[lane] = static_cast<uint32_t>(division.join);
  }
}

// CALL.REL.NOINC `(f): the lanes whose guard holds go to f, in an activation of their own; ptxas
// set their return address (MOV ra, <the pc after the call>) before. The activation a lane leaves is
// kept, up to kMaxCallDepth calls deep: one more makes the launch undecided, as recursion deeper than
// that does, whatever the GPU's stack would allow.
void LaunchEvaluator::Call(const Instruction& in, uint32_t mask) {
  const uint32_t calling = Decide(in, mask, "whether lanes call");
  Split(mask, calling);
  Advance(mask & ~calling);
  if (calling == 0) return;
  if (warp_->callers.empty()) warp_->callers.resize(size_t{kWarpSize} * kMaxCallDepth);
  const uint32_t frame = ++warp_->frames;
  for (uint32_t lanes = calling; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    if (warp_->depth[lane] == kMaxCallDepth)
      Stop(in, in.opcode + " at " + Located(in) + ": calls nest deeper than " +
                   std::to_string(kMaxCallDepth) + ", the depth the emulator follows");
    warp_->callers[lane * kMaxCallDepth + warp_->depth[lane]++] = warp_->frame[lane];
    warp_->frame[lane] = frame;
    warp_->pc[lane] = static_cast<uint32_t>(in.target);
  }
}

// RET.REL.NODEC Ra: each lane goes to the offset from the kernel's start its pair Ra, Ra+1 holds,
// which must be known and the instruction after a call of the kernel's (register_flow.cc follows a
// return to every such instruction, and no further). Lanes going to different places split there.
void LaunchEvaluator::Return(const Instruction& in, uint32_t index, uint32_t mask) {
  const uint32_t returning = Decide(in, mask, "whether lanes return");
  Split(mask, returning);
  Advance(mask & ~returning);
  std::array<uint32_t, kWarpSize> target{};
  for (uint32_t lanes = returning; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    if (warp_->depth[lane] == 0)
      Stop(in, in.opcode + " at " + Located(in) + " returns with no call to return from");
    uint64_t bits = 0;
    const Value address = ReadRegisterPair(OperandKind::kRegister, ReturnRegister(in), lane, index, &bits);
    if (!address.known()) StopOnUnknown(in, address, "the return address");
    if (address.block.any()) not_affine_ = true;
    const auto found =
        bits >> 32 != 0 ? kernel_.index_of_pc.end() : kernel_.index_of_pc.find(static_cast<uint32_t>(bits));
    if (found == kernel_.index_of_pc.end() || found->second == 0 ||
        !IsFollowedCall(kernel_.code[found->second - 1])) {
      char text[32];
      std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(bits));
      Stop(in, in.opcode + " at " + Located(in) + " returns to " + text +
                   ", not to the instruction after a call of the kernel's: where it goes is not followed");
    }
    target[lane] = static_cast<uint32_t>(found->second);
  }
  for (uint32_t lanes = returning; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    uint32_t same = 0;
    for (uint32_t others = returning; others != 0; others &= others - 1)
      if (target[__builtin_ctz(others)] == target[lane]) same |= others & -others;
    Split(returning, same);
    warp_->frame[lane] = warp_->callers[lane * kMaxCallDepth + --warp_->depth[lane]];
    warp_->pc[lane] = target[lane];
  }
}

// Lanes that entered a function by different calls (two call sites, or one reached twice) may meet
// at one of its instructions, where the scheduler would run them as one; the GPU need not (no
// convergence barrier joins them), and the counts depend on it.
void LaunchEvaluator::OneActivation(uint32_t index, uint32_t mask) {
  const uint32_t frame = warp_->frame[__builtin_ctz(mask)];
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1)
    if (warp_->frame[__builtin_ctz(lanes)] != frame) {
      const Instruction& at = kernel_.code[index];
      Stop(at, "lanes that entered a function by different calls meet at " + Located(at) +
                   ": whether the GPU runs them as one is not followed");
    }
}

// BRA.DIV Rm, target: nvcc puts it before a warp-synchronous sequence (shfl.sync, vote.sync with a
// member mask in Rm). It branches to the sequence's collective form (WARPSYNC.COLLECTIVE ...
// ENDCOLLECTIVE, not followed here) when the threads Rm names are not converged, and falls through
// to the plain sequence when they are. The GPU's choice for a mask that names lanes not at it, or
// only part of those that are, is not measured; so only the fall-through every reading agrees on is
// decided: Rm names exactly the warp's live lanes, every one of them runs it, and they have run
// together since they last converged (WarpState::together).
void LaunchEvaluator::BranchIfDiverged(const Instruction& in, uint32_t index, uint32_t mask) {
  if (in.target < 0 || in.operands.size() != 2) Stop(in, in.opcode + " is a form the emulator does not read");
  const uint32_t running = Decide(in, mask, "the condition");
  if (running == 0) return Advance(mask);  // no lane's guard holds: none branches
  if (running != mask)
    Stop(in, in.opcode +
                 "'s guard holds for part of the lanes at it: whether the GPU branches then is not followed");
  uint32_t named = 0;
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    const Value value = Read(in.operands[0], lane, index);
    if (!value.known()) StopOnUnknown(in, value, "the mask");
    if (value.block.any()) not_affine_ = true;
    if (lane != __builtin_ctz(mask) && value.bits != named)
      Stop(in, in.opcode + "'s lanes name different masks: whether the GPU branches then is not followed");
    named = value.bits;
  }
  if (named != mask)
    Stop(in, in.opcode +
                 "'s mask names other lanes than those that run it: whether the GPU branches to the "
                 "collective path then is not followed");
  if (mask != (warp_->present & ~warp_->exited))
    Stop(in, in.opcode +
                 " runs with part of its warp's live lanes (the others at another pc or waiting): "
                 "whether the GPU branches to the collective path then is not followed");
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1)
    if ((warp_->together[__builtin_ctz(lanes)] & mask) != mask)
      Stop(in, in.opcode +
                   "'s lanes meet at it after a branch split them, with no BSYNC or WARPSYNC to "
                   "reconverge them: the GPU may run them apart, and branch");
  Advance(mask);
}

}  // namespace bankcheck::emulate::internal
