// Global and local sectors emulated (sector_cost.cc): hand-written listings whose counts the core's
// sector rule (memory_sectors.h) gives, the launch's global or local kinds not counted (with a
// note) where an address is not known, and shared-memory counts decided regardless.
#include <gmock/gmock.h>

#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/core/memory_sectors.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

constexpr uint64_t kPointer = 0x7f0000001000;  // a device pointer, 256-byte aligned as cudaMalloc's

std::vector<uint8_t> PointerParameter(uint64_t pointer) {
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), &pointer, 8);
  return bytes;
}

// R2:R3 = the pointer argument + (blockIdx.x * blockDim.x + threadIdx.x) * `scale`, then `body`.
std::string GlobalIndexed(int scale, const std::string& body) {
  return R"(
        /*0040*/                   S2R R5, SR_CTAID.X ;
        /*0050*/                   IMAD R6, R5, c[0x0][0x0], R0 ;
        /*0060*/                   MOV R2, c[0x0][0x210] ;
        /*0070*/                   MOV R3, c[0x0][0x214] ;
        /*0080*/                   IMAD.WIDE.U32 R2, R6, )" +
         std::to_string(scale) + R"(, R2 ;
)" + body;
}

const KindCounts& Counts(const Emulation& emulation, MemoryKind kind) {
  return emulation.record->kinds[kind];
}

TEST(EmulateSectorsTest, StridedGlobalLoadAndStoreCostAsTheRuleSays) {
  // Stride-2 floats: the load at the element, the store 4 bytes further.
  const Module module = Listing(GlobalIndexed(8, R"(
        /*0090*/                   LDG.E R4, desc[UR6][R2.64] ;
        /*00a0*/                   STG.E desc[UR6][R2.64+0x4], R4 ;
        /*00b0*/                   EXIT ;
)"));
  const Emulation emulation =
      EmulateBothWays(module, Launch(Dim3{4, 1, 1}, Dim3{64, 1, 1}, PointerParameter(kPointer)));
  ASSERT_TRUE(emulation.record);
  const uint64_t warps = 4 * 2;
  const SectorCost cost = GlobalSectors(WarpAccess::Strided(4, 2, kWarpSize, kPointer));
  ASSERT_EQ(cost, (SectorCost{8, 4}));
  EXPECT_FALSE(emulation.record->not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalLoad).instructions, warps);
  EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalLoad).wavefronts, warps * cost.sectors);
  EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalLoad).ideal_wavefronts, warps * cost.ideal);
  EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalStore).wavefronts, warps * cost.sectors);
  EXPECT_EQ(Row(*emulation.record, 0x90).kind, MemoryKind::kGlobalLoad);
  EXPECT_EQ(Row(*emulation.record, 0xa0).kind, MemoryKind::kGlobalStore);
  EXPECT_EQ(Row(*emulation.record, 0xa0).wavefronts, warps * cost.sectors);
}

