// Forms CUB's code brought to the emulator: UBMSK, VIMNMX3, REDUX and MATCH.ANY (radix sorts,
// reductions, warp exchanges), FSEL and the lane masks (scans, segmented reductions). UBMSK computes
// as BMSK does (its vectors); a form without GPU vectors leaves its values unknown, so a launch whose
// address they feed is undecided, the reason naming the form.
#include <gmock/gmock.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/evaluator.h"

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

// The lane masks (%lanemask_eq ... %lanemask_ge) are known before the launch: nvdisasm names them
// SR_EQMASK, SR_LTMASK, SR_LEMASK, SR_GTMASK, SR_GEMASK (CUB's segmented warp reductions read
// SR_GEMASK). POPC of each gives 1, l, l + 1, 31 - l and 32 - l in lane l, 65 in all, less the second:
// lane l stores word 65 - l, one wavefront. An unknown mask would leave the launch undecided.
TEST(WarpReductionsTest, LaneMasksAreKnown) {
  const Module module = Listing(R"(
        /*0040*/                   S2R R5, SR_EQMASK ;
        /*0050*/                   S2R R6, SR_LTMASK ;
        /*0060*/                   S2R R7, SR_LEMASK ;
        /*0070*/                   S2R R8, SR_GTMASK ;
        /*0080*/                   S2R R9, SR_GEMASK ;
        /*0090*/                   POPC R5, R5 ;
        /*00a0*/                   POPC R6, R6 ;
        /*00b0*/                   POPC R7, R7 ;
        /*00c0*/                   POPC R8, R8 ;
        /*00d0*/                   POPC R9, R9 ;
        /*00e0*/                   IADD3 R5, R5, R6, R7 ;
        /*00f0*/                   IADD3 R5, R5, R8, R9 ;
        /*0100*/                   IADD3 R5, R5, -R6, RZ ;
        /*0110*/                   IMAD.SHL.U32 R3, R5, 0x4, RZ ;
        /*0120*/                   STS [R3+UR4], RZ ;
        /*0130*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0x120).wavefronts, 1u);
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

// REDUX's forms have GPU vectors (checked_forms.def): their values give addresses. Lane l of a warp
// stores at word l * 31 (REDUX.MAX of the lanes, one wavefront) and l * 496 (REDUX.SUM.S32: every
// word in bank 0 or 16, 16 wavefronts); of a warp of four lanes after WARPSYNC 0xf, at l * 6
// (REDUX.SUM of 0 to 3).
TEST(WarpReductionsTest, ReduxValuesGiveAddresses) {
  const std::string body = R"(
        /*0040*/                   REDUX.MAX UR6, R0 ;
        /*0050*/                   REDUX.SUM.S32 UR7, R0 ;
        /*0060*/                   IMAD R3, R0, UR6, RZ ;
        /*0070*/                   IMAD R5, R0, UR7, RZ ;
        /*0080*/                   IMAD.SHL.U32 R3, R3, 0x4, RZ ;
        /*0090*/                   IMAD.SHL.U32 R5, R5, 0x4, RZ ;
        /*00a0*/                   STS [R3+UR4], RZ ;
        /*00b0*/                   STS [R5+UR4], RZ ;
        /*00c0*/                   EXIT ;
)";
  const Emulation emulation = Emulate(Listing(body), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0xa0).wavefronts, CostWarpAccess(WarpAccess::Strided(4, 31)).wavefronts);
  EXPECT_EQ(Row(*emulation.record, 0xa0).wavefronts, 1u);
  EXPECT_EQ(Row(*emulation.record, 0xb0).wavefronts, CostWarpAccess(WarpAccess::Strided(4, 496)).wavefronts);
  EXPECT_EQ(Row(*emulation.record, 0xb0).wavefronts, 16u);
  std::string four = body;
  four.replace(four.find("REDUX.MAX UR6, R0 ;"), 19, "WARPSYNC 0xf ;");
  four.replace(four.find("/*0050*/"), 8, "/*0048*/                   REDUX.SUM UR6, R0 ;\n        /*0050*/");
  const Emulation partial = Emulate(Listing(four), Launch(Dim3{1, 1, 1}, Dim3{4, 1, 1}));
  ASSERT_TRUE(partial.record) << partial.undecided->Describe();
  EXPECT_EQ(Row(*partial.record, 0xa0).wavefronts, CostWarpAccess(WarpAccess::Strided(4, 6, 4)).wavefronts);
}

