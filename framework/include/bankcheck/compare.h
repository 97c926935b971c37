#pragma once
// `bankcheck compare OLD NEW`: the differences between two sets of measurements, each a results
// file or a baseline file (told apart by their "format" field), or a baselines folder (its
// baselines of the other side's architecture).

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/launch_record.h"
#include "bankcheck/report.h"

namespace bankcheck {

// The measurements of one file, whatever its kind.
struct MeasurementSet {
  std::filesystem::path path;
  std::string kind;  // "results", "baseline" or "baselines" (a folder)
  std::string arch;
  std::string date;
  std::map<std::string, std::vector<LaunchRecord>> cases;  // measured cases
  std::set<std::string> not_measured;  // results: cases that were skipped (no launches to compare)
};

// Reads either kind of file. Error(kBadInput) naming the file and the line:column of a syntax
// error, the field of a wrong value, or a "format" that is neither kind.
MeasurementSet ReadMeasurementSet(const std::filesystem::path& path);
// Every baseline of `arch` in a baselines folder (<baselines_dir>/<arch>/<topic>.json), as one set.
// Error(kBadInput) when `arch` is empty, the folder holds none for it, or a file is malformed.
MeasurementSet ReadBaselineFolder(const std::filesystem::path& baselines_dir, const std::string& arch);

struct CompareOutcome {
  std::string markdown;  // summary, table of differences, new / removed cases, details
  size_t regressions = 0;
  size_t improvements = 0;
  size_t changed = 0;
  size_t unchanged = 0;
  std::vector<std::string> added;    // only in NEW
  std::vector<std::string> removed;  // only in OLD
  bool regressed() const { return regressions > 0; }
};

// The Markdown stays under `max_bytes` (0: no limit; kMaxReportBytes, report.h, by default): the
// headline and totals first, then as much as fits, regressions first, and a line saying how many
// cases are not shown. Names, paths and metadata are escaped as in the report (report.h).
CompareOutcome CompareMeasurementSets(const MeasurementSet& before, const MeasurementSet& after,
                                      size_t max_bytes = kMaxReportBytes);

}  // namespace bankcheck
