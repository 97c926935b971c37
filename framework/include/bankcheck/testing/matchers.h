#pragma once
// gMock matchers for LaunchRecord, with failure text that shows the measured counts:
//   EXPECT_THAT(record, ConflictFree());                  // every kind
//   EXPECT_THAT(record, AllOf(LoadWays(32), StoreWays(1), LoadInstructions(512)));
//   EXPECT_THAT(record, Conflicts(256, 256));            // loads, stores
//   EXPECT_THAT(record, AllOf(KindWays(MemoryKind::kSharedLdmatrix, 8),
//                             KindInstructions(MemoryKind::kSharedLdmatrix, 4)));

#include <gmock/gmock.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/memory_kind.h"

namespace bankcheck::gtest {

namespace internal {
// "ld: 8 instructions, 16 wavefronts, ... | st: ..." for the kinds the record shows.
inline void Explain(const LaunchRecord& r, ::testing::MatchResultListener* out) { *out << DescribeKinds(r); }
// A kind the device cannot measure never matches: its zeros are not measurements.
inline bool Measurable(const LaunchRecord& r, MemoryKind kind, ::testing::MatchResultListener* out) {
  if (!r.unsupported[kind]) return true;
  *out << InfoOf(kind).title << " cannot be measured on this device; ";
  return false;
}
// Ways as a matcher: a number matches within 1e-9 (ways are ratios of counts), a matcher as it is.
template <typename T>
::testing::Matcher<double> WaysMatcher(const T& ways) {
  if constexpr (std::is_arithmetic_v<T>) {
    return ::testing::DoubleNear(static_cast<double>(ways), 1e-9);
  } else {
    return ::testing::SafeMatcherCast<double>(ways);
  }
}
// A count as a matcher: a number matches exactly, a matcher as it is.
template <typename T>
::testing::Matcher<uint64_t> CountMatcher(const T& count) {
  if constexpr (std::is_arithmetic_v<T>) {
    return ::testing::Eq(static_cast<uint64_t>(count));
  } else {
    return ::testing::SafeMatcherCast<uint64_t>(count);
  }
}
// For descriptions: "2-way (wavefronts / ideal)" / "with wavefronts / ideal that is <= 2", and
// "512" / "a number that is > 0".
template <typename T>
std::string WaysText(const T& ways) {
  if constexpr (std::is_arithmetic_v<T>) {
    return ::testing::PrintToString(ways) + "-way (wavefronts / ideal)";
  } else {
    std::ostringstream out;
    out << "with wavefronts / ideal that ";
    ::testing::SafeMatcherCast<double>(ways).DescribeTo(&out);
    return out.str();
  }
}
template <typename T>
std::string CountText(const T& count) {
  if constexpr (std::is_arithmetic_v<T>) {
    return ::testing::PrintToString(count);
  } else {
    std::ostringstream out;
    out << "a number that ";
    ::testing::SafeMatcherCast<uint64_t>(count).DescribeTo(&out);
    return out.str();
  }
}
}  // namespace internal

MATCHER(ConflictFree, negation ? "has shared-memory bank conflicts" : "has no shared-memory bank conflicts") {
  internal::Explain(arg, result_listener);
  for (const MemoryKindInfo& info : MemoryKinds())
    if (info.space == MemorySpace::kShared && arg.kinds[info.kind].conflicts() != 0) return false;
  return true;
}

MATCHER_P2(KindWays, kind, ways,
           std::string(negation ? "doesn't have " : "has ") + InfoOf(kind).title + " served " +
               internal::WaysText(ways)) {
  if (!internal::Measurable(arg, kind, result_listener)) return false;
  internal::Explain(arg, result_listener);
  return arg.kinds[kind].ideal_known() && internal::WaysMatcher(ways).Matches(arg.kinds[kind].ways());
}

MATCHER_P2(KindInstructions, kind, instructions,
           std::string(negation ? "doesn't execute " : "executes ") + internal::CountText(instructions) +
               " " + InfoOf(kind).title + " instructions") {
  if (!internal::Measurable(arg, kind, result_listener)) return false;
  internal::Explain(arg, result_listener);
  return internal::CountMatcher(instructions).Matches(arg.kinds[kind].instructions);
}

MATCHER_P2(KindConflicts, kind, conflicts,
           std::string(negation ? "doesn't have " : "has ") + internal::CountText(conflicts) + " " +
               InfoOf(kind).title + " bank conflicts") {
  if (!internal::Measurable(arg, kind, result_listener)) return false;
  internal::Explain(arg, result_listener);
  return arg.kinds[kind].ideal_known() &&
         internal::CountMatcher(conflicts).Matches(arg.kinds[kind].conflicts());
}

MATCHER_P(LoadWays, ways,
          std::string(negation ? "doesn't have " : "has ") + "shared loads served " +
              internal::WaysText(ways)) {
  internal::Explain(arg, result_listener);
  return internal::WaysMatcher(ways).Matches(arg.loads().ways());
}

MATCHER_P(StoreWays, ways,
          std::string(negation ? "doesn't have " : "has ") + "shared stores served " +
              internal::WaysText(ways)) {
  internal::Explain(arg, result_listener);
  return internal::WaysMatcher(ways).Matches(arg.stores().ways());
}

MATCHER_P(LoadInstructions, instructions,
          std::string(negation ? "doesn't execute " : "executes ") + internal::CountText(instructions) +
              " shared load instructions") {
  internal::Explain(arg, result_listener);
  return internal::CountMatcher(instructions).Matches(arg.loads().instructions);
}

MATCHER_P(StoreInstructions, instructions,
          std::string(negation ? "doesn't execute " : "executes ") + internal::CountText(instructions) +
              " shared store instructions") {
  internal::Explain(arg, result_listener);
  return internal::CountMatcher(instructions).Matches(arg.stores().instructions);
}

MATCHER_P2(Conflicts, load_conflicts, store_conflicts,
           std::string(negation ? "doesn't have " : "has ") + internal::CountText(load_conflicts) +
               " shared load and " + internal::CountText(store_conflicts) + " shared store bank conflicts") {
  internal::Explain(arg, result_listener);
  return internal::CountMatcher(load_conflicts).Matches(arg.loads().conflicts()) &&
         internal::CountMatcher(store_conflicts).Matches(arg.stores().conflicts());
}

}  // namespace bankcheck::gtest
