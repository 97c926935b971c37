// The sector model of global and local memory (memory_sectors.h): every pattern measured on the
// H200 (docs/design/memory-traffic.md), per warp instruction.
#include "bankcheck/core/memory_sectors.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bankcheck/core/error.h"

namespace bankcheck {
namespace {

// Lanes 0..active-1 at offset + lane * stride_elements * bytes.
WarpAccess Strided(uint32_t bytes, int64_t stride_elements, int active = kWarpSize, uint64_t offset = 0) {
  return WarpAccess::Strided(bytes, stride_elements, active, offset);
}

SectorCost Global(const WarpAccess& access) { return GlobalSectors(access); }

TEST(GlobalSectors, ConsecutiveFloatsTakeFourSectorsAsIdeal) {
  EXPECT_EQ(Global(Strided(4, 1)), (SectorCost{4, 4}));
}

TEST(GlobalSectors, StrideTwoFloatsTouchTwiceTheSectors) {
  EXPECT_EQ(Global(Strided(4, 2)), (SectorCost{8, 4}));
}

TEST(GlobalSectors, StrideThirtyTwoFloatsTouchASectorPerLane) {
  EXPECT_EQ(Global(Strided(4, 32)), (SectorCost{32, 4}));
}

TEST(GlobalSectors, OneFloatOfAThirtyTwoByteStructPerLane) {
  // Array of structs of 8 floats, lane i reading field 3 of struct i.
  EXPECT_EQ(Global(Strided(4, 8, kWarpSize, 12)), (SectorCost{32, 4}));
}

TEST(GlobalSectors, MisalignedFloat4CountsTheWholeWarpNotQuarters) {
  // 16 bytes into a sector: 512 bytes over 17 sectors; per 8-lane quarter it would be 4 x 5 = 20.
  EXPECT_EQ(Global(Strided(16, 1, kWarpSize, 16)), (SectorCost{17, 16}));
  EXPECT_EQ(Global(Strided(16, 1)), (SectorCost{16, 16}));
}

TEST(GlobalSectors, EveryLaneTheSameAddressIsOneSector) {
  EXPECT_EQ(Global(Strided(4, 0, kWarpSize, 1024)), (SectorCost{1, 1}));
}

TEST(GlobalSectors, TwelveActiveLanesAtStrideThree) {
  EXPECT_EQ(Global(Strided(4, 3, 12)), (SectorCost{5, 2}));
}

TEST(GlobalSectors, TwelveActiveConsecutiveFloats) {
  EXPECT_EQ(Global(Strided(4, 1, 12)), (SectorCost{2, 2}));
}

TEST(GlobalSectors, ConsecutiveBytes) { EXPECT_EQ(Global(Strided(1, 1)), (SectorCost{1, 1})); }

TEST(GlobalSectors, OnlyActiveLanesCount) {
  WarpAccess access;
  access.bytes = 4;
  access.addresses[5] = 4096;  // inactive: ignored
  access.SetLane(0, 0);
  access.SetLane(1, 64);
  EXPECT_EQ(Global(access), (SectorCost{2, 1}));
  EXPECT_EQ(Global(WarpAccess{}), (SectorCost{0, 0}));
}

TEST(GlobalSectors, OverlappingLanesCountTheirBytesOnce) {
  // 8-byte lanes every 4 bytes: 132 distinct bytes, 5 sectors.
  EXPECT_EQ(Global(Strided(8, 0, 1)), (SectorCost{1, 1}));
  WarpAccess access;
  access.bytes = 8;
  for (int lane = 0; lane < kWarpSize; ++lane) access.SetLane(lane, uint64_t(lane) * 4);
  EXPECT_EQ(Global(access), (SectorCost{5, 5}));
}

// Lanes that read some of the same words (measured on an H100, driver 580.159.04, CUDA 13.0,
// 2026-12-07: CuPy's _cupy_upfirdn2D_float32 in the corpus, cupy_upfirdn/2d/float32/axis1_up2 and
// axis0_down2): each lane's bytes count, but never more sectors than the access touches.
TEST(GlobalSectors, LanesSharingWordsAcrossSectorsCountEachLane) {
  // Lanes 0-5 of each 8 at rows 80 bytes apart, the 4 groups the same rows: 6 sectors of 4 lanes
  // each, ideal 3 (96 lane bytes), not 1 (24 distinct bytes).
  WarpAccess rows;
  rows.bytes = 4;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (lane % 8 < 6) rows.SetLane(lane, uint64_t(lane % 8) * 80);
  EXPECT_EQ(Global(rows), (SectorCost{6, 3}));
  // Lanes 0-2 of group g on word g, lanes 3-7 on words g + 5 + 10 * (lane - 3): 7 sectors, 24
  // distinct words (3 ideal by distinct bytes); 128 lane bytes: ideal 4.
  WarpAccess taps;
  taps.bytes = 4;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const uint64_t group = lane / 8, in_group = lane % 8;
    taps.SetLane(lane, 4 * (in_group < 3 ? group : group + 5 + 10 * (in_group - 3)));
  }
  EXPECT_EQ(Global(taps), (SectorCost{7, 4}));
}

// Measured on an H100 (driver 580.159.04, CUDA 13.0, 2026-12-07) by benchmarks/global_ideal_probe.sh:
// 25 lanes' 8-byte loads on 15 distinct elements in 7 sectors, three of them read by more lanes
// than fill 32 bytes. 200 lane bytes: ideal 7, the sectors touched (capping each sector's lane
// bytes at 32 before summing would give 6).
TEST(GlobalSectors, LanesSharingEightByteElementsCostTheirLaneBytesUpToTheSectors) {
  const int elements[kWarpSize] = {6,  1,  7,  26, 29, 9,  13, 29, 1,  22, 2,  -1, -1, -1, 12, 12,
                                   -1, -1, -1, 11, 12, 10, -1, 22, 28, 0,  30, 0,  30, 1,  7,  0};
  WarpAccess access;
  access.bytes = 8;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (elements[lane] >= 0) access.SetLane(lane, uint64_t(elements[lane]) * 8);
  EXPECT_EQ(Global(access), (SectorCost{7, 7}));
}

TEST(GlobalSectors, LanesSharingWordsInOneSectorCostOne) {
  // Measured as above: four words of one sector, lanes 0-2 of each 8 on three of them and lanes
  // 3-7 on the fourth (128 lane bytes in one sector): ideal 1. So are 12 lanes on one word and 12
  // on another of the same sector.
  WarpAccess access;
  access.bytes = 4;
  for (int lane = 0; lane < kWarpSize; ++lane)
    access.SetLane(lane, lane % 8 == 0 ? 20 : lane % 8 == 1 ? 12 : lane % 8 == 2 ? 4 : 0);
  EXPECT_EQ(Global(access), (SectorCost{1, 1}));
  WarpAccess two;
  two.bytes = 4;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (lane % 8 < 6) two.SetLane(lane, lane / 8 % 2 * 16);
  EXPECT_EQ(Global(two), (SectorCost{1, 1}));
}

TEST(GlobalSectors, RejectsAWidthTheGpuHasNot) {
  WarpAccess access = Strided(4, 1);
  access.bytes = 3;
  EXPECT_THROW(Global(access), Error);
  access.bytes = 4;
  access.SetLane(0, UINT64_MAX - 1);
  EXPECT_THROW(Global(access), Error);
}

// A cp.async of `bytes` a lane from global element lane * src_stride to shared element
// lane * smem_stride (the suite's cp_async/u<bits>_src_s<src>_smem_s<smem> cases, one instruction).
SectorCost Copy(uint32_t bytes, uint64_t src_stride, uint64_t smem_stride) {
  WarpCopy copy;
  copy.destination.bytes = bytes;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    copy.destination.SetLane(lane, lane * smem_stride * bytes);
    copy.sources[lane] = 0x10000 + lane * src_stride * bytes;
  }
  return CopySourceSectors(copy);
}

