// HMMA (mma.sync): the warp's fragment registers gathered into the matrices a, b and c by the PTX
// ISA's maps, each element of d computed by the tensor core's arithmetic (internal/tensor_core.h).
// Computed in the forms nvcc emits for m16n8k16 (f16, bf16; f32 or f16 accumulators) and m16n8k8
// (tf32), and only where the whole warp runs it unguarded: mma.sync's lanes compute together.
#include <array>
#include <string>
#include <vector>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/tensor_core.h"

namespace bankcheck::emulate::internal {
namespace {

struct MmaForm {
  MmaElement type = MmaElement::kF16;
  bool f16_output = false;  // .F16: c and d f16, 2 registers each
  bool known = false;
};

// The form its modifiers name: .16816.F32 (f16), .16816.F32.BF16, .1688.F32.TF32, .16816.F16.
MmaForm MmaFormOf(const std::vector<std::string>& modifiers) {
  MmaForm form;
  if (modifiers == std::vector<std::string>{"16816", "F32"}) {
    form.known = true;
  } else if (modifiers == std::vector<std::string>{"16816", "F32", "BF16"}) {
    form.type = MmaElement::kBf16;
    form.known = true;
  } else if (modifiers == std::vector<std::string>{"1688", "F32", "TF32"}) {
    form.type = MmaElement::kTf32;
    form.known = true;
  } else if (modifiers == std::vector<std::string>{"16816", "F16"}) {
    form.f16_output = true;
    form.known = true;
  }
  return form;
}

// A plain register operand (or RZ): no negation, absolute value or selector.
bool PlainRegister(const Operand& operand) {
  return operand.kind == OperandKind::kRegister && !operand.negate && !operand.invert && !operand.absolute;
}

}  // namespace

// HMMA d, a, b, c: d (4 registers, .F16 2) = a (4) * b (2) + c (as d; RZ: zeros), every lane's
// registers holding its fragments. An element is unknown where one of the operands it reads is.
void LaunchEvaluator::MatrixMultiply(const Instruction& in, size_t index, uint32_t mask) {
  const std::vector<Operand>& ops = in.operands;
  const MmaForm form = MmaFormOf(in.modifiers);
  const int d_registers = form.f16_output ? 2 : 4;
  bool computed = form.known && !in.unchecked_form && mask == 0xffffffffu && ops.size() == 4 &&
                  PlainRegister(ops[0]) && PlainRegister(ops[1]) && PlainRegister(ops[2]) &&
                  PlainRegister(ops[3]);
  for (int lane = 0; computed && lane < kWarpSize; ++lane) {
    const Value guard = Guard(in, lane);
    computed = guard.known() && guard.bits != 0;
  }
  const uint32_t origin = Origin(index);
  if (!computed) {
    for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1)
      Writes(*warp_, __builtin_ctz(lanes), Known(1)).AddUnknown(in, 1, form.known ? d_registers : 4, origin);
    return;
  }
  // The operand's register `reg` of `lane`: RZ and the registers past it read as zeros.
  const auto read = [&](const Operand& operand, uint32_t reg, uint32_t lane) {
    const int at = operand.index + static_cast<int>(reg);
    return operand.index == kRegisterZero ? Known(0) : warp_->registers[at * kWarpSize + lane];
  };
  const auto half = [](const Value& value, uint32_t which) { return value.bits >> (16 * which) & 0xffffu; };
  const uint32_t k = MmaK(form.type);
  const bool halves = form.type != MmaElement::kTf32;
  std::array<std::array<Value, 4>, kWarpSize> d{};
  for (uint32_t row = 0; row < 16; ++row) {
    for (uint32_t col = 0; col < 8; ++col) {
      uint32_t a[16], b[16];
      const FragmentSlot cs = MmaCSlot(form.f16_output, row, col);
      const Value c = read(ops[3], cs.reg, cs.lane);
      Value inputs = From(0, c);
      for (uint32_t i = 0; i < k; ++i) {
        const FragmentSlot as = MmaASlot(form.type, row, i), bs = MmaBSlot(form.type, i, col);
        const Value x = read(ops[1], as.reg, as.lane), y = read(ops[2], bs.reg, bs.lane);
        a[i] = halves ? half(x, as.half) : x.bits;
        b[i] = halves ? half(y, bs.half) : y.bits;
        inputs = From(0, inputs, x, y);
      }
      const uint32_t c_bits = form.f16_output ? half(c, cs.half) : c.bits;
      const Value element = From(TensorCoreDot(form.type, a, b, k, c_bits, form.f16_output), inputs);
      Value& slot = d[cs.lane][cs.reg];
      if (!form.f16_output) {
        slot = element;
      } else if (cs.half == 0) {
        slot = element;
      } else {  // the high half joins the low one, written first (col even)
        slot = From(slot.bits | element.bits << 16, slot, element);
      }
    }
  }
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
    Writes writes(*warp_, static_cast<int>(lane), WriteGuard(Known(1)));
    if (ops[0].index == kRegisterZero) continue;
    for (int reg = 0; reg < d_registers; ++reg)
      writes.Add(OperandKind::kRegister, ops[0].index + reg, d[lane][static_cast<size_t>(reg)]);
  }
}

}  // namespace bankcheck::emulate::internal
