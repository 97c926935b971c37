// The output pass's shared-memory instructions (output_pass.h): loads, stores, cp.async copies,
// ldmatrix/stmatrix and integer atomics on the block's shared bytes, each lane's known or not.

#include <cstring>
#include <string>

#include "core/platform/span_bounds.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/output_pass.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {

uint64_t ValuesMemory::SharedByteAt(const Instruction& in, const Operand& address, int lane,
                                    uint32_t size) const {
  const Value where = evaluator_->ReadAddress(address, AddressForm::kOffset, lane).value;
  if (!where.known()) evaluator_->StopOnUnknown(in, where, "the address");
  const uint64_t at = where.bits;
  if (at % size != 0 || !bankcheck::internal::SpanWithin(at, size, shared_.size()))
    Stop(in, "the access of " + Located(in) + " faults on the GPU: shared address " + std::to_string(at) +
                 " is misaligned or outside the block's shared memory");
  return at;
}

void ValuesMemory::WriteShared(uint64_t at, const void* bytes, uint32_t size, bool known) {
  if (size == 4) {  // a word, the most common store: copied at a size the compiler knows
    std::memcpy(&shared_[at], bytes, 4);
    std::memset(&shared_known_[at], known ? 1 : 0, 4);
    return;
  }
  std::memcpy(&shared_[at], bytes, size);
  std::memset(&shared_known_[at], known ? 1 : 0, size);
}

bool ValuesMemory::SharedKnown(uint64_t at, uint32_t size) const {
  if (size == 4) {
    uint32_t flags = 0;
    std::memcpy(&flags, &shared_known_[at], 4);
    return flags == 0x01010101u;
  }
  for (uint32_t i = 0; i < size; ++i)
    if (shared_known_[at + i] == 0) return false;
  return true;
}

void ValuesMemory::SharedLoad(const Instruction& in, size_t index, uint32_t lanes) {
  const MemoryOp& op = in.memory_op;
  if (op.form != AddressForm::kOffset || op.destination < 0)
    Stop(in, in.opcode + " is a load form the output pass does not read");
  const Operand& address = in.operands[static_cast<size_t>(op.address)];
  const uint32_t size = op.bytes;
  const Operand& destination = in.operands[static_cast<size_t>(op.destination)];
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = SharedByteAt(in, address, lane, size);
    Writes out(*evaluator_->warp_, lane, Known(1));
    WriteLoaded(out, op, destination, SharedKnown(at, size) ? &shared_[at] : nullptr, Origin(index));
  }
}

void ValuesMemory::SharedStore(const Instruction& in, uint32_t lanes) {
  const MemoryOp& op = in.memory_op;
  if (op.form != AddressForm::kOffset || op.data < 0)
    Stop(in, in.opcode + " is a store form the output pass does not read");
  const Operand& address = in.operands[static_cast<size_t>(op.address)];
  const Operand& data = in.operands[static_cast<size_t>(op.data)];
  const uint32_t size = op.bytes;
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = SharedByteAt(in, address, lane, size);
    uint32_t words[4] = {};
    WriteShared(at, words, size, StoreData(*evaluator_->warp_, data, size, lane, words).known());
  }
}

void ValuesMemory::SharedCopy(const Instruction& in, uint32_t lanes) {
  const MemoryOp& op = in.memory_op;
  if (op.form != AddressForm::kOffset || op.source < 0)
    Stop(in, in.opcode + " is a cp.async form the output pass does not read");
  const Operand& shared = in.operands[static_cast<size_t>(op.address)];
  const uint32_t size = op.bytes;
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = SharedByteAt(in, shared, lane, size);
    const uint64_t from = GlobalAddress(in, op.source, lane);
    if (from % size != 0)
      Stop(in, "the copy of " + Located(in) + " faults on the GPU: a misaligned global address");
    uint8_t bytes[16] = {};
    const bool known = ReadGlobal(in, from, size, bytes);
    WriteShared(at, bytes, size, known);
  }
}