TEST(WarpReductionsTest, FormsWithoutGpuVectorsFeedingAnAddressAreUndecidedAndNamed) {
  EXPECT_THAT(
      WhyAddressUndecided("MUFU.EX2 R5, R0"),
      HasSubstr("form MUFU.EX2 (MUFU.EX2 at pc 0x0040), not among the forms checked against the GPU"));
  // Without a WARPSYNC, the members are the whole warp: four lanes are not (a warp of four threads).
  EXPECT_THAT(WhyAddressUndecided("REDUX.SUM UR5, R0 ;\n        /*0048*/ MOV R5, UR5", 4),
              HasSubstr("REDUX.SUM at pc 0x0040"));
  // CUB's logical warps of 16: each half's WARPSYNC.EXCLUSIVE mask, then each half reduces alone.
  EXPECT_THAT(
      WhyAddressUndecided(
          "LOP3.LUT R4, R0, 0x10, RZ, 0xc0, !PT ;\n        /*0042*/ IMAD.MOV.U32 R6, RZ, RZ, 0xffff ;\n"
          "        /*0044*/ SHF.L.U32 R6, R6, R4, RZ ;\n        /*0046*/ WARPSYNC.EXCLUSIVE R6 ;\n"
          "        /*0048*/ REDUX.MAX.S32 UR5, R0 ;\n        /*004a*/ MOV R5, UR5"),
      HasSubstr("REDUX.MAX.S32 at pc 0x0048"));
  // A guarded REDUX: which lanes would join it no vector says.
  EXPECT_THAT(
      WhyAddressUndecided("ISETP.GE.AND P0, PT, R0, 0x4, PT ;\n        /*0044*/ @P0 REDUX.SUM UR5, R0 ;\n"
                          "        /*0048*/ MOV R5, UR5"),
      HasSubstr("REDUX.SUM at pc 0x0044"));
  // MATCH.ALL also writes a predicate, which the table's one destination does not say.
  EXPECT_THAT(WhyAddressUndecided("MATCH.ALL P0, R5, R0"), HasSubstr("MATCH.ALL"));
  // MATCH.ANY without a WARPSYNC: its members are the whole warp, which four lanes are not.
  EXPECT_THAT(WhyAddressUndecided("MATCH.ANY R5, R0", 4), HasSubstr("MATCH.ANY at pc 0x0040"));
}

// MATCH.ANY's and P2R's forms have GPU vectors (checked_forms.def): their values give addresses.
// MATCH.ANY of l % 4 is 0x11111111 << (l % 4): lane l stores at word 32 * (that & 0xf), four words of
// bank 0, 4 wavefronts (a lane's own bit alone would give five words, the whole warp's mask one).
// P2R spills P6 (l >= 4) into bit 6 and ISETP.NE reads it back: lanes 4-31 store at word 32 * l,
// the others at word l: 29 words of bank 0 (a P2R of 0 would store every lane at word l: 1).
TEST(WarpReductionsTest, MatchAnyAndP2RValuesGiveAddresses) {
  const Emulation emulation = Emulate(Listing(R"(
        /*0040*/                   LOP3.LUT R4, R0, 0x3, RZ, 0xc0, !PT ;
        /*0050*/                   MATCH.ANY R5, R4 ;
        /*0060*/                   LOP3.LUT R5, R5, 0xf, RZ, 0xc0, !PT ;
        /*0070*/                   IMAD.SHL.U32 R3, R5, 0x80, RZ ;
        /*0080*/                   STS [R3+UR4], RZ ;
        /*0090*/                   ISETP.GE.AND P6, PT, R0, 0x4, PT ;
        /*00a0*/                   P2R R6, PR, RZ, 0x40 ;
        /*00b0*/                   ISETP.GE.AND P6, PT, R0, 0x40, PT ;
        /*00c0*/                   ISETP.NE.AND P0, PT, R6, RZ, PT ;
        /*00d0*/                   IMAD.SHL.U32 R8, R0, 0x20, RZ ;
        /*00e0*/                   SEL R7, R8, R0, P0 ;
        /*00f0*/                   IMAD.SHL.U32 R7, R7, 0x4, RZ ;
        /*0100*/                   STS [R7+UR4+0x1000], RZ ;
        /*0110*/                   EXIT ;
)"),
                                      Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0x80).wavefronts, 4u);
  EXPECT_EQ(Row(*emulation.record, 0x100).wavefronts, 29u);
}

