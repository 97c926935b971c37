#include <gmock/gmock.h>

#include <cstring>
#include <string>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

// Why one warp's launch of `body` (after the prologue) is undecided; "" and a failure when decided.
std::string WhyUndecided(const std::string& body) {
  const Emulation emulation = Emulate(Listing(body), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  if (!emulation.undecided) {
    ADD_FAILURE() << "decided, where it should be undecided";
    return "";
  }
  return emulation.undecided->reason;
}

TEST(EmulateTest, StridedStoreAndLoadCostAsTheModelSays) {
  // Word stride 2 (8 bytes between lanes' 4-byte accesses); the load 4 bytes further.
  const Module module = Listing(R"(
        /*0040*/                   IMAD.SHL.U32 R2, R0, 0x8, RZ ;
        /*0050*/                   STS [R2+UR4], RZ ;
        /*0060*/                   LDS R3, [R2+UR4+0x4] ;
        /*0070*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{3, 1, 1}, Dim3{64, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  const LaunchRecord& record = *emulation.record;
  const WarpCost cost = CostWarpAccess(WarpAccess::Strided(4, 2, kWarpSize, 0x400));
  const uint64_t warps = 3 * 2;
  EXPECT_EQ(record.counted_by, CountedBy::kEmulated);
  EXPECT_EQ(record.stores().instructions, warps);
  EXPECT_EQ(record.stores().wavefronts, warps * cost.wavefronts);
  EXPECT_EQ(record.stores().ideal_wavefronts, warps * cost.ideal);
  EXPECT_EQ(record.loads().wavefronts,
            warps * CostWarpAccess(WarpAccess::Strided(4, 2, kWarpSize, 0x404)).wavefronts);
  EXPECT_EQ(Row(record, 0x50).opcode, "STS");
  EXPECT_EQ(Row(record, 0x60).kind, MemoryKind::kSharedLoad);
  EXPECT_EQ(record.attributed_launches, 1u);
}

TEST(EmulateTest, WidthsFollowTheOpcodeAndPartialWarpsHaveFewerLanes) {
  const Module module = Listing(R"(
        /*0040*/                   IMAD.SHL.U32 R2, R0, 0x10, RZ ;
        /*0050*/                   LDS.128 R4, [R2+UR4] ;
        /*0060*/                   IMAD.SHL.U32 R3, R0, 0x2, RZ ;
        /*0070*/                   STS.U16 [R3+UR4], RZ ;
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{40, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  const WarpCost full = CostWarpAccess(WarpAccess::Strided(16, 1, 32, 0x400));
  WarpAccess partial;  // the second warp: threads 32..39
  partial.bytes = 16;
  for (int lane = 0; lane < 8; ++lane) partial.SetLane(lane, 0x400 + 16u * (32 + lane));
  const WarpCost tail = CostWarpAccess(partial);
  EXPECT_EQ(Row(*emulation.record, 0x50).wavefronts, uint64_t{full.wavefronts} + tail.wavefronts);
  EXPECT_EQ(Row(*emulation.record, 0x50).ideal_wavefronts, uint64_t{full.ideal} + tail.ideal);
  EXPECT_EQ(Row(*emulation.record, 0x70).wavefronts, 2u);
}

// if (tid < 8) { for (i = 0; i < 3; ++i) tile[tid * 32 + i] = 0; }: a divergent branch with
// reconvergence and a loop run as it runs.
TEST(EmulateTest, DivergenceReconvergesAndLoopsRunAsTheyRun) {
  const Module module = Listing(R"(
        /*0040*/                   ISETP.GE.U32.AND P0, PT, R0, 0x8, PT ;
        /*0050*/                   BSSY B0, `(.L_x_1) ;
        /*0060*/                   IMAD.SHL.U32 R2, R0, 0x80, RZ ;
        /*0070*/               @P0 BRA `(.L_x_2) ;
        /*0080*/                   IMAD.MOV.U32 R3, RZ, RZ, RZ ;
.L_x_3:
        /*0090*/                   LEA R4, R3, R2, 0x2 ;
        /*00a0*/                   STS [R4+UR4], RZ ;
        /*00b0*/                   VIADD R3, R3, 0x1 ;
        /*00c0*/                   ISETP.NE.AND P1, PT, R3, 0x3, PT ;
        /*00d0*/               @P1 BRA `(.L_x_3) ;
.L_x_2:
        /*00e0*/                   BSYNC B0 ;
.L_x_1:
        /*00f0*/                   LDS R5, [R2+UR4] ;
        /*0100*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{2, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  WarpAccess column;
  column.bytes = 4;
  for (int lane = 0; lane < 8; ++lane) column.SetLane(lane, 0x400 + 128u * lane);
  const WarpCost cost = CostWarpAccess(column);
  EXPECT_EQ(Row(*emulation.record, 0xa0).executions, 2u * 3);
  EXPECT_EQ(Row(*emulation.record, 0xa0).wavefronts, 2u * 3 * cost.wavefronts);
  // After reconvergence the whole warp loads together: one execution per warp.
  EXPECT_EQ(Row(*emulation.record, 0xf0).executions, 2u);
  EXPECT_EQ(Row(*emulation.record, 0xf0).wavefronts,
            2u * CostWarpAccess(WarpAccess::Strided(4, 32, 32, 0x400)).wavefronts);
}

TEST(EmulateTest, ALoadAddressThatNoLaneComputedIsUndecided) {
  const Module module = Listing(R"(
        /*0040*/                   ISETP.GE.U32.AND P0, PT, R0, 0x8, PT ;
        /*0050*/               @P0 BRA `(.L_x_2) ;
        /*0060*/                   IMAD.SHL.U32 R2, R0, 0x80, RZ ;
.L_x_2:
        /*0070*/                   LDS R5, [R2+UR4] ;
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.undecided);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("a register read before any instruction wrote it"));
  EXPECT_EQ(emulation.undecided->pc, 0x70u);
}

TEST(EmulateTest, ArgumentsAndLaunchConfigurationComeFromConstantBankZero) {
  // stride from the int argument at c[0x0][0x218]; a guard on blockDim.x (c[0x0][0x0]).
  const char elf[] = R"(
.nv.info._Z4testPi
	Attribute:	EIATTR_KPARAM_INFO
	Value:	Index : 0x0	Ordinal : 0x0	Offset  : 0x0	Size    : 0x8
	Attribute:	EIATTR_KPARAM_INFO
	Value:	Index : 0x0	Ordinal : 0x1	Offset  : 0x8	Size    : 0x4
	Attribute:	EIATTR_PARAM_CBANK
	Value:	0x1d 0xc0210 
)";
  const Module module = Listing(R"(
        /*0040*/                   LDC R1, c[0x0][0x218] ;
        /*0050*/                   ULDC UR6, c[0x0][0x0] ;
        /*0060*/                   ISETP.GE.U32.AND P0, PT, R0, UR6, PT ;
        /*0070*/               @P0 EXIT ;
        /*0080*/                   IMAD R2, R0, R1, RZ ;
        /*0090*/                   LEA R2, R2, UR4, 0x2 ;
        /*00a0*/                   LDS R3, [R2] ;
        /*00b0*/                   EXIT ;
)",
                                elf);
  ASSERT_NE(module.Find("_Z4testPi"), nullptr);
  EXPECT_EQ(module.Find("_Z4testPi")->params.size(), 2u);
  std::vector<uint8_t> params(12, 0);
  const int32_t stride = 32;
  std::memcpy(params.data() + 8, &stride, 4);
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, params));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->loads().wavefronts,
            CostWarpAccess(WarpAccess::Strided(4, 32, 32, 0x400)).wavefronts);
  // Without the argument's bytes, the address is unknown.
  const Emulation without = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(without.undecided);
  EXPECT_THAT(without.undecided->reason, HasSubstr("argument bytes the launch did not give"));
}

