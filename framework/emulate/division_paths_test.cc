#include <gmock/gmock.h>

#include "emulate/internal/division_test_support.h"

// Where the values of the integer division's sequence flow: along every path, through loops and
// writes under a guard, up to a definition or an instruction the evaluator stops at.
namespace bankcheck::emulate::internal {
namespace {

using test_support::Marked;
using test_support::Replace;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// reduction.cu's `if (tid % (2 * s) == 0)` in its loop: the reciprocal's register is written again
// under a guard and read under the same guard, and the loop goes back to where I2F writes it anew.
constexpr char kInLoop[] = R"(
        /*0040*/                   S2R R8, SR_TID.X ;
        /*0050*/                   LDC R7, c[0x0][RZ] ;
        /*0060*/                   ISETP.GE.U32.AND P1, PT, R7, 0x2, PT ;
        /*0070*/                   LEA R5, R8, UR4, 0x2 ;
        /*0110*/              @!P1 BRA `(.L_x_6) ;
        /*0120*/                   IMAD.MOV.U32 R4, RZ, RZ, 0x1 ;
.L_x_7:
        /*0130*/                   SHF.L.U32 R10, R4, 0x1, RZ ;
        /*0140*/                   I2F.U32.RP R6, R10 ;
        /*0150*/                   IADD3 R9, RZ, -R10, RZ ;
        /*0160*/                   ISETP.NE.U32.AND P2, PT, R10, RZ, PT ;
        /*0170*/                   MUFU.RCP R6, R6 ;
        /*0180*/                   VIADD R2, R6, 0xffffffe ;
        /*0190*/                   F2I.FTZ.U32.TRUNC.NTZ R3, R2 ;
        /*01a0*/                   IMAD.MOV.U32 R2, RZ, RZ, RZ ;
        /*01b0*/                   IMAD R9, R9, R3, RZ ;
        /*01c0*/                   IMAD.HI.U32 R3, R3, R9, R2 ;
        /*01d0*/                   IMAD.HI.U32 R3, R3, R8, RZ ;
        /*01e0*/                   IADD3 R3, -R3, RZ, RZ ;
        /*01f0*/                   IMAD R3, R10, R3, R8 ;
        /*0200*/                   ISETP.GE.U32.AND P1, PT, R3, R10, PT ;
        /*0210*/               @P1 IMAD.IADD R3, R3, 0x1, -R10 ;
        /*0220*/                   ISETP.GE.U32.AND P1, PT, R3, R10, PT ;
        /*0230*/               @P1 IADD3 R3, -R10, R3, RZ ;
        /*0240*/              @!P2 LOP3.LUT R3, RZ, R10, RZ, 0x33, !PT ;
        /*0250*/                   ISETP.NE.AND P1, PT, R3, RZ, PT ;
        /*0260*/              @!P1 IMAD R2, R4, 0x4, R5 ;
        /*0270*/              @!P1 LDS R3, [R5] ;
        /*0280*/                   IMAD.MOV.U32 R4, RZ, RZ, R10 ;
        /*0290*/              @!P1 LDS R2, [R2] ;
        /*02a0*/              @!P1 IADD3 R6, R3, R2, RZ ;
        /*02b0*/              @!P1 STS [R5], R6 ;
        /*02c0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*02d0*/                   ISETP.GE.U32.AND P1, PT, R10, R7, PT ;
        /*02e0*/              @!P1 BRA `(.L_x_7) ;
.L_x_6:
        /*02f0*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, InALoopItsRegisterWrittenUnderAGuard) {
  EXPECT_THAT(Marked(kInLoop), ElementsAre(0x170u));
  // Under another guard the store may read the reciprocal itself.
  EXPECT_THAT(Marked(Replace(kInLoop, "@!P1 STS [R5], R6", "@P1 STS [R5], R6")), IsEmpty());
  // The predicate written in between: the store's lanes may differ from the write's.
  EXPECT_THAT(Marked(Replace(kInLoop, "@!P1 STS [R5], R6",
                             "ISETP.NE.AND P1, PT, R4, RZ, PT ;\n        /*02b8*/ @!P1 STS [R5], R6")),
              IsEmpty());
  // The loop's back edge to where the reciprocal is read before I2F writes its register anew.
  EXPECT_THAT(Marked(Replace(kInLoop, "SHF.L.U32 R10, R4, 0x1, RZ", "SHF.L.U32 R10, R6, 0x1, RZ")),
              IsEmpty());
}