TEST(EmulateSectorsTest, MisalignedFloat4AndPartialWarps) {
  // float4 loads 16 bytes into a sector: 17 sectors per full warp; the second warp has 8 lanes.
  const Module module = Listing(GlobalIndexed(16, R"(
        /*0090*/                   LDG.E.128.CONSTANT R8, desc[UR6][R2.64+0x10] ;
        /*00a0*/                   EXIT ;
)"));
  const Emulation emulation =
      EmulateBothWays(module, Launch(Dim3{1, 1, 1}, Dim3{40, 1, 1}, PointerParameter(kPointer)));
  ASSERT_TRUE(emulation.record);
  WarpAccess tail;
  tail.bytes = 16;
  for (int lane = 0; lane < 8; ++lane) tail.SetLane(lane, kPointer + 16 + 16u * (32 + lane));
  const SectorCost full = GlobalSectors(WarpAccess::Strided(16, 1, kWarpSize, kPointer + 16));
  EXPECT_EQ(full, (SectorCost{17, 16}));
  EXPECT_EQ(Row(*emulation.record, 0x90).wavefronts, full.sectors + GlobalSectors(tail).sectors);
  EXPECT_EQ(Row(*emulation.record, 0x90).ideal_wavefronts, full.ideal + GlobalSectors(tail).ideal);
}

TEST(EmulateSectorsTest, ReductionsAtomicsAndGenericAccessesAreGlobal) {
  const Module module = Listing(GlobalIndexed(4, R"(
        /*0090*/                   MOV R8, c[0x0][0x210] ;
        /*00a0*/                   MOV R9, c[0x0][0x214] ;
        /*00b0*/                   REDG.E.ADD.STRONG.GPU desc[UR6][R8.64], R0 ;
        /*00c0*/                   ATOMG.E.ADD.STRONG.GPU PT, R10, desc[UR6][R2.64], R0 ;
        /*00d0*/                   LD.E R11, [R2.64] ;
        /*00e0*/                   ST.E.U8 [R2.64], R11 ;
        /*00f0*/                   EXIT ;
)"));
  const Emulation emulation =
      EmulateBothWays(module, Launch(Dim3{2, 1, 1}, Dim3{32, 1, 1}, PointerParameter(kPointer)));
  ASSERT_TRUE(emulation.record);
  EXPECT_EQ(Row(*emulation.record, 0xb0).kind, MemoryKind::kGlobalReduction);
  EXPECT_EQ(Row(*emulation.record, 0xb0).wavefronts, 2u);  // every lane the same word: 1 per warp
  EXPECT_EQ(Row(*emulation.record, 0xc0).kind, MemoryKind::kGlobalAtomic);
  EXPECT_EQ(Row(*emulation.record, 0xc0).wavefronts, 2u * 4);
  EXPECT_EQ(Row(*emulation.record, 0xd0).kind, MemoryKind::kGlobalLoad);
  EXPECT_EQ(Row(*emulation.record, 0xe0).kind, MemoryKind::kGlobalStore);
  EXPECT_EQ(Row(*emulation.record, 0xe0).wavefronts, 2u * 4);  // one byte every 4: 4 sectors
  EXPECT_EQ(Row(*emulation.record, 0xe0).ideal_wavefronts, 2u);
}

TEST(EmulateSectorsTest, AnUnknownAddressLeavesGlobalNotCountedAndSharedDecided) {
  // A pointer loaded from memory feeds the second load: global not counted, the STS still is.
  const Module module = Listing(GlobalIndexed(4, R"(
        /*0090*/                   LDG.E.64 R8, desc[UR6][R2.64] ;
        /*00a0*/                   LDG.E R10, desc[UR6][R8.64] ;
        /*00b0*/                   IMAD.SHL.U32 R7, R0, 0x4, RZ ;
        /*00c0*/                   STS [R7+UR4], R10 ;
        /*00d0*/                   EXIT ;
)"));
  const Emulation emulation =
      Emulate(module, Launch(Dim3{2, 1, 1}, Dim3{32, 1, 1}, PointerParameter(kPointer)));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  const LaunchRecord& record = *emulation.record;
  for (MemoryKind kind : {MemoryKind::kGlobalLoad, MemoryKind::kGlobalStore, MemoryKind::kGlobalAtomic,
                          MemoryKind::kGlobalReduction})
    EXPECT_TRUE(record.not_counted[kind]);
  EXPECT_FALSE(record.not_counted[MemoryKind::kLocalLoad]);
  EXPECT_FALSE(record.not_counted[MemoryKind::kSharedStore]);
  EXPECT_EQ(record.stores().instructions, 2u);
  EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalLoad).instructions, 0u);
  EXPECT_THROW(Row(record, 0x90), std::runtime_error);  // no partial row
  ASSERT_EQ(record.notes.size(), 1u);
  EXPECT_THAT(record.notes[0], HasSubstr("global memory not counted"));
  EXPECT_THAT(record.notes[0], HasSubstr("feeds the address of LDG.E at pc 0x00a0"));
}

TEST(EmulateSectorsTest, BlocksGroupedTogetherMustMoveByWholeSectors) {
  // Blocks of 6 threads: each block's floats start 24 bytes on, taking 1, 2, 2 and 1 sectors, so
  // blocks counted with the first could differ; evaluating every block counts them.
  const Module module = Listing(GlobalIndexed(4, R"(
        /*0090*/                   LDG.E R4, desc[UR6][R2.64] ;
        /*00a0*/                   EXIT ;
)"));
  const LaunchToEmulate launch = Launch(Dim3{4, 1, 1}, Dim3{6, 1, 1}, PointerParameter(kPointer));
  const Emulation grouped = Emulate(module, launch);
  ASSERT_TRUE(grouped.record);
  EXPECT_TRUE(grouped.record->not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_THAT(grouped.record->notes.at(0), HasSubstr("moves with the block"));
  EmulationLimits every_block;
  every_block.group_blocks = false;
  const Emulation evaluated = Emulate(module, launch, every_block);
  ASSERT_TRUE(evaluated.record);
  EXPECT_FALSE(evaluated.record->not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_EQ(Counts(evaluated, MemoryKind::kGlobalLoad).wavefronts, 6u);
}

TEST(EmulateSectorsTest, BlocksMovingByLessThanASectorAreCountedWhereTheirSectorsAreTheSame) {
  // Blocks of 4 threads, 16 bytes on each: 16 bytes of a 256-byte aligned pointer never straddle.
  const Module module = Listing(GlobalIndexed(4, R"(
        /*0090*/                   LDG.E R4, desc[UR6][R2.64] ;
        /*00a0*/                   EXIT ;
)"));
  const Emulation emulation =
      EmulateBothWays(module, Launch(Dim3{8, 1, 1}, Dim3{4, 1, 1}, PointerParameter(kPointer)));
  ASSERT_TRUE(emulation.record);
  EXPECT_FALSE(emulation.record->not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalLoad).wavefronts, 8u);
}

TEST(EmulateSectorsTest, AnAddressMergedByLop3FromBlockAndThreadPartsMovesWithTheBlock) {
  // (blockIdx.x * 0x200 & 0xfffffe00) | (threadIdx.x * 4 & 0x1ff), as nvcc merges the ldmatrix
  // case's output index: the block's blocks are grouped, and their sectors known.
  const Module module = Listing(R"(
        /*0040*/                   S2R R5, SR_CTAID.X ;
        /*0050*/                   IMAD.SHL.U32 R6, R5, 0x200, RZ ;
        /*0060*/                   IMAD.SHL.U32 R7, R0, 0x4, RZ ;
        /*0070*/                   LOP3.LUT R6, R6, 0xfffffe00, R7, 0xe2, !PT ;
        /*0080*/                   MOV R2, c[0x0][0x210] ;
        /*0090*/                   MOV R3, c[0x0][0x214] ;
        /*00a0*/                   IMAD.WIDE.U32 R2, R6, 0x1, R2 ;
        /*00b0*/                   STG.E desc[UR6][R2.64], RZ ;
        /*00c0*/                   EXIT ;
)");
  const Emulation emulation =
      EmulateBothWays(module, Launch(Dim3{4, 1, 1}, Dim3{64, 1, 1}, PointerParameter(kPointer)));
  ASSERT_TRUE(emulation.record);
  EXPECT_EQ(emulation.evaluated_blocks, 1u);
  EXPECT_FALSE(emulation.record->not_counted[MemoryKind::kGlobalStore]);
  EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalStore).wavefronts, 4u * 2 * 4);
}

TEST(EmulateSectorsTest, SpillsCostFourSectorsPerWordOfAFullWarp) {
  const Module module = Listing(R"(
        /*0040*/                   MOV R1, c[0x0][0x28] ;
        /*0050*/                   IADD3 R1, R1, -0x20, RZ ;
        /*0060*/                   STL [R1+0x10], R0 ;
        /*0070*/                   LDL R4, [R1+0x10] ;
        /*0080*/                   STL.64 [R1+0x8], R4 ;
        /*0090*/                   LDL.LU.128 R8, [R1] ;
        /*00a0*/                   EXIT ;
)");
  const Emulation emulation = EmulateBothWays(module, Launch(Dim3{3, 1, 1}, Dim3{40, 1, 1}));
  ASSERT_TRUE(emulation.record);
  const uint64_t per_block = 4 + 1;  // a full warp's word: 4 sectors; 8 lanes: 1
  EXPECT_EQ(Row(*emulation.record, 0x60).kind, MemoryKind::kLocalStore);
  EXPECT_EQ(Row(*emulation.record, 0x60).wavefronts, 3 * per_block);
  EXPECT_EQ(Row(*emulation.record, 0x60).ideal_wavefronts, 0u);
  EXPECT_EQ(Row(*emulation.record, 0x70).kind, MemoryKind::kLocalLoad);
  EXPECT_EQ(Row(*emulation.record, 0x70).wavefronts, 3 * per_block);
  EXPECT_EQ(Row(*emulation.record, 0x80).wavefronts, 3 * 2 * per_block);
  EXPECT_EQ(Row(*emulation.record, 0x90).wavefronts, 3 * 4 * per_block);
  EXPECT_EQ(Counts(emulation, MemoryKind::kLocalStore).instructions, 3u * 2 * 2);
  EXPECT_FALSE(Counts(emulation, MemoryKind::kLocalStore).ideal_known());
}

TEST(EmulateSectorsTest, LanesAtDifferentLocalOffsetsTouchTheirOwnRows) {
  // A local array indexed per lane: lane i at word i, one sector per lane (local_memory/data_indexed's
  // LDL: 32 sectors per warp on the H200).
  const Module module = Listing(R"(
        /*0040*/                   MOV R1, c[0x0][0x28] ;
        /*0050*/                   IADD3 R1, R1, -0x80, RZ ;
        /*0060*/                   LEA R2, R0, R1, 0x2 ;
        /*0070*/                   LDL R4, [R2] ;
        /*0080*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record);
  EXPECT_FALSE(emulation.record->not_counted[MemoryKind::kLocalLoad]);
  EXPECT_EQ(Row(*emulation.record, 0x70).wavefronts, LocalSectors(WarpAccess::Strided(4, 1)).sectors);
  EXPECT_EQ(Row(*emulation.record, 0x70).wavefronts, 32u);
}

// cp.async (LDGSTS): its global reads in global_ldgsts, by LDG's sector rule, beside its shared
// writes in shared_ldgsts. `scale`: each thread's source is `scale` bytes after the previous one's;
// `guard`: a predicate on the copy ("" for none), set by a comparison of the thread index.
Emulation CopyIntoShared(uint32_t bytes, int scale, uint32_t threads, const std::string& guard = "") {
  const std::string width = bytes == 4 ? "" : bytes == 8 ? ".64" : ".BYPASS.128";
  const std::string predicate = guard.empty() ? "" : "@" + guard + " ";
  const Module module = Listing(GlobalIndexed(scale, R"(
        /*0090*/                   IMAD.SHL.U32 R4, R0, )" +
                                                         std::to_string(bytes) + R"(, RZ ;
        /*00a0*/                   ISETP.GE.U32.AND P0, PT, R0, 0xc, PT ;
        /*00b0*/                   )" + predicate + "LDGSTS.E" +
                                                         width + R"( [R4+UR4], desc[UR6][R2.64] ;
        /*00c0*/                   LDGDEPBAR ;
        /*00d0*/                   DEPBAR.LE SB0, 0x0 ;
        /*00e0*/                   EXIT ;
)"));
  return EmulateBothWays(module, Launch(Dim3{2, 1, 1}, Dim3{threads, 1, 1}, PointerParameter(kPointer)));
}