TEST(EmulateTest, AGlobalLoadFeedingAnAddressIsUndecidedAndNamed) {
  const Module module = Module::FromListings(R"(
.text._Z4testPi:
	//## File "/p/kernels/x.cu", line 40
        /*0000*/                   LDG.E R2, desc[UR4][R6.64] ;
	//## File "/p/kernels/x.cu", line 42
        /*0010*/                   LDS R3, [R2] ;
        /*0020*/                   EXIT ;
)",
                                             "");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.undecided);
  EXPECT_FALSE(emulation.record);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("a load from memory (LDG.E at pc 0x0000"));
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("the address of LDS at pc 0x0010"));
  EXPECT_EQ(emulation.undecided->opcode, "LDS");
  EXPECT_EQ(emulation.undecided->line, 42u);
  // The reason names the line where it names the instruction; Describe does not add it again.
  const std::string described = emulation.undecided->Describe();
  ASSERT_THAT(described, HasSubstr("/p/kernels/x.cu:42"));
  EXPECT_EQ(described.find("/p/kernels/x.cu:42"), described.rfind("/p/kernels/x.cu:42")) << described;
  Undecided without_line = *emulation.undecided;
  without_line.reason = "a reason that names no line";
  EXPECT_EQ(without_line.Describe(), "a reason that names no line (/p/kernels/x.cu:42)");
}