// REDUX's values (WarpReduce) as redux.sync defines them, on the lanes of a mask.
std::optional<uint32_t> Reduce(const std::vector<std::string>& modifiers,
                               const std::array<uint32_t, 32>& values, uint32_t lanes = 0xffffffffu) {
  internal::Instruction in;
  in.base = "REDUX";
  in.modifiers = modifiers;
  in.info = internal::FindOpcode("REDUX");
  in.decoded = internal::DecodeModifiers(in.info, in.modifiers);
  return internal::WarpReduce(in, values.data(), lanes);
}

TEST(WarpReductionsTest, ReduxComputesRedux) {
  std::array<uint32_t, 32> values{};
  values.fill(0xffffffffu);
  // A sum modulo 2^32, signed or not: 32 * -1.
  EXPECT_EQ(Reduce({"SUM", "S32"}, values), 0xffffffe0u);
  EXPECT_EQ(Reduce({"SUM"}, values), 0xffffffe0u);
  values.fill(0);
  values[0] = 0x7fffffffu;
  values[1] = 1;
  EXPECT_EQ(Reduce({"SUM", "S32"}, values), 0x80000000u);  // wraps, no saturation
  // MIN and MAX: signed with .S32, unsigned without.
  values.fill(5);
  values[3] = 0x80000000u;
  values[9] = 0xffffffffu;
  EXPECT_EQ(Reduce({"MIN", "S32"}, values), 0x80000000u);
  EXPECT_EQ(Reduce({"MIN"}, values), 5u);
  EXPECT_EQ(Reduce({"MAX", "S32"}, values), 5u);
  EXPECT_EQ(Reduce({"MAX"}, values), 0xffffffffu);
  // AND (no modifier), OR and XOR.
  for (uint32_t lane = 0; lane < 32; ++lane) values[lane] = 0x80000000u | 1u << lane;
  EXPECT_EQ(Reduce({}, values), 0x80000000u);
  EXPECT_EQ(Reduce({"OR"}, values), 0xffffffffu);
  EXPECT_EQ(Reduce({"XOR"}, values), 0x7fffffffu);  // 32 high bits cancel
}

// Only the lanes of the mask count (a partial member mask: the lanes that reach the REDUX).
TEST(WarpReductionsTest, ReduxReducesOnlyTheLanesThatRunIt) {
  std::array<uint32_t, 32> values{};
  for (uint32_t lane = 0; lane < 32; ++lane) values[lane] = lane + 1;
  EXPECT_EQ(Reduce({"SUM"}, values, 0x0000000fu), 10u);
  EXPECT_EQ(Reduce({"MAX"}, values, 0x00ff0000u), 24u);
  EXPECT_EQ(Reduce({"MIN", "S32"}, values, 0x80000000u), 32u);
  EXPECT_EQ(Reduce({"XOR"}, values, 0x00000005u), 1u ^ 3u);
}

// Forms redux.sync has no meaning for, or modifiers the emulator does not read: not computed.
TEST(WarpReductionsTest, ReduxOfOtherModifiersIsNotComputed) {
  std::array<uint32_t, 32> values{};
  EXPECT_FALSE(Reduce({"OR", "S32"}, values));
  EXPECT_FALSE(Reduce({"S32"}, values));  // AND.S32
  EXPECT_FALSE(Reduce({"SUM", "F32"}, values));
  EXPECT_FALSE(Reduce({"MIN", "MAX"}, values));
  EXPECT_FALSE(Reduce({"SUM"}, values, 0));
}

