#pragma once
// Source lines that only moved to other files (baseline_compare.cc): the third-party sources moved
// to another folder, a kernel's header renamed. Their counts are the baseline's, at new paths: a
// stale baseline to record again, not lines gone and lines added, each a regression or improvement.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/launch_record.h"

namespace bankcheck::internal {

struct LineMove {
  std::string from;  // the file the baseline names
  std::string to;    // the file the lines are in now
  size_t lines = 0;
};

// The moves, by file and sorted, where the lines of one launch that differ (pairs of a baseline's
// line and a measured one, nullptr on a side that lacks it) are all moves: each on one side only;
// each line gone paired one to one with a line added in another file with its code, occurrence (its
// number where it has no code), kind, executions, wavefronts and ideal; every line of an old file
// gone to one new file, and every line of a new file come from one old file. nullopt otherwise, and
// where nothing differs.
std::optional<std::vector<LineMove>> OnlyMovedLines(
    const std::vector<std::pair<const LineRecord*, const LineRecord*>>& differing);

}  // namespace bankcheck::internal
