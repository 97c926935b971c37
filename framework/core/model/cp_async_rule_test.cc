// The 16-byte cp.async rule of the CPU bank model (bank_model.h; docs/model.md, "cp.async"):
// against the rule written plainly, on patterns, and on the suite's measured cases.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/core/error.h"
#include "core/model/internal/bank_model_test_support.h"

namespace bankcheck {
namespace {

using ::testing::HasSubstr;
using testing_support::KindOf;
using testing_support::MessageOf;
using testing_support::OneWarp;
using testing_support::Strided;
using testing_support::ToWarpAccess;

// ---------------------------------------------------------------------------------------------
// 16-byte cp.async: its own rule (docs/model.md, "cp.async"), fitted to the H100 and confirmed on four more
// cases.

// The rule as plainly as possible, sharing no code with the model: per 8-lane phase, the active
// lanes copy one row when their destinations are distinct and lie in one 128-byte-aligned row and
// their sources are distinct and lie within 128 bytes of the lowest (with 8 lanes: a whole row,
// and 128 contiguous bytes, each in any order). A row copy costs 1 wavefront, anything else one
// per active lane.
WarpCost OracleCopy(const std::vector<std::optional<uint64_t>>& destinations,
                    const std::array<uint64_t, kWarpSize>& sources) {
  uint32_t wavefronts = 0;
  uint32_t ideal = 0;
  for (int first = 0; first < kWarpSize; first += 8) {
    std::set<uint64_t> rows, chunks, pieces;
    uint32_t lanes = 0;
    for (int lane = first; lane < first + 8; ++lane) {
      if (!destinations[lane]) continue;
      ++lanes;
      rows.insert(*destinations[lane] / 128);
      chunks.insert(*destinations[lane]);
      pieces.insert(sources[lane]);
    }
    if (lanes == 0) continue;
    ++ideal;
    const bool row_copy = rows.size() == 1 && chunks.size() == lanes && pieces.size() == lanes &&
                          *pieces.rbegin() - *pieces.begin() < 128;
    wavefronts += row_copy ? 1 : lanes;
  }
  WarpCost cost;
  cost.wavefronts = wavefronts;
  cost.ideal = ideal;
  cost.conflicts = wavefronts - ideal;
  return cost;
}

struct CopyPattern {
  std::vector<std::optional<uint64_t>> destinations = std::vector<std::optional<uint64_t>>(kWarpSize);
  std::array<uint64_t, kWarpSize> sources{};

