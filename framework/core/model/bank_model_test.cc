// The CPU bank model (bank_model.h) against its brute-force oracle, on layouts from the research
// note's references, and on bad input. Its rules one by one: bank_model_rules_test.cc; launches:
// predict_launch_test.cc; 16-byte cp.async: cp_async_rule_test.cc.
#include "bankcheck/core/bank_model.h"

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
// The oracle: the research note's rules written as plainly as possible, sharing no code with the
// model. Every byte a lane touches names its word; a phase costs the most distinct words in any
// one bank.

struct OracleCost {
  uint32_t wavefronts = 0;
  uint32_t ideal = 0;
  // Per phase: bank -> distinct words, bank -> lanes.
  std::vector<std::map<uint64_t, std::set<uint64_t>>> words_by_bank;
  std::vector<std::map<uint64_t, std::set<int>>> lanes_by_bank;
};

OracleCost Oracle(const std::vector<std::optional<uint64_t>>& lane_addresses, uint32_t bytes) {
  const int group = bytes == 16 ? 8 : bytes == 8 ? 16 : 32;
  OracleCost cost;
  for (int first = 0; first < 32; first += group) {
    std::map<uint64_t, std::set<uint64_t>> words_by_bank;
    std::map<uint64_t, std::set<int>> lanes_by_bank;
    bool any_active = false;
    for (int lane = first; lane < first + group; ++lane) {
      if (lane >= static_cast<int>(lane_addresses.size()) || !lane_addresses[lane]) continue;
      any_active = true;
      for (uint64_t byte = *lane_addresses[lane]; byte < *lane_addresses[lane] + bytes; ++byte) {
        const uint64_t word = byte / 4;
        words_by_bank[word % 32].insert(word);
        lanes_by_bank[word % 32].insert(lane);
      }
    }
    size_t most = 0;
    for (const auto& [bank, words] : words_by_bank) most = std::max(most, words.size());
    cost.wavefronts += static_cast<uint32_t>(most);
    cost.ideal += any_active ? 1 : 0;
    cost.words_by_bank.push_back(words_by_bank);
    cost.lanes_by_bank.push_back(lanes_by_bank);
  }
  return cost;
}

// Random accesses that exercise the interesting cases: shared words, sub-word bytes of one word,
// strides, sparse and empty masks, addresses far apart and near the top of the address space.
std::vector<std::optional<uint64_t>> RandomLaneAddresses(std::mt19937_64& rng, uint32_t bytes) {
  auto pick = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  const uint64_t span_choices[] = {1, 2, 4, 8, 32, 64, 128, 1024, 48 * 1024, uint64_t{1} << 40};
  const uint64_t span = span_choices[pick(std::size(span_choices))];  // in access-size units
  const uint64_t base = pick(4) == 0 ? (pick(uint64_t{1} << 20)) * 16 : 0;
  const int mask_kind = static_cast<int>(pick(5));
  const int prefix = static_cast<int>(pick(33));
  const bool strided = pick(3) == 0;
  const uint64_t stride = pick(70);
  std::vector<std::optional<uint64_t>> lanes(32);
  for (int lane = 0; lane < 32; ++lane) {
    bool active = true;
    if (mask_kind == 1) active = pick(2) == 0;
    if (mask_kind == 2) active = lane < prefix;
    if (mask_kind == 3) active = pick(8) == 0;
    if (!active) continue;
    if (strided) {
      lanes[lane] = base + lane * stride * bytes;
    } else if (lane > 0 && pick(4) == 0 && lanes[lane - 1]) {
      lanes[lane] = lanes[lane - 1];  // same address as the neighbour
    } else {
      lanes[lane] = base + pick(span) * bytes;
    }
  }
  return lanes;
}

