#pragma once
// Results files: everything one suite run measured, for CI artifacts, reports and comparisons.
//
//   {"format": "bankcheck-results", "version": 1,
//    "metadata": {"arch", "device", "driver", "cuda_runtime", "cuda_driver", "date", "git_commit",
//                 "cuda_compiler", "cuda_architectures", "bankcheck_version" (these three only
//                 when known)},
//    "cases": {"<case name>": {"description": "...", "status": "passed" | "failed" | "skipped",
//                              "expected": {"shared_ld": 2, "shared_st": 1, ...},  (ways per kind)
//                              "launches": [<record_json.h, with "hardware">],
//                              "baseline": "match" | "regression" | "improvement" | "changed" |
//                                          "missing" | "not_compared",
//                              "baseline_lines": "match" | "regression" | "improvement" |
//                                                "changed"   (only when compared line by line),
//                              "baseline_table": "<before -> after table, or empty>",
//                              "messages": ["..."]}}}
//
// CTest runs every case in its own process, so no process sees the whole run. Each case writes
// its own fragment, <results_dir>/cases/<SafeCaseName(name)>.json (itself a results file with
// one case), and MergeResults (`bankcheck merge-results DIR`) combines the fragments into one file;
// the results of several shards or runners of one run merge the same way (docs/ci.md, "Sharding").
// A fragment also says which run of which program wrote it ("run": {"program", "started"}, fragments
// only), so that a folder's fragments of earlier runs (a case since deleted, renamed or not
// selected) are left out of its merge, not merged in (MergeResults).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/run_metadata.h"

