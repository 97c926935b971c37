#include "bankcheck/matchers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bankcheck::testing {
namespace {

using ::testing::AllOf;
using ::testing::Not;

LaunchRecord Record(SharedCounts loads, SharedCounts stores) {
  LaunchRecord r;
  r.loads = loads;
  r.stores = stores;
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
            "has no shared-memory bank conflicts | loads: 8 instructions, 256 wavefronts, 8 ideal, "
            "248 conflicts (32-way); stores: 8 instructions, 8 wavefronts, 8 ideal, 0 conflicts (1-way)");
}

TEST(MatchersTest, Ways) {
  const LaunchRecord r = Record({8, 256, 8}, {8, 16, 8});
  EXPECT_THAT(r, AllOf(LoadWays(32), StoreWays(2)));
  EXPECT_THAT(r, Not(LoadWays(2)));
  EXPECT_EQ(
      FailureText(StoreWays(1), r),
      "has shared stores served 1-way (wavefronts / ideal) | stores: 8 instructions, 16 wavefronts, 8 ideal, "
      "8 conflicts (2-way)");
}

TEST(MatchersTest, InstructionCounts) {
  const LaunchRecord r = Record({128, 4096, 512}, {512, 512, 512});
  EXPECT_THAT(r, AllOf(SharedLoads(128), SharedStores(512)));
  EXPECT_THAT(r, Not(SharedLoads(512)));
  EXPECT_EQ(FailureText(SharedLoads(512), r),
            "executes 512 shared load instructions | loads: 128 instructions, 4096 wavefronts, 512 ideal, "
            "3584 conflicts (8-way)");
}

TEST(MatchersTest, Conflicts) {
  const LaunchRecord r = Record({256, 512, 256}, {256, 512, 256});
  EXPECT_THAT(r, Conflicts(256, 256));
  EXPECT_THAT(r, Not(Conflicts(0, 0)));
  EXPECT_THAT(FailureText(Conflicts(0, 256), r),
              ::testing::HasSubstr(
                  "has 0 shared load and 256 shared store bank conflicts | loads: 256 instructions"));
}

}  // namespace
}  // namespace bankcheck::testing
