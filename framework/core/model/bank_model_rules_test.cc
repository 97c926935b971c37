// The CPU bank model's rules (bank_model.h), one by one as the research note states them, and wide
// accesses against what an H100 counted.
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
// The research note's rules, one by one.

// What the H100 counted for wide accesses whose lanes share addresses (broadcasts, lanes paired by
// n^1, n^2 and others, lanes off): benchmarks/wide_access_probe.sh, copied by
// testdata/make_paired_loads_fixture.py.
struct MeasuredAccess {
  uint32_t bytes;
  bool store;
  std::array<int, kWarpSize> index;  // in elements of `bytes`; -1: the lane is off
  uint32_t wavefronts;
  uint32_t ideal;
};
const MeasuredAccess kMeasuredWideAccesses[] = {
#include "core/model/testdata/paired_loads_fixture.inc"
};

// Every access the model claims to know (UnmeasuredWideAccess gives no reason) costs what the H100
// counted, wavefronts and ideal; the ones it does not claim are the only ones allowed to differ.
TEST(BankModelMeasuredTest, WideAccessesCostWhatTheH100Counted) {
  int known = 0, paired = 0, differ_unknown = 0;
  for (const MeasuredAccess& measured : kMeasuredWideAccesses) {
    WarpCopy instruction;
    instruction.destination.bytes = measured.bytes;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (measured.index[lane] >= 0)
        instruction.destination.SetLane(
            lane, uint64_t{measured.bytes} * static_cast<uint64_t>(measured.index[lane]));
    const MemoryKind kind = measured.store ? MemoryKind::kSharedStore : MemoryKind::kSharedLoad;
    const WarpCost cost = CostInstruction(kind, instruction);
    std::string lanes;
    for (const int index : measured.index) lanes += std::to_string(index) + " ";
    const WarpExplanation explained = ExplainInstruction(kind, instruction);
    EXPECT_EQ(explained.cost, cost) << lanes;
    uint32_t phases = 0;
    for (const PhaseExplanation& phase : explained.phases) phases += phase.wavefronts;
    EXPECT_EQ(phases, cost.wavefronts) << lanes;
    if (UnmeasuredWideAccess(kind, instruction.destination)) {
      differ_unknown += cost.wavefronts != measured.wavefronts || cost.ideal != measured.ideal ? 1 : 0;
      continue;
    }
    ++known;
    EXPECT_EQ(cost.wavefronts, measured.wavefronts)
        << measured.bytes << "-byte " << (measured.store ? "store" : "load") << " of " << lanes;
    EXPECT_EQ(cost.ideal, measured.ideal) << lanes;
    for (int first = 0; first < kWarpSize; first += 2 * LanesPerPhase(measured.bytes))
      paired += ArePairedLoadPhases(instruction.destination, first) && !measured.store ? 1 : 0;
  }
  // Most of the fixture is within the model, paired loads among it; and what it leaves out does
  // differ on the GPU (else the reasons would be needless).
  EXPECT_GE(known, 150);
  EXPECT_GE(paired, 20);
  EXPECT_GE(differ_unknown, 5);
}

TEST(BankModelMeasuredTest, OnlyLoadsOfEightOrSixteenBytesPair) {
  WarpCopy same;
  same.destination = WarpAccess::Strided(16, 0);  // every lane reads one 16-byte vector
  EXPECT_TRUE(ArePairedLoadPhases(same.destination, 0));
  EXPECT_EQ(CostInstruction(MemoryKind::kSharedLoad, same).wavefronts, 2u);
  EXPECT_EQ(CostInstruction(MemoryKind::kSharedStore, same).wavefronts, 4u);
  WarpCopy narrow;
  narrow.destination = WarpAccess::Strided(4, 0);
  EXPECT_FALSE(ArePairedLoadPhases(narrow.destination, 0));
  EXPECT_EQ(CostInstruction(MemoryKind::kSharedLoad, narrow).wavefronts, 1u);
  WarpCopy one_off = same;
  one_off.destination.active_mask &= ~1u;  // lane 0 off: not modelled
  EXPECT_FALSE(ArePairedLoadPhases(one_off.destination, 0));
  EXPECT_TRUE(UnmeasuredWideAccess(MemoryKind::kSharedLoad, one_off.destination).has_value());
  EXPECT_TRUE(UnmeasuredWideAccess(MemoryKind::kSharedStore, one_off.destination).has_value());
  EXPECT_FALSE(UnmeasuredWideAccess(MemoryKind::kSharedLoad, same.destination).has_value());
  EXPECT_FALSE(UnmeasuredWideAccess(MemoryKind::kSharedLoad, narrow.destination).has_value());
}

