#pragma once
// `bankcheck compare OLD NEW`: the differences between two sets of measurements, each a results
// file or a baseline file (told apart by their "format" field), or a baselines folder (its
// baselines of the other side's architecture).

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/report.h"
#include "bankcheck/core/verdict.h"

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

struct CompareOptions {
  // The Markdown stays under max_bytes (0: no limit): the headline and totals first, then as much
  // as fits, regressions first, and a line saying how many cases are not shown. Text and JSON hold
  // everything.
  size_t max_bytes = kMaxReportBytes;
  OutputFormat format = OutputFormat::kMarkdown;
  // false: only the cases NEW holds are compared, so a baselines folder against one topic's results
  // lists no removed cases (OLD's other cases are counted in `left_out`); true: OLD's cases that
  // NEW lacks are listed as removed.
  bool all = false;
  // When a case of NEW fails (verdict.h): its verdict against OLD, where OLD's measurement is its
  // baseline; a case NEW measured and OLD did not (new, or skipped there) is missing; a case NEW
  // skipped passes, as in a report; OLD's cases NEW lacks are not judged.
  VerdictPolicy policy;
};

// A case both sides measured.
struct ComparedCase {
  std::string name;
  BaselineVerdict verdict = BaselineVerdict::kMatch;  // comparison.headline()
  BaselineComparison comparison;                      // its table and one line per difference
};

struct CompareOutcome {
  std::string output;  // in CompareOptions::format: summary, differences, new / removed cases, details
  size_t regressions = 0;
  size_t improvements = 0;
  size_t changed = 0;
  size_t unchanged = 0;
  std::vector<ComparedCase> cases;   // every case both measured: regressions, improvements, changes, matches
  std::vector<std::string> added;    // only in NEW
  std::vector<std::string> removed;  // only in OLD (with CompareOptions::all)
  std::vector<std::string> not_compared;  // skipped on one side, measured on the other
  size_t left_out = 0;                    // OLD's cases NEW does not hold, not compared (without `all`)
  VerdictSummary verdicts;                // DecideCase over NEW's cases: `compare` exits 1 when it fails
  bool regressed() const { return regressions > 0; }
  bool fails() const { return verdicts.fails(); }
};

// Names, paths and metadata are escaped as in the report (report.h). The JSON:
//   {"format": "bankcheck-compare", "version": 1,
//    "old", "new": {"path", "kind", "arch", "date"}, "all": false,
//    "gate": {"fails", "failing", "summary" ("6 cases fail: 6 missing."), "allow_missing"},
//    "totals": {"regressions", "improvements", "changed", "unchanged", "added", "removed",
//               "not_compared", "left_out"},   (the Markdown headline's numbers)
//    "regressions", "improvements", "changed": [case, ...],
//    "missing": [case, ...]   (NEW's cases OLD has no measurement of; verdict "missing"),
//    "added", "removed", "not_compared": [name, ...],
//    "cases": [case, ...]}    (every case both measured, regressions first)
// where a case is {"name", "verdict", "differences" (one line each, the launches' then the source
// lines'), "table" (before -> after), "lines" (the source lines' verdict; null where a side has no
// per-line counts)}; "verdict" is the headline of the launches' and the lines' (HeadlineVerdict).
CompareOutcome CompareMeasurementSets(const MeasurementSet& before, const MeasurementSet& after,
                                      const CompareOptions& options);
// In Markdown, of the cases NEW holds, under `max_bytes`.
CompareOutcome CompareMeasurementSets(const MeasurementSet& before, const MeasurementSet& after,
                                      size_t max_bytes = kMaxReportBytes);

}  // namespace bankcheck
