// A warp's SIMT scheduling: the lanes at the lowest pc run together, each instruction dispatched to
// its handler family (the opcode table's semantics); lanes waiting at a convergence barrier or
// WARPSYNC are released when every lane the barrier names has arrived or exited.

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {

// ---- a warp ----
// A lane's guard. Predicates that hold in every block of a group (BlockConditions) carry no
// dependence; one that does makes every block evaluated.
Value LaunchEvaluator::Guard(const Instruction& in, int lane) {
  if (in.guard == kPredicateTrue) return Known(in.guard_negated ? 0 : 1);
  Value value =
      in.guard_uniform ? warp_->uniform_predicates[in.guard] : warp_->predicates[in.guard * kWarpSize + lane];
  if (value.known() && in.guard_negated) value.bits ^= 1u;
  if (value.block.any()) not_affine_ = true;
  return value;
}

void LaunchEvaluator::Release() {
  for (int b = 0; b <= kWarpSyncBarrier; ++b) {
    uint32_t waiters = 0;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if ((warp_->waiting >> lane & 1u) && warp_->waits_on[lane] == b) waiters |= 1u << lane;
    if (waiters == 0) continue;
    const uint32_t required = warp_->barrier[b] & warp_->present & ~warp_->exited;
    if ((required & ~waiters) != 0) continue;
    warp_->waiting &= ~waiters;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (waiters >> lane & 1u) {
        ++warp_->pc[lane];
        warp_->waits_on[lane] = -1;
        warp_->together[lane] = waiters;  // converged by the barrier
      }
  }
}

void LaunchEvaluator::RunWarp() {
  const size_t size = kernel_.code.size();
  while (true) {
    const uint32_t runnable = warp_->present & ~warp_->exited & ~warp_->waiting;
    if (runnable == 0) {
      if (warp_->waiting == 0) return;
      const uint32_t before = warp_->waiting;
      Release();
      if (warp_->waiting == before) {
        const Instruction& at = kernel_.code.at(warp_->pc[__builtin_ctz(warp_->waiting)]);
        Stop(at, "lanes wait at " + Located(at) + " for lanes that never arrive");
      }
      continue;
    }
    // The lowest pc of the runnable lanes, and the lanes at it.
    uint32_t index = UINT32_MAX, mask = 0;
    for (uint32_t lanes = runnable; lanes != 0; lanes &= lanes - 1) {
      const int lane = __builtin_ctz(lanes);
      const uint32_t pc = warp_->pc[lane];
      if (pc < index) {
        index = pc;
        mask = 0;
      }
      if (pc == index) mask |= 1u << lane;
    }
    if (index >= size) {
      Stop(kernel_.code.back(), "the code runs past the kernel's last instruction");
    }
    if (!meter_.SpendInstructions(1)) Stop(kernel_.code[index], meter_.WhyInstructions());
    if (warp_->frames != 0) OneActivation(index, mask);
    Execute(index, mask);
    if (memory_.AtBarrier()) return;  // the block's other warps run first
  }
}

void LaunchEvaluator::Split(uint32_t mask, uint32_t side) {
  side &= mask;
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    warp_->together[lane] &= (side >> lane & 1u) ? side : mask & ~side;
  }
}

void LaunchEvaluator::Advance(uint32_t mask) {
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) ++warp_->pc[__builtin_ctz(lanes)];
}

uint32_t LaunchEvaluator::Decide(const Instruction& in, uint32_t mask, std::string_view what) {
  if (in.guard == kPredicateTrue) return in.guard_negated ? 0 : mask;  // @PT: no lane's guard to read
  uint32_t taken = 0;
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    const Value guard = Guard(in, lane);
    if (!guard.known()) StopOnUnknown(in, guard, std::string(what));
    if (guard.bits) taken |= 1u << lane;
  }
  return taken;
}

namespace {

// The semantics whose handler (Control) moves the warp's pcs itself.
constexpr bool MovesPcs(Semantics semantics) {
  switch (semantics) {
#define SEMANTICS(name, handler) \
  case Semantics::name:          \
    return std::string_view(#handler) == "Control";
#include "emulate/internal/semantics.def"
#undef SEMANTICS
  }
  return false;
}

}  // namespace

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
  unchecked_origin_ = memory_.UncheckedOrigin(in, index);
  using Handler = void (*)(LaunchEvaluator&, const Instruction&, uint32_t, uint32_t);
  static constexpr Handler kHandlers[] = {
#define SEMANTICS(name, handler)                                                                \
  [](LaunchEvaluator& evaluator, const Instruction& instruction, uint32_t at, uint32_t lanes) { \
    evaluator.handler(instruction, at, lanes);                                                  \
  },
#include "emulate/internal/semantics.def"
#undef SEMANTICS
  };
  kHandlers[static_cast<size_t>(in.info->semantics)](*this, in, index, mask);
  if (!MovesPcs(in.info->semantics)) Advance(mask);
}

}  // namespace bankcheck::emulate::internal
