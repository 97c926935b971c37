// The integer division recogniser (division.cc) on the uniform datapath: the Newton step and the
// quotient in UIMAD after R2UR, as nvcc 13.0 emits them for FlashInfer's norm kernels.
#include <gmock/gmock.h>

#include <string>

#include "emulate/internal/division_test_support.h"

namespace bankcheck::emulate::internal {
namespace {

using test_support::Marked;
using test_support::Replace;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// FlashInfer's fused-add RMSNorm (a uniform divisor): after F2I, R2UR moves q0 to the uniform
// datapath, where UIMAD.WIDE.U32 makes the Newton step (the pair UR4:UR5 = 0:q0 its addend, q1 its
// high word) and the quotient (the high word of q1 * n).
constexpr char kUniformDatapath[] = R"(
        /*0010*/                   ULDC UR11, c[0x0][0x4] ;
        /*0020*/                   ULDC UR9, c[0x0][0x228] ;
        /*0030*/                   USHF.L.U32 UR8, UR11, 0x8, URZ ;
        /*0040*/                   S2R R22, SR_TID.Y ;
        /*0050*/                   UMOV UR4, URZ ;
        /*0060*/                   USHF.L.U32 UR14, UR11, 0x5, URZ ;
        /*0070*/                   S2UR UR15, SR_CTAID.X ;
        /*0080*/                   UIADD3 UR7, URZ, -UR8, URZ ;
        /*0090*/                   S2R R3, SR_TID.X ;
        /*00a0*/                   UIADD3 UR6, UR8, UR9, URZ ;
        /*00b0*/                   ACQBULK ;
        /*00c0*/                   I2F.U32.RP R0, UR8 ;
        /*00d0*/                   UISETP.NE.U32.AND UP2, UPT, UR8, URZ, UPT ;
        /*00e0*/                   HFMA2.MMA R17, -RZ, RZ, 0, 0 ;
        /*00f0*/                   UIADD3 UR6, UR6, -0x1, URZ ;
        /*0100*/                   ULDC.64 UR12, c[0x0][0x208] ;
        /*0110*/                   UISETP.GT.U32.AND UP3, UPT, UR8, UR6, UPT ;
        /*0120*/                   PLOP3.LUT P2, PT, PT, PT, UP3, 0x80, 0x0 ;
        /*0130*/                   MUFU.RCP R0, R0 ;
        /*0140*/                   LEA R22, R22, R3, 0x5 ;
        /*0150*/                   IADD3 R2, R0, 0xffffffe, RZ ;
        /*0160*/                   F2I.FTZ.U32.TRUNC.NTZ R2, R2 ;
        /*0170*/                   R2UR UR5, R2 ;
        /*0180*/                   UIMAD UR7, UR7, UR5, URZ ;
        /*0190*/                   UIMAD.WIDE.U32 UR4, UR5, UR7, UR4 ;
        /*01a0*/                   UIMAD.WIDE.U32 UR4, UR5, UR6, URZ ;
        /*01b0*/                   UIADD3 UR4, -UR5, URZ, URZ ;
        /*01c0*/                   UIMAD UR4, UR8, UR4, UR6 ;
        /*01d0*/                   UISETP.GE.U32.AND UP0, UPT, UR4, UR8, UPT ;
        /*01e0*/                   @UP0 UIADD3 UR4, -UR8, UR4, URZ ;
        /*01f0*/                   @UP0 UIADD3 UR5, UR5, 0x1, URZ ;
        /*0200*/                   UISETP.GE.U32.AND UP1, UPT, UR4, UR8, UPT ;
        /*0210*/                   UIADD3 UR4, UR11, 0x3, URZ ;
        /*0220*/                   ULOP3.LUT UR4, UR4, 0xfffffffc, URZ, 0xc0, !UPT ;
        /*0230*/                   @UP1 UIADD3 UR5, UR5, 0x1, URZ ;
        /*0240*/                   @!UP2 ULOP3.LUT UR5, URZ, UR8, URZ, 0x33, !UPT ;
        /*0250*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, OnTheUniformDatapath) {
  EXPECT_THAT(Marked(kUniformDatapath), ElementsAre(0x130u));
  // The addend's low word not zero.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "UMOV UR4, URZ", "UMOV UR4, 0x1")), IsEmpty());
  // The error of another value than -d.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "UIADD3 UR7, URZ, -UR8, URZ", "UIADD3 UR7, URZ, -UR9, URZ")),
              IsEmpty());
  // q1 read outside the sequence.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "UIMAD.WIDE.U32 UR4, UR5, UR6, URZ ;",
                             "UMOV UR10, UR5 ;\n        /*01a8*/ UIMAD.WIDE.U32 UR4, UR5, UR6, URZ ;")),
              IsEmpty());
  // The Newton step's low word read.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "UIMAD.WIDE.U32 UR4, UR5, UR6, URZ ;",
                             "UMOV UR10, UR4 ;\n        /*01a8*/ UIMAD.WIDE.U32 UR4, UR5, UR6, URZ ;")),
              IsEmpty());
  // The quotient's low word read.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "UIADD3 UR4, -UR5, URZ, URZ ;",
                             "UMOV UR10, UR4 ;\n        /*01b8*/ UIADD3 UR4, -UR5, URZ, URZ ;")),
              IsEmpty());
  // The negated estimate read.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "UIADD3 UR4, -UR5, URZ, URZ ;",
                             "UIADD3 UR4, -UR5, URZ, URZ ;\n        /*01b8*/ UMOV UR10, UR4 ;")),
              IsEmpty());
  // The remainder or its compare of another divisor.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "UIMAD UR4, UR8, UR4, UR6", "UIMAD UR4, UR11, UR4, UR6")),
              IsEmpty());
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "UISETP.GE.U32.AND UP0, UPT, UR4, UR8, UPT",
                             "UISETP.GE.U32.AND UP0, UPT, UR4, UR11, UPT")),
              IsEmpty());
  // The divisor rewritten between the conversion and the error.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "ACQBULK", "UIADD3 UR8, UR8, 0x1, URZ")), IsEmpty());
  // A global load whose descriptor may be the Newton step's low word (the descriptor is not kept).
  EXPECT_THAT(
      Marked(Replace(kUniformDatapath, "UIMAD.WIDE.U32 UR4, UR5, UR6, URZ ;",
                     "LDG.E R9, desc[UR4][R2.64] ;\n        /*01a8*/ UIMAD.WIDE.U32 UR4, UR5, UR6, URZ ;")),
      IsEmpty());
}