namespace bankcheck {

inline constexpr char kResultsFormat[] = "bankcheck-results";
// 4: launches hold TMA's global reads and writes (global_tma_ld, global_tma_st), as baseline
// version 5 does; 3: cp.async's global reads (global_ldgsts), as baseline version 4 does; 2: global-
// and local-memory kinds, as baseline version 3 does. Older versions are read too, their launches
// not counting the kinds they lack.
inline constexpr int kResultsVersion = 4;
inline constexpr int kOldestResultsVersion = 1;
// The baseline version whose launches hold the kinds a results file of `version` holds.
inline int BaselineVersionOfResults(int version) { return version + 1; }

enum class CaseStatus { kPassed, kFailed, kSkipped };
const char* CaseStatusName(CaseStatus status);  // "passed", "failed", "skipped"
std::optional<CaseStatus> ParseCaseStatus(const std::string& name);

// What a case's counts were checked against besides its baseline: the per-launch ways of its
// annotation (c.expect), the line annotations of its kernel's sources, or nothing (a case with
// neither is checked against its baseline only).
enum class ExpectedBy { kCase, kLines, kBaselineOnly };
const char* ExpectedByName(ExpectedBy expected_by);  // "case", "lines", "baseline"
std::optional<ExpectedBy> ExpectedByFromName(const std::string& name);

inline PerKind<double> DefaultExpectedWays() {
  PerKind<double> ways;
  ways.values.fill(1.0);
  return ways;
}

struct CaseResult {
  std::string name;
  std::string description;
  CaseStatus status = CaseStatus::kPassed;
  // The case's annotation: ways per kind (1 for kinds it does not annotate).
  PerKind<double> expected_ways = DefaultExpectedWays();
  std::vector<LaunchRecord> launches;
  // nullopt: not compared (no baseline folder for the arch, or the case did not run).
  std::optional<BaselineVerdict> baseline;
  std::string baseline_table;         // BaselineComparison::table
  std::vector<std::string> messages;  // failures, the skip reason, the baseline message
  ExpectedBy expected_by = ExpectedBy::kCase;
  // How its source lines compared with the baseline's (BaselineComparison::lines); nullopt: not
  // compared line by line.
  std::optional<BaselineVerdict> baseline_lines = std::nullopt;
  // The emulated program's word on the case's output checks (docs/emulate.md): "passed" or "failed"
  // (they ran on outputs the emulator computed), "not computed: <why>", "no output checks: <why>".
  // Empty where the kernels ran (a measured run).
  std::string output = std::string();
};
// Whether the case was skipped only for want of a baseline, its counts kept: the emulated program
// skips such a case (its verdict "missing") rather than fail it, so its counts are what a first
// baseline records (update-baselines --emulated), unlike a skip that measured nothing.
bool SkippedForWantOfABaseline(const CaseResult& result);

// How `output` begins where the case's outputs were not computed (OutputStatus writes it, the
// report reads it: a pass with it is "passed, output checks not evaluated").
inline constexpr const char* kOutputNotComputed = "not computed: ";

// Which run of which suite program wrote a fragment. Every process of one run gives the same: a
// ctest run's test file gives each program's tests when ctest read it (BANKCHECK_RUN_STARTED,
// BankcheckDiscoverTopics.cmake); a program run outside ctest gives its own start to its children.
struct FragmentRun {
  std::string program;  // the program's file name: "my_suite", "my_suite_emulated"
  std::string started;  // when the run began, UTC to the microsecond: "2026-12-07T12:41:09.123456Z"
};

struct RunResults {
  RunMetadata metadata;
  std::map<std::string, CaseResult> cases;  // by name
  FragmentRun run;  // a fragment's (WriteCaseResult); empty in other results files, and then not written
};

// The canonical text of a results file (sorted keys, 2-space indent, trailing newline).
std::string SerializeResults(const RunResults& results);
// Parses and validates a results file read from `path`; Error(kBadInput) naming the file and the
// line:column of a syntax error, or the case and field of a wrong value.
RunResults ParseResults(const std::string& text, const std::filesystem::path& path);
RunResults ReadResults(const std::filesystem::path& path);
// Writes with WriteFileAtomically (file_io.h): a reader never sees half a file; the folder must
// exist; a symbolic link at `path` is refused.
void WriteResults(const std::filesystem::path& path, const RunResults& results);

// The case name with every character but [A-Za-z0-9] as '_' ("demo/stride2" -> "demo_stride2"):
// a fragment's file name, and (kernel suites) the case's GoogleTest parameter name.
std::string SafeCaseName(const std::string& case_name);
// <results_dir>/cases/<SafeCaseName(case_name)>.json
std::filesystem::path CaseResultPath(const std::filesystem::path& results_dir, const std::string& case_name);
// Writes one case's fragment atomically, creating <results_dir> and its cases/ folder where
// missing (CreateOutputFolders, file_io.h: neither may be a link); returns its path.
std::filesystem::path WriteCaseResult(const std::filesystem::path& results_dir, const RunMetadata& metadata,
                                      const CaseResult& result, const FragmentRun& run = {});
// Whether `started` is a FragmentRun's start as bankcheck writes it ("2026-12-07T12:41:09.123456Z":
// one width, so that a later start sorts after an earlier one).
bool IsRunStart(const std::string& started);

// Combines the results of one run from `sources`, each a results folder (every fragment in its
// cases/) or a results file (e.g. one shard's or one runner's, merged before): `bankcheck
// merge-results SOURCE...`. The metadata is theirs (the earliest date; empty fields filled from any
// that has them). Error(kBadInput) when there are no sources or a folder holds no fragments, when
// one is malformed, when two are not of one run (the rule in results.cc: the same commit, build,
// GPU kind, software and counters; only the date may differ), when the counts of one were derived
// by the emulator and another's measured, or when two hold the same case (naming both).
// Of a folder's fragments it merges each program's newest run only (FragmentRun: the latest start;
// a fragment that names no run, written before fragments did, is older than any that does): the
// others are of earlier runs, and `left_out`, where given, says how many were left out and of which
// cases ("" when none).
RunResults MergeResults(const std::vector<std::filesystem::path>& sources, std::string* left_out = nullptr);
// MergeResults of the one folder `results_dir`.
RunResults MergeResults(const std::filesystem::path& results_dir);
// MergeResults, written to `output` (default <results_dir>/results.json, whose folder must exist);
// returns the path.
std::filesystem::path MergeResultsToFile(const std::filesystem::path& results_dir,
                                         const std::filesystem::path& output = {});

}  // namespace bankcheck
