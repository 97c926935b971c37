// BRA.DIV Rm, target: nvcc's test before a warp-synchronous sequence, which branches to the
// sequence's collective form when the threads Rm names are not converged. The emulator decides the
// fall-through only where the GPU surely takes it (Rm names exactly the warp's live lanes, all at it,
// together since they last converged); every other case is undecided with its reason.
#include <gmock/gmock.h>

#include <string>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

// The plain path stores at 0x0110, the collective path (the branch's target) at 0x0130: a row of
// each says which one the warp took. `before` runs from pc 0x0040 to 0x00d0.
std::string WithDivergenceBranch(const std::string& before, const std::string& branch) {
  return before + R"(
        /*00e0*/                   IMAD.SHL.U32 R3, R0, 0x4, RZ ;
        /*00f0*/                   UMOV UR6, 0xffffffff ;
        /*0100*/                   )" +
         branch + R"( `(.L_x_9) ;
        /*0110*/                   STS [R3+UR4], R0 ;
        /*0120*/                   EXIT ;
.L_x_9:
        /*0130*/                   STS [R3+UR4+0x80], R0 ;
        /*0140*/                   EXIT ;
)";
}

bool HasRow(const LaunchRecord& record, uint32_t pc) {
  for (const InstructionCounts& row : record.instructions)
    if (row.pc_offset == pc && row.executions != 0) return true;
  return false;
}

// CUB's raking scan: every lane of every warp runs it with the full mask, so it falls through.
TEST(DivergenceBranchTest, FullMaskOfAConvergedWarpFallsThrough) {
  for (const char* branch : {"BRA.DIV UR6,", "BRA.DIV ~URZ,"}) {
    const Emulation emulation =
        Emulate(Listing(WithDivergenceBranch("", branch)), Launch(Dim3{2, 1, 1}, Dim3{64, 1, 1}));
    ASSERT_TRUE(emulation.record) << branch << ": " << emulation.undecided->Describe();
    EXPECT_EQ(Row(*emulation.record, 0x110).executions, 4u) << branch;
    EXPECT_EQ(Row(*emulation.record, 0x110).wavefronts, 4u) << branch;
    EXPECT_FALSE(HasRow(*emulation.record, 0x130)) << branch;
  }
}

// A warp that reconverged at BSYNC after a divergent branch is converged again.
TEST(DivergenceBranchTest, LanesReconvergedByBsyncFallThrough) {
  const Module module = Listing(WithDivergenceBranch(R"(
        /*0040*/                   ISETP.GE.U32.AND P0, PT, R0, 0x8, PT ;
        /*0050*/                   BSSY B0, `(.L_x_1) ;
        /*0060*/               @P0 BRA `(.L_x_2) ;
        /*0070*/                   NOP ;
.L_x_2:
        /*0080*/                   BSYNC B0 ;
.L_x_1:
)",
                                                     "BRA.DIV UR6,"));
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0x110).executions, 1u);
  EXPECT_FALSE(HasRow(*emulation.record, 0x130));
}

// The warp exchange's form: a guard that holds for no lane branches nowhere, whatever the mask.
TEST(DivergenceBranchTest, AGuardThatHoldsForNoLaneFallsThrough) {
  const Module module = Listing(WithDivergenceBranch(R"(
        /*0040*/                   REDUX.OR UR8, R0 ;
        /*0050*/                   ISETP.GE.U32.AND P0, PT, R0, RZ, PT ;
)",
                                                     "@!P0 BRA.DIV UR8,"));
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0x110).executions, 1u);
}

// Why the launch is undecided; "" (and a failure) when it is decided.
std::string WhyUndecided(const std::string& before, const std::string& branch, uint32_t threads = 32) {
  const Emulation emulation =
      Emulate(Listing(WithDivergenceBranch(before, branch)), Launch(Dim3{1, 1, 1}, Dim3{threads, 1, 1}));
  if (!emulation.undecided) {
    ADD_FAILURE() << branch << ": decided, where it should be undecided";
    return "";
  }
  EXPECT_EQ(emulation.undecided->pc, 0x100u) << emulation.undecided->Describe();
  return emulation.undecided->reason;
}

TEST(DivergenceBranchTest, AMaskNotKnownIsUndecided) {
  // The clock's value is not known before the launch runs.
  EXPECT_THAT(WhyUndecided("        /*0040*/                   S2UR UR8, SR_CLOCKLO ;", "BRA.DIV UR8,"),
              HasSubstr("feeds the mask of BRA.DIV at pc 0x0100"));
}

TEST(DivergenceBranchTest, AMaskOtherThanTheLanesAtItIsUndecided) {
  // Half the warp named: the GPU's reading of a partial mask is not measured.
  EXPECT_THAT(WhyUndecided("        /*0040*/                   UMOV UR8, 0xffff ;", "BRA.DIV UR8,"),
              HasSubstr("BRA.DIV's mask names other lanes than those that run it"));
  // A warp of 16 threads, the full mask: it names lanes that do not exist.
  EXPECT_THAT(WhyUndecided("", "BRA.DIV UR6,", 16),
              HasSubstr("mask names other lanes than those that run it"));
}

TEST(DivergenceBranchTest, PartOfTheWarpAtItIsUndecided) {
  // Lanes 8-31 wait at BSYNC while lanes 0-7 run BRA.DIV, naming themselves.
  const Module module = Listing(R"(
        /*0040*/                   ISETP.GE.U32.AND P0, PT, R0, 0x8, PT ;
        /*0050*/                   BSSY B0, `(.L_x_1) ;
        /*0060*/                   IMAD.SHL.U32 R3, R0, 0x4, RZ ;
        /*0070*/                   UMOV UR6, 0xff ;
        /*0080*/               @P0 BRA `(.L_x_2) ;
        /*0100*/                   BRA.DIV UR6, `(.L_x_9) ;
        /*0110*/                   STS [R3+UR4], R0 ;
.L_x_2:
        /*0120*/                   BSYNC B0 ;
.L_x_1:
        /*0130*/                   EXIT ;
.L_x_9:
        /*0140*/                   STS [R3+UR4+0x80], R0 ;
        /*0150*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.undecided);
  EXPECT_EQ(emulation.undecided->pc, 0x100u);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("runs with part of its warp's live lanes"));
}

TEST(DivergenceBranchTest, LanesThatMetWithoutReconvergingAreUndecided) {
  // A divergent branch whose two ways meet at 0x00e0 with no BSYNC: the emulator's scheduler runs
  // them together there, but the GPU need not.
  EXPECT_THAT(WhyUndecided(R"(
        /*0040*/                   ISETP.GE.U32.AND P0, PT, R0, 0x8, PT ;
        /*0050*/               @P0 BRA `(.L_x_2) ;
        /*0060*/                   NOP ;
.L_x_2:
)",
                           "BRA.DIV UR6,"),
              HasSubstr("lanes meet at it after a branch split them"));
}

TEST(DivergenceBranchTest, AGuardThatHoldsForPartOfTheLanesIsUndecided) {
  EXPECT_THAT(WhyUndecided("        /*0040*/                   ISETP.GE.U32.AND P0, PT, R0, 0x8, PT ;",
                           "@P0 BRA.DIV UR6,"),
              HasSubstr("guard holds for part of the lanes at it"));
}

}  // namespace
}  // namespace bankcheck::emulate
