#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "emulate/internal/division_test_support.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {
namespace {

using test_support::Marked;
using test_support::Replace;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The unsigned division, as conformance/'s form_udiv and reduction.cu's tid % 4.
constexpr char kUnsigned[] = R"(
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
        /*0160*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, TheUnsignedDivision) {
  EXPECT_THAT(Marked(kUnsigned), ElementsAre(0x80u));
  // The divisor negated before I2F reads it.
  std::string negated_first = kUnsigned;
  const std::string convert = "I2F.U32.RP R6, R10 ;", negate = "IADD3 R9, RZ, -R10, RZ ;";
  negated_first.replace(negated_first.find(convert), convert.size(), negate);
  negated_first.replace(negated_first.rfind(negate), negate.size(), convert);
  EXPECT_THAT(Marked(negated_first), ElementsAre(0x80u));
  // ... but not when the divisor's register changes in between.
  const size_t after_negate = negated_first.find(negate) + negate.size();
  negated_first.insert(after_negate, "\n        /*0058*/                   IADD3 R10, R10, 0x1, RZ ;");
  EXPECT_THAT(Marked(negated_first), IsEmpty());
}

// out[t] = in[t] / b, all int: IABS and a signed I2F.RP before the reciprocal.
constexpr char kSigned[] = R"(
        /*0040*/                   LDC R11, c[0x0][0x220] ;
        /*0050*/                   IMAD.WIDE R2, R7, 0x4, R2 ;
        /*0060*/                   LDG.E R0, desc[UR4][R2.64] ;
        /*0070*/                   IABS R9, R11 ;
        /*0080*/                   I2F.RP R6, R9 ;
        /*0090*/                   MUFU.RCP R6, R6 ;
        /*00a0*/                   VIADD R4, R6, 0xffffffe ;
        /*00b0*/                   F2I.FTZ.U32.TRUNC.NTZ R5, R4 ;
        /*00c0*/                   HFMA2.MMA R4, -RZ, RZ, 0, 0 ;
        /*00d0*/                   IMAD.MOV R8, RZ, RZ, -R5 ;
        /*00e0*/                   IMAD R13, R8, R9, RZ ;
        /*00f0*/                   IMAD.HI.U32 R5, R5, R13, R4 ;
        /*0100*/                   IABS R2, R0 ;
        /*0110*/                   LOP3.LUT R0, R0, R11, RZ, 0x3c, !PT ;
        /*0120*/                   IMAD.HI.U32 R5, R5, R2, RZ ;
        /*0130*/                   ISETP.GE.AND P1, PT, R0, RZ, PT ;
        /*0140*/                   IMAD.MOV R6, RZ, RZ, -R5 ;
        /*0150*/                   IMAD R6, R9.reuse, R6, R2 ;
        /*0160*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0170*/                   ISETP.GT.U32.AND P2, PT, R9, R6, PT ;
        /*0180*/              @!P2 IADD3 R6, R6, -R9.reuse, RZ ;
        /*0190*/              @!P2 VIADD R5, R5, 0x1 ;
        /*01a0*/                   ISETP.NE.AND P2, PT, R11, RZ, PT ;
        /*01b0*/                   ISETP.GE.U32.AND P0, PT, R6, R9, PT ;
        /*01c0*/               @P0 IADD3 R5, R5, 0x1, RZ ;
        /*01d0*/              @!P1 IMAD.MOV R5, RZ, RZ, -R5 ;
        /*01e0*/              @!P2 LOP3.LUT R5, RZ, R11, RZ, 0x33, !PT ;
        /*01f0*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, TheSignedDivision) { EXPECT_THAT(Marked(kSigned), ElementsAre(0x90u)); }

// out[i] = in[i % n] and int j = (i * step) / kn: ptxas puts unrelated instructions between the
// reciprocal and its adjustment (ISETP, IABS) and between the adjustment and F2I (IABS).
TEST(DivisionReciprocalTest, UnrelatedInstructionsInBetween) {
  EXPECT_THAT(Marked(R"(
        /*0040*/                   IABS R7, R20 ;
        /*0050*/                   I2F.RP R4, R7 ;
        /*0060*/                   IMAD R0, R0, UR4, R5 ;
        /*0070*/                   ULDC UR4, c[0x0][0x230] ;
        /*0080*/                   IMAD R5, R0, UR4, RZ ;
        /*0090*/                   MUFU.RCP R4, R4 ;
        /*00a0*/                   ISETP.GE.AND P3, PT, R5, RZ, PT ;
        /*00b0*/                   VIADD R2, R4, 0xffffffe ;
        /*00c0*/                   IABS R4, R5 ;
        /*00d0*/                   F2I.FTZ.U32.TRUNC.NTZ R3, R2 ;
        /*00e0*/                   HFMA2.MMA R2, -RZ, RZ, 0, 0 ;
        /*00f0*/                   IMAD.MOV R6, RZ, RZ, -R3 ;
        /*0100*/                   IMAD R9, R6, R7, RZ ;
        /*0110*/                   IMAD.HI.U32 R3, R3, R9, R2 ;
        /*0120*/                   IMAD.MOV.U32 R2, RZ, RZ, R4 ;
        /*0130*/                   IMAD.HI.U32 R3, R3, R2, RZ ;
        /*0140*/                   IMAD.MOV R4, RZ, RZ, -R3 ;
        /*0150*/                   IMAD R2, R7, R4, R2 ;
        /*0160*/                   ISETP.GT.U32.AND P1, PT, R7, R2, PT ;
        /*0170*/              @!P1 IADD3 R2, R2, -R7.reuse, RZ ;
        /*0180*/              @!P1 VIADD R3, R3, 0x1 ;
        /*0190*/                   ISETP.GE.U32.AND P0, PT, R2, R7, PT ;
        /*01a0*/               @P0 VIADD R3, R3, 0x1 ;
        /*01b0*/                   EXIT ;
)"),
              ElementsAre(0x90u));
}

