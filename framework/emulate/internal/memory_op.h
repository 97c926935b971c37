#pragma once
// What a memory instruction does, decoded once when a listing is read (DecodeMemoryOp, called by
// ReadKernels): its memory and access, which operands are its address, data and destination, how
// many bytes each lane moves and into how many registers, and the form of its address. Every
// handler, cost and pass reads this, never the operand list or the modifiers' text again: an address
// form the evaluator does not read is marked here, once, and each reader says what that means for it
// (the counting pass stops, or leaves the memory's kinds not counted; the output pass stops).

#include <cstdint>
#include <string>

#include "emulate/internal/opcodes.h"

namespace bankcheck::emulate::internal {

struct Instruction;

// What a memory instruction does to the memory it reaches.
enum class Access : uint8_t {
  kNone,       // no memory instruction the MemoryOp describes (HGMMA, bulk copies, anything else)
  kLoad,       // LDG, LD, LDL, LDS, LDSM: into the destination registers
  kStore,      // STG, ST, STL, STS, STSM: the data registers
  kAtomic,     // ATOMG, ATOM, ATOMS: the data combined in memory, the old value to the destination
  kReduction,  // REDG, RED: as an atomic, no destination
  kCopy,       // LDGSTS: global bytes (the source address) into shared memory (the address)
};

// How a lane's address is read from its operand (LaunchEvaluator::ReadAddress, the one reader).
enum class AddressForm : uint8_t {
  kNone,        // no address operand (Access::kNone)
  kOffset,      // [Ra+URb+o]: a register, a uniform register and an offset summed in 32 bits (shared, local)
  kWide,        // desc[URd][Ra.64+o], [Ra.64+o], [Ra+o] with .E, [o]: a 64-bit register pair plus an
                // offset, no uniform register (global, generic)
  kUnreadable,  // any other: an address the evaluator does not read
};

struct MemoryOp {
  Memory memory = Memory::kNone;  // the opcode row's
  Access access = Access::kNone;
  bool generic = false;  // through a 64-bit generic address (LD, ST, ATOM, RED)
  AddressForm form = AddressForm::kNone;
  // Operands by index, -1 where there is none. `address`: the one address operand of the memory the
  // instruction reaches (LDGSTS: its shared destination), `source` LDGSTS's global one; `destination`:
  // the last register before the address (a load's, an atomic's: RZ writes nothing); `data`: the
  // operand after it (a store's registers, an atomic's or reduction's operand).
  int address = -1;
  int source = -1;
  int destination = -1;
  int data = -1;
  // Bytes per lane: ldmatrix and stmatrix a 16-byte row; .U8/.S8 1, .U16/.S16 2, .64/.U64/.S64/.F64
  // 8, .128 16, else 4.
  uint8_t bytes = 4;
  // Registers each lane's destination or data spans: ldmatrix's and stmatrix's one per matrix, else
  // one per 4 bytes (at least one).
  uint8_t registers = 1;
  // A sub-word load sign-extends (.S8, .S16).
  bool sign_extends = false;
  // UTMALDG.<n>D [URa], [URm][, desc[URp]]: n (1 to 5); 0 for any other form or instruction (its
  // global reads are then not counted).
  uint8_t tensor_rank = 0;
  // HGMMA: why its form is not the one measured (sm90::kMeasuredWgmma); empty when it is, and for any
  // other instruction.
  std::string unmeasured;
};

// The MemoryOp of `in`, whose opcode row, modifiers and operands are read (Access::kNone for an
// instruction that reaches no memory through an address, or has no row).
MemoryOp DecodeMemoryOp(const Instruction& in);

}  // namespace bankcheck::emulate::internal