// CuPy's 1D upfirdn: after the 32-bit division, a branch to a call (the 64-bit division's
// subroutine) while the reciprocal's register still holds it. The evaluator follows the call, so
// the paths go on into the callee (which writes R6 before it reads it here, and R9, the return
// address's high word, before RET reads the pair) and, from its return, to the instruction after
// the call.
constexpr char kThroughACall[] = R"(
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
        /*0160*/                   ISETP.NE.U32.AND P0, PT, R4, RZ, PT ;
        /*0170*/              @!P0 BRA `(.L_x_1) ;
        /*0180*/                   MOV R8, 0x1a0 ;
        /*0190*/                   CALL.REL.NOINC `(.L_x_2) ;
        /*01a0*/                   STS [R5], R6 ;
.L_x_1:
        /*01b0*/                   EXIT ;
.L_x_2:
        /*01c0*/                   IMAD.MOV.U32 R6, RZ, RZ, 0x1 ;
        /*01d0*/                   STS [R5], R6 ;
        /*01e0*/                   HFMA2.MMA R9, -RZ, RZ, 0, 0 ;
        /*01f0*/                   RET.REL.NODEC R8 `(_Z4testPi) ;
)";

TEST(DivisionReciprocalTest, APathGoesThroughACall) {
  EXPECT_THAT(Marked(kThroughACall), ElementsAre(0x80u));
  // The callee writes R6 as the high word of a 64-bit conversion (the 64-bit division's subroutine).
  EXPECT_THAT(Marked(Replace(kThroughACall, "IMAD.MOV.U32 R6, RZ, RZ, 0x1 ;", "F2I.U64.TRUNC R5, R3 ;")),
              ElementsAre(0x80u));
  // Its float source is one register: F2I.U64.TRUNC R5, R5 reads R5 alone, not the reciprocal in R6.
  EXPECT_THAT(Marked(Replace(kThroughACall, "IMAD.MOV.U32 R6, RZ, RZ, 0x1 ;", "F2I.U64.TRUNC R5, R5 ;")),
              ElementsAre(0x80u));
  // The callee reads the reciprocal.
  EXPECT_THAT(Marked(Replace(kThroughACall, "IMAD.MOV.U32 R6, RZ, RZ, 0x1 ;", "NOP ;")), IsEmpty());
  // A reader before the call.
  EXPECT_THAT(Marked(Replace(kThroughACall, "MOV R8, 0x1a0 ;", "STS [R5], R6 ;")), IsEmpty());
  // The return address's high word left as the Newton step's R9: RET reads it.
  EXPECT_THAT(Marked(Replace(kThroughACall, "HFMA2.MMA R9, -RZ, RZ, 0, 0 ;", "NOP ;")), IsEmpty());
  // A reader the branch reaches without the call.
  EXPECT_THAT(Marked(Replace(kThroughACall, "/*01b0*/                   EXIT ;", "/*01b0*/ STS [R5], R6 ;")),
              IsEmpty());
  // A guarded call: the lanes that do not call read it after.
  EXPECT_THAT(Marked(Replace(kThroughACall, "                   CALL.REL.NOINC",
                             "               @P2 CALL.REL.NOINC")),
              IsEmpty());
  // A callee that leaves R6 alone: the path goes on from its return, to the reader after the call.
  const std::string untouched = Replace(Replace(kThroughACall, "IMAD.MOV.U32 R6, RZ, RZ, 0x1 ;", "NOP ;"),
                                        "/*01d0*/                   STS [R5], R6 ;", "/*01d0*/ NOP ;");
  EXPECT_THAT(Marked(untouched), IsEmpty());
  EXPECT_THAT(
      Marked(Replace(untouched, "/*01a0*/                   STS [R5], R6 ;", "/*01a0*/ STS [R5], R7 ;")),
      ElementsAre(0x80u));
}

// CuPy's 2D upfirdn: (i * down) / up and then % up2 of it, the second division's negated estimate
// (R11) left in a register that a 64-bit load writes whole later: its value ends there.
constexpr char kWideWriteEnds[] = R"(
        /*02f0*/                   ULDC.64 UR4, c[0x0][0x230] ;
        /*0300*/                   ULDC.64 UR10, c[0x0][0x240] ;
        /*0310*/                   I2F.U32.RP R8, UR4 ;
        /*0320*/                   IMAD.MOV.U32 R4, RZ, RZ, RZ ;
        /*0330*/                   ISETP.NE.U32.AND P2, PT, RZ, UR4, PT ;
        /*0360*/                   IMAD.MOV.U32 R26, RZ, RZ, RZ ;
        /*0370*/                   I2F.U32.RP R10, UR11 ;
        /*0380*/                   MUFU.RCP R8, R8 ;
        /*0390*/                   MUFU.RCP R10, R10 ;
        /*03a0*/                   VIADD R9, R8, 0xffffffe ;
        /*03b0*/                   F2I.FTZ.U32.TRUNC.NTZ R5, R9 ;
        /*03c0*/                   VIADD R9, R10, 0xffffffe ;
        /*03d0*/                   IADD3 R11, RZ, -R5, RZ ;
        /*03e0*/                   F2I.FTZ.U32.TRUNC.NTZ R9, R9 ;
        /*03f0*/                   IMAD R11, R11, UR4, RZ ;
        /*0400*/                   IMAD.HI.U32 R4, R5, R11, R4 ;
        /*0410*/                   IMAD R5, R23, UR5, RZ ;
        /*0420*/                   IMAD.MOV R11, RZ, RZ, -R9 ;
        /*0430*/                   IMAD.HI.U32 R4, R4, R5, RZ ;
        /*0440*/                   IMAD R11, R11, UR11, RZ ;
        /*0450*/                   IADD3 R8, -R4, RZ, RZ ;
        /*0460*/                   IMAD R8, R8, UR4, R5 ;
        /*0470*/                   ISETP.GE.U32.AND P0, PT, R8, UR4, PT ;
        /*0480*/               @P0 IADD3 R8, R8, -UR4, RZ ;
        /*0490*/               @P0 IADD3 R4, R4, 0x1, RZ ;
        /*04a0*/                   ISETP.GE.U32.AND P1, PT, R8, UR4, PT ;
        /*04b0*/                   HFMA2.MMA R8, -RZ, RZ, 0, 0 ;
        /*04c0*/                   IMAD.HI.U32 R11, R9, R11, R8 ;
        /*04d0*/               @P1 VIADD R4, R4, 0x1 ;
        /*04e0*/              @!P2 LOP3.LUT R4, RZ, UR4, RZ, 0x33, !PT ;
        /*04f0*/                   ISETP.NE.U32.AND P1, PT, RZ, UR11, PT ;
        /*0500*/                   IADD3 R10, -R4, RZ, RZ ;
        /*0510*/                   IMAD.HI.U32 R11, R11, R4, RZ ;
        /*0520*/                   IMAD.MOV R11, RZ, RZ, -R11 ;
        /*0530*/                   IMAD R27, R10, UR4, R5 ;
        /*0540*/                   IMAD R9, R11, UR11, R4 ;
        /*0550*/                   ISETP.GE.U32.AND P0, PT, R9, UR11, PT ;
        /*0560*/               @P0 IADD3 R9, R9, -UR11, RZ ;
        /*0570*/                   ISETP.GE.U32.AND P0, PT, R9, UR11, PT ;
        /*0580*/               @P0 VIADD R9, R9, -UR11 ;
        /*0590*/              @!P1 LOP3.LUT R9, RZ, UR11, RZ, 0x33, !PT ;
        /*05a0*/                   LDC.64 R10, c[0x0][0x210] ;
        /*05b0*/                   STS [R9], R11 ;
        /*05c0*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, AValueEndsWhereAnyDestinationCoversIt) {
  EXPECT_THAT(Marked(kWideWriteEnds), ElementsAre(0x380u, 0x390u));
  // A shuffle's register destination, after its predicate's (FlashInfer's RMSNorm).
  EXPECT_THAT(
      Marked(Replace(kWideWriteEnds, "LDC.64 R10, c[0x0][0x210]", "SHFL.BFLY PT, R11, R9, 0x8, 0x1f")),
      ElementsAre(0x380u, 0x390u));
  // A 32-bit load leaves the negated estimate to the store.
  EXPECT_THAT(Marked(Replace(kWideWriteEnds, "LDC.64 R10", "LDC R10")), ElementsAre(0x380u));
}

// i % d for i = 0, 1, ...: ptxas computes the reciprocal and the Newton step once, before the loop,
// and the quotient and remainder in it, after its branch target.
constexpr char kHoisted[] = R"(
        /*0040*/                   LDC R10, c[0x0][0x210] ;
        /*0050*/                   I2F.U32.RP R6, R10 ;
        /*0060*/                   IADD3 R9, RZ, -R10, RZ ;
        /*0070*/                   MUFU.RCP R6, R6 ;
        /*0080*/                   VIADD R2, R6, 0xffffffe ;
        /*0090*/                   F2I.FTZ.U32.TRUNC.NTZ R3, R2 ;
        /*00a0*/                   IMAD.MOV.U32 R2, RZ, RZ, RZ ;
        /*00b0*/                   IMAD R9, R9, R3, RZ ;
        /*00c0*/                   IMAD.HI.U32 R3, R3, R9, R2 ;
        /*00d0*/                   IMAD.MOV.U32 R4, RZ, RZ, RZ ;
.L_x_1:
        /*00e0*/                   IMAD.HI.U32 R5, R3, R4, RZ ;
        /*00f0*/                   IADD3 R7, -R5, RZ, RZ ;
        /*0100*/                   IMAD R7, R10, R7, R4 ;
        /*0110*/                   ISETP.GE.U32.AND P0, PT, R7, R10, PT ;
        /*0120*/               @P0 IADD3 R7, -R10, R7, RZ ;
        /*0130*/                   ISETP.GE.U32.AND P0, PT, R7, R10, PT ;
        /*0140*/               @P0 IADD3 R7, -R10, R7, RZ ;
        /*0150*/                   STS [R7], RZ ;
        /*0160*/                   VIADD R4, R4, 0x1 ;
        /*0170*/                   ISETP.NE.AND P1, PT, R4, 0x20, PT ;
        /*0180*/               @P1 BRA `(.L_x_1) ;
        /*0190*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, TheQuotientInALoopTheReciprocalBefore) {
  EXPECT_THAT(Marked(kHoisted), ElementsAre(0x70u));
  // The divisor written in the loop: the quotients after the first are of another divisor.
  EXPECT_THAT(Marked(Replace(kHoisted, "VIADD R4, R4, 0x1 ;", "VIADD R10, R10, 0x1 ;")), IsEmpty());
  // q1 written in the loop.
  EXPECT_THAT(Marked(Replace(kHoisted, "VIADD R4, R4, 0x1 ;", "VIADD R3, R3, 0x1 ;")), IsEmpty());
  // ... or by the quotient itself, which the next pass reads as q1.
  EXPECT_THAT(
      Marked(Replace(Replace(Replace(kHoisted, "IMAD.HI.U32 R5, R3, R4, RZ", "IMAD.HI.U32 R3, R3, R4, RZ"),
                             "IADD3 R7, -R5, RZ, RZ", "IADD3 R7, -R3, RZ, RZ"),
                     "STS [R7], RZ", "STS [R7], R3")),
      IsEmpty());
  // Another way into the loop, which skips the Newton step.
  EXPECT_THAT(Marked(Replace(kHoisted, "/*0040*/                   LDC R10, c[0x0][0x210] ;",
                             "/*0030*/ @P2 BRA `(.L_x_1) ;\n        /*0040*/ LDC R10, c[0x0][0x210] ;")),
              IsEmpty());
}