// out[t] = in[t] / b + in[t + 32] / c: two signed divisions interleaved, each reciprocal's
// adjustment two or three instructions after it.
constexpr char kTwoSigned[] = R"(
        /*0040*/                   IABS R6, R2 ;
        /*0050*/                   IABS R7, R3 ;
        /*0060*/                   I2F.RP R13, R6 ;
        /*0070*/                   I2F.RP R12, R7 ;
        /*0080*/                   MUFU.RCP R13, R13 ;
        /*0090*/                   MUFU.RCP R12, R12 ;
        /*00a0*/                   VIADD R10, R13, 0xffffffe ;
        /*00b0*/                   F2I.FTZ.U32.TRUNC.NTZ R11, R10 ;
        /*00c0*/                   VIADD R8, R12, 0xffffffe ;
        /*00d0*/                   F2I.FTZ.U32.TRUNC.NTZ R9, R8 ;
        /*00e0*/                   IMAD.MOV.U32 R10, RZ, RZ, RZ ;
        /*00f0*/                   IADD3 R15, RZ, -R11, RZ ;
        /*0100*/                   HFMA2.MMA R8, -RZ, RZ, 0, 0 ;
        /*0110*/                   IMAD R15, R15, R6, RZ ;
        /*0120*/                   IMAD.MOV R14, RZ, RZ, -R9 ;
        /*0130*/                   IMAD.HI.U32 R11, R11, R15, R10 ;
        /*0140*/                   IMAD R13, R14, R7, RZ ;
        /*0150*/                   IMAD.HI.U32 R8, R9, R13, R8 ;
        /*0160*/                   IABS R12, R5 ;
        /*0170*/                   IABS R10, R4 ;
        /*0180*/                   IMAD.MOV.U32 R9, RZ, RZ, R12 ;
        /*0190*/                   IMAD.HI.U32 R8, R8, R10, RZ ;
        /*01a0*/                   IMAD.HI.U32 R11, R11, R9, RZ ;
        /*01b0*/                   IADD3 R12, -R8, RZ, RZ ;
        /*01c0*/                   IMAD.MOV R13, RZ, RZ, -R11 ;
        /*01d0*/                   IMAD R10, R7, R12, R10 ;
        /*01e0*/                   IMAD R9, R6, R13, R9 ;
        /*01f0*/                   ISETP.GT.U32.AND P4, PT, R7, R10, PT ;
        /*0200*/                   ISETP.GT.U32.AND P5, PT, R6, R9, PT ;
        /*0210*/              @!P4 IMAD.IADD R10, R10, 0x1, -R7 ;
        /*0220*/              @!P5 IMAD.IADD R9, R9, 0x1, -R6 ;
        /*0230*/              @!P5 IADD3 R11, R11, 0x1, RZ ;
        /*0240*/              @!P4 VIADD R8, R8, 0x1 ;
        /*0250*/                   ISETP.GE.U32.AND P1, PT, R10, R7, PT ;
        /*0260*/                   ISETP.GE.U32.AND P0, PT, R9, R6, PT ;
        /*0270*/               @P1 VIADD R8, R8, 0x1 ;
        /*0280*/               @P0 IADD3 R11, R11, 0x1, RZ ;
        /*0290*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, TwoDivisionsInterleaved) {
  EXPECT_THAT(Marked(kTwoSigned), ElementsAre(0x80u, 0x90u));
}

// in[t] / b + in[t + 32] % c, unsigned, the divisors uniform registers (kernel parameters).
TEST(DivisionReciprocalTest, UniformDivisors) {
  EXPECT_THAT(Marked(R"(
        /*0040*/                   I2F.U32.RP R9, UR6 ;
        /*0050*/                   ISETP.NE.U32.AND P2, PT, RZ, UR6, PT ;
        /*0060*/                   ISETP.NE.U32.AND P4, PT, RZ, UR7, PT ;
        /*0070*/                   I2F.U32.RP R11, UR7 ;
        /*0080*/                   MUFU.RCP R9, R9 ;
        /*0090*/                   MUFU.RCP R11, R11 ;
        /*00a0*/                   IADD3 R4, R9, 0xffffffe, RZ ;
        /*00b0*/                   F2I.FTZ.U32.TRUNC.NTZ R5, R4 ;
        /*00c0*/                   VIADD R6, R11, 0xffffffe ;
        /*00d0*/                   F2I.FTZ.U32.TRUNC.NTZ R7, R6 ;
        /*00e0*/                   HFMA2.MMA R4, -RZ, RZ, 0, 0 ;
        /*00f0*/                   IADD3 R3, RZ, -R5, RZ ;
        /*0100*/                   IMAD.MOV.U32 R6, RZ, RZ, RZ ;
        /*0110*/                   IMAD R3, R3, UR6, RZ ;
        /*0120*/                   IMAD.MOV R2, RZ, RZ, -R7 ;
        /*0130*/                   IMAD.HI.U32 R5, R5, R3, R4 ;
        /*0140*/                   IMAD R9, R2, UR7, RZ ;
        /*0150*/                   IMAD.HI.U32 R7, R7, R9, R6 ;
        /*0160*/                   IMAD.HI.U32 R5, R5, R8, RZ ;
        /*0170*/                   IMAD.HI.U32 R7, R7, R10, RZ ;
        /*0180*/                   IADD3 R3, -R5, RZ, RZ ;
        /*0190*/                   IMAD.MOV R7, RZ, RZ, -R7 ;
        /*01a0*/                   IMAD R8, R3, UR6, R8 ;
        /*01b0*/                   IMAD R10, R7, UR7, R10 ;
        /*01c0*/                   ISETP.GE.U32.AND P0, PT, R8, UR6, PT ;
        /*01d0*/                   ISETP.GE.U32.AND P1, PT, R10, UR7, PT ;
        /*01e0*/               @P0 IADD3 R8, R8, -UR6, RZ ;
        /*01f0*/               @P1 VIADD R10, R10, -UR7 ;
        /*0200*/               @P0 IADD3 R5, R5, 0x1, RZ ;
        /*0210*/                   EXIT ;
)"),
              ElementsAre(0x80u, 0x90u));
}

