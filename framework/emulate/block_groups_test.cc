// Block grouping (block_groups.cc): blocks that provably run as an evaluated one are counted with
// it, and the grouped counts equal those of evaluating every block.

#include <gmock/gmock.h>

#include <string>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

TEST(BlockGroupsTest, AnAddressThatDependsOnTheBlockEvaluatesEveryBlock) {
  // address = tid * 4 * (ctaid.x + 1): block b accesses with word stride b + 1.
  const Module module = Listing(R"(
        /*0040*/                   S2R R1, SR_CTAID.X ;
        /*0050*/                   IMAD R2, R1, R0, R0 ;
        /*0060*/                   IMAD.SHL.U32 R2, R2, 0x4, RZ ;
        /*0070*/                   STS [R2+UR4], RZ ;
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{4, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  uint64_t wavefronts = 0;
  for (int b = 0; b < 4; ++b)
    wavefronts += CostWarpAccess(WarpAccess::Strided(4, b + 1, 32, 0x400)).wavefronts;
  EXPECT_EQ(emulation.record->stores().wavefronts, wavefronts);
  EXPECT_EQ(emulation.record->stores().instructions, 4u);
}

TEST(BlockGroupsTest, BlocksWhoseComparisonsComeOutTheSameAreEvaluatedOnce) {
  // if (ctaid.x * 32 + tid >= n) return; 16 blocks, n = 507: the last block has 27 threads in range.
  // (The shift right, of a value that does not depend on the block, keeps it so.)
  const Module module = Listing(R"(
        /*0040*/                   S2R R1, SR_CTAID.X ;
        /*0050*/                   IMAD R2, R1, 0x20, R0 ;
        /*0060*/                   ISETP.GE.AND P0, PT, R2, c[0x0][0x210], PT ;
        /*0070*/               @P0 EXIT ;
        /*0080*/                   SHF.R.U32.HI R5, RZ, 0x0, R0 ;
        /*0090*/                   IMAD.SHL.U32 R3, R5, 0x8, RZ ;
        /*00a0*/                   STS [R3+UR4], RZ ;
        /*00b0*/                   EXIT ;
)");
  const Emulation emulation =
      EmulateBothWays(module, Launch(Dim3{16, 1, 1}, Dim3{32, 1, 1}, IntParameter(507)));
  ASSERT_TRUE(emulation.record);
  EXPECT_EQ(emulation.evaluated_blocks, 2u);  // blocks 0-14 run as block 0; block 15 alone
  WarpAccess tail;
  tail.bytes = 4;
  for (int lane = 0; lane < 27; ++lane) tail.SetLane(lane, 0x400 + 8u * lane);
  EXPECT_EQ(
      emulation.record->stores().wavefronts,
      15 * CostWarpAccess(WarpAccess::Strided(4, 2, 32, 0x400)).wavefronts + CostWarpAccess(tail).wavefronts);
  EXPECT_EQ(emulation.record->stores().instructions, 16u);
}

TEST(BlockGroupsTest, BlocksWhoseAddressesMoveByWholeBankRowsAreEvaluatedOnce) {
  // address = (ctaid.y * 16 + tid) * 4: block rows 64 bytes apart. Only blocks an even number of
  // rows apart are proved to cost the same (a move by a multiple of 128 bytes): two groups.
  const Module module = Listing(R"(
        /*0040*/                   S2R R1, SR_CTAID.Y ;
        /*0050*/                   LEA R2, R1, R0, 0x4 ;
        /*0060*/                   SHF.L.U32 R3, R2, 0x2, RZ ;
        /*0070*/                   STS [R3+UR4], RZ ;
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = EmulateBothWays(module, Launch(Dim3{1, 8, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record);
  EXPECT_EQ(emulation.evaluated_blocks, 2u);
  EXPECT_EQ(emulation.record->stores().wavefronts, 8u);
}

TEST(BlockGroupsTest, ABlockDependenceThatIsNotAffineEvaluatesEveryBlock) {
  // address = ((ctaid.x & 1) * 32 + tid) * 4: an AND of the block index is not followed.
  const Module module = Listing(R"(
        /*0040*/                   S2R R1, SR_CTAID.X ;
        /*0050*/                   LOP3.LUT R2, R1, 0x1, RZ, 0xc0, !PT ;
        /*0060*/                   IMAD R3, R2, 0x20, R0 ;
        /*0070*/                   IMAD.SHL.U32 R3, R3, 0x4, RZ ;
        /*0080*/                   STS [R3+UR4], RZ ;
        /*0090*/                   EXIT ;
)");
  const Emulation emulation = EmulateBothWays(module, Launch(Dim3{6, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record);
  EXPECT_EQ(emulation.evaluated_blocks, 6u);
  EXPECT_EQ(emulation.record->stores().wavefronts, 6u);
}

// The largest grid sm_90 runs: a kernel whose first block depends on no block index counts the
// whole grid with it at once.
TEST(BlockGroupsTest, TheLargestGridOfABlockIndependentKernelIsCountedAtOnce) {
  const Module module = Listing(R"(
        /*0040*/                   STS [UR4], RZ ;
        /*0050*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{2147483647u, 65535, 65535}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.evaluated_blocks, 1u);
  EXPECT_EQ(emulation.record->stores().instructions, uint64_t{2147483647u} * 65535 * 65535);
}

// if (ctaid.x < n) ...: every block is checked against the group, and that is counted: a grid too
// large to check ends undecided, saying which limit it passed, instead of running for years.
TEST(BlockGroupsTest, CheckingBlocksAgainstTheirGroupsHasABudget) {
  const Module module = Listing(R"(
        /*0040*/                   S2R R1, SR_CTAID.X ;
        /*0050*/                   ISETP.GE.AND P0, PT, R1, c[0x0][0x210], PT ;
        /*0060*/               @P0 EXIT ;
        /*0070*/                   STS [UR4], RZ ;
        /*0080*/                   EXIT ;
)");
  EmulationLimits limits;
  limits.max_group_checks = 10000;
  const Emulation small =
      Emulate(module, Launch(Dim3{1000, 4, 1}, Dim3{32, 1, 1}, IntParameter(5000)), limits);
  ASSERT_TRUE(small.record) << small.undecided->Describe();
  EXPECT_EQ(small.record->stores().instructions, 4000u);
  EXPECT_EQ(small.evaluated_blocks, 1u);
  const Emulation huge =
      Emulate(module, Launch(Dim3{2147483647u, 65535, 65535}, Dim3{32, 1, 1}, IntParameter(5000)), limits);
  ASSERT_TRUE(huge.undecided);
  EXPECT_THAT(huge.undecided->reason, HasSubstr("over the emulation budget of 10000 checks of blocks"));
  EXPECT_THAT(huge.undecided->reason, HasSubstr("EmulationLimits::max_group_checks"));
}

// A loop that compares a block-dependent value on every turn records a condition per turn and lane
// (32 distinct ones here: the value adds the thread index): past a bound the blocks stop being
// grouped (each is evaluated) instead of the conditions growing.
TEST(BlockGroupsTest, ConditionsPerBlockAreBounded) {
  const Module module = Listing(R"(
        /*0040*/                   S2R R1, SR_CTAID.X ;
        /*0050*/                   IADD3 R1, R1, 0x186a0, R0 ;
        /*0060*/                   IMAD.MOV.U32 R2, RZ, RZ, RZ ;
.L_x_1:
        /*0070*/                   ISETP.GE.AND P0, PT, R2, R1, PT ;
        /*0080*/               @P0 EXIT ;
        /*0090*/                   IADD3 R2, R2, 0x1, RZ ;
        /*00a0*/                   ISETP.GE.AND P1, PT, R2, c[0x0][0x210], PT ;
        /*00b0*/              @!P1 BRA `(.L_x_1) ;
        /*00c0*/                   STS [UR4], RZ ;
        /*00d0*/                   EXIT ;
)");
  const Emulation few = Emulate(module, Launch(Dim3{2, 1, 1}, Dim3{32, 1, 1}, IntParameter(500)));
  ASSERT_TRUE(few.record) << few.undecided->Describe();
  EXPECT_EQ(few.evaluated_blocks, 1u);
  const Emulation many = Emulate(module, Launch(Dim3{2, 1, 1}, Dim3{32, 1, 1}, IntParameter(4000)));
  ASSERT_TRUE(many.record) << many.undecided->Describe();
  EXPECT_EQ(many.evaluated_blocks, 2u);
  EXPECT_EQ(many.record->stores().instructions, 2u);
}

}  // namespace
}  // namespace bankcheck::emulate
