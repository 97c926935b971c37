// The output pass's memory instructions (output_pass.h): shared loads, stores and cp.async copies on
// the block's shared bytes; global loads of the memory the launch found (and of what its own block
// stored), global stores into the launch's stores. Every other instruction that reaches memory
// (atomics, local memory, ldmatrix, tensor copies) stops the pass: what it writes is not followed.

#include <cstring>
#include <string>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {
namespace {

const Operand* AddressOperand(const Instruction& in, OperandKind kind) {
  for (const Operand& operand : in.operands)
    if (operand.kind == kind) return &operand;
  return nullptr;
}

// A load's value in registers: the bytes read, a sub-word signed form sign-extended.
void ToWords(const Instruction& in, const uint8_t* bytes, uint32_t size, uint32_t (&words)[4]) {
  std::memset(words, 0, sizeof words);
  std::memcpy(words, bytes, size);
  if (size < 4 && in.Is(mod::kS8 | mod::kS16)) {
    const uint32_t sign = 1u << (8 * size - 1);
    if (words[0] & sign) words[0] |= ~((sign << 1) - 1);
  }
}

// Register `part` of a store's data (its register, or the next ones for .64 and .128) in `lane`.
Value DataPart(const WarpState& warp, const Operand& data, uint32_t part, int lane) {
  if (data.index == ZeroRegister(data.kind)) return Known(0);
  const int number = data.index + static_cast<int>(part);
  if (data.kind == OperandKind::kUniformRegister)
    return number < kUniformRegisterZero ? warp.uniform[number] : Known(0);
  return number < kRegisterZero ? warp.registers[number * kWarpSize + lane] : Known(0);
}

}  // namespace

Value LaunchEvaluator::SharedAddress(const Operand& address, int lane) const {
  Value sum = Known(static_cast<uint32_t>(address.offset));
  if (address.base >= 0 && address.base != kRegisterZero) {
    const Value base = warp_.registers[address.base * kWarpSize + lane];
    sum = Affine(sum.bits + base.bits, Plus(sum.block, base.block), sum, base);
  }
  if (address.uniform_base >= 0 && address.uniform_base != kUniformRegisterZero) {
    const Value base = warp_.uniform[address.uniform_base];
    sum = Affine(sum.bits + base.bits, Plus(sum.block, base.block), sum, base);
  }
  return sum;
}

uint64_t LaunchEvaluator::GlobalAddress(const Instruction& in, const Operand& address, int lane,
                                        size_t index) const {
  // As sector_cost.cc reads them: a 64-bit register pair (desc[URd][R.64+o], or [R.64+o] with .E) plus
  // the offset.
  if (address.base_uniform || (address.uniform_base >= 0 && address.uniform_base != kUniformRegisterZero) ||
      (address.base >= 0 && address.base != kRegisterZero && address.text.find(".64") == std::string::npos &&
       !in.Is(mod::kE)))
    Stop(in, "the address of " + Located(in) + " is a form the output pass does not read");
  uint64_t base = 0;
  const Value where = ReadRegisterPair(OperandKind::kRegister,
                                       address.base >= 0 ? address.base : kRegisterZero, lane, index, &base);
  if (!where.known()) StopOnUnknown(in, where, "the address");
  return base + static_cast<uint64_t>(address.offset);
}

bool LaunchEvaluator::ReadGlobal(const Instruction& in, uint64_t address, uint32_t size, uint8_t* out) const {
  switch (output_->stores.Load(address, size, output_->block, out)) {
    case LaunchStores::Read::kFound:
      return true;
    case LaunchStores::Read::kOtherBlock:
      Stop(in, Located(in) +
                   " reads global memory that another block of the launch stored: the order "
                   "blocks run in is not followed");
    case LaunchStores::Read::kNotStored:
      break;
  }
  return launch_.memory->Read(address, size, out);
}

void LaunchEvaluator::ComputeMemory(const Instruction& in, size_t index, uint32_t mask) {
  const uint32_t lanes = Decide(in, mask, "whether it runs");
  if (lanes == 0) return;
  const Memory memory = in.info->memory;
  switch (in.info->semantics) {
    case Semantics::kSharedLoad:
      return SharedLoad(in, index, lanes);
    case Semantics::kSharedStore:
      return SharedStore(in, index, lanes);
    case Semantics::kSharedCopy:
      return SharedCopy(in, index, lanes);
    case Semantics::kLoad:
      if (memory == Memory::kGlobal || memory == Memory::kGeneric) return GlobalLoad(in, index, lanes);
      break;
    case Semantics::kStore:
      if (memory == Memory::kGlobal || memory == Memory::kGeneric) return GlobalStore(in, index, lanes);
      break;
    default:
      break;
  }
  Stop(in, in.base + " is not computed by the output pass (" + Located(in) +
               "): what it reads or writes is not followed");
}

