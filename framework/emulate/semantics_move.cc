// The move handlers: MOV, the special registers (S2R, S2UR, CS2R: sm90.h), constants (LDC, ULDC:
// constant bank 0 is the launch configuration and the arguments), R2UR and the warp shuffle (SHFL).

#include <array>
#include <vector>

#include "emulate/internal/cluster.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {

// Moves, special registers and constants.
void LaunchEvaluator::Moves(const Instruction& in, size_t index, uint32_t mask) {
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    const std::vector<Operand>& ops = in.operands;
    switch (in.info->semantics) {
      case Semantics::kMove: {
        out.Add(ops.at(0), Read(ops.at(1), lane, index));
        return;
      }
      case Semantics::kSpecialRegisterPair: {
        if (static_cast<sm90::SpecialRegister>(ops.at(1).index) == sm90::SpecialRegister::kZero) {
          out.AddPair(ops[0], 0, Known(0));
        } else {
          out.AddUnknown(in, 1, in.Is(mod::k32) ? 1 : 2, Origin(index));
        }
        return;
      }
      case Semantics::kSpecialRegister:
        out.Add(ops[0], SpecialRegister(ops.at(1), lane, index));
        return;
      case Semantics::kLoadConstant: {
        const Operand& source = ops.at(1);
        if (source.kind != OperandKind::kConstant) {
          out.AddUnknown(in, 1, in.decoded.width, Origin(index));
          return;
        }
        uint64_t offset = source.value;
        Value base = Known(0);
        if (source.base >= 0) {
          base = source.base_uniform ? warp_->uniform[source.base]
                                     : warp_->registers[source.base * kWarpSize + lane];
          offset += base.bits;
        }
        uint32_t bytes = 4;
        if (in.Is(mod::kU8 | mod::kS8)) bytes = 1;
        if (in.Is(mod::kU16 | mod::kS16)) bytes = 2;
        const int width = in.decoded.width;
        for (int part = 0; part < width; ++part) {
          Value value = ReadConstant(index, source.bank, offset + 4u * part, bytes);
          if (value.known() && bytes < 4) {
            const uint32_t low_bytes = (1u << (8 * bytes)) - 1;
            value.bits &= low_bytes;
            if (in.Is(mod::kS8 | mod::kS16) && (value.bits >> (8 * bytes - 1))) value.bits |= ~low_bytes;
          }
          out.Add(ops[0].kind, ops[0].index + part, From(value.bits, value, base));
        }
        return;
      }
      default:
        Stop(in, in.opcode + " reached the wrong handler (Moves)");
    }
  });
}

Value LaunchEvaluator::SpecialRegister(const Operand& source, int lane, size_t index) const {
  using sm90::SpecialRegister;
  const uint32_t linear = warp_index_ * kWarpSize + static_cast<uint32_t>(lane);
  const Dim3& b = launch_.block;
  const uint32_t bit = 1u << lane;
  BlockDependence block;
  switch (static_cast<SpecialRegister>(source.index)) {
    case SpecialRegister::kTidX:
      return Known(linear % b.x);
    case SpecialRegister::kTidY:
      return Known((linear / b.x) % b.y);
    case SpecialRegister::kTidZ:
      return Known(linear / (b.x * b.y));
    case SpecialRegister::kCtaidX:
      block.step[0] = 1;
      return Known(ctaid_.x, block);
    case SpecialRegister::kCtaidY:
      block.step[1] = 1;
      return Known(ctaid_.y, block);
    case SpecialRegister::kCtaidZ:
      block.step[2] = 1;
      return Known(ctaid_.z, block);
    case SpecialRegister::kLaneId:
      return Known(static_cast<uint32_t>(lane));
    case SpecialRegister::kCgaCtaId:
      // Without clusters every block is rank 0 of its own. In a cluster the rank is the block's
      // index modulo the cluster's, which no affine step follows: blocks are evaluated one by one
      // where it reaches an address or a branch.
      if (launch_.cluster == Dim3{}) return Known(0);
      return Known(ClusterRank(ctaid_, launch_.cluster), NotAffine());
    case SpecialRegister::kSharedWindowHigh:
      return Known(sm90::kSharedWindowHighWord);
    case SpecialRegister::kLaneMaskEq:
      return Known(bit);
    case SpecialRegister::kLaneMaskLt:
      return Known(bit - 1);
    case SpecialRegister::kLaneMaskLe:
      return Known(bit | (bit - 1));
    case SpecialRegister::kLaneMaskGt:
      return Known(~(bit | (bit - 1)));
    case SpecialRegister::kLaneMaskGe:
      return Known(~(bit - 1));
    default:
      return Unknown(Origin(index));
  }
}