// A float reciprocal (1.0f / x's fast path) is approximate on the GPU: never marked.
TEST(DivisionReciprocalTest, AFloatReciprocalIsNot) {
  EXPECT_THAT(Marked(R"(
        /*0040*/                   LDG.E R0, desc[UR4][R4.64] ;
        /*0050*/                   MUFU.RCP R7, R0 ;
        /*0060*/                   FFMA R2, R0, R7, -1 ;
        /*0070*/                   FADD.FTZ R2, -R2, -RZ ;
        /*0080*/                   FFMA R7, R7, R2, R7 ;
        /*0090*/                   EXIT ;
)"),
              IsEmpty());
}

// n / d and m % d of one divisor: one reciprocal and Newton step, two quotients.
constexpr char kTwoQuotients[] = R"(
        /*0040*/                   IMAD.MOV.U32 R10, RZ, RZ, 0x4 ;
        /*0050*/                   I2F.U32.RP R6, R10 ;
        /*0060*/                   IADD3 R9, RZ, -R10, RZ ;
        /*0080*/                   MUFU.RCP R6, R6 ;
        /*0090*/                   VIADD R2, R6, 0xffffffe ;
        /*00a0*/                   F2I.FTZ.U32.TRUNC.NTZ R3, R2 ;
        /*00b0*/                   IMAD.MOV.U32 R2, RZ, RZ, RZ ;
        /*00c0*/                   IMAD R9, R9, R3, RZ ;
        /*00d0*/                   IMAD.HI.U32 R3, R3, R9, R2 ;
        /*00e0*/                   IMAD.HI.U32 R11, R3, R0, RZ ;
        /*00f0*/                   IMAD.HI.U32 R12, R3, R4, RZ ;
        /*0100*/                   IADD3 R13, -R11, RZ, RZ ;
        /*0110*/                   IADD3 R14, -R12, RZ, RZ ;
        /*0120*/                   IMAD R13, R10, R13, R0 ;
        /*0130*/                   IMAD R14, R10, R14, R4 ;
        /*0140*/                   ISETP.GE.U32.AND P0, PT, R13, R10, PT ;
        /*0150*/                   ISETP.GE.U32.AND P1, PT, R14, R10, PT ;
        /*0160*/               @P0 IADD3 R13, -R10, R13, RZ ;
        /*0170*/               @P0 VIADD R11, R11, 0x1 ;
        /*0180*/               @P1 IADD3 R14, -R10, R14, RZ ;
        /*0190*/                   ISETP.GE.U32.AND P0, PT, R13, R10, PT ;
        /*01a0*/                   ISETP.GE.U32.AND P1, PT, R14, R10, PT ;
        /*01b0*/               @P0 VIADD R11, R11, 0x1 ;
        /*01c0*/               @P1 IADD3 R14, -R10, R14, RZ ;
        /*01d0*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, OneNewtonStepTwoQuotients) {
  EXPECT_THAT(Marked(kTwoQuotients), ElementsAre(0x80u));
  // The second remainder of another divisor.
  EXPECT_THAT(Marked(Replace(kTwoQuotients, "IMAD R14, R10, R14, R4", "IMAD R14, R15, R14, R4")), IsEmpty());
  // The second product of q1 not followed by a remainder (another use of q1).
  EXPECT_THAT(Marked(Replace(kTwoQuotients, "IMAD R14, R10, R14, R4", "IMAD R14, R10, R14, R5")), IsEmpty());
}

// Each part of the sequence is needed: without it the quotient is not known to be exact.
TEST(DivisionReciprocalTest, APartMissingOrChangedIsNot) {
  // The reciprocal also read elsewhere (its value may differ from the GPU's).
  EXPECT_THAT(Marked(Replace(kUnsigned, "ISETP.GE.U32.AND P1, PT, R3, R10, PT ;\n",
                             "ISETP.GE.U32.AND P1, PT, R3, R10, PT ;\n        /*0111*/ STS [R6], R3 ;\n")),
              IsEmpty());
  // No rounding up: I2F.U32 without .RP.
  EXPECT_THAT(Marked(Replace(kUnsigned, "I2F.U32.RP", "I2F.U32")), IsEmpty());
  // A signed I2F.RP whose operand is not IABS's.
  EXPECT_THAT(Marked(Replace(kUnsigned, "I2F.U32.RP", "I2F.RP")), IsEmpty());
  // Another adjustment.
  EXPECT_THAT(Marked(Replace(kUnsigned, "0xffffffe", "0xffffffd")), IsEmpty());
  // F2I not truncating.
  EXPECT_THAT(Marked(Replace(kUnsigned, "F2I.FTZ.U32.TRUNC.NTZ", "F2I.FTZ.U32.NTZ")), IsEmpty());
  // No Newton step (its low word not zero).
  EXPECT_THAT(Marked(Replace(kUnsigned, "IMAD.MOV.U32 R2, RZ, RZ, RZ", "IMAD.MOV.U32 R2, RZ, RZ, 0x1")),
              IsEmpty());
  // The Newton step's error term of another register than the divisor.
  EXPECT_THAT(Marked(Replace(kUnsigned, "IADD3 R9, RZ, -R10, RZ", "IADD3 R9, RZ, -R11, RZ")), IsEmpty());
  // No quotient's remainder compared (the corrections missing).
  EXPECT_THAT(Marked(Replace(Replace(kUnsigned, "ISETP.GE.U32.AND P1, PT, R3, R10, PT", "NOP"),
                             "ISETP.GE.U32.AND P1, PT, R3, R10, PT", "NOP")),
              IsEmpty());
  // A guarded reciprocal.
  EXPECT_THAT(Marked(Replace(kUnsigned, "MUFU.RCP R6, R6", "@P2 MUFU.RCP R6, R6")), IsEmpty());
  // A branch target between the conversion and the reciprocal: the register may come from elsewhere.
  EXPECT_THAT(Marked(Replace(kUnsigned, "        /*0080*/                   MUFU.RCP",
                             ".L_x_1:\n        /*0080*/                   MUFU.RCP") +
                     "        /*0170*/                   BRA `(.L_x_1) ;\n"),
              IsEmpty());
}

