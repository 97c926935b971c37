// The output pass's memory instructions (output_pass.h), dispatched here: global loads of the memory
// the launch found (and of what its own block stored), global stores and integer atomics into the
// launch's stores, local memory per thread; shared memory in output_shared.cc. Every other instruction
// that reaches memory (a float atomic of any width, a tensor copy) stops the pass: what it writes is
// not followed.

#include <cstring>
#include <string>

#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate::internal {

uint64_t LaunchEvaluator::GlobalAddress(const Instruction& in, const Operand& address, int lane,
                                        size_t index) const {
  if (address.base_uniform || !IsGlobalAddressForm(in, address))
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

void LaunchEvaluator::ComputeMemory(const Instruction& in, size_t index, uint32_t lanes) {
  if (lanes == 0) return;
  const Memory memory = in.info->memory;
  switch (in.info->semantics) {
    case Semantics::kSharedLoad:
      return SharedLoad(in, index, lanes);
    case Semantics::kSharedStore:
      return SharedStore(in, lanes);
    case Semantics::kSharedCopy:
      return SharedCopy(in, index, lanes);
    case Semantics::kSharedMatrixLoad:
    case Semantics::kSharedMatrixStore:
      return SharedMatrix(in, index, lanes, in.info->semantics == Semantics::kSharedMatrixStore);
    case Semantics::kSharedAtomic:
      return SharedAtomic(in, index, lanes);
    case Semantics::kLoad:
    case Semantics::kStore:
      if (memory == Memory::kGlobal || memory == Memory::kGeneric)
        return in.info->semantics == Semantics::kLoad ? GlobalLoad(in, index, lanes)
                                                      : GlobalStore(in, index, lanes);
      if (memory == Memory::kLocal) return LocalAccess(in, index, lanes);
      if (memory == Memory::kGlobalAtomic || memory == Memory::kGenericAtomic ||
          memory == Memory::kGlobalReduction || memory == Memory::kGenericReduction)
        return GlobalAtomic(in, index, lanes);
      break;
    default:
      break;
  }
  Stop(in, in.base + " is not computed by the output pass (" + Located(in) +
               "): what it reads or writes is not followed");
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
    Writes out(*warp_, lane, Known(1));
    WriteLoaded(out, in, destination, bytes, size, known, index);
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
    const Value stored = StoreData(*warp_, data, size, lane, words);
    if (!stored.known()) StopOnUnknown(in, stored, "the value stored");
    if (!output_->stores.Store(at, reinterpret_cast<const uint8_t*>(words), size, output_->block))
      TooManyStores(in);
  }
}

void LaunchEvaluator::TooManyStores(const Instruction& in) const {
  Stop(in, Located(in) + ": the launch stores across more than " +
               std::to_string(LaunchStores::kMaxPages * 4 / 1024) +
               " MiB of address space, over the output pass's limit");
}

// An integer atomic or reduction to global memory (ATOMG, ATOM, REDG, RED .ADD), lane after lane: it
// reads the bytes whichever block of the launch stored them (atomics order themselves), and stores
// the sum as this block's. The old value goes to the destination register, if any.
void LaunchEvaluator::GlobalAtomic(const Instruction& in, size_t index, uint32_t lanes) {
  const Operand* address = AddressOperand(in, OperandKind::kGlobalMemory);
  if (address == nullptr) address = AddressOperand(in, OperandKind::kMemory);
  size_t at_address = 0;
  while (at_address < in.operands.size() && &in.operands[at_address] != address) ++at_address;
  const Operand* destination = nullptr;  // the register before the address, when it is not RZ
  for (size_t i = 0; i < at_address; ++i)
    if (in.operands[i].kind == OperandKind::kRegister && in.operands[i].index != kRegisterZero)
      destination = &in.operands[i];
  if (address == nullptr || in.decoded.atomic != AtomicOp::kAdd || at_address + 1 >= in.operands.size() ||
      !IsRegister(in.operands[at_address + 1]))
    Stop(in, in.opcode + " is not computed by the output pass (" + Located(in) +
                 "): only the 32-bit integer adds are, not a float atomic (rounded as the GPU's atomic "
                 "unit does, which no conformance vector checks) or a 64-bit one");
  const Operand& data = in.operands[at_address + 1];
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = GlobalAddress(in, *address, lane, index);
    if (at % 4 != 0)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: a misaligned global address");
    if (!launch_.memory->Allocated(at, 4))
      Stop(in, Located(in) +
                   " writes outside the device allocations the program made (the GPU faults, or it "
                   "is memory the emulator does not follow)");
    uint32_t old = 0;
    if (output_->stores.Load(at, 4, LaunchStores::kAnyBlock, reinterpret_cast<uint8_t*>(&old)) !=
            LaunchStores::Read::kFound &&
        !launch_.memory->Read(at, 4, &old))
      Stop(in, Located(in) + " adds to global memory whose value is not known");
    const Value addend = DataPart(*warp_, data, 0, lane);
    if (!addend.known()) StopOnUnknown(in, addend, "the value added");
    const uint32_t sum = old + addend.bits;
    if (!output_->stores.Store(at, reinterpret_cast<const uint8_t*>(&sum), 4, output_->block))
      TooManyStores(in);
    if (destination != nullptr) Writes(*warp_, lane, Known(1)).Add(*destination, Known(old));
  }
}

// LDL/STL: each thread's own bytes, at the local address its lane's offset names (known bytes only).
void LaunchEvaluator::LocalAccess(const Instruction& in, size_t index, uint32_t lanes) {
  const Operand* address = AddressOperand(in, OperandKind::kMemory);
  const bool store = in.info->semantics == Semantics::kStore;
  const Operand& data = in.operands.at(store ? 1 : 0);
  if (address == nullptr || !IsRegister(data))
    Stop(in, in.opcode + " is a form the output pass does not read");
  const uint32_t size = in.decoded.access_bytes;
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const Value where = OffsetAddress(*address, lane);
    if (!where.known()) StopOnUnknown(in, where, "the address");
    if (where.bits % size != 0)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: a misaligned local address");
    const uint64_t key = uint64_t{warp_index_ * kWarpSize + static_cast<uint32_t>(lane)} << 32 | where.bits;
    uint32_t words[4] = {};
    auto* bytes = reinterpret_cast<uint8_t*>(words);
    if (store) {
      const bool known = StoreData(*warp_, data, size, lane, words).known();
      if (output_->local.size() + size > OutputPass::kMaxLocalBytes)
        Stop(in, Located(in) + ": the block's threads keep more than " +
                     std::to_string(OutputPass::kMaxLocalBytes >> 20) +
                     " MiB of local memory, over the output pass's limit");
      for (uint32_t i = 0; i < size; ++i) {
        if (known)
          output_->local[key + i] = bytes[i];
        else
          output_->local.erase(key + i);
      }
      continue;
    }
    bool known = true;
    for (uint32_t i = 0; i < size && known; ++i) {
      const auto found = output_->local.find(key + i);
      known = found != output_->local.end();
      if (known) bytes[i] = found->second;
    }
    Writes out(*warp_, lane, Known(1));
    WriteLoaded(out, in, data, bytes, size, known, index);
  }
}

}  // namespace bankcheck::emulate::internal