// R2UR: a register that every lane running it agrees on, as a uniform register; unknown when they
// differ.
void LaunchEvaluator::RegisterToUniform(const Instruction& in, size_t index, uint32_t mask) {
  Value agreed;
  bool first = true;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const Value guard = Guard(in, lane);
    if (guard.known() && !guard.bits) continue;
    Value value = Read(in.operands.at(1), lane, index);
    if (!guard.known()) value = Unknown(guard.origin);
    if (first)
      agreed = value;
    else if (value.known() && agreed.known() && value.bits != agreed.bits)
      agreed = Unknown(Origin(index));
    else if (!(value.known() && agreed.known() && value.block == agreed.block))
      agreed = From(agreed.bits, agreed, value);
    first = false;
  }
  if (!first) {
    Writes(*warp_, 0, Known(1)).Add(in.operands.at(0), agreed);
  }
}

// SHFL (shfl.sync as the PTX ISA defines it): b's low 5 bits are the lane, delta or mask, c packs the
// clamp (bits 0-4) and the segment mask (bits 8-12). Lane t reads lane j's source as it was before
// the instruction, and its predicate says whether j was in range (else j = t). A lane j that does not
// run the instruction gives an unknown (undefined on the GPU).
void LaunchEvaluator::Shuffle(const Instruction& in, size_t index, uint32_t mask) {
  const std::vector<Operand>& ops = in.operands;
  using Mode = DecodedModifiers::ShuffleMode;
  const Mode mode = in.decoded.shuffle;
  const bool form = ops.size() == 5 && IsPredicate(ops[0]) && ops[1].kind == OperandKind::kRegister;
  std::array<Value, kWarpSize> sources{};
  uint32_t running = 0;  // the lanes whose guard holds
  for (uint32_t rest = mask; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const Value guard = Guard(in, lane);
    if (guard.known() && guard.bits) running |= 1u << lane;
    if (form) sources[lane] = ReadRaw(ops[2], lane, index);
  }
  ForEachLane(in, mask, [&](int lane, Writes& out) {
    if (!form || mode == Mode::kNone) {
      out.AddUnknown(in, 2, 1, Origin(index));
      return;
    }
    const Value b = Read(ops[3], lane, index), c = Read(ops[4], lane, index);
    const uint32_t t = static_cast<uint32_t>(lane), delta = b.bits & 0x1fu, clamp = c.bits & 0x1fu;
    const uint32_t segment = (c.bits >> 8) & 0x1fu;
    const uint32_t max_lane = (t & segment) | (clamp & ~segment), min_lane = t & segment;
    uint32_t j = t;
    bool in_range = false;
    switch (mode) {
      case Mode::kUp:
        j = t - delta;
        in_range = static_cast<int32_t>(j) >= static_cast<int32_t>(max_lane);
        break;
      case Mode::kDown:
        j = t + delta;
        in_range = j <= max_lane;
        break;
      case Mode::kButterfly:
        j = t ^ delta;
        in_range = j <= max_lane;
        break;
      default:
        j = min_lane | (delta & ~segment);
        in_range = j <= max_lane;
        break;
    }
    if (!in_range) j = t;
    const Value source = (running >> j & 1u) ? sources[j] : Unknown(Origin(index));
    out.Add(ops[0], From(in_range ? 1u : 0u, b, c));
    out.Add(ops[1], From(source.bits, source, b, c));
  });
}

}  // namespace bankcheck::emulate::internal
