// The output pass (ComputeOutputs): a hand-written kernel whose block rotates its input through
// shared memory across a barrier, run with values against host buffers that stand for device
// allocations (global_memory.h).
#include "emulate/internal/output_pass.h"

#include <gmock/gmock.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/global_memory.h"

namespace bankcheck::emulate {
namespace {

using internal::GlobalMemory;
using internal::LaunchStores;
using ::testing::HasSubstr;

uint64_t AddressOf(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

// Thread t of a block of 64 (two warps) loads in[t], stores it to shared word t, waits at the
// barrier (%s: BAR.SYNC, or a NOP), and stores shared word (t + 1) % 64 to out[t].
constexpr char kRotate[] = R"(
.text._Z4testPi:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   S2UR UR4, SR_CgaCtaId ;
        /*0020*/                   UMOV UR5, 0x400 ;
        /*0030*/                   ULEA UR4, UR4, UR5, 0x18 ;
        /*0040*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0050*/                   IMAD.WIDE.U32 R4, R0, 0x4, R2 ;
        /*0060*/                   LDG.E R6, desc[UR6][R4.64] ;
        /*0070*/                   IMAD.SHL.U32 R7, R0, 0x4, RZ ;
        /*0080*/                   STS [R7+UR4], R6 ;
        /*0090*/                   %s ;
        /*00a0*/                   IADD3 R8, R0, 0x1, RZ ;
        /*00b0*/                   LOP3.LUT R8, R8, 0x3f, RZ, 0xc0, !PT ;
        /*00c0*/                   IMAD.SHL.U32 R8, R8, 0x4, RZ ;
        /*00d0*/                   LDS R9, [R8+UR4] ;
        /*00e0*/                   LDC.64 R2, c[0x0][0x218] ;
        /*00f0*/                   IMAD.WIDE.U32 R10, R0, 0x4, R2 ;
        /*0100*/                   STG.E desc[UR6][R10.64], R9 ;
        /*0110*/                   EXIT ;
)";

Module RotateModule(const std::string& barrier) {
  std::vector<char> text(sizeof kRotate + 64);
  std::snprintf(text.data(), text.size(), kRotate, barrier.c_str());
  return Module::FromListings(text.data(), "");
}

class OutputPassTest : public ::testing::Test {
 protected:
  OutputPassTest() : in_(64), out_(64, 0) {
    std::iota(in_.begin(), in_.end(), 1000u);
    memory_.Allocate(AddressOf(in_.data()), in_.size() * 4);
    memory_.WroteKnown(AddressOf(in_.data()), in_.size() * 4);
    memory_.Allocate(AddressOf(out_.data()), out_.size() * 4);
  }
  LaunchToEmulate Launch(Dim3 grid, const void* in, const void* out) {
    LaunchToEmulate launch = test_support::Launch(grid, Dim3{64});
    const uint64_t pointers[2] = {AddressOf(in), AddressOf(out)};
    launch.param_bytes.resize(16);
    std::memcpy(launch.param_bytes.data(), pointers, 16);
    launch.memory = memory_.Snapshot();
    return launch;
  }
  std::vector<uint32_t> in_, out_;
  GlobalMemory memory_;
};

TEST_F(OutputPassTest, WarpsMeetAtTheBarrierAndTheStoresAreTheRotatedInput) {
  const Module module = RotateModule("BAR.SYNC.DEFER_BLOCKING 0x0");
  const LaunchToEmulate launch = Launch(Dim3{1}, in_.data(), out_.data());
  const ComputedOutputs outputs = ComputeOutputs(module, launch);
  ASSERT_FALSE(outputs.not_computed) << outputs.not_computed->Describe();
  ASSERT_EQ(outputs.written.size(), 1u);
  const auto& [address, bytes] = *outputs.written.begin();
  EXPECT_EQ(address, AddressOf(out_.data()));
  ASSERT_EQ(bytes.size(), 64u * 4);
  std::vector<uint32_t> words(64);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(words[t], in_[(t + 1) % 64]) << "thread " << t;
  EXPECT_EQ(out_[0], 0u) << "the pass writes no memory itself";

  // Its counts are the counting pass's, row by row.
  ASSERT_TRUE(outputs.record);
  const Emulation counted = Emulate(module, launch);
  ASSERT_TRUE(counted.record) << counted.undecided->Describe();
  ASSERT_EQ(outputs.record->instructions.size(), counted.record->instructions.size());
  for (const InstructionCounts& row : counted.record->instructions) {
    const InstructionCounts& same = test_support::Row(*outputs.record, row.pc_offset);
    EXPECT_EQ(same.executions, row.executions) << row.pc_offset;
    EXPECT_EQ(same.wavefronts, row.wavefronts) << row.pc_offset;
    EXPECT_EQ(same.ideal_wavefronts, row.ideal_wavefronts) << row.pc_offset;
  }
  EXPECT_EQ(outputs.record->stores().instructions, 2u);
}

TEST_F(OutputPassTest, WithoutTheBarrierTheFirstWarpReadsSharedBytesNotStoredYet) {
  const ComputedOutputs outputs =
      ComputeOutputs(RotateModule("NOP"), Launch(Dim3{1}, in_.data(), out_.data()));
  ASSERT_TRUE(outputs.not_computed);
  EXPECT_THAT(
      outputs.not_computed->reason,
      HasSubstr("a load from shared memory (LDS at pc 0x00d0) feeds the value stored of STG.E at pc 0x0100"));
  EXPECT_TRUE(outputs.written.empty());
  EXPECT_FALSE(outputs.record);
}

TEST_F(OutputPassTest, StoresOutsideTheAllocationsAndLoadsOfAnotherBlocksStoresAreNotComputed) {
  const Module module = RotateModule("BAR.SYNC.DEFER_BLOCKING 0x0");
  std::vector<uint32_t> elsewhere(64);
  const ComputedOutputs outside = ComputeOutputs(module, Launch(Dim3{1}, in_.data(), elsewhere.data()));
  ASSERT_TRUE(outside.not_computed);
  EXPECT_THAT(outside.not_computed->reason, HasSubstr("stores outside the device allocations"));
  // In place, two blocks: the second loads what the first stored.
  const ComputedOutputs in_place = ComputeOutputs(module, Launch(Dim3{2}, in_.data(), in_.data()));
  ASSERT_TRUE(in_place.not_computed);
  EXPECT_THAT(in_place.not_computed->reason,
              HasSubstr("reads global memory that another block of the launch stored"));
  // One block in place reads only the memory the launch found.
  const ComputedOutputs one = ComputeOutputs(module, Launch(Dim3{1}, in_.data(), in_.data()));
  ASSERT_FALSE(one.not_computed) << one.not_computed->Describe();
}

TEST_F(OutputPassTest, AGridOverTheLimitStopsAfterItsFirstBlockNamingTheLimit) {
  EmulationLimits limits;
  limits.max_warp_instructions = 100;  // a block runs 2 warps of 18 instructions
  const ComputedOutputs outputs = ComputeOutputs(RotateModule("BAR.SYNC.DEFER_BLOCKING 0x0"),
                                                 Launch(Dim3{8}, in_.data(), out_.data()), limits);
  ASSERT_TRUE(outputs.not_computed);
  EXPECT_THAT(
      outputs.not_computed->reason,
      HasSubstr("over the output pass's limit of 100 warp instructions: set BANKCHECK_EMULATE_OUTPUT_LIMIT"));
  EXPECT_LT(outputs.warp_instructions, 100u) << "it stopped after the first block";
  limits.max_warp_instructions = 1000;
  EXPECT_FALSE(ComputeOutputs(RotateModule("BAR.SYNC.DEFER_BLOCKING 0x0"),
                              Launch(Dim3{1}, in_.data(), out_.data()), limits)
                   .not_computed);
}

// Thread t adds t to shared word 0 (ATOMS.ADD) and 1 to word 1 (ATOMS.POPC.INC), keeps t in local
// memory, adds t to the global counter (REDG), and after the barrier stores word 0, word 1 and its local
// value to out[3 t ...].
constexpr char kAtomics[] = R"(
.text._Z4testPi:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/                   S2UR UR4, SR_CgaCtaId ;
        /*0030*/                   UMOV UR5, 0x400 ;
        /*0040*/                   ULEA UR4, UR4, UR5, 0x18 ;
        /*0050*/                   STS.64 [UR4], RZ ;
        /*0060*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0070*/                   ATOMS.ADD RZ, [UR4], R0 ;
        /*0080*/                   ATOMS.POPC.INC.32 RZ, [UR4+0x4] ;
        /*0090*/                   STL [R1+0x8], R0 ;
        /*00a0*/                   LDC.64 R2, c[0x0][0x210] ;
        /*00b0*/                   REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R0 ;
        /*00c0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00d0*/                   LDS R5, [UR4] ;
        /*00e0*/                   LDS R6, [UR4+0x4] ;
        /*00f0*/                   LDL R7, [R1+0x8] ;
        /*0100*/                   S2R R8, SR_CTAID.X ;
        /*0110*/                   LEA R8, R8, R0, 0x6 ;
        /*0120*/                   IMAD R8, R8, 0x3, RZ ;
        /*0130*/                   LDC.64 R2, c[0x0][0x218] ;
        /*0140*/                   IMAD.WIDE.U32 R10, R8, 0x4, R2 ;
        /*0150*/                   STG.E desc[UR6][R10.64], R5 ;
        /*0160*/                   STG.E desc[UR6][R10.64+0x4], R6 ;
        /*0170*/                   STG.E desc[UR6][R10.64+0x8], R7 ;
        /*0180*/                   EXIT ;
)";

TEST_F(OutputPassTest, IntegerAtomicsAddLaneAfterLaneAndLocalMemoryIsEachThreads) {
  std::vector<uint32_t> out(2 * 64 * 3);
  memory_.Allocate(AddressOf(out.data()), out.size() * 4);
  in_[0] = 7;  // the global counter
  memory_.WroteKnown(AddressOf(in_.data()), 4);
  const ComputedOutputs outputs =
      ComputeOutputs(Module::FromListings(kAtomics, ""), Launch(Dim3{2}, in_.data(), out.data()));
  ASSERT_FALSE(outputs.not_computed) << outputs.not_computed->Describe();
  ASSERT_EQ(outputs.written.count(AddressOf(in_.data())), 1u);
  uint32_t counter = 0;
  std::memcpy(&counter, outputs.written.at(AddressOf(in_.data())).data(), 4);
  EXPECT_EQ(counter, 7u + 2 * (63 * 64 / 2)) << "both blocks' adds: atomics read what another block stored";
  const std::vector<uint8_t>& bytes = outputs.written.at(AddressOf(out.data()));
  ASSERT_EQ(bytes.size(), out.size() * 4);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  for (uint32_t t = 0; t < 128; ++t) {
    EXPECT_EQ(out[3 * t], 63u * 64 / 2) << t;
    EXPECT_EQ(out[3 * t + 1], 64u) << t;
    EXPECT_EQ(out[3 * t + 2], t % 64) << t;
  }
}

TEST(LaunchStoresTest, LoadsSeeTheirOwnBlocksStoresAndRunsMergeAcrossPages) {
  LaunchStores stores;
  const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  stores.Store(4092, bytes, 8, 1);  // across a page boundary
  uint8_t out[8] = {};
  EXPECT_EQ(stores.Load(4092, 8, 1, out), LaunchStores::Read::kFound);
  EXPECT_EQ(out[7], 8);
  EXPECT_EQ(stores.Load(4092, 4, 2, out), LaunchStores::Read::kOtherBlock);
  EXPECT_EQ(stores.Load(4088, 8, 1, out), LaunchStores::Read::kOtherBlock) << "only some stored";
  EXPECT_EQ(stores.Load(0, 4, 1, out), LaunchStores::Read::kNotStored);
  EXPECT_TRUE(stores.Store(4100, bytes, 2, 1));
  std::map<uint64_t, std::vector<uint8_t>> runs;
  ASSERT_TRUE(stores.Runs(nullptr, LaunchStores::kMaxRuns, &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs.begin()->first, 4092u);
  EXPECT_EQ(runs.begin()->second, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 1, 2}));
}

TEST(LaunchStoresTest, StoresPastTheirPagesAreRefusedAndStoreNothing) {
  LaunchStores stores(4);
  const uint8_t bytes[4] = {1, 2, 3, 4};
  EXPECT_TRUE(stores.Store(0, bytes, 4, 1));
  EXPECT_TRUE(stores.Store(4096, bytes, 4, 1));
  EXPECT_TRUE(stores.Store(8192, bytes, 4, 1));
  EXPECT_FALSE(stores.Store(3 * 4096, bytes, 4, 1));
  EXPECT_TRUE(stores.Store(4, bytes, 4, 1)) << "a page it holds";
  uint8_t out[4] = {};
  EXPECT_EQ(stores.Load(3 * 4096, 4, 1, out), LaunchStores::Read::kNotStored);
}

}  // namespace
}  // namespace bankcheck::emulate
