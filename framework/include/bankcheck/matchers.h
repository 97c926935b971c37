#pragma once
// gMock matchers for LaunchRecord, with failure text that shows the measured counts:
//   EXPECT_THAT(record, ConflictFree());                  // every kind
//   EXPECT_THAT(record, AllOf(LoadWays(32), StoreWays(1), SharedLoads(512)));
//   EXPECT_THAT(record, Conflicts(256, 256));            // loads, stores
//   EXPECT_THAT(record, AllOf(KindWays(SharedKind::kLdmatrix, 8), KindInstructions(SharedKind::kLdmatrix,
//   4)));

#include <gmock/gmock.h>

#include <cmath>
#include <cstdint>

#include "bankcheck/launch_record.h"
#include "bankcheck/shared_kind.h"

namespace bankcheck::testing {

namespace internal {
// "ld 8 inst / 16 wf (8 conflicts, 2-way) | st ..." for the kinds the record shows.
inline void Explain(const LaunchRecord& r, ::testing::MatchResultListener* out) {
  const char* separator = "";
  for (const SharedKind kind : ShownKinds(r)) {
    *out << separator
         << (r.unsupported[kind] ? std::string(InfoOf(kind).label) + " not measurable on this device"
                                 : Describe(kind, r.shared[kind]));
    separator = " | ";
  }
}
inline bool WaysEqual(double measured, double expected) { return std::fabs(measured - expected) < 1e-9; }
// A kind the device cannot measure never matches: its zeros are not measurements.
inline bool Measurable(const LaunchRecord& r, SharedKind kind, ::testing::MatchResultListener* out) {
  if (!r.unsupported[kind]) return true;
  *out << InfoOf(kind).title << " cannot be measured on this device; ";
  return false;
}
}  // namespace internal

MATCHER(ConflictFree, negation ? "has shared-memory bank conflicts" : "has no shared-memory bank conflicts") {
  internal::Explain(arg, result_listener);
  for (const SharedKindInfo& info : SharedKinds())
    if (arg.shared[info.kind].conflicts() != 0) return false;
  return true;
}

MATCHER_P2(KindWays, kind, ways,
           std::string(negation ? "doesn't have " : "has ") + InfoOf(kind).title + " served " +
               ::testing::PrintToString(ways) + "-way (wavefronts / ideal)") {
  if (!internal::Measurable(arg, kind, result_listener)) return false;
  internal::Explain(arg, result_listener);
  return arg.shared[kind].ideal_known() &&
         internal::WaysEqual(arg.shared[kind].ways(), static_cast<double>(ways));
}

MATCHER_P2(KindInstructions, kind, instructions,
           std::string(negation ? "doesn't execute " : "executes ") + ::testing::PrintToString(instructions) +
               " " + InfoOf(kind).title + " instructions") {
  if (!internal::Measurable(arg, kind, result_listener)) return false;
  internal::Explain(arg, result_listener);
  return arg.shared[kind].instructions == static_cast<uint64_t>(instructions);
}

MATCHER_P2(KindConflicts, kind, conflicts,
           std::string(negation ? "doesn't have " : "has ") + ::testing::PrintToString(conflicts) + " " +
               InfoOf(kind).title + " bank conflicts") {
  if (!internal::Measurable(arg, kind, result_listener)) return false;
  internal::Explain(arg, result_listener);
  return arg.shared[kind].ideal_known() && arg.shared[kind].conflicts() == static_cast<uint64_t>(conflicts);
}

MATCHER_P(LoadWays, ways,
          std::string(negation ? "doesn't have " : "has ") + "shared loads served " +
              ::testing::PrintToString(ways) + "-way (wavefronts / ideal)") {
  internal::Explain(arg, result_listener);
  return internal::WaysEqual(arg.loads().ways(), static_cast<double>(ways));
}

MATCHER_P(StoreWays, ways,
          std::string(negation ? "doesn't have " : "has ") + "shared stores served " +
              ::testing::PrintToString(ways) + "-way (wavefronts / ideal)") {
  internal::Explain(arg, result_listener);
  return internal::WaysEqual(arg.stores().ways(), static_cast<double>(ways));
}

MATCHER_P(SharedLoads, instructions,
          std::string(negation ? "doesn't execute " : "executes ") + ::testing::PrintToString(instructions) +
              " shared load instructions") {
  internal::Explain(arg, result_listener);
  return arg.loads().instructions == static_cast<uint64_t>(instructions);
}

MATCHER_P(SharedStores, instructions,
          std::string(negation ? "doesn't execute " : "executes ") + ::testing::PrintToString(instructions) +
              " shared store instructions") {
  internal::Explain(arg, result_listener);
  return arg.stores().instructions == static_cast<uint64_t>(instructions);
}

MATCHER_P2(Conflicts, load_conflicts, store_conflicts,
           std::string(negation ? "doesn't have " : "has ") + ::testing::PrintToString(load_conflicts) +
               " shared load and " + ::testing::PrintToString(store_conflicts) +
               " shared store bank conflicts") {
  internal::Explain(arg, result_listener);
  return arg.loads().conflicts() == static_cast<uint64_t>(load_conflicts) &&
         arg.stores().conflicts() == static_cast<uint64_t>(store_conflicts);
}

}  // namespace bankcheck::testing