TEST(EmulateTest, AnUnknownOpcodeIsUndecidedWhenItRunsAndALaterStageSaysSo) {
  EXPECT_THAT(WhyUndecided(R"(
        /*0040*/                   FOO R1, R0 ;
        /*0050*/                   EXIT ;
)"),
              HasSubstr("FOO is an instruction the emulator does not understand"));
  EXPECT_THAT(WhyUndecided(R"(
        /*0040*/                   UBLKCP.S.G [UR4], [UR6], UR8 ;
        /*0050*/                   EXIT ;
)"),
              HasSubstr("UBLKCP (stage 3"));
}

TEST(EmulateTest, GridDependencyControlWaitsForNothing) {
  // griddepcontrol.wait (ACQBULK) and griddepcontrol.launch_dependents (PREEXIT), which FlashInfer's
  // kernels open and close with: launches are emulated one after another, so there is nothing to
  // wait for and no dependent to start early; the shared store between them is counted.
  const Module module = Listing(R"(
        /*0040*/                   ACQBULK ;
        /*0050*/                   IMAD.SHL.U32 R2, R0, 0x4, RZ ;
        /*0060*/                   STS [R2+UR4], RZ ;
        /*0070*/                   PREEXIT ;
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->stores().instructions, 1u);
  EXPECT_EQ(emulation.record->stores().wavefronts, 1u);
}

// What CostInstruction gives for one warp instruction of `kind` whose lanes 0..lanes-1 access
// `bytes` at 0x400 + lane * stride.
WarpCost Cost(MemoryKind kind, uint32_t bytes, uint32_t stride, int lanes) {
  WarpCopy copy;
  copy.destination.bytes = bytes;
  for (int lane = 0; lane < lanes; ++lane) copy.destination.SetLane(lane, 0x400 + uint64_t{stride} * lane);
  return CostInstruction(kind, copy);
}

TEST(EmulateTest, LdmatrixAndStmatrixRowsComeFromTheirMatricesLanes) {
  // .x4: every lane gives a row, 128 bytes apart (8-way); .x1: lanes 0-7, contiguous rows; .x2
  // stmatrix: lanes 0-15. A matrix's registers are unknown afterwards.
  const Module module = Listing(R"(
        /*0040*/                   IMAD.SHL.U32 R2, R0, 0x80, RZ ;
        /*0050*/                   LDSM.16.M88.4 R4, [R2+UR4] ;
        /*0060*/                   IMAD.SHL.U32 R3, R0, 0x10, RZ ;
        /*0070*/                   LDSM.16.M88 R8, [R3+UR4] ;
        /*0080*/                   STSM.16.M88.2 [R3+UR4], R4 ;
        /*0090*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{2, 1, 1}, Dim3{64, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  const LaunchRecord& record = *emulation.record;
  const uint64_t warps = 4;
  const WarpCost x4 = Cost(MemoryKind::kSharedLdmatrix, 16, 128, 32);
  EXPECT_EQ(x4.wavefronts, 32u);
  EXPECT_EQ(Row(record, 0x50).kind, MemoryKind::kSharedLdmatrix);
  EXPECT_EQ(Row(record, 0x50).wavefronts, warps * x4.wavefronts);
  EXPECT_EQ(Row(record, 0x50).ideal_wavefronts, warps * x4.ideal);
  EXPECT_EQ(Row(record, 0x70).wavefronts, warps * Cost(MemoryKind::kSharedLdmatrix, 16, 16, 8).wavefronts);
  EXPECT_EQ(Row(record, 0x80).kind, MemoryKind::kSharedStmatrix);
  EXPECT_EQ(Row(record, 0x80).wavefronts, warps * Cost(MemoryKind::kSharedStmatrix, 16, 16, 16).wavefronts);
  EXPECT_EQ(record.kinds[MemoryKind::kSharedLdmatrix].instructions, 2 * warps);

  EXPECT_THAT(WhyUndecided(R"(
        /*0040*/                   IMAD.SHL.U32 R2, R0, 0x10, RZ ;
        /*0050*/                   LDSM.16.M88.2 R4, [R2+UR4] ;
        /*0060*/                   LDS R6, [R5+UR4] ;
        /*0070*/                   EXIT ;
)"),
              HasSubstr("a load from shared memory (LDSM.16.M88.2"));
}