// The values between the reciprocal and the quotient (q0, its negation, the Newton step's error and
// its result, the negated estimate) may differ from the GPU's as the reciprocal may: a reader outside
// the sequence would see them, so then the reciprocal is not marked.
TEST(DivisionReciprocalTest, AnIntermediateReadOutsideIsNot) {
  // q0 (R3 after F2I) stored.
  EXPECT_THAT(Marked(Replace(kUnsigned, "IMAD.MOV.U32 R2, RZ, RZ, RZ ;",
                             "IMAD.MOV.U32 R2, RZ, RZ, RZ ;\n        /*00b8*/ STS [R5], R3 ;")),
              IsEmpty());
  // The error -d * q0 (R9) stored.
  EXPECT_THAT(Marked(Replace(kUnsigned, "IMAD.HI.U32 R3, R3, R9, R2 ;",
                             "IMAD.HI.U32 R3, R3, R9, R2 ;\n        /*00d8*/ STS [R5], R9 ;")),
              IsEmpty());
  // The error read as a half (a selector: R9.H0_H0).
  EXPECT_THAT(Marked(Replace(kUnsigned, "IMAD.HI.U32 R3, R3, R9, R2 ;",
                             "IMAD.HI.U32 R3, R3, R9, R2 ;\n        /*00d8*/ HADD2.F32 R5, -RZ, R9.H0_H0 ;")),
              IsEmpty());
  // The error stored past a branch under a uniform predicate, where it does not jump.
  EXPECT_THAT(Marked(Replace(kUnsigned, "        /*0160*/                   EXIT ;",
                             "        /*0160*/              @UP0 BRA `(.L_x_1) ;\n"
                             "        /*0170*/                   STS [R5], R9 ;\n"
                             ".L_x_1:\n"
                             "        /*0180*/                   EXIT ;")),
              IsEmpty());
  // The Newton step's result q1 (R3 before the quotient) stored.
  EXPECT_THAT(Marked(Replace(kUnsigned, "IMAD.HI.U32 R3, R3, R9, R2 ;",
                             "IMAD.HI.U32 R3, R3, R9, R2 ;\n        /*00d8*/ STS [R5], R3 ;")),
              IsEmpty());
  // -q0 (R8, never written again) stored at the end.
  EXPECT_THAT(Marked(Replace(kSigned, "@!P2 LOP3.LUT R5, RZ, R11, RZ, 0x33, !PT ;",
                             "@!P2 LOP3.LUT R5, RZ, R11, RZ, 0x33, !PT ;\n        /*01e8*/ STS [R7], R8 ;")),
              IsEmpty());
  // The negated estimate (R6 before the remainder) stored.
  EXPECT_THAT(Marked(Replace(kSigned, "IMAD.MOV R6, RZ, RZ, -R5 ;",
                             "IMAD.MOV R6, RZ, RZ, -R5 ;\n        /*0148*/ STS [R7], R6 ;")),
              IsEmpty());
}

