#pragma once
// The evaluator's view of a kernel's SASS: instructions with parsed operands, read from nvdisasm's
// listing (core/nvdisasm/nvdisasm.h), and the kernel's metadata (bankcheck/emulate/emulator.h's KernelInfo).

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/emulate/emulator.h"
#include "core/nvdisasm/nvdisasm.h"
#include "emulate/internal/memory_op.h"
#include "emulate/internal/opcodes.h"

namespace bankcheck::emulate::internal {

inline constexpr int kRegisterZero = 255;        // RZ
inline constexpr int kUniformRegisterZero = 63;  // URZ
inline constexpr int kPredicateTrue = 7;         // PT, UPT
inline constexpr int kRegisters = 256;
inline constexpr int kUniformRegisters = 64;
inline constexpr int kPredicates = 8;

enum class OperandKind : uint8_t {
  kRegister,          // R0..R254, RZ
  kUniformRegister,   // UR0..UR62, URZ
  kPredicate,         // P0..P6, PT
  kUniformPredicate,  // UP0..UP6, UPT
  kImmediate,         // 0x1f, -0x1, 1.5 (as its float bits), RZ-free constants
  kConstant,          // c[0x0][0x210], c[0x0][R2+0x10]
  kMemory,            // [R2+UR4+0x10], [R2.64]
  kGlobalMemory,      // desc[UR6][R2.64+0x10]: base (a 64-bit register pair), offset and descriptor
  kSpecial,           // SR_TID.X, SRZ: index is its sm90::SpecialRegister
  kLabel,             // `(.L_x_15), `(__cudaCDP2GetParameterBufferV2): text without `( )
  kBarrier,           // B0..B15
  kOther,             // gdesc[...], anything else: kept as text
};

struct Operand {
  OperandKind kind = OperandKind::kOther;
  int index = 0;          // register/predicate/barrier number (RZ 255, URZ 63, PT 7)
  bool negate = false;    // -R2
  bool invert = false;    // ~R2, !P0
  bool absolute = false;  // |R2|
  uint64_t value = 0;     // kImmediate: the 32-bit pattern; kConstant: the byte offset
  bool is_float = false;  // kImmediate written as a floating-point number
  uint32_t bank = 0;      // kConstant
  // kConstant, kMemory and kGlobalMemory: an index register and whether it is uniform; -1 when none.
  int base = -1;
  bool base_uniform = false;
  int uniform_base = -1;  // kMemory: [R2+UR4]: the uniform register added
  bool pair = false;      // kMemory, kGlobalMemory: the register is written as a pair (R2.64)
  // kOther: the register a selector names (R4.H1_H1: 4), -1 when none; whether it is uniform.
  int selected = -1;
  bool selected_uniform = false;
  // kGlobalMemory: desc[UR6]'s uniform register (the pair UR6:UR7), not part of the address.
  int descriptor = -1;
  int64_t offset = 0;  // kMemory, kGlobalMemory: the immediate added
  std::string text;    // as written (kSpecial's register name, kLabel's label)
};

struct FloatDivision;  // internal/float_division.h

struct Instruction {
  uint32_t pc = 0;
  std::string opcode;                  // "LDS.128"
  std::string base;                    // "LDS"
  std::vector<std::string> modifiers;  // {"128"}: as written, for messages
  const OpcodeInfo* info = nullptr;    // nullptr: not in the opcode table
  DecodedModifiers decoded;            // what the modifiers say (DecodeModifiers)
  MemoryOp memory_op;                  // what it does to memory (DecodeMemoryOp), after the operands
  int guard = kPredicateTrue;          // predicate number
  bool guard_uniform = false;
  bool guard_negated = false;
  std::vector<Operand> operands;
  std::vector<SourceFrame> inline_chain;  // innermost first; empty without line info
  // BRA/BSSY/CALL: the index of the target instruction; -1 when none or not found.
  int target = -1;
  // MUFU.RCP inside ptxas's 32-bit integer division sequence (MarkDivisionReciprocals): the
  // quotient it leads to is exact whatever MUFU.RCP's rounding, so its value may be computed.
  bool division_reciprocal = false;
  // The branch past an IEEE float division's slow path (MarkFloatDivisions): every lane goes to the
  // join, where the quotient is computed; nullptr for every other instruction.
  std::shared_ptr<const FloatDivision> float_division;
  // A computing family's form with no GPU conformance vectors (checked_forms.h): the output pass
  // leaves what it writes unknown.
  bool unchecked_form = false;
  // Why its operands could not be read; empty when they were.
  std::string unreadable;

  // Whether any of the modifiers `bits` (mod::k*) is present.
  bool Is(mod::Bits bits) const { return (decoded.bits & bits) != 0; }
  // "LDS.128 at pc 0x01a0"
  std::string Where() const;
};

// Whether every modifier of `in` is one of `computed`: a handler computes only the modifiers it
// reads (and the conformance vectors check), and leaves any other form unknown.
template <size_t N>
bool OnlyModifiers(const Instruction& in, const std::string_view (&computed)[N]) {
  return std::all_of(in.modifiers.begin(), in.modifiers.end(), [&](const std::string& modifier) {
    return std::find(std::begin(computed), std::end(computed), modifier) != std::end(computed);
  });
}

struct Kernel {
  KernelInfo info;
  std::vector<Instruction> code;  // in pc order
  std::map<uint32_t, size_t> index_of_pc;
  int registers = 0;  // 1 + the highest R register any operand names (pairs and quads included)
};

// Parses one instruction's operand text ("R4, [R9+UR4]"). Throws Error(kBadInput) naming the text
// when an operand cannot be read.
std::vector<Operand> ParseOperands(const std::string& text);

// Sets Instruction::division_reciprocal of each MUFU.RCP of `code` that is the reciprocal of
// ptxas's 32-bit integer division (division.cc: the sequence, followed register by register).
void MarkDivisionReciprocals(std::vector<Instruction>& code);

// CALL.REL.NOINC `(function): a call the evaluator follows, into a function of the kernel's own
// listing (Instruction::target); the callee returns with RET.REL.NODEC (semantics_control.cc).
bool IsFollowedCall(const Instruction& in);
// RET.REL.NODEC Ra's register Ra (the pair Ra, Ra+1 holds the return address, an offset from the
// kernel's start), or -1 for any other form.
int ReturnRegister(const Instruction& in);

// Whether the evaluator stops at `in` whenever a lane reaches it, guarded or not (warp.cc's
// Dispatch): an opcode not in the table, operands it could not read, or a call or return of a form
// it does not follow (out of the kernel, through a function pointer, the hardware stack's).
bool StopsEmulation(const Instruction& in);

// Characters of nvdisasm's and cuobjdump's listings.
inline bool IsHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
inline bool IsSpaceChar(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// The kernels of one nvdisasm listing and the metadata of cuobjdump -elf's listing of the same
// cubin (see Module::FromListings).
std::map<std::string, Kernel, std::less<>> ReadKernels(const std::string& nvdisasm_listing,
                                                       const std::string& elf_listing);

// The metadata of cuobjdump -elf's listing (ReadKernels' second half, kernel_metadata.cc): each
// kernel of `kernels` gets its parameters, parameter base and static shared size.
void ReadKernelMetadata(const std::string& elf_listing, std::map<std::string, Kernel, std::less<>>& kernels);

}  // namespace bankcheck::emulate::internal

namespace bankcheck::emulate {
struct Module::Data {
  std::map<std::string, internal::Kernel, std::less<>> kernels;
};
}  // namespace bankcheck::emulate