// ldmatrix/stmatrix .m8n8.b16: lane 8m + r gives the address of row r of matrix m (16 bytes); lane t
// holds, in its register m, the two 16-bit elements of row t / 4 at columns 2 (t % 4) and 2 (t % 4) + 1;
// transposed (.MT88), those of column t / 4 at rows 2 (t % 4) and 2 (t % 4) + 1.
void ValuesMemory::SharedMatrix(const Instruction& in, size_t index, uint32_t lanes, bool store) {
  const MemoryOp& op = in.memory_op;
  const int at_registers = store ? op.data : op.destination;
  if (op.form != AddressForm::kOffset || at_registers < 0 ||
      in.operands[static_cast<size_t>(at_registers)].kind != OperandKind::kRegister)
    Stop(in, in.opcode + " is a form the output pass does not read");
  const Operand& address = in.operands[static_cast<size_t>(op.address)];
  const Operand& registers = in.operands[static_cast<size_t>(at_registers)];
  const int matrices = in.decoded.matrices;
  uint64_t rows[4][8];
  for (int m = 0; m < matrices; ++m)
    for (int r = 0; r < 8; ++r) rows[m][r] = SharedByteAt(in, address, 8 * m + r, 16);
  // Each lane's two halves of each matrix: where in shared memory they lie.
  const auto halves = [&](int m, int lane, uint64_t(&at)[2]) {
    for (int half = 0; half < 2; ++half)
      at[half] = in.decoded.transposed ? rows[m][2 * (lane % 4) + half] + 2 * (lane / 4)
                                       : rows[m][lane / 4] + 4 * (lane % 4) + 2 * half;
  };
  if (store) {
    for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
      const int lane = __builtin_ctz(rest);
      for (int m = 0; m < matrices; ++m) {
        const Value value = DataPart(*evaluator_->warp_, registers, static_cast<uint32_t>(m), lane);
        uint64_t at[2];
        halves(m, lane, at);
        for (int half = 0; half < 2; ++half) {
          const uint16_t bits = static_cast<uint16_t>(value.bits >> (16 * half));
          WriteShared(at[half], &bits, 2, value.known());
        }
      }
    }
    return;
  }
  // Every lane's values first: a destination may be another lane's address register.
  uint32_t values[kWarpSize][4] = {};
  bool known[kWarpSize][4] = {};
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    for (int m = 0; m < matrices; ++m) {
      uint64_t at[2];
      halves(m, lane, at);
      known[lane][m] = SharedKnown(at[0], 2) && SharedKnown(at[1], 2);
      uint16_t parts[2];
      std::memcpy(&parts[0], &shared_[at[0]], 2);
      std::memcpy(&parts[1], &shared_[at[1]], 2);
      values[lane][m] = uint32_t{parts[0]} | uint32_t{parts[1]} << 16;
    }
  }
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    Writes out(*evaluator_->warp_, lane, Known(1));
    for (int m = 0; m < matrices && registers.index != kRegisterZero; ++m)
      out.Add(registers.kind, registers.index + m,
              known[lane][m] ? Known(values[lane][m]) : Unknown(Origin(index)));
  }
}

// An integer atomic, lane after lane (one of the orders the GPU may take): the old value to the
// destination (RZ: none), the new one stored.
void ValuesMemory::SharedAtomic(const Instruction& in, size_t index, uint32_t lanes) {
  const MemoryOp& op = in.memory_op;
  const AtomicOp atomic = in.decoded.atomic;
  const bool add = atomic == AtomicOp::kAdd;
  if (op.form != AddressForm::kOffset || atomic == AtomicOp::kOther || op.destination != 0 ||
      (add && op.data < 0))
    Stop(in,
         in.base + " is not computed by the output pass (" + Located(in) + "): only the integer adds are");
  const Operand& address = in.operands[static_cast<size_t>(op.address)];
  const Operand& destination = in.operands[0];
  for (uint32_t rest = lanes; rest != 0; rest &= rest - 1) {
    const int lane = __builtin_ctz(rest);
    const uint64_t at = SharedByteAt(in, address, lane, 4);
    const Value addend =
        add ? DataPart(*evaluator_->warp_, in.operands[static_cast<size_t>(op.data)], 0, lane) : Known(1);
    uint32_t old = 0;
    std::memcpy(&old, &shared_[at], 4);
    const bool known = SharedKnown(at, 4) && addend.known();
    const uint32_t sum = old + addend.bits;
    WriteShared(at, &sum, 4, known);
    Writes out(*evaluator_->warp_, lane, Known(1));
    if (destination.index != kRegisterZero) out.Add(destination, known ? Known(old) : Unknown(Origin(index)));
  }
}

}  // namespace bankcheck::emulate::internal
