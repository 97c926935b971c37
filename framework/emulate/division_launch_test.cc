#include <gmock/gmock.h>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/mufu_tables.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {
namespace {

// Whole launches: the quotient's guard known, so the stores it selects are counted.
using test_support::Launch;
using test_support::Listing;

// nvcc's unsigned remainder tid % 4 by its reciprocal sequence (from reduction.cu's SASS): the
// remainder is exact, so the guard it feeds is known.
TEST(DivisionEmulateTest, TheUnsignedDivisionSequenceIsExact) {
  const Module module = Listing(R"(
        /*0040*/                   IMAD.MOV.U32 R10, RZ, RZ, 0x4 ;
        /*0050*/                   I2F.U32.RP R6, R10 ;
        /*0060*/                   IADD3 R9, RZ, -R10, RZ ;
        /*0070*/                   ISETP.NE.U32.AND P2, PT, R10, RZ, PT ;
        /*0080*/                   MUFU.RCP R6, R6 ;
        /*0090*/                   VIADD R2, R6, 0xffffffe ;
        /*00a0*/                   F2I.FTZ.U32.TRUNC.NTZ R3, R2 ;
        /*00b0*/                   IMAD.MOV.U32 R2, RZ, RZ, RZ ;
        /*00c0*/                   IMAD R9, R9, R3, RZ ;
        /*00d0*/                   IMAD.HI.U32 R3, R3, R9, R2 ;
        /*00e0*/                   IMAD.HI.U32 R3, R3, R0, RZ ;
        /*00f0*/                   IADD3 R3, -R3, RZ, RZ ;
        /*0100*/                   IMAD R3, R10, R3, R0 ;
        /*0110*/                   ISETP.GE.U32.AND P1, PT, R3, R10, PT ;
        /*0120*/               @P1 IMAD.IADD R3, R3, 0x1, -R10 ;
        /*0130*/                   ISETP.GE.U32.AND P1, PT, R3, R10, PT ;
        /*0140*/               @P1 IADD3 R3, -R10, R3, RZ ;
        /*0150*/              @!P2 LOP3.LUT R3, RZ, R10, RZ, 0x33, !PT ;
        /*0160*/                   ISETP.NE.AND P1, PT, R3, RZ, PT ;
        /*0170*/                   IMAD.SHL.U32 R5, R0, 0x4, RZ ;
        /*0180*/              @!P1 STS [R5+UR4], RZ ;
        /*0190*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->stores().wavefronts,
            CostWarpAccess(WarpAccess::Strided(4, 4, 8, 0x400)).wavefronts);  // lanes 0, 4, ..., 28
  // Without MUFU.RCP's table (mufu_tables.h) the reciprocal is the correctly rounded one: the
  // quotient is as exact.
  const MufuTable missing(MufuFunction::kRcp, nullptr, 0, 0);
  ASSERT_FALSE(missing.ok());
  const MufuTableForTesting without(MufuFunction::kRcp, missing);
  const Emulation fallback = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(fallback.record) << fallback.undecided->Describe();
  EXPECT_EQ(fallback.record->stores().wavefronts, emulation.record->stores().wavefronts);
}

// The signed remainder (tid - 7) % 4 (ptxas's IABS, I2F.RP sequence, unrelated instructions between
// its steps, as in a kernel's `in[i % n]`): exact, so the guard it feeds is known. Lanes 3, 7, ..., 31
// (remainder 0, the dividend's sign kept) store 32 bytes apart: all in one bank.
TEST(DivisionEmulateTest, TheSignedDivisionSequenceIsExact) {
  const Module module = Listing(R"(
        /*0040*/                   IMAD.MOV.U32 R9, RZ, RZ, 0x4 ;
        /*0050*/                   VIADD R10, R0, 0xfffffff9 ;
        /*0060*/                   IABS R8, R9 ;
        /*0070*/                   I2F.RP R6, R8 ;
        /*0080*/                   MUFU.RCP R6, R6 ;
        /*0090*/                   ISETP.GE.AND P2, PT, R10, RZ, PT ;
        /*00a0*/                   VIADD R4, R6, 0xffffffe ;
        /*00b0*/                   IABS R2, R10 ;
        /*00c0*/                   F2I.FTZ.U32.TRUNC.NTZ R5, R4 ;
        /*00d0*/                   IMAD.MOV.U32 R4, RZ, RZ, RZ ;
        /*00e0*/                   IADD3 R11, RZ, -R5, RZ ;
        /*00f0*/                   IMAD R11, R11, R8, RZ ;
        /*0100*/                   IMAD.HI.U32 R5, R5, R11, R4 ;
        /*0110*/                   IMAD.HI.U32 R5, R5, R2, RZ ;
        /*0120*/                   IADD3 R5, -R5, RZ, RZ ;
        /*0130*/                   IMAD R5, R8, R5, R2 ;
        /*0140*/                   ISETP.GT.U32.AND P0, PT, R8, R5, PT ;
        /*0150*/              @!P0 IMAD.IADD R5, R5, 0x1, -R8 ;
        /*0160*/                   ISETP.NE.AND P0, PT, R9, RZ, PT ;
        /*0170*/                   ISETP.GT.U32.AND P1, PT, R8, R5, PT ;
        /*0180*/              @!P1 IADD3 R5, R5, -R8, RZ ;
        /*0190*/              @!P2 IMAD.MOV R5, RZ, RZ, -R5 ;
        /*01a0*/              @!P0 LOP3.LUT R5, RZ, R9, RZ, 0x33, !PT ;
        /*01b0*/                   ISETP.NE.AND P1, PT, R5, RZ, PT ;
        /*01c0*/                   IMAD.SHL.U32 R7, R0, 0x20, RZ ;
        /*01d0*/              @!P1 STS [R7+UR4], RZ ;
        /*01e0*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  WarpAccess lanes;
  lanes.bytes = 4;
  for (int lane = 3; lane < 32; lane += 4) lanes.SetLane(lane, 0x400 + 32u * lane);
  EXPECT_EQ(emulation.record->stores().wavefronts, CostWarpAccess(lanes).wavefronts);
  EXPECT_EQ(emulation.record->stores().wavefronts, 8u);
}

}  // namespace
}  // namespace bankcheck::emulate::internal
