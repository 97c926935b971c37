#include "emulate/internal/opcodes.h"

#include <iterator>

namespace bankcheck::emulate::internal {
namespace {

using S = Semantics;

// Stage 1 (docs/emulate.md): shared loads and stores, integer/uniform/predicate ALU, control flow,
// and what nvcc 13 emits around them. Stage 2: LDSM/STSM/LDGSTS/ATOMS, and the tensor-core math
// (HMMA) that consumes ldmatrix's registers. Stage 3 (kLaterStage until then): wgmma and bulk
// copies.
constexpr OpcodeInfo kTable[] = {
    // opcode, semantics, stage, uniform, destinations
    {"NOP", S::kNop, 1, false, 0},
    {"DEPBAR", S::kNop, 1, false, 0},
    {"MEMBAR", S::kNop, 1, false, 0},
    {"FENCE", S::kNop, 1, false, 0},
    {"ERRBAR", S::kNop, 1, false, 0},
    {"CCTL", S::kNop, 1, false, 0},
    {"NANOSLEEP", S::kNop, 1, false, 0},
    {"MOV", S::kMove, 1, false, 1},
    {"UMOV", S::kMove, 1, true, 1},
    {"IMAD", S::kImad, 1, false, 1},
    {"UIMAD", S::kImad, 1, true, 1},
    {"IADD3", S::kIadd3, 1, false, 1},
    {"UIADD3", S::kIadd3, 1, true, 1},
    {"VIADD", S::kViadd, 1, false, 1},
    {"LEA", S::kLea, 1, false, 1},
    {"ULEA", S::kLea, 1, true, 1},
    {"SHF", S::kShf, 1, false, 1},
    {"USHF", S::kShf, 1, true, 1},
    {"LOP3", S::kLop3, 1, false, 1},
    {"ULOP3", S::kLop3, 1, true, 1},
    {"PLOP3", S::kPlop3, 1, false, 2},
    {"UPLOP3", S::kPlop3, 1, true, 2},
    {"ISETP", S::kIsetp, 1, false, 2},
    {"UISETP", S::kIsetp, 1, true, 2},
    {"SEL", S::kSel, 1, false, 1},
    {"USEL", S::kSel, 1, true, 1},
    {"FSEL", S::kSel, 1, false, 1},
    {"IMNMX", S::kMinMax, 1, false, 1},
    {"VIMNMX", S::kMinMax, 1, false, 1},
    {"UIMNMX", S::kMinMax, 1, true, 1},
    {"POPC", S::kPopc, 1, false, 1},
    {"UPOPC", S::kPopc, 1, true, 1},
    {"FLO", S::kFlo, 1, false, 1},
    {"UFLO", S::kFlo, 1, true, 1},
    {"BREV", S::kBrev, 1, false, 1},
    {"UBREV", S::kBrev, 1, true, 1},
    {"PRMT", S::kPrmt, 1, false, 1},
    {"UPRMT", S::kPrmt, 1, true, 1},
    {"S2R", S::kSpecialRegister, 1, false, 1},
    {"S2UR", S::kSpecialRegister, 1, true, 1},
    {"CS2R", S::kSpecialRegister, 1, false, 1},
    {"LDC", S::kLoadConstant, 1, false, 1},
    {"ULDC", S::kLoadConstant, 1, true, 1},
    {"HFMA2", S::kHalfConstant, 1, false, 1},
    {"I2F", S::kIntToFloat, 1, false, 1},
    {"F2I", S::kFloatToInt, 1, false, 1},
    {"MUFU", S::kReciprocal, 1, false, 1},
    {"VOTE", S::kVote, 1, false, 2},
    {"VOTEU", S::kVote, 1, true, 2},
    {"R2UR", S::kRegisterToUniform, 1, true, 1},
    {"R2P", S::kRegisterToPredicates, 2, false, 0},
    // Floating-point and other data: the destinations become unknown.
    {"FADD", S::kData, 1, false, 1},
    {"FMUL", S::kData, 1, false, 1},
    {"FFMA", S::kData, 1, false, 1},
    {"FMNMX", S::kData, 1, false, 1},
    {"FSETP", S::kData, 1, false, 2},
    {"FCHK", S::kData, 1, false, 1},
    {"FRND", S::kData, 1, false, 1},
    {"F2F", S::kData, 1, false, 1},
    {"F2FP", S::kData, 1, false, 1},
    {"HADD2", S::kData, 1, false, 1},
    {"HMUL2", S::kData, 1, false, 1},
    {"DADD", S::kData, 1, false, 1},
    {"DMUL", S::kData, 1, false, 1},
    {"DFMA", S::kData, 1, false, 1},
    {"HMMA", S::kData, 2, false, 1, 4},  // .F32 accumulators: 4 registers (.F16: 2)
    {"SHFL", S::kData, 1, false, 2},
    // Memory other than shared: loads give unknowns, stores change no register.
    {"LDG", S::kLoad, 1, false, 1},
    {"LD", S::kLoad, 1, false, 1},
    {"LDL", S::kLoad, 1, false, 1},
    {"ATOMG", S::kLoad, 1, false, 1},
    {"ATOM", S::kLoad, 1, false, 1},
    {"STG", S::kStore, 1, false, 0},
    {"ST", S::kStore, 1, false, 0},
    {"STL", S::kStore, 1, false, 0},
    {"RED", S::kStore, 1, false, 0},
    {"REDG", S::kStore, 1, false, 0},
    // Control flow.
    {"BRA", S::kBranch, 1, false, 0},
    {"EXIT", S::kExit, 1, false, 0},
    {"BSSY", S::kSyncStart, 1, false, 0},
    {"BSYNC", S::kSyncWait, 1, false, 0},
    {"WARPSYNC", S::kWarpSync, 1, false, 0},
    {"BAR", S::kBarrier, 1, false, 0},
    // Shared memory.
    {"LDS", S::kSharedLoad, 1, false, 1},
    {"STS", S::kSharedStore, 1, false, 0},
    {"LDSM", S::kSharedMatrixLoad, 2, false, 1},
    {"STSM", S::kSharedMatrixStore, 2, false, 0},
    {"LDGSTS", S::kSharedCopy, 2, false, 0},
    {"LDGDEPBAR", S::kNop, 2, false, 0},
    {"ATOMS", S::kSharedAtomic, 2, false, 1},
    {"HGMMA", S::kLaterStage, 3, false, 0},
    {"UBLKCP", S::kLaterStage, 3, false, 0},
    {"UTMALDG", S::kLaterStage, 3, false, 0},
    {"UTMASTG", S::kLaterStage, 3, false, 0},
};

}  // namespace

const OpcodeInfo* FindOpcode(std::string_view opcode) {
  for (const OpcodeInfo& info : kTable)
    if (opcode == info.opcode) return &info;
  return nullptr;
}

const OpcodeInfo* OpcodeTable(size_t* count) {
  *count = std::size(kTable);
  return kTable;
}

}  // namespace bankcheck::emulate::internal