// Measured on the H200 (driver 580.159.04, CUDA 13.0; baselines/sm_90/cp_async.json): sectors of
// the global_ldgsts kind per instruction, 4 instructions a case.
TEST(CopySourceSectors, ASixteenByteRowCopyReadsEachPhasesRowOnce) {
  EXPECT_EQ(Copy(16, 1, 1), (SectorCost{16, 16}));  // measured 64 for 4
}

TEST(CopySourceSectors, ASixteenByteCopyIntoSplitSharedRowsReadsEachLaneApart) {
  for (uint64_t smem_stride : {2, 4, 32}) EXPECT_EQ(Copy(16, 1, smem_stride), (SectorCost{32, 16}));  // 128
}

TEST(CopySourceSectors, ASixteenByteCopyFromSpreadSourcesReadsASectorALane) {
  for (uint64_t src_stride : {2, 4, 8, 32}) EXPECT_EQ(Copy(16, src_stride, 1), (SectorCost{32, 16}));  // 128
}

TEST(CopySourceSectors, FourAndEightByteCopiesReadAsALoadWhateverTheSharedSide) {
  for (uint64_t smem_stride : {1, 2, 32}) {
    EXPECT_EQ(Copy(4, 1, smem_stride), (SectorCost{4, 4}));  // measured 16 for 4
    EXPECT_EQ(Copy(8, 1, smem_stride), (SectorCost{8, 8}));  // 32
  }
}

