// UBMSK, VIMNMX3, REDUX and MATCH.ANY (CUB's radix sort, reductions and warp exchanges): counted
// wherever their values feed no address, guard or branch. UBMSK is BMSK's uniform form and computes
// as BMSK does (its vectors); the others have no GPU vectors, so their values stay unknown and a
// launch whose address they feed is undecided, the reason naming the form.
#include <gmock/gmock.h>

#include <string>

#include "bankcheck/bank_model.h"
#include "bankcheck/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

TEST(WarpReductionsTest, CountedWhereTheirValuesFeedNoAddress) {
  const Module module = Listing(R"(
        /*0040*/                   VIMNMX3 R5, R0, R0, R0, !PT ;
        /*0050*/                   REDUX.SUM.S32 UR6, R0 ;
        /*0060*/                   REDUX.MAX.S32 UR7, R0 ;
        /*0070*/                   REDUX.OR UR8, R0 ;
        /*0080*/                   MATCH.ANY R6, R0 ;
        /*0090*/                   IMAD.SHL.U32 R3, R0, 0x4, RZ ;
        /*00a0*/                   STS [R3+UR4], R5 ;
        /*00b0*/                   STS [R3+UR4+0x80], R6 ;
        /*00c0*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0xa0).wavefronts, 1u);
  EXPECT_EQ(Row(*emulation.record, 0xb0).wavefronts, 1u);
  EXPECT_EQ(Row(*emulation.record, 0xb0).executions, 1u);
}

// UBMSK UR7, URZ, 0x4 is 0xf: lane l stores at word 15 * l, conflict-free; a wrong 0x10 would
// make it a 16-way conflict, an unknown one undecided.
TEST(WarpReductionsTest, UniformBitMaskComputesAsBitMask) {
  const Module module = Listing(R"(
        /*0040*/                   UBMSK UR7, URZ, 0x4 ;
        /*0050*/                   IMAD R3, R0, UR7, RZ ;
        /*0060*/                   IMAD.SHL.U32 R3, R3, 0x4, RZ ;
        /*0070*/                   STS [R3+UR4], RZ ;
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0x70).wavefronts,
            CostWarpAccess(WarpAccess::Strided(4, 15, kWarpSize, 0x400)).wavefronts);
  EXPECT_EQ(Row(*emulation.record, 0x70).wavefronts, 1u);
}

