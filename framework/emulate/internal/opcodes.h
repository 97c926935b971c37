#pragma once
// What the evaluator knows of an opcode (the one table, internal/opcodes.def), and the modifiers it
// reads, decoded once when a listing is read (DecodeModifiers): nothing on the execution path tests
// an opcode's or a modifier's text.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/core/memory_kind.h"

namespace bankcheck::emulate::internal {

enum class Semantics : uint8_t {
#define SEMANTICS(name, handler) name,
#include "emulate/internal/semantics.def"
#undef SEMANTICS
};

// Which lanes an instruction works on (opcodes.def).
enum class Scope : uint8_t { kLane, kUniform, kWarp, kWarpgroup };

// The memory an instruction reaches; the shared kinds are costed by the bank model.
enum class Memory : uint8_t {
  kNone,
  kConstant,
  kGlobal,
  kGeneric,
  kGlobalAtomic,      // ATOMG: reads and writes global memory
  kGenericAtomic,     // ATOM
  kGlobalReduction,   // REDG: writes global memory, no register
  kGenericReduction,  // RED: as REDG through a generic address
  kLocal,
  kSharedLoad,
  kSharedStore,
  kSharedLdmatrix,
  kSharedStmatrix,
  kSharedCpAsync,
  kSharedAtomic,
  kSharedWgmma,
};

constexpr bool IsShared(Memory memory) { return memory >= Memory::kSharedLoad; }

// Whether an instruction of this row may write global memory: a store, reduction or atomic to
// global or generic memory, or a later stage's instruction (bulk and tensor copies among them).
// An opcode without a row may too (MayWriteGlobal, global_memory.h).
constexpr bool MayWriteGlobal(Semantics semantics, Memory memory) {
  if (semantics == Semantics::kLaterStage) return true;
  if (memory == Memory::kGlobalAtomic || memory == Memory::kGenericAtomic ||
      memory == Memory::kGlobalReduction || memory == Memory::kGenericReduction)
    return true;
  return semantics == Semantics::kStore && (memory == Memory::kGlobal || memory == Memory::kGeneric);
}

// The bank model's kind of a shared-memory access (kSharedLoad for any other memory).
constexpr MemoryKind MemoryKindOf(Memory memory) {
  switch (memory) {
    case Memory::kSharedStore:
      return MemoryKind::kSharedStore;
    case Memory::kSharedLdmatrix:
      return MemoryKind::kSharedLdmatrix;
    case Memory::kSharedStmatrix:
      return MemoryKind::kSharedStmatrix;
    case Memory::kSharedCpAsync:
      return MemoryKind::kSharedCpAsync;
    case Memory::kSharedAtomic:
      return MemoryKind::kSharedAtomic;
    case Memory::kSharedWgmma:
      return MemoryKind::kSharedWgmma;
    default:
      return MemoryKind::kSharedLoad;
  }
}

// Whether an access of this memory goes through a 64-bit generic address (LD, ST, ATOM, RED).
constexpr bool IsGeneric(Memory memory) {
  return memory == Memory::kGeneric || memory == Memory::kGenericAtomic ||
         memory == Memory::kGenericReduction;
}

// The kind a global or local access is counted in (sectors), by its memory and semantics; generic
// accesses as global ones (the GPU counts a generic access that reaches global memory as global).
// nullopt for shared memory and for none.
constexpr std::optional<MemoryKind> SectorKindOf(Semantics semantics, Memory memory) {
  switch (memory) {
    case Memory::kGlobal:
    case Memory::kGeneric:
      if (semantics == Semantics::kLoad) return MemoryKind::kGlobalLoad;
      if (semantics == Semantics::kStore) return MemoryKind::kGlobalStore;
      return std::nullopt;
    case Memory::kGlobalAtomic:
    case Memory::kGenericAtomic:
      return MemoryKind::kGlobalAtomic;
    case Memory::kGlobalReduction:
    case Memory::kGenericReduction:
      return MemoryKind::kGlobalReduction;
    case Memory::kLocal:
      if (semantics == Semantics::kLoad) return MemoryKind::kLocalLoad;
      if (semantics == Semantics::kStore) return MemoryKind::kLocalStore;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

struct OpcodeInfo {
  const char* opcode;  // without modifiers
  Semantics semantics;
  int stage;
  Scope scope;
  int destinations;  // kData/kLoad: how many leading operands are destinations
  int registers;     // registers per destination when the modifiers do not say; 0: they say
  Memory memory;
  MemoryKind shared_kind;  // MemoryKindOf(memory)

  bool uniform() const { return scope == Scope::kUniform; }
};

// nullptr when the opcode is not in the table.
const OpcodeInfo* FindOpcode(std::string_view opcode_without_modifiers);

// The whole table, for documentation tests.
const OpcodeInfo* OpcodeTable(size_t* count);

// The modifiers the evaluator reads (internal/modifiers.def), as bits of DecodedModifiers::bits. A
// modifier not listed there is kept as text only (Instruction::modifiers) and changes nothing the
// evaluator computes.
namespace mod {
// A set of modifiers: more than 64 are read. ISO C++ has no 128-bit integer, GCC and Clang have one
// (__extension__ says it is meant).
__extension__ typedef unsigned __int128 Bits;
enum Bit : unsigned {
#define MODIFIER(name, text) name##Bit,
#include "emulate/internal/modifiers.def"
#undef MODIFIER
  kCount
};
static_assert(kCount <= 128, "modifier bits fit in 128");
#define MODIFIER(name, text) inline constexpr Bits name = Bits{1} << name##Bit;
#include "emulate/internal/modifiers.def"
#undef MODIFIER
// How many modifiers `bits` holds.
inline int CountOf(Bits bits) {
  return __builtin_popcountll(static_cast<uint64_t>(bits)) +
         __builtin_popcountll(static_cast<uint64_t>(bits >> 64));
}
}  // namespace mod

// A comparison of ISETP's and IMNMX's; kNone: the instruction names none.
enum class Test : uint8_t {
  kLess,
  kLessOrEqual,
  kGreater,
  kGreaterOrEqual,
  kEqual,
  kNotEqual,
  kTrue,
  kFalse,
  kNone
};

// I2F's and F2I's rounding.
enum class Rounding : uint8_t { kNearest, kZero, kDown, kUp };

// Whether rounding a magnitude whose dropped bits are not all zero moves it one unit away from zero:
// to nearest where `nearest` says so (more than half a unit dropped, or exactly half onto an odd
// unit), toward zero never, down for a negative value, up for a positive one.
inline bool RoundsAway(Rounding rounding, bool negative, bool nearest) {
  switch (rounding) {
    case Rounding::kNearest:
      return nearest;
    case Rounding::kZero:
      return false;
    case Rounding::kDown:
      return negative;
    case Rounding::kUp:
      return !negative;
  }
  return false;
}

// Whether the instruction's immediates are floats (nvdisasm writes integral ones in decimal).
inline bool TakesFloatImmediates(Semantics semantics) {
  return semantics == Semantics::kFloatAdd || semantics == Semantics::kFloatMultiply ||
         semantics == Semantics::kFloatFma || semantics == Semantics::kFloatMinMax ||
         semantics == Semantics::kFloatCompare || semantics == Semantics::kRound;
}

// What an atomic or reduction does to memory, as far as the output pass computes it: a 32-bit integer
// add (.ADD, no float or 64-bit type), an increment by one per lane (ATOMS.POPC.INC.32, atomicAdd(p,
// 1) on shared memory), or anything else.
enum class AtomicOp : uint8_t { kOther, kAdd, kIncrement };

// What an instruction's modifiers say, decoded once from their text (with the opcode's row).
struct DecodedModifiers {
  mod::Bits bits = 0;       // mod::k*
  Test test = Test::kNone;  // the first of LT LE GT GE EQ NE T F, in that order
  Rounding rounding = Rounding::kNearest;
  uint8_t width = 1;        // registers per destination (the row's, else .128: 4, .64: 2, else 1)
  uint8_t matrices = 1;     // LDSM/STSM: .4, .2, else 1
  bool transposed = false;  // LDSM/STSM: .MT88 (ldmatrix/stmatrix .trans)
  // FSETP: the unordered tests (LTU ... NEU: true when either operand is NaN, as `test` otherwise),
  // and NAN / NUM (either operand NaN / neither).
  bool unordered = false;
  enum class NanTest : uint8_t { kNone, kNan, kNumber } nan_test = NanTest::kNone;
  enum class ShuffleMode : uint8_t { kNone, kIndex, kUp, kDown, kButterfly } shuffle = ShuffleMode::kNone;
  AtomicOp atomic = AtomicOp::kOther;
};
DecodedModifiers DecodeModifiers(const OpcodeInfo* info, const std::vector<std::string>& modifiers);

}  // namespace bankcheck::emulate::internal