// What the sector rule gives one warp of CopyIntoShared: lanes `first` to `last` of the warp whose
// first thread is `thread`.
SectorCost CopySectors(uint32_t bytes, int scale, uint64_t thread, int first, int last) {
  WarpAccess access;
  access.bytes = bytes;
  for (int lane = first; lane <= last; ++lane) access.SetLane(lane, kPointer + (thread + lane) * scale);
  return GlobalSectors(access);
}

TEST(EmulateSectorsTest, CpAsyncGlobalReadsCostAsAnLdgOfTheirSizeWouldCoalescedOrStrided) {
  for (const uint32_t bytes : {4u, 8u, 16u}) {
    for (const int stride : {1, 2, 8}) {
      const int scale = static_cast<int>(bytes) * stride;
      const Emulation emulation = CopyIntoShared(bytes, scale, 64);
      ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
      SectorCost total;
      for (uint64_t thread = 0; thread < 128; thread += 32) {
        const SectorCost warp = CopySectors(bytes, scale, thread, 0, 31);
        total.sectors += warp.sectors;
        total.ideal += warp.ideal;
      }
      // Per warp: coalesced, the lanes' bytes in as many sectors as they fill; at twice the size
      // apart, twice as many; 8 times apart, one sector per lane.
      const uint64_t per_warp = stride == 1 ? bytes : stride == 2 ? 2 * bytes : 32;
      EXPECT_EQ(total, (SectorCost{4 * per_warp, 4 * uint64_t{bytes}}))
          << bytes << " bytes, stride " << stride;
      const LaunchRecord& record = *emulation.record;
      EXPECT_FALSE(record.not_counted[MemoryKind::kGlobalCpAsync]);
      const InstructionCounts& global = Row(record, 0xb0, MemoryKind::kGlobalCpAsync);
      EXPECT_THAT(global.opcode, ::testing::StartsWith("LDGSTS.E"));
      EXPECT_EQ(global.executions, 4u);
      EXPECT_EQ(global.wavefronts, total.sectors) << bytes << " bytes, stride " << stride;
      EXPECT_EQ(global.ideal_wavefronts, total.ideal) << bytes << " bytes, stride " << stride;
      EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalCpAsync).instructions, 4u);
      EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalCpAsync).wavefronts, total.sectors);
      // The same instruction's shared writes stay in their own kind; no LDG is counted.
      EXPECT_EQ(Row(record, 0xb0, MemoryKind::kSharedCpAsync).executions, 4u);
      EXPECT_EQ(Counts(emulation, MemoryKind::kSharedCpAsync).instructions, 4u);
      EXPECT_EQ(Counts(emulation, MemoryKind::kGlobalLoad).instructions, 0u);
    }
  }
}

