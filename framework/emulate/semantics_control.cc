// The control handlers: branches, exits, convergence barriers (BSSY/BSYNC), WARPSYNC, block
// barriers and no-ops. Each moves its lanes' pcs itself (warp.cc schedules the lanes).

#include <string>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {

void LaunchEvaluator::Control(const Instruction& in, uint32_t index, uint32_t mask) {
  switch (in.info->semantics) {
    case Semantics::kNop:
      Advance(mask);
      return;
    case Semantics::kBarrier:
      if (!(in.Is(mod::kSync | mod::kArv)) || in.Is(mod::kRed))
        Stop(in, in.opcode + " is a barrier form the emulator does not understand");
      // Counting, a block's warps run one after another: a barrier orders nothing counted.
      if (output_ != nullptr) return BlockBarrier(in, mask);
      Advance(mask);
      return;
    case Semantics::kBranch: {
      // BRA.U.ANY: every lane branches when any lane's condition holds (a warp-uniform loop).
      const bool any = in.modifiers.size() == 2 && in.Is(mod::kU) && in.Is(mod::kAny);
      if (in.target < 0 || (!in.modifiers.empty() && !(in.modifiers.size() == 1 && in.Is(mod::kU)) && !any))
        Stop(in, in.opcode + " is a branch the emulator does not follow");
      uint32_t taken = Decide(in, mask, "the condition");
      if (any && taken != 0) taken = mask;
      for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(mask >> lane & 1u)) continue;
        warp_.pc[lane] = (taken >> lane & 1u) ? static_cast<uint32_t>(in.target) : index + 1;
      }
      return;
    }
    case Semantics::kExit: {
      const uint32_t leaving = Decide(in, mask, "whether lanes exit");
      warp_.exited |= leaving;
      Advance(mask & ~leaving);
      Release();
      return;
    }
    case Semantics::kSyncStart: {
      if (in.operands.empty() || in.operands[0].kind != OperandKind::kBarrier)
        Stop(in, in.opcode + " names no convergence barrier");
      const uint32_t lanes = Decide(in, mask, "whether it runs");
      if (lanes != 0) warp_.barrier[in.operands[0].index] = lanes;
      Advance(mask);
      return;
    }
    case Semantics::kSyncWait:
    case Semantics::kWarpSync: {
      const uint32_t lanes = Decide(in, mask, "whether it runs");
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
        warp_.barrier[kWarpSyncBarrier] = warp_mask;
        warp_.sync_members = warp_mask;
        for (int lane = 0; lane < kWarpSize && !in.Is(mod::kAll); ++lane) {
          if (!(lanes >> lane & 1u)) continue;
          const Value value = Read(in.operands[0], lane, index);
          if (!value.known() || value.bits != warp_mask) warp_.sync_members = kMixedWarpSync;
        }
      }
      Advance(mask & ~lanes);
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (lanes >> lane & 1u) {
          warp_.waiting |= 1u << lane;
          warp_.waits_on[lane] = barrier;
        }
      Release();
      return;
    }
    default:
      Stop(in, in.opcode + " reached the wrong handler (Control)");
  }
}

}  // namespace bankcheck::emulate::internal