// A quotient at a branch target that a path enters with another value in q1's register (here the
// remainder, coming back): not the Newton step's q1 there.
TEST(DivisionReciprocalTest, AQuotientEnteredFromElsewhereIsNot) {
  EXPECT_THAT(Marked(R"(
        /*0040*/                   IMAD.MOV.U32 R10, RZ, RZ, 0x4 ;
        /*0050*/                   I2F.U32.RP R6, R10 ;
        /*0060*/                   IADD3 R9, RZ, -R10, RZ ;
        /*0080*/                   MUFU.RCP R6, R6 ;
        /*0090*/                   VIADD R2, R6, 0xffffffe ;
        /*00a0*/                   F2I.FTZ.U32.TRUNC.NTZ R3, R2 ;
        /*00b0*/                   IMAD.MOV.U32 R2, RZ, RZ, RZ ;
        /*00c0*/                   IMAD R9, R9, R3, RZ ;
        /*00d0*/                   IMAD.HI.U32 R3, R3, R9, R2 ;
.L_x_1:
        /*00e0*/                   IMAD.HI.U32 R5, R3, R0, RZ ;
        /*00f0*/                   IADD3 R7, -R5, RZ, RZ ;
        /*0100*/                   IMAD R7, R10, R7, R0 ;
        /*0110*/                   ISETP.GE.U32.AND P1, PT, R7, R10, PT ;
        /*0120*/               @P1 IADD3 R7, -R10, R7, RZ ;
        /*0130*/                   ISETP.GE.U32.AND P1, PT, R7, R10, PT ;
        /*0140*/               @P1 IADD3 R7, -R10, R7, RZ ;
        /*0150*/                   MOV R3, R7 ;
        /*0160*/                   ISETP.NE.AND P2, PT, R7, RZ, PT ;
        /*0170*/               @P2 BRA `(.L_x_1) ;
        /*0180*/                   EXIT ;
)"),
              IsEmpty());
}

}  // namespace
}  // namespace bankcheck::emulate::internal
