#pragma once
// Test-only helpers of the bank model's tests (bank_model_test.cc, bank_model_rules_test.cc,
// predict_launch_test.cc, cp_async_rule_test.cc): warps built lane by lane or by stride, one warp's
// counts, and what a call that must fail threw.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/core/error.h"

namespace bankcheck::testing_support {

// A warp's access from each lane's address (nullopt: the lane is off).
inline WarpAccess ToWarpAccess(const std::vector<std::optional<uint64_t>>& lane_addresses, uint32_t bytes) {
  WarpAccess access;
  access.bytes = bytes;
  for (int lane = 0; lane < static_cast<int>(lane_addresses.size()); ++lane) {
    if (lane_addresses[lane]) access.SetLane(lane, *lane_addresses[lane]);
  }
  return access;
}

// The cost of `active` lanes of `bytes` each, `stride` elements apart from `offset`.
inline WarpCost Strided(uint32_t bytes, int64_t stride, int active = 32, uint64_t offset = 0) {
  return CostWarpAccess(WarpAccess::Strided(bytes, stride, active, offset));
}

// One warp, one instruction of this kind: its counts.
inline KindCounts OneWarp(const SharedAccess& access) {
  return PredictLaunch(Dim3{1}, Dim3{32}, {access})[access.kind];
}

// The kind of the bankcheck::Error `f` throws (a test failure when it throws none).
inline ErrorKind KindOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no bankcheck::Error thrown";
  return ErrorKind::kCuda;
}

// The message of the bankcheck::Error `f` throws ("" and a test failure when it throws none).
inline std::string MessageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no bankcheck::Error thrown";
  return "";
}

}  // namespace bankcheck::testing_support