TEST(CopySourceSectors, InactiveLanesReadNothing) {
  WarpCopy copy;
  copy.destination.bytes = 16;
  for (int lane = 0; lane < 4; ++lane) {
    copy.destination.SetLane(lane, lane * 256);  // each in its own row: read apart
    copy.sources[lane] = lane * 16;
  }
  copy.sources[9] = 4096;  // inactive
  EXPECT_EQ(CopySourceSectors(copy), (SectorCost{4, 2}));
}

// ---- TMA and bulk copies: the boxes of benchmarks/tma_probe.cu, measured on the H100 (driver
// 580.159.04, CUDA 13.0) by ncu's l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld (loads)
// and l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st (stores) ----

// A row-major 2D tensor of `element_bytes` elements at a sector-aligned address.
TensorBox Box2D(uint32_t element_bytes, uint64_t width, uint64_t height, uint64_t row_bytes, uint32_t box_x,
                uint32_t box_y, int64_t x, int64_t y) {
  TensorBox box;
  box.address = 0x10000;
  box.rank = 2;
  box.element_bytes = element_bytes;
  box.dims = {width, height};
  box.strides = {0, row_bytes};
  box.box = {box_x, box_y};
  box.at = {x, y};
  return box;
}

uint64_t Load(const TensorBox& box) {
  const TmaSectors cost = TensorBoxSectors(box, false);
  EXPECT_TRUE(cost.decided()) << cost.undecided;
  return cost.sectors;
}
uint64_t Store(const TensorBox& box) {
  const TmaSectors cost = TensorBoxSectors(box, true);
  EXPECT_TRUE(cost.decided()) << cost.undecided;
  return cost.sectors;
}

TEST(CopyRunSectors, MovesPiecesOfOneHundredTwentyEightBytesFromTheFirst) {
  EXPECT_EQ(CopyRunSectors(0, 4096), 128u);   // bulk_load_4096
  EXPECT_EQ(CopyRunSectors(16, 4096), 160u);  // bulk_load_4096_at16: 32 pieces of 5, not 129
  EXPECT_EQ(CopyRunSectors(16, 256), 10u);    // load_f32_1d_64: two pieces of 5, not 9
  EXPECT_EQ(CopyRunSectors(48, 16), 1u);
  EXPECT_EQ(CopyRunSectors(0, 0), 0u);
}

TEST(TensorBoxSectors, EachRowOfABoxIsARun) {
  EXPECT_EQ(Load(Box2D(4, 256, 256, 1024, 32, 32, 32, 32)), 128u);  // load_f32_32x32_in
  EXPECT_EQ(Load(Box2D(4, 256, 256, 1024, 32, 32, 4, 0)), 160u);    // 16 bytes past a sector: 5 a row
  EXPECT_EQ(Load(Box2D(4, 256, 256, 1024, 8, 8, 8, 8)), 8u);
  EXPECT_EQ(Load(Box2D(4, 256, 256, 1024, 8, 8, 4, 8)), 16u);
  EXPECT_EQ(Load(Box2D(2, 64, 64, 128, 64, 64, 0, 0)), 256u);   // load_f16_64x64_sw128
  EXPECT_EQ(Load(Box2D(2, 64, 64, 128, 32, 64, 32, 0)), 128u);  // load_f16_32x64_sw64
}

TEST(TensorBoxSectors, RowsNeverShareASector) {
  // load_f32_4x32_rows16: 32 rows of 16 bytes, one after another: 32 sectors, not 16.
  EXPECT_EQ(Load(Box2D(4, 4, 256, 16, 4, 32, 0, 0)), 32u);
}

TEST(TensorBoxSectors, AOneDimensionalBoxIsOneRun) {
  TensorBox box;
  box.address = 0x10000;
  box.rank = 1;
  box.element_bytes = 4;
  box.dims = {4096};
  box.box = {64};
  box.at = {4};
  EXPECT_EQ(Load(box), 10u);  // load_f32_1d_64
}

TEST(TensorBoxSectors, ALoadReadsTheWholeBoxEvenOutsideTheTensor) {
  EXPECT_EQ(Load(Box2D(4, 256, 256, 1024, 32, 32, 240, 240)), 128u);  // load_f32_32x32_edge
  EXPECT_EQ(Load(Box2D(4, 256, 256, 1024, 32, 32, -16, -16)), 128u);  // load_f32_32x32_negative
  EXPECT_EQ(Load(Box2D(4, 256, 256, 1024, 32, 32, 512, 512)), 128u);  // load_f32_32x32_outside
  // load_f32_32x32_odd_edge: 14 rows inside at 16 bytes past a sector (5 each, their columns
  // outside too), 18 rows outside as if on a sector (4 each).
  EXPECT_EQ(Load(Box2D(4, 250, 250, 1024, 32, 32, 236, 236)), 142u);
}