TEST(BankModelRulesTest, FourByteStrideGivesGcdWays) {
  for (int64_t stride = 0; stride <= 64; ++stride) {
    const WarpCost cost = Strided(4, stride);
    const uint32_t ways = stride == 0 ? 1 : static_cast<uint32_t>(std::gcd(stride, int64_t{32}));
    EXPECT_EQ(cost.wavefronts, ways) << "stride " << stride;
    EXPECT_EQ(cost.ideal, 1u) << "stride " << stride;
    EXPECT_EQ(cost.conflicts, ways - 1) << "stride " << stride;
    EXPECT_DOUBLE_EQ(cost.ways, ways) << "stride " << stride;
  }
}

TEST(BankModelRulesTest, StrideTwoIsTwoWayNotSixteen) { EXPECT_EQ(Strided(4, 2).wavefronts, 2u); }

TEST(BankModelRulesTest, StrideZeroIsABroadcast) {
  EXPECT_EQ(Strided(4, 0), (WarpCost{1, 1, 0, 1.0}));
  EXPECT_EQ(Strided(8, 0).wavefronts, 2u);  // one word pair per phase, two phases
  EXPECT_EQ(Strided(16, 0).wavefronts, 4u);
}

TEST(BankModelRulesTest, StrideThirtyThreeIsConflictFree) {
  EXPECT_EQ(Strided(4, 33), (WarpCost{1, 1, 0, 1.0}));
}

TEST(BankModelRulesTest, SixteenActiveLanesInBankZero) {
  const WarpCost cost = Strided(4, 32, /*active=*/16);
  EXPECT_EQ(cost.wavefronts, 16u);
  EXPECT_EQ(cost.ideal, 1u);
  EXPECT_EQ(cost.conflicts, 15u);
}

TEST(BankModelRulesTest, WideAccessesAreServedInPhases) {
  EXPECT_EQ(LanesPerPhase(1), 32);
  EXPECT_EQ(LanesPerPhase(2), 32);
  EXPECT_EQ(LanesPerPhase(4), 32);
  EXPECT_EQ(LanesPerPhase(8), 16);
  EXPECT_EQ(LanesPerPhase(16), 8);
  EXPECT_EQ(Strided(8, 1), (WarpCost{2, 2, 0, 1.0}));
  EXPECT_EQ(Strided(16, 1), (WarpCost{4, 4, 0, 1.0}));
  EXPECT_EQ(Strided(8, 2), (WarpCost{4, 2, 2, 2.0}));
  EXPECT_EQ(Strided(16, 2), (WarpCost{8, 4, 4, 2.0}));
}

TEST(BankModelRulesTest, OneAndTwoByteStrides) {
  // 1-byte: 32 lanes in 8 words; stride 4 -> 32 words in 32 banks; stride 8 -> two words in each
  // even bank; stride 128 -> 32 words in bank 0.
  EXPECT_EQ(Strided(1, 1).wavefronts, 1u);
  EXPECT_EQ(Strided(1, 2).wavefronts, 1u);
  EXPECT_EQ(Strided(1, 4).wavefronts, 1u);
  EXPECT_EQ(Strided(1, 8).wavefronts, 2u);
  EXPECT_EQ(Strided(1, 128).wavefronts, 32u);
  // 2-byte: stride 1 -> 16 words; stride 2 -> 32 banks; stride 4 -> 2-way; stride 64 -> 32-way.
  EXPECT_EQ(Strided(2, 1).wavefronts, 1u);
  EXPECT_EQ(Strided(2, 2).wavefronts, 1u);
  EXPECT_EQ(Strided(2, 4).wavefronts, 2u);
  EXPECT_EQ(Strided(2, 64).wavefronts, 32u);
  for (uint32_t bytes : {1u, 2u}) {
    for (int64_t stride = 0; stride < 80; ++stride) EXPECT_EQ(Strided(bytes, stride).ideal, 1u);
  }
}

