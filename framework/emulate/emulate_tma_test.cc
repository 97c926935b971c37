// TMA loads and their mbarriers emulated (semantics_async.cc), in the shape nvcc 13 emits for
// CuTe's SM90_TMA_LOAD (kernels/wgmma_layouts.cu): thread 0 initializes the barrier, arrives
// expecting the tile's bytes and issues UTMALDG in an ELECT loop; every thread waits on the phase.

#include <gmock/gmock.h>

#include <string>

#include "bankcheck/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

// The kernel's body with `init_low`/`init_high` (mbarrier.init's words: count 1 gives 0x1ffffe,
// 0x7ffff800) and `copy` in place of the UTMALDG.
std::string Body(const std::string& init_low = "0x1ffffe", const std::string& init_high = "0x7ffff800",
                 const std::string& copy = "UTMALDG.2D [UR4], [UR10], desc[UR12]") {
  return R"(
        /*0040*/                   UMOV UR6, )" +
         init_low + R"( ;
        /*0050*/                   UMOV UR7, )" +
         init_high + R"( ;
        /*0060*/                   ISETP.NE.AND P0, PT, R0, RZ, PT ;
        /*0070*/                   VOTEU.ALL UP0, P0 ;
        /*0080*/              @!UP0 SYNCS.EXCH.64 URZ, [UR4+0x4000], UR6 ;
        /*0090*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00a0*/               @P0 BRA `(.L_x_1) ;
        /*00b0*/                   IMAD.MOV.U32 R2, RZ, RZ, 0x4000 ;
        /*00c0*/                   PLOP3.LUT P0, PT, PT, PT, PT, 0x80, 0x0 ;
        /*00d0*/                   SYNCS.ARRIVE.TRANS64 RZ, [UR4+0x4000], R2 ;
.L_x_2:
        /*00e0*/               @P0 ELECT P1, URZ, PT ;
        /*00f0*/                   )" +
         copy + R"( ;
        /*0100*/               @P1 PLOP3.LUT P0, PT, P1, PT, PT, 0x8, 0x0 ;
        /*0110*/                   PLOP3.LUT P1, PT, PT, PT, PT, 0x8, 0x0 ;
        /*0120*/               @P0 BRA.U.ANY `(.L_x_2) ;
.L_x_1:
        /*0130*/                   SHF.L.U32 R3, RZ, 0x1f, RZ ;
.L_x_3:
        /*0140*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [UR4+0x4000], R3 ;
        /*0150*/              @!P2 BRA `(.L_x_3) ;
        /*0160*/                   IMAD.SHL.U32 R4, R0, 0x4, RZ ;
        /*0170*/                   STS [R4+UR4], RZ ;
        /*0180*/                   EXIT ;
)";
}

Emulation EmulateBody(const std::string& body) {
  return Emulate(Listing(body), Launch(Dim3{2, 1, 1}, Dim3{128, 1, 1}));
}

std::string WhyUndecided(const Emulation& emulation) {
  if (!emulation.undecided) {
    ADD_FAILURE() << "decided, where it should be undecided";
    return "";
  }
  return emulation.undecided->reason;
}

TEST(EmulateTmaTest, TheWaitDecidesOnceTheArrivalAndTheCopyRanAndNothingIsCostedForThem) {
  const Emulation emulation = EmulateBody(Body());
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->stores().instructions, 2u * 4);  // every warp of both blocks waited
  ASSERT_EQ(emulation.record->instructions.size(), 1u);        // no row for SYNCS, ELECT or UTMALDG
  EXPECT_EQ(emulation.record->instructions[0].opcode, "STS");
}

TEST(EmulateTmaTest, AWaitForBytesNoCopyDeliversIsUndecided) {
  EXPECT_THAT(WhyUndecided(EmulateBody(Body("0x1ffffe", "0x7ffff800", "NOP"))),
              HasSubstr("waits for transaction bytes that no tensor copy evaluated before it delivers"));
}

TEST(EmulateTmaTest, APhaseThatNeedsMoreArrivalsThanEvaluatedIsUndecided) {
  // Two arrivals expected (0x100000 - 2 = 0xffffe), one made.
  EXPECT_THAT(WhyUndecided(EmulateBody(Body("0x1ffffc", "0x7ffff000"))),
              HasSubstr("waits for an mbarrier phase that no warp evaluated before it completes"));
  EXPECT_THAT(WhyUndecided(EmulateBody(Body("0x1ffffe", "0x1234"))),
              HasSubstr("initializes an mbarrier with a value the emulator does not decode"));
}

TEST(EmulateTmaTest, AnElectionAmongSeveralLanesHasNoKnownLeader) {
  const std::string why = WhyUndecided(EmulateBody(R"(
        /*0040*/                   ELECT P1, URZ, PT ;
        /*0050*/               @P1 STS [UR4], RZ ;
        /*0060*/                   EXIT ;
)"));
  EXPECT_THAT(why, HasSubstr("ELECT at pc 0x0040"));
  const Emulation one = EmulateBody(R"(
        /*0040*/                   ISETP.EQ.AND P0, PT, R0, 0x5, PT ;
        /*0050*/                   ELECT P1, UR8, P0 ;
        /*0060*/               @P1 STS [UR4+0x10], RZ ;
        /*0070*/                   EXIT ;
)");
  ASSERT_TRUE(one.record) << one.undecided->Describe();
  EXPECT_EQ(Row(*one.record, 0x60).executions, 2u);  // lane 5 of warp 0, in each block
}

}  // namespace
}  // namespace bankcheck::emulate