  WarpCopy ToWarpCopy() const {
    WarpCopy copy;
    copy.destination = ToWarpAccess(destinations, 16);
    copy.sources = sources;
    return copy;
  }
};

// Per phase, each side one of: a whole 128-byte range in a random order, the same in lane order,
// lanes `stride` chunks apart, or random chunks close together; some lanes now and then inactive.
CopyPattern RandomCopy(std::mt19937_64& rng) {
  auto pick = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  auto side = [&](uint64_t base, int kind, const std::array<uint64_t, 8>& order, int i) -> uint64_t {
    switch (kind) {
      case 0:
        return base + 16 * order[i];
      case 1:
        return base + 16 * static_cast<uint64_t>(i);
      case 2:
        return base + 16 * static_cast<uint64_t>(i) * (1 + pick(33));
      default:
        return base + 16 * pick(12);
    }
  };
  CopyPattern pattern;
  for (int first = 0; first < kWarpSize; first += 8) {
    std::array<uint64_t, 8> destination_order{}, source_order{};
    std::iota(destination_order.begin(), destination_order.end(), uint64_t{0});
    std::iota(source_order.begin(), source_order.end(), uint64_t{0});
    std::shuffle(destination_order.begin(), destination_order.end(), rng);
    std::shuffle(source_order.begin(), source_order.end(), rng);
    const uint64_t row = 128 * pick(64);
    const uint64_t source_base = 16 * pick(1 << 20);  // aligned to 16 bytes, not always to 128
    const int destination_kind = static_cast<int>(pick(4));
    const int source_kind = static_cast<int>(pick(4));
    const bool sparse = pick(4) == 0;
    for (int i = 0; i < 8; ++i) {
      if (sparse && pick(2) == 0) continue;
      pattern.destinations[first + i] = side(row, destination_kind, destination_order, i);
      pattern.sources[first + i] = side(source_base, source_kind, source_order, i);
    }
  }
  return pattern;
}

TEST(CpAsyncRuleTest, MatchesTheRuleWrittenPlainlyOnRandomCopies) {
  std::mt19937_64 rng(16);
  uint32_t row_copies = 0;
  uint32_t lane_by_lane = 0;
  for (int round = 0; round < 20000; ++round) {
    const CopyPattern pattern = RandomCopy(rng);
    const WarpCost expected = OracleCopy(pattern.destinations, pattern.sources);
    const WarpCost cost = CostWarpCopy(pattern.ToWarpCopy());
    ASSERT_EQ(cost, expected) << "round " << round << ": " << cost.wavefronts << " vs "
                              << expected.wavefronts;
    const WarpExplanation explanation = ExplainWarpCopy(pattern.ToWarpCopy());
    ASSERT_EQ(explanation.cost, expected) << "round " << round;
    uint32_t phase_sum = 0;
    for (const PhaseExplanation& phase : explanation.phases) {
      phase_sum += phase.wavefronts;
      if (phase.active_lanes < 2) continue;
      row_copies += phase.wavefronts == 1 ? 1 : 0;
      lane_by_lane += phase.wavefronts == static_cast<uint32_t>(phase.active_lanes) ? 1 : 0;
    }
    ASSERT_EQ(phase_sum, expected.wavefronts) << "round " << round;
  }
  // Both outcomes are exercised, many times (80,000 phases).
  EXPECT_GT(row_copies, 10000u);
  EXPECT_GT(lane_by_lane, 10000u);
}

WarpCost CopyCost(uint32_t wavefronts, uint32_t ideal) {
  WarpCost cost;
  cost.wavefronts = wavefronts;
  cost.ideal = ideal;
  cost.conflicts = wavefronts - ideal;
  return cost;
}

// Lanes 0..active-1: destination i * destination_stride * 16, source i * source_stride * 16.
WarpCost StridedCopy(int64_t destination_stride, int64_t source_stride, int active = kWarpSize) {
  WarpCopy copy;
  copy.destination = WarpAccess::Strided(16, destination_stride, active);
  copy.sources = WarpAccess::Strided(16, source_stride).addresses;
  return CostWarpCopy(copy);
}

TEST(CpAsyncRuleTest, WholeRowsOnBothSidesOrOneWavefrontPerLane) {
  // Measured on the H100 (baselines/sm_90/cp_async.json, per instruction): contiguous 4; lanes
  // 32 B or 512 B apart on either side 32.
  EXPECT_EQ(StridedCopy(1, 1), CopyCost(4, 4));
  EXPECT_EQ(StridedCopy(2, 1), CopyCost(32, 4));
  EXPECT_EQ(StridedCopy(32, 1), CopyCost(32, 4));
  EXPECT_EQ(StridedCopy(1, 2), CopyCost(32, 4));
  EXPECT_EQ(StridedCopy(1, 32), CopyCost(32, 4));
  // The points the suite's new cases put to the GPU: lanes 64 B or 128 B apart at the source, 64 B
  // apart at the destination (4-way by the bank rule: 16).
  EXPECT_EQ(StridedCopy(1, 4), CopyCost(32, 4));
  EXPECT_EQ(StridedCopy(1, 8), CopyCost(32, 4));
  EXPECT_EQ(StridedCopy(4, 1), CopyCost(32, 4));
  // Fewer lanes: fewer phases; a partial phase within one row on both sides costs 1 (not
  // measured): lanes 8-11 read 32 B apart, within 128 bytes.
  EXPECT_EQ(StridedCopy(1, 1, 12), CopyCost(2, 2));
  EXPECT_EQ(StridedCopy(1, 2, 12), CopyCost(8 + 1, 2));
  EXPECT_EQ(StridedCopy(1, 2, 13), CopyCost(8 + 5, 2));
}

TEST(CpAsyncRuleTest, ARowInAnyOrderIsARow) {
  // Each phase writes its row with the chunk XORed by 5 (the new suite case
  // cp_async/u128_src_s1_smem_s1_xor5), and reads its source backwards: still 4.
  WarpCopy copy;
  copy.destination.bytes = 16;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    copy.destination.SetLane(lane, 16u * (lane ^ 5));
    copy.sources[lane] = 1024 + 16u * (lane / 8 * 8 + 7 - lane % 8);
  }
  EXPECT_EQ(CostWarpCopy(copy), CopyCost(4, 4));
  // One lane moved into the next row: that phase goes lane by lane.
  copy.destination.addresses[3] += 128;
  EXPECT_EQ(CostWarpCopy(copy), CopyCost(3 + 8, 4));
  copy.destination.addresses[3] -= 128;
  // Two lanes of a phase on one source chunk: not 128 contiguous bytes.
  copy.sources[9] = copy.sources[8];
  EXPECT_EQ(CostWarpCopy(copy), CopyCost(3 + 8, 4));
  // A contiguous source that is not 128-byte aligned still counts (no measurement says otherwise).
  copy.sources[9] = copy.sources[8] - 16;
  for (int lane = 0; lane < kWarpSize; ++lane) copy.sources[lane] += 16;
  EXPECT_EQ(CostWarpCopy(copy), CopyCost(4, 4));
  // A destination row that is not 128-byte aligned is two half rows.
  for (int lane = 0; lane < kWarpSize; ++lane) copy.destination.addresses[lane] += 16;
  EXPECT_EQ(CostWarpCopy(copy), CopyCost(32, 4));
}

TEST(CpAsyncRuleTest, FourAndEightByteCopiesKeepTheBankRule) {
  for (const uint32_t bytes : {4u, 8u}) {
    for (const int64_t stride : {1, 2, 32}) {
      WarpCopy copy;
      copy.destination = WarpAccess::Strided(bytes, stride);
      copy.sources = WarpAccess::Strided(bytes, 32).addresses;  // the source does not matter
      EXPECT_EQ(CostWarpCopy(copy), CostWarpAccess(copy.destination)) << bytes << " bytes, stride " << stride;
      EXPECT_EQ(ExplainWarpCopy(copy).cost, CostWarpAccess(copy.destination));
    }
  }
}

TEST(CpAsyncRuleTest, RejectsMisalignedSources) {
  WarpCopy copy;
  copy.destination = WarpAccess::Strided(16, 1);
  copy.sources = WarpAccess::Strided(16, 1).addresses;
  copy.sources[5] += 8;
  EXPECT_THAT(MessageOf([&] { CostWarpCopy(copy); }),
              HasSubstr("lane 5 global source 0x58 (88) is not aligned to its 16-byte copy size"));
  EXPECT_EQ(KindOf([&] { ExplainWarpCopy(copy); }), ErrorKind::kBadInput);
  copy.destination.active_mask &= ~(1u << 5);  // an inactive lane's source is ignored
  EXPECT_EQ(CostWarpCopy(copy), CopyCost(4, 4));
}

// The suite's measured 16-byte cases (baselines/sm_90/cp_async.json, H100), declared as in
// kernels/cp_async.cu.
KindCounts StridedCopyLaunch(uint32_t source_stride, uint32_t shared_stride) {
  // 4 single-warp blocks: lane i copies element (b * 32 + i) * source_stride to buf[i * shared_stride].
  return PredictLaunch(Dim3{4}, Dim3{32},
                       {CpAsync(
                           "buf[lane * smem_s]", 16, [=](Dim3, Dim3 t) { return 16u * t.x * shared_stride; },
                           [=](Dim3 b, Dim3 t) {
                             return 16u * (b.x * 32 + t.x) * source_stride;
                           })})[MemoryKind::kSharedCpAsync];
}

KindCounts TileCopyLaunch(bool swizzle) {
  // 64x64 floats, one single-warp block per 32x32 tile; iteration i, lane l copy chunk q = i*32 + l:
  // row q / 8, chunk q % 8, from global row (by*32 + row), column bx*32 + 4 * chunk.
  auto slot = [swizzle](uint32_t r, uint32_t c) { return swizzle ? c ^ (r % 8) : c; };
  return PredictLaunch(Dim3{2, 2}, Dim3{32},
                       {CpAsync(
                           "tile[r][c]", 16,
                           [=](Dim3, Dim3 t, uint32_t i) {
                             const uint32_t q = i * 32 + t.x;
                             return 16u * (q / 8 * 8 + slot(q / 8, q % 8));
                           },
                           [](Dim3 b, Dim3 t, uint32_t i) {
                             const uint32_t q = i * 32 + t.x;
                             return 4u * ((b.y * 32 + q / 8) * 64 + b.x * 32 + 4 * (q % 8));
                           },
                           8)})[MemoryKind::kSharedCpAsync];
}

TEST(CpAsyncRuleTest, MatchesEveryMeasuredSixteenByteCase) {
  // instructions, wavefronts, ideal as recorded on the H100.
  EXPECT_EQ(StridedCopyLaunch(1, 1), (KindCounts{4, 16, 16}));    // u128_src_s1_smem_s1
  EXPECT_EQ(StridedCopyLaunch(1, 2), (KindCounts{4, 128, 16}));   // u128_src_s1_smem_s2
  EXPECT_EQ(StridedCopyLaunch(1, 32), (KindCounts{4, 128, 16}));  // u128_src_s1_smem_s32
  EXPECT_EQ(StridedCopyLaunch(2, 1), (KindCounts{4, 128, 16}));   // u128_src_s2_smem_s1
  EXPECT_EQ(StridedCopyLaunch(32, 1), (KindCounts{4, 128, 16}));  // u128_src_s32_smem_s1
  EXPECT_EQ(TileCopyLaunch(true), (KindCounts{32, 128, 128}));    // tile32x32_swizzled
  EXPECT_EQ(TileCopyLaunch(false), (KindCounts{32, 128, 128}));   // tile32x32_unswizzled
}

TEST(CpAsyncRuleTest, WithoutASourceFunctionTheSourceIsContiguous) {
  // Shared stride 2: lane by lane either way; contiguous: a row per phase, as a contiguous source.
  EXPECT_EQ(OneWarp(CpAsync("cp.async", 16, [](Dim3, Dim3 t) { return 32u * t.x; })), (KindCounts{1, 32, 4}));
  EXPECT_EQ(OneWarp(CpAsync("cp.async", 16, [](Dim3, Dim3 t) { return 16u * t.x; })), (KindCounts{1, 4, 4}));
  // The three-argument form with a trip count still means the trip count.
  EXPECT_EQ(OneWarp(CpAsync(
                "cp.async", 16, [](Dim3, Dim3 t) { return 16u * t.x; }, 3)),
            (KindCounts{3, 12, 12}));
  // Partial warp: the default source is lane * 16 for the lanes there are.
  EXPECT_EQ(PredictLaunch(Dim3{1}, Dim3{20},
                          {CpAsync("cp.async", 16,
                                   [](Dim3, Dim3 t) { return 16u * t.x; })})[MemoryKind::kSharedCpAsync],
            (KindCounts{1, 3, 3}));
}

TEST(CpAsyncRuleTest, TheBankMapDrawsTheCopy) {
  const PredictedCounts predicted = PredictLaunch(
      Dim3{1}, Dim3{32},
      {CpAsync(
          "buf[lane]", 16, [](Dim3, Dim3 t) { return 16u * t.x; }, [](Dim3, Dim3 t) { return 32u * t.x; })});
  EXPECT_EQ(predicted[MemoryKind::kSharedCpAsync], (KindCounts{1, 32, 4}));
  EXPECT_THAT(predicted.bank_map, HasSubstr("worst instruction: cp.async 'buf[lane]'"));
  EXPECT_THAT(predicted.bank_map, HasSubstr("32 wavefronts, ideal 4, 28 conflicts (8-way)"));
  EXPECT_THAT(predicted.bank_map, HasSubstr("phase 0 (lanes 0-7): 8 wavefronts, worst bank 0 (1 word)"));
}

TEST(CpAsyncRuleTest, BadSourcesNameTheAccess) {
  EXPECT_THAT(MessageOf([] {
                PredictLaunch(Dim3{2}, Dim3{32},
                              {CpAsync(
                                  "buf[lane]", 16, [](Dim3, Dim3 t) { return 16u * t.x; },
                                  [](Dim3 b, Dim3 t) -> std::optional<uint32_t> {
                                    if (b.x == 1 && t.x == 9) return std::nullopt;
                                    return 16u * t.x;
                                  })});
              }),
              HasSubstr("cp.async 'buf[lane]' in block (1,0,0), warp 0, iteration 0: lane 9 has a shared "
                        "destination but its source function gave no address"));
  EXPECT_THAT(MessageOf([] {
                PredictLaunch(Dim3{1}, Dim3{32},
                              {CpAsync(
                                  "buf[lane]", 16, [](Dim3, Dim3 t) { return 16u * t.x; },
                                  [](Dim3, Dim3 t) { return 4u * t.x; })});
              }),
              HasSubstr("lane 1 global source 0x4 (4) is not aligned to its 16-byte copy size"));
  SharedAccess load = SharedLoad("smem[tid]", 4, [](Dim3, Dim3 t) { return 4u * t.x; });
  load.source = CpAsync(
                    "", 4, [](Dim3, Dim3) { return 0; }, [](Dim3, Dim3) { return 0; })
                    .source;
  EXPECT_THAT(MessageOf([&] { PredictLaunch(Dim3{1}, Dim3{32}, {load}); }),
              HasSubstr("load 'smem[tid]' has a source address function; only a cp.async has a source"));
}

}  // namespace
}  // namespace bankcheck
