#pragma once
// The one table of what the evaluator understands: SASS opcode (without modifiers) -> semantics
// class, with the stage (docs/design/emulate.md) that added it. An opcode not in the table stops
// the emulation when a lane executes it: the launch is undecided, never guessed.

#include <cstdint>
#include <string_view>

namespace bankcheck::emulate::internal {

enum class Semantics : uint8_t {
  kNop,                   // no effect on registers or control flow the evaluator follows (fences, BAR.SYNC)
  kMove,                  // MOV, UMOV: d = a
  kImad,                  // IMAD and its forms (.MOV, .IADD, .SHL, .WIDE, .HI, .X)
  kIadd3,                 // IADD3 (.X), with carry-out predicates
  kViadd,                 // VIADD: d = a + b
  kLea,                   // LEA (.HI, .X, .SX32)
  kShf,                   // SHF funnel shifts
  kLop3,                  // LOP3.LUT
  kPlop3,                 // PLOP3.LUT
  kIsetp,                 // ISETP: integer compare into predicates
  kSel,                   // SEL, FSEL: d = p ? a : b
  kMinMax,                // IMNMX, VIMNMX
  kPopc,                  // POPC
  kFlo,                   // FLO
  kBrev,                  // BREV
  kPrmt,                  // PRMT: byte permute
  kSpecialRegister,       // S2R, S2UR, CS2R
  kLoadConstant,          // LDC, ULDC
  kHalfConstant,          // HFMA2.MMA d, -RZ, RZ, h0, h1: a constant made by the half-precision unit
  kIntToFloat,            // I2F
  kFloatToInt,            // F2I
  kReciprocal,            // MUFU: known only as the reciprocal of nvcc's unsigned division sequence
  kVote,                  // VOTE, VOTEU
  kRegisterToUniform,     // R2UR
  kRegisterToPredicates,  // R2P PR, Ra, mask: P<i> = bit i of Ra for each bit i (0-6) of mask
  kData,                  // float math and the like: destinations become unknown
  kLoad,                  // global/local/generic loads, atomics: destinations become unknown
  kStore,                 // global/local/generic stores and reductions: no register written
  kBranch,                // BRA
  kExit,                  // EXIT
  kSyncStart,             // BSSY
  kSyncWait,              // BSYNC
  kWarpSync,              // WARPSYNC
  kBarrier,               // BAR (.SYNC, .ARV; .RED is not understood)
  kSharedLoad,            // LDS
  kSharedStore,           // STS
  kSharedMatrixLoad,      // LDSM (.x1/.x2/.x4: lanes 0-7/0-15/0-31 give a 16-byte row's address each)
  kSharedMatrixStore,     // STSM, as LDSM
  kSharedCopy,            // LDGSTS: shared destination and global source (cp.async)
  kSharedAtomic,          // ATOMS: the address is costed, the result is unknown
  kLaterStage,            // shared-memory instructions of a later stage: HGMMA, bulk and tensor copies
};

struct OpcodeInfo {
  const char* opcode;  // without modifiers, uniform forms listed apart ("UIMAD")
  Semantics semantics;
  int stage;     // the stage that added it (docs/emulate.md)
  bool uniform;  // operates on uniform registers/predicates (U-prefixed form)
  // kData/kLoad: how many leading operands are destinations (registers or predicates).
  int destinations;
  // Registers each destination spans when its modifiers do not say (.64, .128); 0: they say.
  // More than the instruction writes only makes values unknown, never wrong.
  int registers = 0;
};

// nullptr when the opcode is not in the table.
const OpcodeInfo* FindOpcode(std::string_view opcode_without_modifiers);

// The whole table, for documentation tests.
const OpcodeInfo* OpcodeTable(size_t* count);

}  // namespace bankcheck::emulate::internal