TEST(EmulateSectorsTest, CpAsyncLanesOffReadNothing) {
  // 40 threads: the second warp has 8 lanes. Guarded by P0 (tid >= 12), lanes 0-11 of the first
  // warp are off too.
  const int scale = 16;
  const Emulation partial = CopyIntoShared(16, scale, 40);
  ASSERT_TRUE(partial.record) << partial.undecided->Describe();
  uint64_t sectors = 0;
  for (const uint64_t block : {0u, 40u})
    sectors +=
        CopySectors(16, scale, block, 0, 31).sectors + CopySectors(16, scale, block + 32, 0, 7).sectors;
  EXPECT_EQ(Row(*partial.record, 0xb0, MemoryKind::kGlobalCpAsync).wavefronts, sectors);
  EXPECT_EQ(sectors, 2 * (16u + 4u));

  const Emulation guarded = CopyIntoShared(16, scale, 32, "P0");
  ASSERT_TRUE(guarded.record) << guarded.undecided->Describe();
  const SectorCost warp = CopySectors(16, scale, 0, 12, 31);
  EXPECT_EQ(warp, (SectorCost{10, 10}));
  const InstructionCounts& row = Row(*guarded.record, 0xb0, MemoryKind::kGlobalCpAsync);
  EXPECT_EQ(row.executions, 2u);
  EXPECT_EQ(row.wavefronts, 2 * 10u);
  EXPECT_EQ(row.ideal_wavefronts, 2 * 10u);
}