// The remainder and its compare are of the divisor itself: with another register the corrections do
// not make the quotient exact.
TEST(DivisionReciprocalTest, ARemainderOfAnotherDivisorIsNot) {
  EXPECT_THAT(Marked(Replace(kUnsigned, "IMAD R3, R10, R3, R0", "IMAD R3, R11, R3, R0")), IsEmpty());
  EXPECT_THAT(Marked(Replace(kUnsigned, "ISETP.GE.U32.AND P1, PT, R3, R10, PT",
                             "ISETP.GE.U32.AND P1, PT, R3, R11, PT")),
              IsEmpty());
  // The divisor's register written in between by LOP3's register destination, after its predicate's.
  EXPECT_THAT(Marked(Replace(
                  kUnsigned, "VIADD R2, R6, 0xffffffe ;",
                  "VIADD R2, R6, 0xffffffe ;\n        /*0098*/ LOP3.LUT P3, R10, R4, 0x3, RZ, 0xc0, !PT ;")),
              IsEmpty());
}

// CuPy's first_pass_iir_sos (n % k, signed): the remainder as q * -|d| + |n|, the divisor's IABS
// computed twice, negated and copied; no negation of the quotient.
constexpr char kNegatedDivisor[] = R"(
        /*0a90*/                   IABS R0, R4.reuse ;
        /*0ab0*/                   IABS R16, R4 ;
        /*0ac0*/                   I2F.RP R14, R0 ;
        /*0ad0*/                   ISETP.GE.AND P1, PT, R19, RZ, PT ;
        /*0ae0*/                   IMAD.MOV R16, RZ, RZ, -R16 ;
        /*0af0*/                   MUFU.RCP R14, R14 ;
        /*0b00*/                   VIADD R2, R14, 0xffffffe ;
        /*0b10*/                   IABS R14, R19 ;
        /*0b20*/                   F2I.FTZ.U32.TRUNC.NTZ R3, R2 ;
        /*0b30*/                   IMAD.MOV.U32 R2, RZ, RZ, RZ ;
        /*0b40*/                   IMAD.MOV R15, RZ, RZ, -R3 ;
        /*0b50*/                   IMAD R15, R15, R0, RZ ;
        /*0b60*/                   IMAD.HI.U32 R3, R3, R15, R2 ;
        /*0b70*/                   IMAD.MOV.U32 R15, RZ, RZ, R16 ;
        /*0b80*/                   IMAD.HI.U32 R3, R3, R14, RZ ;
        /*0b90*/                   IMAD R3, R3, R15, R14 ;
        /*0ba0*/                   VIMNMX R14, R4, 0x2, PT ;
        /*0bb0*/                   IMAD.MOV.U32 R2, RZ, RZ, RZ ;
        /*0bc0*/                   ISETP.GT.U32.AND P0, PT, R0, R3, PT ;
        /*0bd0*/                   ISETP.GE.AND P2, PT, R14, 0x1, PT ;
        /*0be0*/              @!P0 IADD3 R3, R3, -R0, RZ ;
        /*0bf0*/                   ISETP.GT.U32.AND P0, PT, R0, R3, PT ;
        /*0c00*/              @!P0 IMAD.IADD R3, R3, 0x1, -R0 ;
        /*0c10*/                   ISETP.NE.AND P0, PT, R4, RZ, PT ;
        /*0c20*/                   LOP3.LUT R0, RZ, R4, RZ, 0x33, !PT ;
        /*0c30*/              @!P1 IMAD.MOV R3, RZ, RZ, -R3 ;
        /*0c40*/                   SEL R3, R0, R3, !P0 ;
        /*0c50*/                   EXIT ;
)";

