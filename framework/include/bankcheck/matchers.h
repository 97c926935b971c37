#pragma once
// gMock matchers for LaunchRecord, with failure text that shows the measured counts:
//   EXPECT_THAT(record, ConflictFree());
//   EXPECT_THAT(record, AllOf(LoadWays(32), StoreWays(1), SharedLoads(512)));
//   EXPECT_THAT(record, Conflicts(256, 256));

#include <gmock/gmock.h>

#include <cmath>
#include <cstdint>

#include "bankcheck/launch_record.h"

namespace bankcheck::testing {

namespace internal {
inline void Explain(const SharedCounts& c, const char* what, ::testing::MatchResultListener* out) {
  *out << what << ": " << c.instructions << " instructions, " << c.wavefronts << " wavefronts, "
       << c.ideal_wavefronts << " ideal, " << c.conflicts() << " conflicts (" << c.ways() << "-way)";
}
inline bool WaysEqual(double measured, double expected) { return std::fabs(measured - expected) < 1e-9; }
}  // namespace internal

MATCHER(ConflictFree, negation ? "has shared-memory bank conflicts" : "has no shared-memory bank conflicts") {
  internal::Explain(arg.loads, "loads", result_listener);
  *result_listener << "; ";
  internal::Explain(arg.stores, "stores", result_listener);
  return arg.loads.conflicts() == 0 && arg.stores.conflicts() == 0;
}

MATCHER_P(LoadWays, ways,
          std::string(negation ? "doesn't have " : "has ") + "shared loads served " +
              ::testing::PrintToString(ways) + "-way (wavefronts / ideal)") {
  internal::Explain(arg.loads, "loads", result_listener);
  return internal::WaysEqual(arg.loads.ways(), static_cast<double>(ways));
}

MATCHER_P(StoreWays, ways,
          std::string(negation ? "doesn't have " : "has ") + "shared stores served " +
              ::testing::PrintToString(ways) + "-way (wavefronts / ideal)") {
  internal::Explain(arg.stores, "stores", result_listener);
  return internal::WaysEqual(arg.stores.ways(), static_cast<double>(ways));
}

MATCHER_P(SharedLoads, instructions,
          std::string(negation ? "doesn't execute " : "executes ") + ::testing::PrintToString(instructions) +
              " shared load instructions") {
  internal::Explain(arg.loads, "loads", result_listener);
  return arg.loads.instructions == static_cast<uint64_t>(instructions);
}

MATCHER_P(SharedStores, instructions,
          std::string(negation ? "doesn't execute " : "executes ") + ::testing::PrintToString(instructions) +
              " shared store instructions") {
  internal::Explain(arg.stores, "stores", result_listener);
  return arg.stores.instructions == static_cast<uint64_t>(instructions);
}

MATCHER_P2(Conflicts, load_conflicts, store_conflicts,
           std::string(negation ? "doesn't have " : "has ") + ::testing::PrintToString(load_conflicts) +
               " shared load and " + ::testing::PrintToString(store_conflicts) +
               " shared store bank conflicts") {
  internal::Explain(arg.loads, "loads", result_listener);
  *result_listener << "; ";
  internal::Explain(arg.stores, "stores", result_listener);
  return arg.loads.conflicts() == static_cast<uint64_t>(load_conflicts) &&
         arg.stores.conflicts() == static_cast<uint64_t>(store_conflicts);
}

}  // namespace bankcheck::testing