TEST(BankModelOracleTest, MatchesBruteForceOnRandomAccesses) {
  std::mt19937_64 rng(20240531);
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  int compared = 0;
  for (int round = 0; round < 4000; ++round) {
    for (uint32_t bytes : sizes) {
      const auto lanes = RandomLaneAddresses(rng, bytes);
      const OracleCost expected = Oracle(lanes, bytes);
      const WarpCost cost = CostWarpAccess(ToWarpAccess(lanes, bytes));
      ASSERT_EQ(cost.wavefronts, expected.wavefronts) << "round " << round << ", " << bytes << " bytes";
      ASSERT_EQ(cost.ideal, expected.ideal) << "round " << round << ", " << bytes << " bytes";
      ASSERT_EQ(cost.conflicts, expected.wavefronts - expected.ideal);
      if (expected.ideal > 0) {
        ASSERT_DOUBLE_EQ(cost.ways, static_cast<double>(expected.wavefronts) / expected.ideal);
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 20000);
}

TEST(BankModelOracleTest, ExplanationMatchesBruteForceBankByBank) {
  std::mt19937_64 rng(7);
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  for (int round = 0; round < 400; ++round) {
    for (uint32_t bytes : sizes) {
      const auto lanes = RandomLaneAddresses(rng, bytes);
      const OracleCost expected = Oracle(lanes, bytes);
      const WarpExplanation explanation = ExplainWarpAccess(ToWarpAccess(lanes, bytes));
      ASSERT_EQ(explanation.cost, CostWarpAccess(ToWarpAccess(lanes, bytes)));
      ASSERT_EQ(explanation.phases.size(), expected.words_by_bank.size());
      uint32_t worst_phase_wavefronts = 0;
      for (size_t p = 0; p < explanation.phases.size(); ++p) {
        const PhaseExplanation& phase = explanation.phases[p];
        uint32_t most = 0;
        for (int b = 0; b < 32; ++b) {
          const auto words_it = expected.words_by_bank[p].find(b);
          const auto lanes_it = expected.lanes_by_bank[p].find(b);
          const std::vector<uint64_t> want_words =
              words_it == expected.words_by_bank[p].end()
                  ? std::vector<uint64_t>{}
                  : std::vector<uint64_t>(words_it->second.begin(), words_it->second.end());
          const std::vector<int> want_lanes =
              lanes_it == expected.lanes_by_bank[p].end()
                  ? std::vector<int>{}
                  : std::vector<int>(lanes_it->second.begin(), lanes_it->second.end());
          ASSERT_EQ(phase.banks[b].words, want_words) << "phase " << p << " bank " << b;
          ASSERT_EQ(phase.banks[b].lanes, want_lanes) << "phase " << p << " bank " << b;
          most = std::max(most, static_cast<uint32_t>(want_words.size()));
        }
        ASSERT_EQ(phase.wavefronts, most);
        if (most > 0) {
          ASSERT_EQ(phase.banks[phase.worst_bank].words.size(), most);
        } else {
          ASSERT_EQ(phase.worst_bank, -1);
        }
        worst_phase_wavefronts = std::max(worst_phase_wavefronts, most);
      }
      if (worst_phase_wavefronts > 0) {
        ASSERT_EQ(explanation.phases[explanation.worst_phase].wavefronts, worst_phase_wavefronts);
        ASSERT_EQ(explanation.worst_bank, explanation.phases[explanation.worst_phase].worst_bank);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Layouts from the research note's references.

uint64_t FloatAt(uint64_t row, uint64_t column, uint64_t pitch) { return 4 * (row * pitch + column); }

TEST(BankModelLayoutTest, PaddedTileColumnReadsAreConflictFree) {
  for (uint64_t column = 0; column < 32; ++column) {
    WarpAccess padded, unpadded;
    for (int lane = 0; lane < 32; ++lane) {
      padded.SetLane(lane, FloatAt(lane, column, 33));
      unpadded.SetLane(lane, FloatAt(lane, column, 32));
    }
    EXPECT_EQ(CostWarpAccess(padded), (WarpCost{1, 1, 0, 1.0})) << "column " << column;
    EXPECT_EQ(CostWarpAccess(unpadded), (WarpCost{32, 1, 31, 32.0})) << "column " << column;
  }
}

TEST(BankModelLayoutTest, XorSwizzledTileColumnReadsAreConflictFree) {
  for (uint64_t column = 0; column < 32; ++column) {
    WarpAccess column_read, row_write;
    for (uint64_t lane = 0; lane < 32; ++lane) {
      column_read.SetLane(static_cast<int>(lane),
                          FloatAt(lane, column ^ lane, 32));  // tile[r][c ^ r], r = lane
      row_write.SetLane(static_cast<int>(lane),
                        FloatAt(column, lane ^ column, 32));  // row `column`, c = lane
    }
    EXPECT_EQ(CostWarpAccess(column_read), (WarpCost{1, 1, 0, 1.0})) << "column " << column;
    EXPECT_EQ(CostWarpAccess(row_write), (WarpCost{1, 1, 0, 1.0})) << "row " << column;
  }
}

TEST(BankModelLayoutTest, SixteenBytePaddingIsOneVector) {
  WarpAccess pitch36, pitch32;
  pitch36.bytes = pitch32.bytes = 16;
  for (int lane = 0; lane < 32; ++lane) {
    pitch36.SetLane(lane, FloatAt(lane, 0, 36));
    pitch32.SetLane(lane, FloatAt(lane, 0, 32));
  }
  EXPECT_EQ(CostWarpAccess(pitch36), (WarpCost{4, 4, 0, 1.0}));
  EXPECT_EQ(CostWarpAccess(pitch32), (WarpCost{32, 4, 28, 8.0}));
  // A one-float pad breaks 16-byte alignment.
  WarpAccess pitch33;
  pitch33.bytes = 16;
  pitch33.SetLane(1, FloatAt(1, 0, 33));
  EXPECT_THROW(CostWarpAccess(pitch33), Error);
}

// ---------------------------------------------------------------------------------------------
// Bad input.

TEST(BankModelErrorTest, RejectsUnsupportedSizes) {
  for (uint32_t bytes : {0u, 3u, 5u, 6u, 12u, 32u, 64u}) {
    WarpAccess access = WarpAccess::Strided(bytes, 0);
    EXPECT_EQ(KindOf([&] { CostWarpAccess(access); }), ErrorKind::kBadInput) << bytes;
    EXPECT_THAT(MessageOf([&] { ExplainWarpAccess(access); }), HasSubstr("1, 2, 4, 8 or 16")) << bytes;
    EXPECT_THROW(LanesPerPhase(bytes), Error);
  }
}

TEST(BankModelErrorTest, RejectsMisalignedAddresses) {
  WarpAccess access = WarpAccess::Strided(4, 1);
  access.addresses[5] = 22;
  EXPECT_EQ(KindOf([&] { CostWarpAccess(access); }), ErrorKind::kBadInput);
  const std::string message = MessageOf([&] { CostWarpAccess(access); });
  EXPECT_THAT(message, HasSubstr("lane 5"));
  EXPECT_THAT(message, HasSubstr("0x16"));
  EXPECT_THAT(message, HasSubstr("not aligned to its 4-byte"));
  EXPECT_THROW(ExplainWarpAccess(access), Error);
  EXPECT_THROW(CostWarpAccess(WarpAccess::Strided(8, 1, 32, 4)), Error);
  EXPECT_THROW(CostWarpAccess(WarpAccess::Strided(16, 1, 32, 8)), Error);
  EXPECT_THROW(CostWarpAccess(WarpAccess::Strided(2, 1, 32, 1)), Error);
  EXPECT_NO_THROW(CostWarpAccess(WarpAccess::Strided(1, 1, 32, 1)));
}

TEST(BankModelErrorTest, StridedRejectsImpossibleWarps) {
  EXPECT_EQ(KindOf([] { WarpAccess::Strided(4, 1, 33); }), ErrorKind::kBadInput);
  EXPECT_THAT(MessageOf([] { WarpAccess::Strided(4, 1, -1); }), HasSubstr("0 to 32"));
  EXPECT_THAT(MessageOf([] { WarpAccess::Strided(4, -1, 32, 8); }), HasSubstr("lane 3"));
  EXPECT_NO_THROW(WarpAccess::Strided(4, -1, 32, 124));
  EXPECT_THROW(WarpAccess::Strided(16, int64_t{1} << 62, 32), Error);
}
}  // namespace
}  // namespace bankcheck