TEST(EmulateTest, RegisterToPredicatesSetsTheMasksPredicates) {
  // R2P PR, R0, 0x6: P1 = bit 1 of tid, P2 = bit 2; P0 (not in the mask) keeps ISETP's value.
  const Module module = Listing(R"(
        /*0040*/                   ISETP.GE.AND P0, PT, R0, 0x10, PT ;
        /*0050*/                   R2P PR, R0, 0x6 ;
        /*0060*/                   IMAD.SHL.U32 R3, R0, 0x4, RZ ;
        /*0070*/               @P1 STS [R3+UR4], RZ ;
        /*0080*/               @P0 STS [R3+UR4+0x80], RZ ;
        /*0090*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  const auto cost = [](uint32_t lanes, uint32_t offset) {
    WarpAccess access;
    for (int lane = 0; lane < 32; ++lane)
      if (lanes >> lane & 1u) access.SetLane(lane, 0x400 + offset + 4u * lane);
    return CostWarpAccess(access).wavefronts;
  };
  uint32_t bit1 = 0;
  for (int lane = 0; lane < 32; ++lane)
    if (lane & 2) bit1 |= 1u << lane;
  EXPECT_EQ(Row(*emulation.record, 0x70).wavefronts, cost(bit1, 0));
  EXPECT_EQ(Row(*emulation.record, 0x80).wavefronts, cost(0xffff0000u, 0x80));
  EXPECT_THAT(WhyUndecided(R"(
        /*0040*/                   R2P PR, R0.B1, 0x6 ;
        /*0050*/                   EXIT ;
)"),
              HasSubstr("R2P is a form the emulator does not understand"));
}

// ATOMG's first operand is a predicate (PT); the register after it receives the old value, which the
// counting pass does not know (MemoryOp::destination: the register before the address).
TEST(EmulateTest, AGlobalAtomicsReturnedRegisterIsUnknownBehindItsPredicate) {
  const Module module = Listing(R"(
        /*0040*/                   MOV R7, R0 ;
        /*0050*/                   ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR6][R2.64], R0 ;
        /*0060*/                   LDS R6, [R7+UR4] ;
        /*0070*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.undecided);  // the LDS's address is the atomic's old value
  EXPECT_EQ(emulation.undecided->pc, 0x60u);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("a load from memory (ATOMG.E.ADD.STRONG.GPU"));
}

TEST(EmulateTest, SharedAtomicsAreCostedAndTheirResultsUnknown) {
  const Module module = Listing(R"(
        /*0040*/                   IMAD.SHL.U32 R2, R0, 0x8, RZ ;
        /*0050*/                   ATOMS.ADD RZ, [R2+UR4], R0 ;
        /*0060*/                   ATOMS.POPC.INC.32 R3, [R2+UR4+0x4] ;
        /*0070*/                   LDS R6, [R3+UR4] ;
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.undecided);  // the LDS's address is the atomic's result
  EXPECT_EQ(emulation.undecided->pc, 0x70u);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("a shared atomic's result (ATOMS.POPC.INC.32"));
  const Module costed = Listing(R"(
        /*0040*/                   IMAD.SHL.U32 R2, R0, 0x8, RZ ;
        /*0050*/                   ATOMS.ADD RZ, [R2+UR4], R0 ;
        /*0060*/                   EXIT ;
)");
  const Emulation atomics = Emulate(costed, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(atomics.record) << atomics.undecided->Describe();
  EXPECT_EQ(Row(*atomics.record, 0x50).kind, MemoryKind::kSharedAtomic);
  EXPECT_EQ(atomics.record->kinds[MemoryKind::kSharedAtomic].wavefronts,
            Cost(MemoryKind::kSharedAtomic, 4, 8, 32).wavefronts);
  EXPECT_EQ(atomics.record->kinds[MemoryKind::kSharedAtomic].wavefronts, 2u);
}

