// The output pass's memory instructions (output_pass.h), dispatched here: global loads of the memory
// the launch found (and of what its own block stored), global stores and integer atomics into the
// launch's stores, local memory per thread; shared memory in output_shared.cc. Every other instruction
// that reaches memory (a float atomic of any width, a tensor copy) stops the pass: what it writes is
// not followed.

#include <cstring>
#include <string>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/output_pass.h"

namespace bankcheck::emulate::internal {

uint64_t ValuesMemory::GlobalAddress(const Instruction& in, int operand, int lane) const {
  if (operand < 0 || (operand == in.memory_op.address && in.memory_op.form != AddressForm::kWide))
    Stop(in, "the address of " + Located(in) + " is a form the output pass does not read");
  const LaneAddress read =
      evaluator_->ReadAddress(in.operands[static_cast<size_t>(operand)], AddressForm::kWide, lane);
  if (!read.value.known()) evaluator_->StopOnUnknown(in, read.value, "the address");
  return read.bits;
}

bool ValuesMemory::ReadGlobal(const Instruction& in, uint64_t address, uint32_t size, uint8_t* out) const {
  switch (stores.Load(address, size, block_, out)) {
    case LaunchStores::Read::kFound:
      return true;
    case LaunchStores::Read::kOtherBlock:
      Stop(in, Located(in) +
                   " reads global memory that another block of the launch stored: the order "
                   "blocks run in is not followed");
    case LaunchStores::Read::kNotStored:
      break;
  }
  return evaluator_->launch_.memory->Read(address, size, out);
}

void ValuesMemory::Access(LaunchEvaluator& evaluator, const Instruction& in, size_t index, uint32_t mask) {
  const uint32_t lanes = evaluator.Decide(in, mask, "whether it runs");
  if (lanes == 0) return;
  const Memory memory = in.info->memory;
  switch (in.info->semantics) {
    case Semantics::kSharedLoad:
      return SharedLoad(in, index, lanes);
    case Semantics::kSharedStore:
      return SharedStore(in, lanes);
    case Semantics::kSharedCopy:
      return SharedCopy(in, lanes);
    case Semantics::kSharedMatrixLoad:
    case Semantics::kSharedMatrixStore:
      return SharedMatrix(in, index, lanes, in.info->semantics == Semantics::kSharedMatrixStore);
    case Semantics::kSharedAtomic:
      return SharedAtomic(in, index, lanes);
    case Semantics::kLoad:
    case Semantics::kStore:
      if (memory == Memory::kGlobal || memory == Memory::kGeneric)
        return in.info->semantics == Semantics::kLoad ? GlobalLoad(in, index, lanes) : GlobalStore(in, lanes);
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

void ValuesMemory::GlobalLoad(const Instruction& in, size_t index, uint32_t lanes) {
  const MemoryOp& op = in.memory_op;
  if (op.address < 0 || op.destination < 0)
    Stop(in, in.opcode + " is a load form the output pass does not read");
  const uint32_t size = op.bytes;
  const Operand& destination = in.operands[static_cast<size_t>(op.destination)];
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = GlobalAddress(in, op.address, lane);
    if (at % size != 0)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: a misaligned global address");
    uint8_t bytes[16] = {};
    const bool known = ReadGlobal(in, at, size, bytes);
    Writes out(*evaluator_->warp_, lane, Known(1));
    WriteLoaded(out, op, destination, known ? bytes : nullptr, Origin(index));
  }
}

void ValuesMemory::GlobalStore(const Instruction& in, uint32_t lanes) {
  const MemoryOp& op = in.memory_op;
  if (op.address < 0 || op.data < 0) Stop(in, in.opcode + " is a store form the output pass does not read");
  const Operand& data = in.operands[static_cast<size_t>(op.data)];
  const uint32_t size = op.bytes;
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = GlobalAddress(in, op.address, lane);
    if (at % size != 0)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: a misaligned global address");
    if (!evaluator_->launch_.memory->Allocated(at, size))
      Stop(in, Located(in) +
                   " stores outside the device allocations the program made (the GPU faults, or "
                   "it is memory the emulator does not follow)");
    uint32_t words[4] = {};
    const Value stored = StoreData(*evaluator_->warp_, data, size, lane, words);
    if (!stored.known()) evaluator_->StopOnUnknown(in, stored, "the value stored");
    if (!stores.Store(at, reinterpret_cast<const uint8_t*>(words), size, block_)) TooManyStores(in);
  }
}

void ValuesMemory::TooManyStores(const Instruction& in) const {
  Stop(in, Located(in) + ": the launch stores across more than " +
               std::to_string(LaunchStores::kMaxPages * 4 / 1024) +
               " MiB of address space, over the output pass's limit");
}

// An integer atomic or reduction to global memory (ATOMG, ATOM, REDG, RED .ADD), lane after lane: it
// reads the bytes whichever block of the launch stored them (atomics order themselves), and stores
// the sum as this block's. The old value goes to the destination register, if any.
void ValuesMemory::GlobalAtomic(const Instruction& in, size_t index, uint32_t lanes) {
  const MemoryOp& op = in.memory_op;
  if (op.address < 0 || in.decoded.atomic != AtomicOp::kAdd || op.data < 0)
    Stop(in, in.opcode + " is not computed by the output pass (" + Located(in) +
                 "): only the 32-bit integer adds are, not a float atomic (rounded as the GPU's atomic "
                 "unit does, which no conformance vector checks) or a 64-bit one");
  const Operand& data = in.operands[static_cast<size_t>(op.data)];
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = GlobalAddress(in, op.address, lane);
    if (at % 4 != 0)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: a misaligned global address");
    if (!evaluator_->launch_.memory->Allocated(at, 4))
      Stop(in, Located(in) +
                   " writes outside the device allocations the program made (the GPU faults, or it "
                   "is memory the emulator does not follow)");
    uint32_t old = 0;
    if (stores.Load(at, 4, LaunchStores::kAnyBlock, reinterpret_cast<uint8_t*>(&old)) !=
            LaunchStores::Read::kFound &&
        !evaluator_->launch_.memory->Read(at, 4, &old))
      Stop(in, Located(in) + " adds to global memory whose value is not known");
    const Value addend = DataPart(*evaluator_->warp_, data, 0, lane);
    if (!addend.known()) evaluator_->StopOnUnknown(in, addend, "the value added");
    const uint32_t sum = old + addend.bits;
    if (!stores.Store(at, reinterpret_cast<const uint8_t*>(&sum), 4, block_)) TooManyStores(in);
    if (op.destination >= 0) {
      Writes out(*evaluator_->warp_, lane, Known(1));
      WriteLoaded(out, op, in.operands[static_cast<size_t>(op.destination)],
                  reinterpret_cast<const uint8_t*>(&old), Origin(index));
    }
  }
}