TEST(EmulateSectorsTest, AnUnknownGlobalAddressLeavesCpAsyncGlobalReadsNotCountedToo) {
  // An LDG whose address was loaded: the launch's global kinds, cp.async's reads among them, are
  // not counted, with the note; the cp.async's shared writes stay counted.
  const Module module = Listing(GlobalIndexed(16, R"(
        /*0090*/                   IMAD.SHL.U32 R4, R0, 0x10, RZ ;
        /*00a0*/                   LDGSTS.E.BYPASS.128 [R4+UR4], desc[UR6][R2.64] ;
        /*00b0*/                   LDG.E.64 R8, desc[UR6][R2.64] ;
        /*00c0*/                   LDG.E R10, desc[UR6][R8.64] ;
        /*00d0*/                   EXIT ;
)"));
  const Emulation emulation =
      Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, PointerParameter(kPointer)));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_TRUE(emulation.record->not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_FALSE(emulation.record->not_counted[MemoryKind::kSharedCpAsync]);
  EXPECT_EQ(Counts(emulation, MemoryKind::kSharedCpAsync).instructions, 1u);
  for (const InstructionCounts& row : emulation.record->instructions)
    EXPECT_NE(row.kind, MemoryKind::kGlobalCpAsync);
  EXPECT_THAT(emulation.record->notes.at(0), HasSubstr("global memory not counted"));
}

TEST(EmulateSectorsTest, ACpAsyncWhoseBytesReadARegisterGivesIsNotCounted) {
  // The src-size form (ZFILL: bytes past a register's count are zero-filled, not read): the bytes
  // read are not known from the instruction, so nothing of the launch is counted, with the reason.
  const Module module = Listing(GlobalIndexed(16, R"(
        /*0090*/                   IMAD.SHL.U32 R4, R0, 0x10, RZ ;
        /*00a0*/                   LDGSTS.E.BYPASS.128.ZFILL [R4+UR4], desc[UR6][R2.64], R5 ;
        /*00b0*/                   EXIT ;
)"));
  const Emulation emulation =
      Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, PointerParameter(kPointer)));
  ASSERT_FALSE(emulation.record);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("cp.async form the emulator does not understand"));
}

}  // namespace
}  // namespace bankcheck::emulate