TEST(TensorBoxSectors, AStoreWritesOnlyTheTensorsPart) {
  EXPECT_EQ(Store(Box2D(4, 256, 256, 1024, 32, 32, 32, 32)), 128u);   // store_f32_32x32_in
  EXPECT_EQ(Store(Box2D(4, 256, 256, 1024, 32, 32, 4, 0)), 160u);     // store_f32_32x32_x4
  EXPECT_EQ(Store(Box2D(4, 256, 256, 1024, 32, 32, 240, 240)), 32u);  // store_f32_32x32_edge
  EXPECT_EQ(Store(Box2D(4, 256, 256, 1024, 8, 8, 4, 8)), 16u);        // store_f32_8x8_x4
  EXPECT_EQ(Store(Box2D(4, 256, 256, 1024, 32, 32, 512, 512)), 0u);
}

TEST(TensorBoxSectors, ALoadedRowWhollyOutsideTheFirstDimensionIsUndecided) {
  const TmaSectors load = TensorBoxSectors(Box2D(4, 256, 256, 1024, 32, 32, 256, 0), false);
  EXPECT_FALSE(load.decided());
  EXPECT_NE(load.undecided.find("not measured"), std::string::npos) << load.undecided;
  EXPECT_EQ(Store(Box2D(4, 256, 256, 1024, 32, 32, 256, 0)), 0u);
}

TEST(TensorBoxSectors, RejectsABoxTheGpuHasNot) {
  TensorBox box = Box2D(4, 256, 256, 1024, 32, 32, 0, 0);
  box.rank = 6;
  EXPECT_THROW(TensorBoxSectors(box, false), Error);
  box = Box2D(3, 256, 256, 1024, 32, 32, 0, 0);
  EXPECT_THROW(TensorBoxSectors(box, false), Error);
  box = Box2D(4, 256, 256, 1024, 0, 32, 0, 0);
  EXPECT_THROW(TensorBoxSectors(box, false), Error);
}

TEST(LocalAddress, InterleavesTheLanesInFourByteWords) {
  EXPECT_EQ(LocalAddress(0, 0), 0u);
  EXPECT_EQ(LocalAddress(1, 0), 4u);
  EXPECT_EQ(LocalAddress(31, 3), 127u);
  EXPECT_EQ(LocalAddress(0, 4), 128u);
  EXPECT_EQ(LocalAddress(2, 9), 2u * 128 + 2 * 4 + 1);
}

TEST(LocalSectors, EveryLaneAtTheSameOffsetIsFourSectors) {
  // A spill: STL.32 [R1+0x10] in every lane. 34,896 STL -> 139,584 sectors on the H200.
  const SectorCost cost = LocalSectors(Strided(4, 0, kWarpSize, 0x10));
  EXPECT_EQ(cost, (SectorCost{4, 0}));
  EXPECT_EQ(34'896 * cost.sectors, 139'584u);
  EXPECT_EQ(35'360 * LocalSectors(Strided(4, 0, kWarpSize, 0x24)).sectors, 141'440u);
}

TEST(LocalSectors, FewerLanesTouchFewerSectors) {
  EXPECT_EQ(LocalSectors(Strided(4, 0, 8)).sectors, 1u);
  EXPECT_EQ(LocalSectors(Strided(4, 0, 9)).sectors, 2u);
}

TEST(LocalSectors, WiderAccessesMapEachWord) {
  // 8 and 16 bytes at the same offset: 2 and 4 words, each a 128-byte row of the warp.
  EXPECT_EQ(LocalSectors(Strided(8, 0, kWarpSize, 8)).sectors, 8u);
  EXPECT_EQ(LocalSectors(Strided(16, 0, kWarpSize, 16)).sectors, 16u);
  // Bytes of one word stay in the lane's 4 bytes: a 1-byte access is one word.
  EXPECT_EQ(LocalSectors(Strided(1, 0, kWarpSize, 3)).sectors, 4u);
}

TEST(LocalSectors, DifferentOffsetsPerLaneTouchDifferentRows) {
  // A dynamically indexed local array: lane i at word i.
  EXPECT_EQ(LocalSectors(Strided(4, 1)).sectors, 32u);
  // A common base that is a multiple of 4 changes nothing.
  EXPECT_EQ(LocalSectors(Strided(4, 1, kWarpSize, 4096)).sectors, 32u);
}

TEST(SectorsTouched, ListsTheSectorsAscending) {
  EXPECT_EQ(SectorsTouched(Strided(4, 8, 4), false), (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(SectorsTouched(Strided(4, 0, 9, 4), true), (std::vector<uint64_t>{4, 5}));
}

}  // namespace
}  // namespace bankcheck
