#include "bankcheck/testing/matchers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bankcheck::gtest {
namespace {

using ::testing::AllOf;
using ::testing::Not;

LaunchRecord Record(KindCounts loads, KindCounts stores) {
  LaunchRecord r;
  r.loads() = loads;
  r.stores() = stores;
  return r;
}

// The failure text a matcher gives for `value`: its description plus its explanation.
template <typename Matcher>
std::string FailureText(const Matcher& matcher, const LaunchRecord& value) {
  ::testing::StringMatchResultListener listener;
  const ::testing::Matcher<const LaunchRecord&> m = matcher;
  EXPECT_FALSE(m.MatchAndExplain(value, &listener));
  return ::testing::DescribeMatcher<const LaunchRecord&>(matcher) + " | " + listener.str();
}

TEST(MatchersTest, ConflictFree) {
  EXPECT_THAT(Record({8, 8, 8}, {8, 8, 8}), ConflictFree());
  EXPECT_THAT(Record({8, 16, 8}, {8, 8, 8}), Not(ConflictFree()));
  EXPECT_THAT(Record({8, 8, 8}, {8, 9, 8}), Not(ConflictFree()));
  EXPECT_EQ(FailureText(ConflictFree(), Record({8, 256, 8}, {8, 8, 8})),
            "has no shared-memory bank conflicts | ld: 8 instructions, 256 wavefronts, 8 ideal, "
            "248 conflicts (32-way) | st: 8 instructions, 8 wavefronts, 8 ideal, 0 conflicts (1-way)");
}

TEST(MatchersTest, ConflictFreeCoversEveryKind) {
  LaunchRecord r = Record({8, 8, 8}, {8, 8, 8});
  r.kinds[MemoryKind::kSharedLdmatrix] = {1, 32, 4};
  EXPECT_THAT(r, Not(ConflictFree()));
  EXPECT_THAT(FailureText(ConflictFree(), r),
              ::testing::HasSubstr("| ldsm: 1 instructions, 32 wavefronts, 4 ideal, 28 conflicts (8-way)"));
  EXPECT_THAT(
      r, AllOf(KindWays(MemoryKind::kSharedLdmatrix, 8), KindInstructions(MemoryKind::kSharedLdmatrix, 1),
               KindConflicts(MemoryKind::kSharedLdmatrix, 28), KindWays(MemoryKind::kSharedLoad, 1)));
}

TEST(MatchersTest, CountsAndWaysTakeInnerMatchers) {
  using ::testing::Ge;
  using ::testing::Gt;
  using ::testing::Le;
  const LaunchRecord r = Record({8, 16, 8}, {8, 8, 8});
  EXPECT_THAT(r, AllOf(LoadWays(Le(2)), StoreWays(Ge(1)), LoadInstructions(Gt(0)), Conflicts(Le(8), 0)));
  EXPECT_THAT(r, Not(LoadWays(Le(1.5))));
  EXPECT_THAT(FailureText(LoadWays(Le(1.5)), r),
              ::testing::HasSubstr("has shared loads served with wavefronts / ideal that is <= 1.5 |"));
  EXPECT_THAT(FailureText(StoreInstructions(Gt(8)), r),
              ::testing::HasSubstr("executes a number that is > 8 shared store instructions"));
}

TEST(MatchersTest, ARecordPrintsAsItsSummary) {
  LaunchRecord r = Record({8, 16, 8}, {8, 8, 8});
  r.kernel = "stride2(float*)";
  EXPECT_EQ(::testing::PrintToString(r), Summary(r));
}

TEST(MatchersTest, KindsTheDeviceCannotMeasureNeverMatch) {
  LaunchRecord r = Record({8, 8, 8}, {8, 8, 8});
  r.unsupported[MemoryKind::kSharedStmatrix] = true;
  EXPECT_THAT(r, Not(KindInstructions(MemoryKind::kSharedStmatrix, 0)));
  EXPECT_THAT(FailureText(KindInstructions(MemoryKind::kSharedStmatrix, 0), r),
              ::testing::HasSubstr("stmatrix (STSM) cannot be measured on this device"));
}

TEST(MatchersTest, Ways) {
  const LaunchRecord r = Record({8, 256, 8}, {8, 16, 8});
  EXPECT_THAT(r, AllOf(LoadWays(32), StoreWays(2)));
  EXPECT_THAT(r, Not(LoadWays(2)));
  EXPECT_EQ(
      FailureText(StoreWays(1), r),
      "has shared stores served 1-way (wavefronts / ideal) | ld: 8 instructions, 256 wavefronts, 8 ideal, "
      "248 conflicts (32-way) | st: 8 instructions, 16 wavefronts, 8 ideal, 8 conflicts (2-way)");
}

TEST(MatchersTest, InstructionCounts) {
  const LaunchRecord r = Record({128, 4096, 512}, {512, 512, 512});
  EXPECT_THAT(r, AllOf(LoadInstructions(128), StoreInstructions(512)));
  EXPECT_THAT(r, Not(LoadInstructions(512)));
  EXPECT_EQ(FailureText(LoadInstructions(512), r),
            "executes 512 shared load instructions | ld: 128 instructions, 4096 wavefronts, 512 ideal, "
            "3584 conflicts (8-way) | st: 512 instructions, 512 wavefronts, 512 ideal, 0 conflicts (1-way)");
}

TEST(MatchersTest, Conflicts) {
  const LaunchRecord r = Record({256, 512, 256}, {256, 512, 256});
  EXPECT_THAT(r, Conflicts(256, 256));
  EXPECT_THAT(r, Not(Conflicts(0, 0)));
  EXPECT_THAT(
      FailureText(Conflicts(0, 256), r),
      ::testing::HasSubstr("has 0 shared load and 256 shared store bank conflicts | ld: 256 instructions"));
}

}  // namespace
}  // namespace bankcheck::gtest