TEST(EmulateTest, CpAsyncIsCostedWithItsGlobalSources) {
  // 16-byte copies, shared rows contiguous; the sources from the pointer argument at c[0x0][0x210]
  // plus tid * 16 (one 128-byte row per 8 lanes: 4 wavefronts) or tid * 32 (one per lane).
  const char body[] = R"(
        /*0040*/                   LDC.64 R8, c[0x0][0x210] ;
        /*0050*/                   IMAD.SHL.U32 R2, R0, 0x10, RZ ;
        /*0060*/                   IMAD.WIDE.U32 R6, R0, STRIDE, R8 ;
        /*0070*/                   LDGSTS.E.BYPASS.128 [R2+UR4], desc[UR6][R6.64] ;
        /*0080*/                   LDGDEPBAR ;
        /*0090*/                   DEPBAR.LE SB0, 0x0 ;
        /*00a0*/                   EXIT ;
)";
  std::vector<uint8_t> pointer(8);
  const uint64_t source = 0x7f0000001000;
  std::memcpy(pointer.data(), &source, 8);
  for (const uint32_t stride : {16u, 32u}) {
    std::string listing = body;
    listing.replace(listing.find("STRIDE"), 6, stride == 16 ? "0x10" : "0x20");
    const Module module = Listing(listing);
    const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, pointer));
    ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
    WarpCopy copy;
    copy.destination.bytes = 16;
    for (int lane = 0; lane < 32; ++lane) {
      copy.destination.SetLane(lane, 0x400 + 16u * lane);
      copy.sources[lane] = source + uint64_t{stride} * lane;
    }
    const WarpCost expected = CostInstruction(MemoryKind::kSharedCpAsync, copy);
    EXPECT_EQ(expected.wavefronts, stride == 16 ? 4u : 32u);
    EXPECT_EQ(Row(*emulation.record, 0x70).kind, MemoryKind::kSharedCpAsync);
    EXPECT_EQ(Row(*emulation.record, 0x70).wavefronts, expected.wavefronts);
    EXPECT_EQ(Row(*emulation.record, 0x70).ideal_wavefronts, expected.ideal);
  }
  // Without the pointer's bytes the source is unknown: undecided, naming it.
  const std::string unknown_source = std::string(body).replace(std::string(body).find("STRIDE"), 6, "0x10");
  const Emulation without = Emulate(Listing(unknown_source), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(without.undecided);
  EXPECT_THAT(without.undecided->reason, HasSubstr("the global source address"));
}

TEST(EmulateTest, ABranchOnAnUnknownIsUndecided) {
  const Module module = Listing(R"(
        /*0040*/                   MUFU.EX2 R1, R0 ;
        /*0050*/                   FSETP.GT.AND P0, PT, R1, 1, PT ;
        /*0060*/               @P0 BRA `(.L_x_1) ;
        /*0070*/                   STS [UR4], RZ ;
.L_x_1:
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.undecided);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("feeds the condition of BRA at pc 0x0060"));
}

TEST(EmulateTest, WarpsWhoseLanesAreAllPredicatedOffDoNotCount) {
  const Module module = Listing(R"(
        /*0040*/                   ISETP.GE.U32.AND P0, PT, R0, 0x40, PT ;
        /*0050*/                   IMAD.SHL.U32 R2, R0, 0x4, RZ ;
        /*0060*/              @!P0 STS [R2+UR4], RZ ;
        /*0070*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{128, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->stores().instructions, 2u);
}

TEST(EmulateTest, TheBudgetStopsALongLoop) {
  const Module module = Listing(R"(
.L_x_1:
        /*0040*/                   STS [UR4], RZ ;
        /*0050*/                   BRA `(.L_x_1) ;
)");
  EmulationLimits limits;
  limits.max_warp_instructions = 1000;
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}), limits);
  ASSERT_TRUE(emulation.undecided);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("over the emulation budget of 1000"));
}