// LDL/STL: each thread's own bytes, at the local address its lane's offset names (known bytes only).
void ValuesMemory::LocalAccess(const Instruction& in, size_t index, uint32_t lanes) {
  const MemoryOp& op = in.memory_op;
  const bool store = op.access == Access::kStore;
  const int registers = store ? op.data : op.destination;
  if (op.form != AddressForm::kOffset || registers < 0)
    Stop(in, in.opcode + " is a form the output pass does not read");
  const Operand& address = in.operands[static_cast<size_t>(op.address)];
  const Operand& data = in.operands[static_cast<size_t>(registers)];
  const uint32_t size = op.bytes;
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const Value where = evaluator_->ReadAddress(address, op.form, lane).value;
    if (!where.known()) evaluator_->StopOnUnknown(in, where, "the address");
    if (where.bits % size != 0)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: a misaligned local address");
    const uint64_t key =
        uint64_t{evaluator_->warp_index_ * kWarpSize + static_cast<uint32_t>(lane)} << 32 | where.bits;
    uint32_t words[4] = {};
    auto* bytes = reinterpret_cast<uint8_t*>(words);
    if (store) {
      const bool known = StoreData(*evaluator_->warp_, data, size, lane, words).known();
      if (local_.size() + size > kMaxLocalBytes)
        Stop(in, Located(in) + ": the block's threads keep more than " +
                     std::to_string(kMaxLocalBytes >> 20) +
                     " MiB of local memory, over the output pass's limit");
      for (uint32_t i = 0; i < size; ++i) {
        if (known)
          local_[key + i] = bytes[i];
        else
          local_.erase(key + i);
      }
      continue;
    }
    bool known = true;
    for (uint32_t i = 0; i < size && known; ++i) {
      const auto found = local_.find(key + i);
      known = found != local_.end();
      if (known) bytes[i] = found->second;
    }
    Writes out(*evaluator_->warp_, lane, Known(1));
    WriteLoaded(out, op, data, known ? bytes : nullptr, Origin(index));
  }
}

}  // namespace bankcheck::emulate::internal
