#pragma once
// How CUPTI's SASS Metrics API is set up for counting (cupti_sass_metrics.h): the one place that
// reads BANKCHECK_SASS_CONFIG, an experiment knob for what patching costs (benchmarks/launch_cost.sh
// runs its grid and compares every setting's counts with the default's and ncu's). Unset, the
// default is what every count in docs/counters.md was checked with.

#include <cstdint>
#include <string>

#include "bankcheck/core/memory_kind.h"

namespace bankcheck::internal {

struct SassConfig {
  // CUpti_SassMetrics_OutputGranularity: one counter per instruction for the whole GPU (0), per SM
  // (1) or per SM sub-partition (2); what is read is summed over them either way.
  enum class Granularity : uint8_t { kGpu = 0, kSm = 1, kSmsp = 2 } granularity = Granularity::kGpu;
  // Patch each function at its first launch while enabled (true), or every loaded function at enable.
  bool lazy_patching = true;
  // Which metrics are patched: all (each kind's instruction counter and its traffic and ideal
  // metrics); no-ideal (without the ideal metrics: the ideal reads 0, all traffic excess); ld-st
  // (the instruction counters of LDS and STS only: other kinds' instructions are not counted at
  // all); shared (the shared-memory kinds only, as before global and local memory were counted:
  // what those cost, benchmarks/launch_cost.sh; the others are not counted).
  enum class Metrics : uint8_t { kAll, kNoIdeal, kLdSt, kShared } metrics = Metrics::kAll;

  bool IsDefault() const {
    return granularity == Granularity::kGpu && lazy_patching && metrics == Metrics::kAll;
  }
};

// `text`: comma-separated key=value settings, each key at most once: granularity=gpu|sm|smsp,
// patching=lazy|eager, metrics=all|no-ideal|ld-st|shared; "" is the default. Error(kBadInput) naming
// BANKCHECK_SASS_CONFIG and what it takes for anything else.
SassConfig ParseSassConfig(const std::string& text);

// BANKCHECK_SASS_CONFIG, parsed; the default when unset.
SassConfig SassConfigFromEnvironment();

// The kinds `config` leaves uncounted (metrics=shared: the global and local ones): a record, or a
// per-instruction table, read under it does not count them.
PerKind<bool> KindsLeftOut(const SassConfig& config);

// "granularity=gpu,patching=lazy,metrics=all": every setting, for a record's notes and traces.
std::string Describe(const SassConfig& config);

}  // namespace bankcheck::internal
