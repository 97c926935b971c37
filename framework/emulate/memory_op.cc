#include "emulate/internal/memory_op.h"

#include <iterator>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "emulate/internal/sass.h"
#include "emulate/internal/sm90.h"
#include "emulate/internal/warp.h"

namespace bankcheck::emulate::internal {
namespace {

Access AccessOf(Semantics semantics, Memory memory) {
  switch (semantics) {
    case Semantics::kSharedLoad:
    case Semantics::kSharedMatrixLoad:
      return Access::kLoad;
    case Semantics::kSharedStore:
    case Semantics::kSharedMatrixStore:
      return Access::kStore;
    case Semantics::kSharedAtomic:
      return Access::kAtomic;
    case Semantics::kSharedCopy:
      return Access::kCopy;
    case Semantics::kLoad:
      return memory == Memory::kGlobalAtomic || memory == Memory::kGenericAtomic ? Access::kAtomic
                                                                                 : Access::kLoad;
    case Semantics::kStore:
      return memory == Memory::kGlobalReduction || memory == Memory::kGenericReduction ? Access::kReduction
                                                                                       : Access::kStore;
    default:
      return Access::kNone;
  }
}

// The bytes each lane moves: the one rule of every cost and pass.
uint8_t BytesPerLane(const Instruction& in, Memory memory) {
  if (memory == Memory::kSharedLdmatrix || memory == Memory::kSharedStmatrix) return kMatrixRowBytes;
  if (in.Is(mod::kU8 | mod::kS8)) return 1;
  if (in.Is(mod::kU16 | mod::kS16)) return 2;
  if (in.Is(mod::k64 | mod::kU64 | mod::kS64 | mod::kF64)) return 8;
  if (in.Is(mod::k128)) return 16;
  return 4;
}

bool IsAddress(const Operand& operand) {
  return operand.kind == OperandKind::kMemory || operand.kind == OperandKind::kGlobalMemory;
}

// The one rule of which global and generic addresses the evaluator reads: a 64-bit register pair
// (written R.64, or any register under .E; RZ or none: zero) plus an offset, no uniform register
// added.
bool IsWideForm(const Instruction& in, const Operand& address) {
  if (address.uniform_base >= 0 && address.uniform_base != kUniformRegisterZero) return false;
  return address.base < 0 || address.base == kRegisterZero || address.pair || in.Is(mod::kE);
}

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

// Why `in` is not the HGMMA form the measurements cover (sm90::kMeasuredWgmma), or "": the modifiers
// .64x64x16.F32 and the operands `Rd, gdesc[URa], Rc|RZ[, scale-d predicate][, gsb0]` (the SS form:
// A and B from shared memory).
std::string UnmeasuredWgmma(const Instruction& in) {
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
  return "";
}

// UTMALDG.<n>D [URa], [URm][, desc[URp]]: n, where the operands are that form (URa a block of n + 2
// uniform registers, URm a pair; desc[URp] a cache policy); else 0.
uint8_t TensorCopyRank(const Instruction& in) {
  const std::vector<Operand>& ops = in.operands;
  if (in.modifiers.size() != 1) return 0;
  const std::string& shape = in.modifiers[0];
  const int rank =
      shape.size() == 2 && shape[1] == 'D' && shape[0] >= '1' && shape[0] <= '5' ? shape[0] - '0' : 0;
  const auto uniform_block = [](const Operand& op) {
    return op.kind == OperandKind::kMemory && op.base < 0 && op.uniform_base >= 0 &&
           op.uniform_base != kUniformRegisterZero && op.offset == 0;
  };
  const bool form = rank != 0 &&
                    (ops.size() == 2 || (ops.size() == 3 && ops[2].kind == OperandKind::kOther &&
                                         ops[2].text.rfind("desc[", 0) == 0)) &&
                    uniform_block(ops[0]) && uniform_block(ops[1]) &&
                    ops[0].uniform_base + 2 + rank <= kUniformRegisterZero &&
                    ops[1].uniform_base + 2 <= kUniformRegisterZero;
  return static_cast<uint8_t>(form ? rank : 0);
}

}  // namespace

MemoryOp DecodeMemoryOp(const Instruction& in) {
  MemoryOp op;
  if (in.info == nullptr) return op;
  if (in.info->semantics == Semantics::kWgmma) op.unmeasured = UnmeasuredWgmma(in);
  if (in.info->semantics == Semantics::kTensorLoad) op.tensor_rank = TensorCopyRank(in);
  op.memory = in.info->memory;
  op.access = AccessOf(in.info->semantics, op.memory);
  if (op.access == Access::kNone) return op;
  op.generic = IsGeneric(op.memory);
  op.bytes = BytesPerLane(in, op.memory);
  const bool matrix = op.memory == Memory::kSharedLdmatrix || op.memory == Memory::kSharedStmatrix;
  op.registers = matrix ? in.decoded.matrices : static_cast<uint8_t>(op.bytes < 4 ? 1 : op.bytes / 4);
  op.sign_extends = in.Is(mod::kS8 | mod::kS16);
  const std::vector<Operand>& ops = in.operands;
  // Shared and local addresses are [R+UR+o]; a cp.async's global source is its described operand.
  const bool offset_form = IsShared(op.memory) || op.memory == Memory::kLocal;
  const OperandKind copied = OperandKind::kGlobalMemory;
  int addresses = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (op.access == Access::kCopy && ops[i].kind == copied) {
      op.source = op.source < 0 ? static_cast<int>(i) : -2;  // more than one: not read
      continue;
    }
    if (!IsAddress(ops[i])) continue;
    ++addresses;
    op.address = static_cast<int>(i);
  }
  if (addresses != 1) {
    op.address = -1;
    op.form = AddressForm::kUnreadable;
    return op;
  }
  const Operand& address = ops[static_cast<size_t>(op.address)];
  if (offset_form)
    op.form = address.kind == OperandKind::kMemory ? AddressForm::kOffset : AddressForm::kUnreadable;
  else
    op.form = IsWideForm(in, address) ? AddressForm::kWide : AddressForm::kUnreadable;
  // cp.async: [shared], desc[URd][R.64+o], 16, 8 or 4 bytes, not the zero-fill form (whose bytes a
  // register gives).
  if (op.access == Access::kCopy && (op.source < 0 || ops.size() != 2 || in.Is(mod::kZfill) ||
                                     !IsWideForm(in, ops[static_cast<size_t>(op.source)])))
    op.source = -1;
  for (int i = 0; i < op.address; ++i)
    if (ops[static_cast<size_t>(i)].kind == OperandKind::kRegister) op.destination = i;
  if (op.access == Access::kStore || op.access == Access::kReduction) op.destination = -1;
  if (static_cast<size_t>(op.address) + 1 < ops.size() &&
      IsRegister(ops[static_cast<size_t>(op.address) + 1]))
    op.data = op.address + 1;
  return op;
}

}  // namespace bankcheck::emulate::internal