void LaunchEvaluator::SharedLoad(const Instruction& in, size_t index, uint32_t lanes) {
  const Operand* address = AddressOperand(in, OperandKind::kMemory);
  if (address == nullptr) Stop(in, in.opcode + " has no address operand");
  const uint32_t size = in.decoded.access_bytes;
  const Operand& destination = in.operands[0];
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const Value where = SharedAddress(*address, lane);
    if (!where.known()) StopOnUnknown(in, where, "the address");
    const uint64_t at = where.bits;
    if (at % size != 0 || at + size > output_->shared.size())
      Stop(in, "the access of " + Located(in) + " faults on the GPU: shared address " + std::to_string(at) +
                   " is misaligned or outside the block's shared memory");
    bool known = true;
    for (uint32_t i = 0; i < size; ++i) known = known && output_->shared_known[at + i] != 0;
    uint32_t words[4];
    ToWords(in, &output_->shared[at], size, words);
    Writes out(warp_, lane, Known(1));
    for (int part = 0; part < in.decoded.width && destination.index != kRegisterZero; ++part)
      out.Add(destination.kind, destination.index + part,
              known ? Known(words[part]) : Unknown(Origin(index)));
  }
}

void LaunchEvaluator::SharedStore(const Instruction& in, size_t /*index*/, uint32_t lanes) {
  const Operand* address = AddressOperand(in, OperandKind::kMemory);
  if (address == nullptr || in.operands.size() < 2 || !IsRegister(in.operands[1]))
    Stop(in, in.opcode + " is a store form the output pass does not read");
  const Operand& data = in.operands[1];
  const uint32_t size = in.decoded.access_bytes;
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const Value where = SharedAddress(*address, lane);
    if (!where.known()) StopOnUnknown(in, where, "the address");
    const uint64_t at = where.bits;
    if (at % size != 0 || at + size > output_->shared.size())
      Stop(in, "the access of " + Located(in) + " faults on the GPU: shared address " + std::to_string(at) +
                   " is misaligned or outside the block's shared memory");
    uint32_t words[4] = {};
    bool known = true;
    for (uint32_t part = 0; part * 4 < size; ++part) {
      const Value value = DataPart(warp_, data, part, lane);
      known = known && value.known();
      words[part] = value.bits;
    }
    std::memcpy(&output_->shared[at], words, size);
    std::memset(&output_->shared_known[at], known ? 1 : 0, size);
  }
}

void LaunchEvaluator::SharedCopy(const Instruction& in, size_t index, uint32_t lanes) {
  const Operand* shared = AddressOperand(in, OperandKind::kMemory);
  const Operand* global = AddressOperand(in, OperandKind::kGlobalMemory);
  if (shared == nullptr || global == nullptr || in.operands.size() != 2 || in.Is(mod::kZfill))
    Stop(in, in.opcode + " is a cp.async form the output pass does not read");
  const uint32_t size = in.decoded.access_bytes;
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const Value where = SharedAddress(*shared, lane);
    if (!where.known()) StopOnUnknown(in, where, "the address");
    const uint64_t at = where.bits;
    const uint64_t from = GlobalAddress(in, *global, lane, index);
    if (at % size != 0 || at + size > output_->shared.size() || from % size != 0)
      Stop(in, "the copy of " + Located(in) +
                   " faults on the GPU: an address is misaligned or outside the "
                   "block's shared memory");
    uint8_t bytes[16] = {};
    const bool known = ReadGlobal(in, from, size, bytes);
    std::memcpy(&output_->shared[at], bytes, size);
    std::memset(&output_->shared_known[at], known ? 1 : 0, size);
  }
}

void LaunchEvaluator::GlobalLoad(const Instruction& in, size_t index, uint32_t lanes) {
  const Operand* address = AddressOperand(in, OperandKind::kGlobalMemory);
  if (address == nullptr) address = AddressOperand(in, OperandKind::kMemory);
  if (address == nullptr || in.operands.empty() || in.operands[0].kind != OperandKind::kRegister)
    Stop(in, in.opcode + " is a load form the output pass does not read");
  const uint32_t size = in.decoded.access_bytes;
  const Operand& destination = in.operands[0];
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = GlobalAddress(in, *address, lane, index);
    if (at % size != 0)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: a misaligned global address");
    uint8_t bytes[16] = {};
    const bool known = ReadGlobal(in, at, size, bytes);
    uint32_t words[4];
    ToWords(in, bytes, size, words);
    Writes out(warp_, lane, Known(1));
    for (int part = 0; part < in.decoded.width && destination.index != kRegisterZero; ++part)
      out.Add(destination.kind, destination.index + part,
              known ? Known(words[part]) : Unknown(Origin(index)));
  }
}

void LaunchEvaluator::GlobalStore(const Instruction& in, size_t index, uint32_t lanes) {
  const Operand* address = AddressOperand(in, OperandKind::kGlobalMemory);
  if (address == nullptr) address = AddressOperand(in, OperandKind::kMemory);
  if (address == nullptr || in.operands.size() < 2 || !IsRegister(in.operands[1]))
    Stop(in, in.opcode + " is a store form the output pass does not read");
  const Operand& data = in.operands[1];
  const uint32_t size = in.decoded.access_bytes;
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = GlobalAddress(in, *address, lane, index);
    if (at % size != 0)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: a misaligned global address");
    if (!launch_.memory->Allocated(at, size))
      Stop(in, Located(in) +
                   " stores outside the device allocations the program made (the GPU faults, or "
                   "it is memory the emulator does not follow)");
    uint32_t words[4] = {};
    for (uint32_t part = 0; part * 4 < size; ++part) {
      const Value value = DataPart(warp_, data, part, lane);
      if (!value.known()) StopOnUnknown(in, value, "the value stored");
      words[part] = value.bits;
    }
    output_->stores.Store(at, reinterpret_cast<const uint8_t*>(words), size, output_->block);
  }
}

}  // namespace bankcheck::emulate::internal
