// Launches with thread-block clusters: each block's rank in its cluster (SR_CgaCtaId), the launch
// words of constant bank 0 that describe the clusters, __cluster_dims__, and generic loads of
// another block's shared memory counted as distributed shared memory (docs/emulate.md, "Clusters").

#include <gmock/gmock.h>

#include <string>

#include "bankcheck/core/error.h"
#include "bankcheck/emulate/emulator.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;

constexpr char kStoreListing[] = R"(.text._Z4testPi:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   S2UR UR4, SR_CgaCtaId ;
        /*0020*/                   UMOV UR5, 0x400 ;
        /*0030*/                   ULEA UR4, UR4, UR5, 0x18 ;
        /*0040*/                   IMAD.SHL.U32 R2, R0, 0x4, RZ ;
        /*0050*/                   STS [R2+UR4], RZ ;
        /*0060*/                   EXIT ;
)";

// nvcc 13's partner read (kernels/dsmem.cu, ld.shared::cluster): the block's own shared address,
// the partner's rank (rank ^ 1) into its top byte, SR_SWINHI as the high word, a generic LD.
// PARTNER is replaced by the instruction that gives the rank read from.
constexpr char kPartnerReadListing[] = R"(.text._Z4testPi:
        /*0000*/                   S2R R2, SR_TID.X ;
        /*0010*/                   MOV R0, 0x400 ;
        /*0020*/                   S2R R7, SR_CgaCtaId ;
        /*0030*/                   LEA R3, R7, R0, 0x18 ;
        /*0040*/                   IMAD R3, R2, 0x4, R3 ;
        /*0050*/                   STS [R3], RZ ;
        /*0060*/                   S2R R4, SR_SWINHI ;
        /*0070*/                   PARTNER ;
        /*0080*/                   PRMT R3, R0, 0x654, R3 ;
        /*0090*/                   MOV R2, R3 ;
        /*00a0*/                   MOV R3, R4 ;
        /*00b0*/                   LD.E R3, [R2] ;
        /*00c0*/                   EXIT ;
)";

std::string PartnerRead(const std::string& partner) {
  std::string listing = kPartnerReadListing;
  listing.replace(listing.find("PARTNER"), 7, partner);
  return listing;
}

LaunchToEmulate Launch(Dim3 cluster, Dim3 grid = Dim3{4, 1, 1}) {
  LaunchToEmulate launch;
  launch.mangled = "_Z4testPi";
  launch.grid = grid;
  launch.block = Dim3{32, 1, 1};
  launch.cluster = cluster;
  return launch;
}

