#pragma once
// BANKCHECK_TRACE_SESSION=1 (a flag: core/platform/environment.h) prints how long each step of a session
// takes, on stderr: where the time of measuring goes.

#include <chrono>
#include <cstdio>

#include "core/platform/environment.h"

namespace bankcheck::internal {

// Prints, at each Step, the time since the last one (or since construction).
class StepTrace {
 public:
  StepTrace() : enabled_(FlagFromEnvironment("BANKCHECK_TRACE_SESSION")), last_(Clock::now()) {}
  void Step(const char* name) {
    if (!enabled_) return;
    const Clock::time_point now = Clock::now();
    std::fprintf(stderr, "bankcheck trace: %-34s %9.3f ms\n", name,
                 std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point last_;
};

}  // namespace bankcheck::internal