// FSEL R5, R0, RZ, PT selects R0, the lane: lane l loads word l. A float immediate or a - on a
// source selects what no GPU vector says: unknown, so the launch is undecided, naming the FSEL.
TEST(WarpReductionsTest, FselOfImmediatesOrNegatedSourcesIsUnknown) {
  const Emulation plain = Emulate(Listing(R"(
        /*0040*/                   FSEL R5, R0, RZ, PT ;
        /*0050*/                   IMAD.SHL.U32 R3, R5, 0x4, RZ ;
        /*0060*/                   LDS R6, [R3+UR4] ;
        /*0070*/                   EXIT ;
)"),
                                  Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(plain.record) << plain.undecided->Describe();
  EXPECT_EQ(Row(*plain.record, 0x60).wavefronts, 1u);
  EXPECT_THAT(WhyAddressUndecided("FSEL R5, -R0, RZ, PT"), HasSubstr("FSEL at pc 0x0040"));
  EXPECT_THAT(WhyAddressUndecided("FSEL R5, RZ, 1, !PT"), HasSubstr("FSEL at pc 0x0040"));
  EXPECT_THAT(WhyAddressUndecided("FSEL R5, R0, |R0|, !PT"), HasSubstr("FSEL at pc 0x0040"));
}

// The wavefronts of one warp's LDS at word R5 * `words` when `producer` writes R5
// (EmulateAddressFrom); the launch must decide.
uint64_t AddressWavefronts(const std::string& producer, uint32_t words = 1) {
  const Emulation emulation = EmulateAddressFrom(producer, 32, words);
  if (!emulation.record) {
    ADD_FAILURE() << producer << ": " << emulation.undecided->Describe();
    return 0;
  }
  return Row(*emulation.record, 0x60).wavefronts;
}

// OpenCV's color conversions and saturate_cast (nvcc 13, sm_90): IDP.2A (__dp2a_lo), I2I.U8/.S8
// .S32.SAT (cvt.sat.u8.s32) and F2IP.U8.F32.NTZ (cvt.rni.sat.u8.f32). Counted where their values
// feed no address; computed where checked_forms.def lists them (their GPU vectors pass), I2I.S8
// never (no vector shows its upper 24 bits).
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
  // dp2a.lo of (tid, 0) and the bytes (tid, 0, ...): tid * tid, a square per lane.
  WarpAccess squares;
  for (int lane = 0; lane < kWarpSize; ++lane) squares.SetLane(lane, 0x400u + 4u * lane * lane);
  EXPECT_EQ(AddressWavefronts("IDP.2A.LO.U16.U8 R5, R0, R0, RZ"), CostWarpAccess(squares).wavefronts);
  // 16 * (tid - 8) saturated to 0..255: lanes 0-7 on 0, lanes 24-31 on 255.
  WarpAccess saturated;
  for (int lane = 0; lane < kWarpSize; ++lane)
    saturated.SetLane(lane, 0x400u + 4u * static_cast<uint32_t>(std::clamp(16 * (lane - 8), 0, 255)));
  EXPECT_EQ(
      AddressWavefronts("IMAD.SHL.U32 R7, R0, 0x10, RZ ;\n        /*0044*/ IADD3 R7, R7, 0xffffff80, RZ "
                        ";\n        /*0048*/ I2I.U8.S32.SAT R5, R7"),
      CostWarpAccess(saturated).wavefronts);
  EXPECT_EQ(CostWarpAccess(saturated).wavefronts, 8u);  // unsaturated, lanes 24-31 would add 8 to bank 0
  EXPECT_THAT(WhyAddressUndecided("I2I.S8.S32.SAT R5, R0"),
              HasSubstr("form I2I.S8.S32.SAT (I2I.S8.S32.SAT at pc"));
  // The lanes' ids as float bits are denormals: rounded to 0, one word.
  EXPECT_EQ(AddressWavefronts("F2IP.U8.F32.NTZ R5, RZ, R0, RZ", 32), 1u);
}

// max(max(a, b), 0) is VIMNMX.RELU (nvcc 13, sm_90): computed with its clamp at 0 (max(a, b) alone
// would be wrong for negative a and b), as VIADDMNMX.RELU's; their GPU vectors pass.
TEST(WarpReductionsTest, ReluMinMaxIsNotComputedAsPlainMinMax) {
  // max(tid - 16, 0) words 32 apart: lanes 0-16 on word 0, lanes 17-31 on 15 more, one bank.
  EXPECT_EQ(
      AddressWavefronts("IADD3 R7, R0, 0xfffffff0, RZ ;\n        /*0048*/ VIMNMX.RELU R5, R7, R7, !PT", 32),
      16u);
  // max(tid - 16, tid - 32) clamped at 0: the same words.
  EXPECT_EQ(
      AddressWavefronts(
          "IADD3 R7, R0, 0xffffffe0, RZ ;\n        /*0048*/ VIADDMNMX.RELU R5, R0, 0xfffffff0, R7, !PT", 32),
      16u);
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