TEST(BankModelRulesTest, SubWordAccessesToOneWordCostOnce) {
  WarpAccess bytes_of_one_word;
  bytes_of_one_word.bytes = 1;
  for (int lane = 0; lane < 32; ++lane) bytes_of_one_word.SetLane(lane, 0x100 + lane % 4);
  EXPECT_EQ(CostWarpAccess(bytes_of_one_word), (WarpCost{1, 1, 0, 1.0}));

  WarpAccess halves_of_one_word;
  halves_of_one_word.bytes = 2;
  for (int lane = 0; lane < 32; ++lane) halves_of_one_word.SetLane(lane, 0x100 + 2 * (lane % 2));
  EXPECT_EQ(CostWarpAccess(halves_of_one_word), (WarpCost{1, 1, 0, 1.0}));

  // Two different words of bank 0, each shared by 16 lanes: 2-way.
  WarpAccess two_words;
  two_words.bytes = 1;
  for (int lane = 0; lane < 32; ++lane) two_words.SetLane(lane, (lane % 2) * 128 + lane % 4 / 2);
  EXPECT_EQ(CostWarpAccess(two_words).wavefronts, 2u);
}

TEST(BankModelRulesTest, PartialWarps) {
  EXPECT_EQ(Strided(4, 1, 20), (WarpCost{1, 1, 0, 1.0}));
  EXPECT_EQ(Strided(8, 1, 10), (WarpCost{1, 1, 0, 1.0}));  // only phase 0 has active lanes
  EXPECT_EQ(Strided(16, 1, 8), (WarpCost{1, 1, 0, 1.0}));
  EXPECT_EQ(Strided(16, 1, 9), (WarpCost{2, 2, 0, 1.0}));

  WarpAccess one_lane_per_phase;  // lanes 0, 8, 16, 24 of a 16-byte access
  one_lane_per_phase.bytes = 16;
  for (int lane : {0, 8, 16, 24}) one_lane_per_phase.SetLane(lane, 16 * lane);
  EXPECT_EQ(CostWarpAccess(one_lane_per_phase), (WarpCost{4, 4, 0, 1.0}));

  EXPECT_EQ(CostWarpAccess(WarpAccess{}), (WarpCost{0, 0, 0, 1.0}));
}

TEST(BankModelRulesTest, InactiveLanesTakeNoPart) {
  WarpAccess access = WarpAccess::Strided(4, 1);
  for (int lane = 1; lane < 32; lane += 2) {
    access.active_mask &= ~(1u << lane);
    access.addresses[lane] = 3;  // conflicting and misaligned, but inactive
  }
  EXPECT_EQ(CostWarpAccess(access), (WarpCost{1, 1, 0, 1.0}));
}

TEST(BankModelRulesTest, EightAndSixteenByteWordsAreConsecutive) {
  // Lane 0's 16-byte vector covers words 0..3; lane 1 reading word 4..7 shares no bank; a lane at
  // 128 bytes (words 32..35, banks 0..3) conflicts with lane 0 in every one of its four banks.
  WarpAccess access;
  access.bytes = 16;
  access.SetLane(0, 0);
  access.SetLane(1, 16);
  EXPECT_EQ(CostWarpAccess(access).wavefronts, 1u);
  access.SetLane(2, 128);
  EXPECT_EQ(CostWarpAccess(access).wavefronts, 2u);
}
}  // namespace
}  // namespace bankcheck