TEST(EmulateClusterTest, WithoutClustersTheBlockIsRankZeroAndDecided) {
  const Module module = Module::FromListings(kStoreListing, "");
  const Emulation emulation = Emulate(module, Launch(Dim3{}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->stores().instructions, 4u);
}

TEST(EmulateClusterTest, AClusterLaunchIsDecidedBlockByBlock) {
  const Module module = Module::FromListings(kStoreListing, "");
  const Emulation emulation = Emulate(module, Launch(Dim3{2, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.record->stores().instructions, 4u);
  EXPECT_EQ(emulation.record->stores().wavefronts, 4u);
  // The rank feeds the address and is no affine function of the block index.
  EXPECT_EQ(emulation.evaluated_blocks, 4u);
}

TEST(EmulateClusterTest, SrCgaCtaIdIsTheBlocksRankInItsCluster) {
  // Only rank 0 of each cluster stores: blocks (0,0) and (0,1) of a 2x2 grid in 1x2 clusters,
  // ranks x + y * cluster.x.
  const Module module = Module::FromListings(R"(.text._Z4testPi:
        /*0000*/                   S2R R7, SR_CgaCtaId ;
        /*0010*/                   ISETP.NE.AND P0, PT, R7, RZ, PT ;
        /*0020*/               @P0 EXIT ;
        /*0030*/                   STS [RZ], RZ ;
        /*0040*/                   EXIT ;
)",
                                             "");
  const Emulation columns = Emulate(module, Launch(Dim3{1, 2, 1}, Dim3{2, 2, 1}));
  ASSERT_TRUE(columns.record) << columns.undecided->Describe();
  EXPECT_EQ(columns.record->stores().instructions, 2u);
  const Emulation whole = Emulate(module, Launch(Dim3{2, 2, 1}, Dim3{2, 2, 1}));
  ASSERT_TRUE(whole.record) << whole.undecided->Describe();
  EXPECT_EQ(whole.record->stores().instructions, 1u);
}

TEST(EmulateClusterTest, TheClusterWordsOfConstantBankZero) {
  // cluster.sync() takes the cluster barrier when c[0x0][0x140] (%is_explicit_cluster) is 1; the
  // store runs when the cluster's x (0x144), the clusters in the grid's x (0x15c) and the blocks
  // per cluster (0x188) are as launched.
  const Module module = Module::FromListings(R"(.text._Z4testPi:
        /*0000*/                   LDC R6, c[0x0][0x140] ;
        /*0010*/                   ISETP.EQ.U32.AND P0, PT, R6, 0x1, PT ;
        /*0020*/              @!P0 EXIT ;
        /*0030*/                   UCGABAR_ARV ;
        /*0040*/                   CGAERRBAR ;
        /*0050*/                   UCGABAR_WAIT ;
        /*0060*/                   LDC R7, c[0x0][0x144] ;
        /*0070*/                   LDC R8, c[0x0][0x15c] ;
        /*0080*/                   LDC R9, c[0x0][0x188] ;
        /*0090*/                   IMAD R7, R7, 0x10, R8 ;
        /*00a0*/                   IMAD R7, R7, 0x10, R9 ;
        /*00b0*/                   ISETP.NE.AND P1, PT, R7, 0x222, PT ;
        /*00c0*/               @P1 EXIT ;
        /*00d0*/                   STS [RZ], RZ ;
        /*00e0*/                   EXIT ;
)",
                                             "");
  const Emulation clustered = Emulate(module, Launch(Dim3{2, 1, 1}));
  ASSERT_TRUE(clustered.record) << clustered.undecided->Describe();
  EXPECT_EQ(clustered.record->stores().instructions, 4u);
  // Without clusters the words are unknown (not measured), and the branch on them undecided.
  const Emulation plain = Emulate(module, Launch(Dim3{}));
  ASSERT_TRUE(plain.undecided);
  EXPECT_EQ(plain.undecided->pc, 0x20u);
}

TEST(EmulateClusterTest, ALoadOfThePartnersSharedMemoryIsADistributedSharedAccess) {
  const Module module = Module::FromListings(PartnerRead("LOP3.LUT R0, R7, 0x1, RZ, 0x3c, !PT"), "");
  const Emulation emulation = Emulate(module, Launch(Dim3{2, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  // As the H200 counts kernels/dsmem.cu: one per warp, no wavefronts, not a shared load.
  const KindCounts& dsmem = emulation.record->kinds[MemoryKind::kSharedDsmem];
  EXPECT_EQ(dsmem.instructions, 4u);
  EXPECT_EQ(dsmem.wavefronts, 0u);
  EXPECT_FALSE(dsmem.ideal_known());
  EXPECT_EQ(emulation.record->loads().instructions, 0u);
  ASSERT_EQ(emulation.record->instructions.size(), 2u);
  for (const InstructionCounts& row : emulation.record->instructions)
    EXPECT_EQ(row.kind, row.pc_offset == 0xb0 ? MemoryKind::kSharedDsmem : MemoryKind::kSharedStore);
}

TEST(EmulateClusterTest, AGenericLoadOfTheBlocksOwnSharedMemoryIsUndecided) {
  const Module module = Module::FromListings(PartnerRead("MOV R0, R7"), "");
  const Emulation emulation = Emulate(module, Launch(Dim3{2, 1, 1}));
  ASSERT_TRUE(emulation.undecided);
  EXPECT_EQ(emulation.undecided->pc, 0xb0u);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("the block's own shared memory"));
}

TEST(EmulateClusterTest, ARankOutsideTheClusterFaults) {
  const Module module = Module::FromListings(PartnerRead("MOV R0, 0x2"), "");
  const Emulation emulation = Emulate(module, Launch(Dim3{2, 1, 1}));
  ASSERT_TRUE(emulation.undecided);
  EXPECT_THAT(emulation.undecided->reason,
              HasSubstr("faults on the GPU: it names block 2 of a cluster of 2"));
}

TEST(EmulateClusterTest, AGenericAccessOfUnknownAddressIsUndecidedOnlyInClusters) {
  const Module module = Module::FromListings(R"(.text._Z4testPi:
        /*0000*/                   LDC.64 R2, c[0x0][0x218] ;
        /*0010*/                   LD.E R4, [R2] ;
        /*0020*/                   STS [RZ], R4 ;
        /*0030*/                   EXIT ;
)",
                                             "");
  const Emulation plain = Emulate(module, Launch(Dim3{}));
  ASSERT_TRUE(plain.record) << plain.undecided->Describe();
  const Emulation clustered = Emulate(module, Launch(Dim3{2, 1, 1}));
  ASSERT_TRUE(clustered.undecided);
  EXPECT_EQ(clustered.undecided->pc, 0x10u);
  EXPECT_THAT(clustered.undecided->reason, HasSubstr("may access another block's shared memory"));
}

TEST(EmulateClusterTest, ClustersTheGpuRefusesAreBadInput) {
  const Module module = Module::FromListings(kStoreListing, "");
  EXPECT_THROW(Emulate(module, Launch(Dim3{3, 1, 1})), Error);  // 4 blocks are no whole clusters
  EXPECT_THROW(Emulate(module, Launch(Dim3{0, 1, 1})), Error);  // empty
  EXPECT_THROW(Emulate(module, Launch(Dim3{32, 1, 1}, Dim3{32, 1, 1})), Error);  // over 16 blocks
}

constexpr char kClusterDimsElf[] = R"(
.nv.info._Z4testPi
	Attribute:	EIATTR_EXPLICIT_CLUSTER
	Format:	EIFMT_NVAL
	Attribute:	EIATTR_CTA_PER_CLUSTER
	Format:	EIFMT_SVAL
	Value:	0x2 0x1 0x1 
)";

TEST(EmulateClusterTest, ClusterDimsOfTheKernelAreItsLaunchesClusters) {
  const Module module = Module::FromListings(kStoreListing, kClusterDimsElf);
  const KernelInfo* info = module.Find("_Z4testPi");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->compiled_cluster, (Dim3{2, 1, 1}));
  EXPECT_TRUE(info->explicit_cluster);
  const Emulation emulation = Emulate(module, Launch(Dim3{}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(emulation.evaluated_blocks, 4u);  // in clusters: the rank is not affine
  EXPECT_THROW(Emulate(module, Launch(Dim3{}, Dim3{3, 1, 1})), Error);
  const Emulation other = Emulate(module, Launch(Dim3{4, 1, 1}));
  ASSERT_TRUE(other.undecided);
  EXPECT_THAT(other.undecided->reason, HasSubstr("whose __cluster_dims__ are 2x1x1"));
}

}  // namespace
}  // namespace bankcheck::emulate