TEST(DivisionReciprocalTest, TheRemainderByTheNegatedDivisor) {
  EXPECT_THAT(Marked(kNegatedDivisor), ElementsAre(0xaf0u));
  // The negated divisor's IABS of another register.
  EXPECT_THAT(Marked(Replace(kNegatedDivisor, "IABS R16, R4 ;", "IABS R16, R5 ;")), IsEmpty());
  // ... or its source changed between the two IABS.
  EXPECT_THAT(Marked(Replace(kNegatedDivisor, "/*0ab0*/                   IABS R16, R4 ;",
                             "/*0aa0*/ IADD3 R4, R4, 0x1, RZ ;\n        /*0ab0*/ IABS R16, R4 ;")),
              IsEmpty());
  // Not negated: q * |d| + |n| is no remainder.
  EXPECT_THAT(
      Marked(Replace(kNegatedDivisor, "IMAD.MOV R16, RZ, RZ, -R16 ;", "IMAD.MOV.U32 R16, RZ, RZ, R16 ;")),
      IsEmpty());
  // The copy overwritten before the remainder reads it.
  EXPECT_THAT(Marked(Replace(kNegatedDivisor, "IMAD.HI.U32 R3, R3, R14, RZ ;",
                             "IMAD.HI.U32 R3, R3, R14, RZ ;\n        /*0b88*/ IADD3 R15, R15, 0x1, RZ ;")),
              IsEmpty());
  // The compare of the remainder with another register.
  EXPECT_THAT(Marked(Replace(kNegatedDivisor, "ISETP.GT.U32.AND P0, PT, R0, R3, PT ;\n        /*0bd0*/",
                             "ISETP.GT.U32.AND P0, PT, R4, R3, PT ;\n        /*0bd0*/")),
              IsEmpty());
}

}  // namespace
}  // namespace bankcheck::emulate::internal
