// The IEEE float division (float_division.cc): which branches past the slow path are recognised,
// and what the evaluator makes of them. The listing is nvcc 13.0's -arch=sm_90 -O3 SASS of
// out[i] = x[i] / y[i] (nvdisasm), the slow-path subroutine shortened to a few of its instructions
// and its operands made the kernel's two float parameters; the quotient then decides whether an LDS
// runs (q > 3).
#include "emulate/internal/float_division.h"

#include <gmock/gmock.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {
namespace {

using test_support::Launch;
using test_support::Listing;
using ::testing::HasSubstr;

constexpr char kDivision[] = R"(
        /*0040*/                   LDC R0, c[0x0][0x210] ;
        /*0050*/                   LDC R3, c[0x0][0x214] ;
        /*0060*/                   IMAD.MOV.U32 R7, RZ, RZ, 0x8 ;
        /*0070*/                   BSSY B0, `(.L_x_1) ;
        /*0080*/                   MUFU.RCP R8, R3 ;
        /*0090*/                   FCHK P0, R0, R3 ;
        /*00a0*/                   FFMA R9, -R3, R8, 1 ;
        /*00b0*/                   FFMA R9, R8, R9, R8 ;
        /*00c0*/                   FFMA R8, R0, R9, RZ ;
        /*00d0*/                   FFMA R10, -R3, R8, R0 ;
        /*00e0*/                   FFMA R9, R9, R10, R8 ;
        /*00f0*/              @!P0 BRA `(.L_x_0) ;
        /*0100*/                   MOV R4, 0x120 ;
        /*0110*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath) ;
        /*0120*/                   IMAD.MOV.U32 R9, RZ, RZ, R0 ;
.L_x_0:
        /*0130*/                   BSYNC B0 ;
.L_x_1:
        /*0140*/                   FSETP.GT.AND P1, PT, R9, 3, PT ;
        /*0150*/              @!P1 BRA `(.L_x_2) ;
        /*0160*/                   LDS R11, [R7+UR4] ;
.L_x_2:
        /*0170*/                   EXIT ;
$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:
        /*0180*/                   SHF.R.U32.HI R6, RZ, 0x17, R3 ;
        /*0190*/                   FSETP.GTU.FTZ.AND P2, PT, |R0|, +INF , PT ;
        /*01a0*/               @P2 BRA `(.L_x_3) ;
        /*01b0*/                   FFMA R0, R0, 1.84467440737095516160e+19, RZ ;
        /*01c0*/                   BRA `(.L_x_4) ;
.L_x_3:
        /*01d0*/                   FADD.FTZ R0, R0, R3 ;
.L_x_4:
        /*01e0*/                   HFMA2.MMA R5, -RZ, RZ, 0, 0 ;
        /*01f0*/                   RET.REL.NODEC R4 `(_Z4testPi) ;
.L_x_5:
        /*0200*/                   BRA `(.L_x_5);
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

const Kernel& Read(const std::string& body) {
  static std::map<std::string, Kernel, std::less<>> kernels;
  kernels = ReadKernels(".text._Z4testPi:\n" + std::string(test_support::kPrologue) + body, "");
  return kernels.at("_Z4testPi");
}

// The recognised division at the branch of pc 0x00f0, or nullptr.
const FloatDivision* At(const Kernel& kernel, uint32_t pc = 0xf0) {
  return kernel.code.at(kernel.index_of_pc.at(pc)).float_division.get();
}

std::vector<uint8_t> Floats(float a, float b) {
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), &a, 4);
  std::memcpy(bytes.data() + 4, &b, 4);
  return bytes;
}

Emulation Emulated(const std::string& body, float a, float b) {
  return Emulate(Listing(body), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, Floats(a, b)));
}

// How many warps ran the LDS at 0x0160 (0 where none did, or the launch is undecided).
uint64_t LoadsRun(const Emulation& emulation) {
  if (!emulation.record) return 0;
  for (const InstructionCounts& row : emulation.record->instructions)
    if (row.pc_offset == 0x160) return row.executions;
  return 0;
}

TEST(FloatDivisionTest, TheSequenceIsRecognised) {
  const Kernel& kernel = Read(kDivision);
  const FloatDivision* division = At(kernel);
  ASSERT_NE(division, nullptr);
  EXPECT_EQ(division->quotient, 9);
  EXPECT_EQ(kernel.code.at(division->join).pc, 0x130u);
  EXPECT_TRUE(division->join_converges);
  EXPECT_EQ(kernel.code.at(division->check).base, "FCHK");
  EXPECT_EQ(kernel.code.at(division->call).base, "CALL");
  // Written by the slow path (R4 the return address, R9 the move, R0 R5 R6 in the subroutine, P2)
  // and the fast path's intermediates still held (R8, R10): unknown after the join. Not R7, P1.
  for (int r : {0, 4, 5, 6, 8, 9, 10}) EXPECT_TRUE(division->registers.test(r)) << r;
  for (int r : {3, 7}) EXPECT_FALSE(division->registers.test(r)) << r;
  EXPECT_TRUE(division->predicates.test(2));
  EXPECT_FALSE(division->predicates.test(1));
  // Skipped, never evaluated: the 3 instructions before the join and the subroutine's 8.
  EXPECT_EQ(division->skipped.size(), 11u);
  // No other instruction is marked.
  size_t marked = 0;
  for (const Instruction& in : kernel.code) marked += in.float_division != nullptr;
  EXPECT_EQ(marked, 1u);
}

TEST(FloatDivisionTest, TheBranchIsDecidedAndTheQuotientComputed) {
  EXPECT_EQ(LoadsRun(Emulated(kDivision, 7.0f, 2.0f)), 1u);  // 3.5 > 3
  EXPECT_EQ(LoadsRun(Emulated(kDivision, 5.0f, 2.0f)), 0u);  // 2.5
  const Emulation decided = Emulated(kDivision, 5.0f, 2.0f);
  EXPECT_TRUE(decided.record) << (decided.undecided ? decided.undecided->reason : "");
  EXPECT_EQ(LoadsRun(Emulated(kDivision, 1.0f, 0.0f)), 1u);   // +inf, known
  EXPECT_EQ(LoadsRun(Emulated(kDivision, -1.0f, 0.0f)), 0u);  // -inf
}

TEST(FloatDivisionTest, FloatQuotientIsIeeeWithoutNaN) {
  const auto bits = [](float f) {
    uint32_t b = 0;
    std::memcpy(&b, &f, 4);
    return b;
  };
  EXPECT_EQ(FloatQuotient(bits(1.0f), bits(3.0f)), bits(1.0f / 3.0f));
  EXPECT_EQ(FloatQuotient(bits(std::ldexp(1.0f, -140)), bits(4.0f)), bits(std::ldexp(1.0f, -142)));
  EXPECT_EQ(FloatQuotient(bits(-1.0f), bits(0.0f)), bits(-std::numeric_limits<float>::infinity()));
  EXPECT_EQ(FloatQuotient(bits(0.0f), bits(0.0f)), std::nullopt);
  EXPECT_EQ(FloatQuotient(bits(std::numeric_limits<float>::infinity()),
                          bits(std::numeric_limits<float>::infinity())),
            std::nullopt);
  EXPECT_EQ(FloatQuotient(0x7fc00001u, bits(1.0f)), std::nullopt);
}

// A NaN operand or quotient is not computed: the branch on the quotient stays undecided.
TEST(FloatDivisionTest, ANaNGivesUnknown) {
  for (const auto& [a, b] : {std::pair{0.0f, 0.0f}, std::pair{std::nanf(""), 1.0f}}) {
    const Emulation emulation = Emulated(kDivision, a, b);
    ASSERT_TRUE(emulation.undecided);
    EXPECT_THAT(emulation.undecided->reason, HasSubstr("FCHK at pc 0x0090"));
    EXPECT_EQ(emulation.undecided->pc, 0x150u);
  }
}

// What the slow path writes is unknown after the join, in every lane: R6 (known before, written by
// the subroutine), as an address. R7, which it does not write, stays known.
TEST(FloatDivisionTest, WhatTheSlowPathWritesIsUnknown) {
  EXPECT_TRUE(Emulated(kDivision, 7.0f, 2.0f).record);
  const std::string r6_known = Replace(
      kDivision, "IMAD.MOV.U32 R7, RZ, RZ, 0x8 ;",
      "IMAD.MOV.U32 R7, RZ, RZ, 0x8 ;\n        /*0068*/                   IMAD.MOV.U32 R6, RZ, RZ, 0x10 ;");
  const Emulation emulation =
      Emulated(Replace(r6_known, "LDS R11, [R7+UR4]", "LDS R11, [R6+UR4]"), 7.0f, 2.0f);
  ASSERT_TRUE(emulation.undecided);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("CALL.REL.NOINC at pc 0x0110"));
}

// Near misses, each left undecided as before: FCHK's predicate decides the branch.
TEST(FloatDivisionTest, NearMissesAreNotRecognised) {
  const std::vector<std::pair<std::string, std::string>> misses = {
      // a memory instruction in the subroutine, or before the call
      {"HFMA2.MMA R5, -RZ, RZ, 0, 0 ;", "STL [R1], R0 ;"},
      {"MOV R4, 0x120 ;", "LDG.E R4, desc[UR4][R2.64] ;"},
      // a shuffle, a barrier, an exit in the slow path
      {"SHF.R.U32.HI R6, RZ, 0x17, R3 ;", "SHFL.BFLY PT, R6, R3, 0x1, 0x1f ;"},
      {"SHF.R.U32.HI R6, RZ, 0x17, R3 ;", "BAR.SYNC.DEFER_BLOCKING 0x0 ;"},
      {"IMAD.MOV.U32 R9, RZ, RZ, R0 ;", "EXIT ;"},
      // another chain: the Newton step's constant, the quotient's addend, the divisor's sign
      {"FFMA R9, -R3, R8, 1 ;", "FFMA R9, -R3, R8, 2 ;"},
      {"FFMA R9, R9, R10, R8 ;", "FFMA R9, R9, R10, R0 ;"},
      {"FFMA R10, -R3, R8, R0 ;", "FFMA R10, R3, R8, R0 ;"},
      // the branch on P0 itself, not its negation; FCHK of another divisor
      {"@!P0 BRA `(.L_x_0) ;", "@P0 BRA `(.L_x_0) ;"},
      {"FCHK P0, R0, R3 ;", "FCHK P0, R0, R7 ;"},
      // the divisor changed between FCHK and the branch; the quotient changed before the branch
      {"FFMA R9, R9, R10, R8 ;",
       "FFMA R9, R9, R10, R8 ;\n        /*00e8*/                   IADD3 R3, R3, 0x1, RZ ;"},
      {"FFMA R9, R9, R10, R8 ;", "FFMA R9, R9, R10, R8 ;\n        /*00e8*/                   MOV R9, RZ ;"},
      // a call to another subroutine; a return elsewhere
      {"CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath)", "CALL.REL.NOINC `(.L_x_3)"},
      {"MOV R4, 0x120 ;", "MOV R4, 0x130 ;"},
      {"RET.REL.NODEC R4", "RET.REL.NODEC R5"},
  };
  for (const auto& [from, to] : misses) {
    const std::string body = Replace(kDivision, from, to);
    EXPECT_EQ(At(Read(body)), nullptr) << to;
    const Emulation emulation = Emulated(body, 7.0f, 2.0f);
    ASSERT_TRUE(emulation.undecided) << to;
    EXPECT_THAT(emulation.undecided->reason, HasSubstr("FCHK at pc 0x0090")) << to;
  }
}

}  // namespace
}  // namespace bankcheck::emulate::internal