// Why one warp's launch is undecided when `producer` writes R5 and R5 gives the address.
std::string WhyUndecided(const std::string& producer) {
  const Emulation emulation = Emulate(Listing("        /*0040*/                   " + producer + R"( ;
        /*0050*/                   IMAD.SHL.U32 R3, R5, 0x4, RZ ;
        /*0060*/                   LDS R6, [R3+UR4] ;
        /*0070*/                   EXIT ;
)"),
                                      Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  if (!emulation.undecided) {
    ADD_FAILURE() << producer << ": decided, where it should be undecided";
    return "";
  }
  return emulation.undecided->reason;
}

TEST(WarpReductionsTest, FormsWithoutGpuVectorsFeedingAnAddressAreUndecidedAndNamed) {
  EXPECT_THAT(WhyUndecided("VIMNMX3 R5, R0, R0, R0, !PT"),
              HasSubstr("form VIMNMX3 (VIMNMX3 at pc 0x0040), not among the forms checked against the GPU"));
  EXPECT_THAT(WhyUndecided("MATCH.ANY R5, R0"),
              HasSubstr("form MATCH.ANY (MATCH.ANY at pc 0x0040), not among"));
  EXPECT_THAT(WhyUndecided("REDUX.SUM.S32 UR5, R0 ;\n        /*0048*/ MOV R5, UR5"),
              HasSubstr("form REDUX.SUM.S32 (REDUX.SUM.S32 at pc 0x0040), not among"));
  // MATCH.ALL also writes a predicate, which the table's one destination does not say.
  EXPECT_THAT(WhyUndecided("MATCH.ALL P0, R5, R0"), HasSubstr("MATCH.ALL"));
}

// OpenCV's color conversions and saturate_cast (nvcc 13, sm_90): IDP.2A (__dp2a_lo), I2I.U8/.S8
// .S32.SAT (cvt.sat.u8.s32) and F2IP.U8.F32.NTZ (cvt.rni.sat.u8.f32) have no GPU vectors: counted
// where their values feed no address, their destinations unknown.
TEST(WarpReductionsTest, NarrowConversionsAndDotProductsAreCounted) {
  const Module module = Listing(R"(
        /*0040*/                   IDP.2A.LO.U16.U8 R5, R0, R0, RZ ;
        /*0050*/                   I2I.U8.S32.SAT R6, R0 ;
        /*0060*/                   I2I.S8.S32.SAT R7, R0 ;
        /*0070*/                   F2IP.U8.F32.NTZ R8, RZ, R0, RZ ;
        /*0080*/                   IMAD.SHL.U32 R3, R0, 0x4, RZ ;
        /*0090*/                   STS [R3+UR4], R5 ;
        /*00a0*/                   STS [R3+UR4+0x80], R6 ;
        /*00b0*/                   STS.U8 [R0+UR4+0x100], R7 ;
        /*00c0*/                   STS.U8 [R0+UR4+0x120], R8 ;
        /*00d0*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0x90).wavefronts, 1u);
  EXPECT_EQ(Row(*emulation.record, 0xc0).wavefronts, 1u);
  EXPECT_THAT(WhyUndecided("IDP.2A.LO.U16.U8 R5, R0, R0, RZ"),
              HasSubstr("form IDP.2A.LO.U16.U8 (IDP.2A.LO.U16.U8 at pc 0x0040), not among"));
  EXPECT_THAT(WhyUndecided("I2I.U8.S32.SAT R5, R0"), HasSubstr("form I2I.U8.S32.SAT (I2I.U8.S32.SAT at pc"));
  EXPECT_THAT(WhyUndecided("I2I.S8.S32.SAT R5, R0"), HasSubstr("form I2I.S8.S32.SAT (I2I.S8.S32.SAT at pc"));
  EXPECT_THAT(WhyUndecided("F2IP.U8.F32.NTZ R5, RZ, R0, RZ"),
              HasSubstr("form F2IP.U8.F32.NTZ (F2IP.U8.F32.NTZ at pc 0x0040), not among"));
}

// max(max(a, b), 0) is VIMNMX.RELU (nvcc 13, sm_90): no handler reads .RELU, so its value is unknown
// in the counting pass too (max(a, b) alone would be wrong for negative a and b); so is
// VIADDMNMX.RELU's.
TEST(WarpReductionsTest, ReluMinMaxIsNotComputedAsPlainMinMax) {
  EXPECT_THAT(WhyUndecided("VIMNMX.RELU R5, R0, R0, !PT"),
              HasSubstr("form VIMNMX.RELU (VIMNMX.RELU at pc 0x0040), not among"));
  EXPECT_THAT(WhyUndecided("VIADDMNMX.RELU R5, R0, 0x1, RZ, !PT"),
              HasSubstr("form VIADDMNMX.RELU (VIADDMNMX.RELU at pc 0x0040), not among"));
  // The checked forms stay computed: lane l reads word l.
  const Emulation plain = Emulate(Listing(R"(
        /*0040*/                   VIMNMX R5, R0, RZ, !PT ;
        /*0050*/                   IMAD.SHL.U32 R3, R5, 0x4, RZ ;
        /*0060*/                   LDS R6, [R3+UR4] ;
        /*0070*/                   EXIT ;
)"),
                                  Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(plain.record) << plain.undecided->Describe();
  EXPECT_EQ(Row(*plain.record, 0x60).wavefronts, 1u);
}

}  // namespace
}  // namespace bankcheck::emulate