// A launch draws on the budget its launches share: what one spends, the next has not; what one did
// not spend goes back.
TEST(EmulateTest, LaunchesShareTheirBudget) {
  const Module loop = Listing(R"(
.L_x_1:
        /*0040*/                   STS [UR4], RZ ;
        /*0050*/                   BRA `(.L_x_1) ;
)");
  const Module short_kernel = Listing("        /*0040*/                   EXIT ;\n");
  EmulationBudget budget(2500, 1000);
  EmulationLimits limits;
  limits.max_warp_instructions = 1000;
  limits.budget = &budget;
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(Emulate(short_kernel, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}), limits).record);
  const auto why = [&] {
    const Emulation emulation = Emulate(loop, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}), limits);
    return emulation.undecided ? emulation.undecided->reason : std::string("decided");
  };
  EXPECT_THAT(why(), HasSubstr("over the emulation budget of 1000 warp instructions"));
  EXPECT_THAT(why(), HasSubstr("over the emulation budget of 1000 warp instructions"));
  EXPECT_THAT(why(), HasSubstr("over the shared emulation budget of 2500 warp instructions"));
  // Spent: even a launch of one instruction is undecided now.
  const Emulation after = Emulate(short_kernel, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}), limits);
  ASSERT_TRUE(after.undecided);
  EXPECT_THAT(after.undecided->reason, HasSubstr("EmulationLimits::budget"));
}

// Crafted listings (found by fuzzing): an operand of the wrong kind or a missing one is undecided,
// never read out of bounds.
TEST(EmulateTest, OperandsOfTheWrongKindOrMissingAreUndecided) {
  EXPECT_THAT(WhyUndecided(R"(
        /*0040*/                   VOTE.ANY R1, PT, R200 ;
        /*0050*/                   EXIT ;
)"),
              HasSubstr("\"R200\" of VOTE.ANY at pc 0x0040 is not a predicate"));
  EXPECT_THAT(WhyUndecided(R"(
        /*0040*/                   ISETP.GE.AND P0, PT, R0, R0, R7 ;
        /*0050*/                   EXIT ;
)"),
              HasSubstr("is not a predicate"));
  EXPECT_THAT(WhyUndecided(R"(
        /*0040*/                   IADD3 R1, R2 ;
        /*0050*/                   EXIT ;
)"),
              HasSubstr("IADD3 has fewer operands than the emulator reads"));
  // No destination at all (found by ci/jobs/fuzz.sh): refused before a handler writes one.
  EXPECT_THAT(WhyUndecided(R"(
        /*0010*/                   S2UR ;
        /*0050*/                   EXIT ;
)"),
              HasSubstr("S2UR has fewer operands than the emulator reads"));
}

TEST(EmulateTest, BadLaunchesAreErrors) {
  const Module module = Listing("        /*0040*/                   EXIT ;\n");
  EXPECT_THROW(Emulate(module, Launch(Dim3{0, 1, 1}, Dim3{32, 1, 1})), Error);
  EXPECT_THROW(Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{2048, 1, 1})), Error);
  // What the GPU refuses (cudaErrorInvalidValue, for a launch of that shape) is not emulated either.
  EXPECT_THROW(Emulate(module, Launch(Dim3{1, 65536, 1}, Dim3{32, 1, 1})), Error);
  EXPECT_THROW(Emulate(module, Launch(Dim3{1, 1, 65536}, Dim3{32, 1, 1})), Error);
  EXPECT_THROW(Emulate(module, Launch(Dim3{2147483648u, 1, 1}, Dim3{32, 1, 1})), Error);
  EXPECT_THROW(Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{1, 1, 65})), Error);
  EXPECT_THROW(Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{1, 1025, 1})), Error);
  EXPECT_THROW(Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{64, 16, 2})), Error);  // 2048 threads
  LaunchToEmulate other = Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1});
  other.mangled = "_Z5otherv";
  EXPECT_THROW(Emulate(module, other), Error);
  EXPECT_EQ(module.Find("_Z5otherv"), nullptr);
}

}  // namespace
}  // namespace bankcheck::emulate