// FlashInfer's norm kernels go on with the Newton step's error e (UR7) live: a store through a
// descriptor in other registers (desc[UR12], not part of the address), a half of R4 read (a
// selector: no uniform register), and e overwritten where
// VOTEU.ALL finds a lane without P0 before that lane reads the new value under @!P0.
std::string UniformDatapathGoesOn() {
  return Replace(kUniformDatapath, "        /*0250*/                   EXIT ;", R"(
        /*0250*/                   ISETP.GE.U32.AND P0, PT, R22, UR9, PT ;
        /*0260*/                   VOTEU.ALL UP0, P0 ;
        /*0270*/                   @!UP0 USHF.L.U32 UR7, UR11, 0x3, URZ ;
        /*0280*/              @!P0 IADD3 R4, R22, UR7, RZ ;
        /*0290*/                   STG.E desc[UR12][R8.64], R4 ;
        /*0298*/                   HADD2.F32 R17, -RZ, R4.H0_H0 ;
        /*02a0*/              @!UP0 BRA `(.L_x_1) ;
        /*02b0*/                   EXIT ;
.L_x_1:
        /*02c0*/                   EXIT ;
)");
}

TEST(DivisionReciprocalTest, OnTheUniformDatapathValuesLiveOn) {
  const std::string kUniformDatapathGoesOn = UniformDatapathGoesOn();
  EXPECT_THAT(Marked(kUniformDatapathGoesOn), ElementsAre(0x130u));
  // e read by a lane where the vote may have found P0 everywhere (no write).
  EXPECT_THAT(Marked(Replace(kUniformDatapathGoesOn, "@!P0 IADD3", "@P0 IADD3")), IsEmpty());
  // Any lane with P0, not every one.
  EXPECT_THAT(Marked(Replace(kUniformDatapathGoesOn, "VOTEU.ALL", "VOTEU.ANY")), IsEmpty());
  // P0 changed between the vote and the read.
  EXPECT_THAT(Marked(Replace(kUniformDatapathGoesOn, "@!UP0 USHF.L.U32 UR7, UR11, 0x3, URZ ;",
                             "@!UP0 USHF.L.U32 UR7, UR11, 0x3, URZ ;\n"
                             "        /*0278*/ ISETP.GE.U32.AND P0, PT, R3, UR9, PT ;")),
              IsEmpty());
  // The descriptor is the pair UR6:UR7 (e).
  EXPECT_THAT(Marked(Replace(kUniformDatapathGoesOn, "desc[UR12]", "desc[UR6]")), IsEmpty());
  // e read past a branch guarded by a uniform predicate, where it does not jump.
  EXPECT_THAT(Marked(Replace(kUniformDatapath, "        /*0250*/                   EXIT ;",
                             "        /*0250*/              @UP2 BRA `(.L_x_1) ;\n"
                             "        /*0260*/                   IADD3 R5, R22, UR7, RZ ;\n"
                             ".L_x_1:\n"
                             "        /*0270*/                   EXIT ;")),
              IsEmpty());
  EXPECT_THAT(Marked(Replace(kUniformDatapathGoesOn, "/*02b0*/                   EXIT ;",
                             "/*02b0*/                   IADD3 R5, R22, UR7, RZ ;")),
              IsEmpty());
}

}  // namespace
}  // namespace bankcheck::emulate::internal
