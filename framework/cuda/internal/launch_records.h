#pragma once
// LaunchRecords from the launch log's launches (launch_log.h): their kernels' names and shapes,
// with the counts of a range's metric values (range profiler) or of what the launch's instructions
// counted (SASS metrics).

#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "cuda/internal/launch_log.h"

namespace bankcheck::internal {

// A record of `launch` without counts: its kernel (or a graph launch's kernels) and shape.
LaunchRecord RecordOf(const LaunchInfo& launch);

// One record from a range's values of the configured metrics.
LaunchRecord MakeRecord(const LaunchInfo& launch, const std::vector<const char*>& names,
                        const std::vector<double>& values);

// The launches as CUPTI made ranges of them: as recorded when there is one range per launch (a
// graph launch then is one range), or with each graph launch replaced by its kernel nodes when
// there is one range per kernel node.
std::vector<LaunchInfo> LaunchesForRanges(const std::vector<LaunchInfo>& launches, size_t ranges);

// kSassMetrics: the records of one launch from what its instructions counted. A kernel launch
// gives one record. A graph launch gives one per kernel node, in node order, when its nodes run
// different kernels (what each kernel counted is then its node's); when a kernel runs in several
// nodes, or an unnamed one ran, the counts cannot be told apart by node, and the graph launch
// gives one record with them all (docs/counters.md).
// The note of a record whose counts include the kernels it launched from the device (dynamic
// parallelism), as ncu's do. Its per-instruction table holds the parent's instructions only: the SASS
// Metrics API counts no device-launched kernel (docs/counters.md).
inline constexpr char kDeviceLaunchesNote[] =
    "the counts include the kernels it launched from the device (dynamic parallelism), as ncu's do";

// With `tables`, each record also gets its per-instruction table from the same read (opcodes and
// source lines looked up now: ResolveInstructions), attributed_launches 1. `unsupported` and
// `not_counted`: SassCounting's.
std::vector<LaunchRecord> SassRecords(const LaunchInfo& launch, const PerKind<bool>& unsupported,
                                      const PerKind<bool>& not_counted, bool tables);

}  // namespace bankcheck::internal
