#pragma once
// Baseline files: the shared-memory counts each case measured when it was last recorded, one
// file per architecture and topic, kept in git so that a change in conflicts shows in review.
//
//   baselines/<arch>/<topic>.json     arch "sm_90"; topic = case name up to the first '/'
//   {"format": "bankcheck-baseline", "version": 2, "arch": "sm_90",
//    "recorded_with": {"device", "driver", "cuda_runtime", "cuda_driver", "date", "cuda_compiler"
//                      (only when known)},
//    "cases": {"<case name>": {"description": "...", "launches": [<record_json.h, exact>]}}}
//
// Version 2 launches may hold "lines": the launch's shared-memory counts per source line and kind,
// each line known by a key that lines inserted or removed elsewhere in its file do not change
// (LineRecord, launch_record.h); a case is compared line by line where both sides have them.
// Version 1 files (no lines) are still read: their cases compare by launch totals only until they
// are recorded again, which writes version 2 with lines.
//
// Files are written with sorted keys and a 2-space indent, so each case is one block and a diff
// shows only the cases that changed. Updates lock the arch folder and replace a file atomically,
// so CTest's one-process-per-case runs can record cases of the same topic at the same time.
//
// Three parts, a source each: the file format (baseline_format.cc), the baselines of an
// architecture as a folder and their locked updates (baseline_store.cc), and comparing measured
// launches with recorded ones (baseline_compare.cc).

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/run_metadata.h"

namespace bankcheck {

inline constexpr char kBaselineFormat[] = "bankcheck-baseline";
// 5: launches hold TMA's global reads and writes (global_tma_ld, global_tma_st); 4: cp.async's
// global reads (global_ldgsts); 3: global- and local-memory kinds
// (MemoryKindInfo::first_baseline_version); 2: lines. A launch read from an older version did not
// count the kinds it lacks: they are neither shown nor compared (IsCompared), so a baseline recorded
// before a kind was added still passes until recorded again.
inline constexpr int kBaselineVersion = 5;
// The oldest version read: 1, launch totals only.
inline constexpr int kOldestBaselineVersion = 1;
// How messages tell a person to record baselines again. The suite layer fills it in for its own
// test command and CTest names (bankcheck_add_kernel_suite); without one it names a plain `ctest`.
struct RecordAdvice {
  // Records every case: "BANKCHECK_UPDATE_BASELINES=1 ctest -R '^KernelSuite/'".
  std::string all = "BANKCHECK_UPDATE_BASELINES=1 ctest";
  // Records one case, given its name; unset: `all`.
  std::function<std::string(const std::string& case_name)> one;
  // The CTest test that runs a case ("KernelSuite/demo"), given its name; unset or "": unknown.
  std::function<std::string(const std::string& case_name)> test_of;

  const std::string& ForAll() const { return all; }
  std::string ForCase(const std::string& case_name) const { return one ? one(case_name) : all; }
  std::string TestOfCase(const std::string& case_name) const { return test_of ? test_of(case_name) : ""; }
};

// The baseline file's name without ".json", for every case name: the name up to its first '/' or
// '#' ("transpose/naive" and "transpose#2" are in transpose.json), with each character other than
// a letter, digit, '_', '-' or '.' replaced by '_' ("my range/k": my_range.json), leading dots
// replaced by '_' too, at most kMaxTopicLength characters, and "_" when nothing is left.
inline constexpr size_t kMaxTopicLength = 200;
std::string TopicOfCase(const std::string& case_name);

struct BaselineEntry {
  std::string description;
  std::vector<LaunchRecord> launches;  // exact counts only; hardware readings are zero
};

// One parsed baseline file.
struct BaselineFile {
  std::string arch;
  RunMetadata recorded_with;  // arch, git_commit and cuda_architectures empty
  std::map<std::string, BaselineEntry> cases;
};

// Parses and validates the text of a baseline file read from `path` (named in every error).
// Error(kBadInput) on malformed JSON ("<path>:<line>:<column>: invalid JSON (...)"), a wrong
// format or version, or a wrong field ("<path>: case "x": launches[0].grid must be ..."); each
// error says how to fix the file, `record.ForAll()` among the ways.
BaselineFile ParseBaselineFile(const std::string& text, const std::filesystem::path& path,
                               const RecordAdvice& record = {});
BaselineFile ReadBaselineFile(const std::filesystem::path& path, const RecordAdvice& record = {});
// The canonical text of a baseline file (what UpdateBaselines writes).
std::string SerializeBaselineFile(const BaselineFile& file);

// Every baseline of one architecture: the *.json files of <baselines_dir>/<arch>/.
class BaselineSet {
 public:
  enum class State {
    kLoaded,    // the folder exists (it may hold no files)
    kNoFolder,  // no folder for this arch: every case is missing its baseline (no_folder_reason())
  };

  // Error(kBadInput) for an empty arch, a malformed file, a file whose "arch" is not the folder's,
  // or a case stored in a file other than its topic's. `record` is what its messages tell a person
  // to run (no_folder_reason(), CompareWithBaseline()).
  static BaselineSet Load(const std::filesystem::path& baselines_dir, const std::string& arch,
                          const RecordAdvice& record = {});

  State state() const { return state_; }
  bool has_folder() const { return state_ == State::kLoaded; }
  const std::string& arch() const { return arch_; }
  const std::filesystem::path& folder() const { return folder_; }  // <baselines_dir>/<arch>
  const RecordAdvice& record_advice() const { return record_; }
  // Why no case has a baseline, with the command that records them; empty when loaded.
  std::string no_folder_reason() const;

  // nullptr when the case has no entry.
  const BaselineEntry* Find(const std::string& case_name) const;
  // <folder>/<topic>.json, whether or not it exists.
  std::filesystem::path FileForCase(const std::string& case_name) const;
  const std::map<std::string, BaselineEntry>& entries() const { return entries_; }
  // The "recorded_with" of the file that holds the case's topic; nullptr when no file was loaded
  // for it.
  const RunMetadata* RecordedWith(const std::string& case_name) const;

  // A set with the given entries (tests, and comparing against one parsed file).
  static BaselineSet FromEntries(std::filesystem::path folder, std::string arch,
                                 std::map<std::string, BaselineEntry> entries, RecordAdvice record = {});

 private:
  State state_ = State::kNoFolder;
  std::string arch_;
  std::filesystem::path folder_;
  std::map<std::string, BaselineEntry> entries_;
  std::map<std::string, RunMetadata> recorded_with_;  // by topic
  RecordAdvice record_;
};

enum class BaselineVerdict {
  kMatch,        // every value equal
  kRegression,   // more conflicts or more wavefronts in some launch (or line), of any kind
  kImprovement,  // fewer conflicts or wavefronts somewhere, and more nowhere
  kChanged,      // same conflicts and wavefronts, other values differ (instructions, launches, grid...)
  kMissing,      // the case has no baseline entry
};
const char* BaselineVerdictName(BaselineVerdict verdict);  // "match", "regression", ...
std::optional<BaselineVerdict> ParseBaselineVerdict(const std::string& name);

// The headline of a comparison of launch totals (`launches`) and of source lines (`lines`, nullopt:
// not compared): the more serious of the two, regression before improvement before changed before
// match (missing stays missing). What messages and reports name and rank a case by; whether it
// fails is DecideCase's (verdict.h), which reads both.
BaselineVerdict HeadlineVerdict(BaselineVerdict launches, const std::optional<BaselineVerdict>& lines);

struct BaselineComparison {
  // The launches' totals (and kernel, grid, block, launch count) compared.
  BaselineVerdict verdict = BaselineVerdict::kMatch;
  // The launches' source lines compared, where both sides have them (LaunchRecord::lines) for some
  // launch of both: a line whose wavefronts or conflicts grew in any kind is a regression, fewer
  // and more nowhere an improvement, other counts (executions, ideal) or a line without traffic
  // added or gone a change. nullopt: no launch had lines on both sides (a baseline recorded before
  // baselines kept lines, BANKCHECK_LINES=off): compared by launch totals only.
  std::optional<BaselineVerdict> lines;
  // Per launch: ld/st instructions, wavefronts, ideal, conflicts as "before -> after" where they
  // differ. Empty for kMissing.
  std::string table;
  // One line per difference: "launch 0 (transpose<float>) ld: wavefronts 64 -> 2048, ...", then one
  // per line that differs: "launch 0 (transpose<float>) kernels/transpose.cu:31 out[i] = tile[x][y];:
  // ld conflict-free -> 32-way (wavefronts 64 -> 2048)".
  std::vector<std::string> differences;
  // The lines' part of `differences`, which reports show beside the table.
  std::vector<std::string> line_differences;
  // Every difference is of source lines that moved to other files, each launch's totals and each
  // line's counts equal (a folder of sources moved): `lines` is kChanged, a stale baseline that
  // names the old paths, and each such launch has one line difference per file the lines moved from.
  bool lines_only_moved = false;
  // For a person: what happened and, unless it matches, the command that records the new values.
  std::string message;

  BaselineVerdict headline() const { return HeadlineVerdict(verdict, lines); }
  bool regressed() const { return headline() == BaselineVerdict::kRegression; }
};

// Compares launches by position; a launch present on one side only counts as zero traffic on the
// other (so an added launch that touches shared memory is a regression). Launches that both sides
// hold with lines are also compared line by line, by key (LineRecord): a line on one side only
// counts as no traffic on the other, so a line whose code changed is one line gone and one added.
// The message is generic ("before"/"after"); CompareWithBaseline words it for baselines.
BaselineComparison CompareLaunches(const std::vector<LaunchRecord>& before,
                                   const std::vector<LaunchRecord>& after);

// Compares a case's measured launches with its entry in `baselines` (which must have a folder).
// kMissing when there is no entry; every message but kMatch's ends with the command that records
// the case, baselines.record_advice().ForCase(case_name).
BaselineComparison CompareWithBaseline(const BaselineSet& baselines, const std::string& case_name,
                                       const std::vector<LaunchRecord>& measured);

struct BaselineUpdate {
  std::string case_name;
  std::string description;
  std::vector<LaunchRecord> launches;
};

// Whether every launch of a baseline entry (or of a measurement) has its lines: a baseline without
// them is compared by launch totals only, and recording the case again adds them.
bool HasLineData(const std::vector<LaunchRecord>& launches);

// Which counts a recording takes. Baselines hold counts measured on a GPU; a team without a GPU may
// record what the emulator derived as first baselines, explicitly (BANKCHECK_UPDATE_BASELINES=emulated,
// `bankcheck update-baselines --emulated`), kept marked as derived ("counters": "emulated") until a
// GPU measures them: a derived count never replaces a measured one.
enum class Recording { kMeasured, kEmulatedFirstBaselines };

// Why `launches` may not be recorded as a baseline; nullopt when they may: launches the emulator
// counted (CountedBy::kEmulated) only as first baselines, and measured launches never as those.
std::optional<std::string> WhyNotRecordable(const std::vector<LaunchRecord>& launches,
                                            Recording recording = Recording::kMeasured);

// Whether a baseline entry's counts were derived by the emulator (recorded as first baselines).
bool IsDerived(const std::vector<LaunchRecord>& launches);

// Writes or replaces `updates` in <baselines_dir>/<arch>/<topic>.json (creating folders and files
// as needed) and sets each touched file's "recorded_with". Other cases in a file are kept exactly.
// Holds flock(<baselines_dir>/<arch>/.lock) around each read-modify-write and replaces each file
// atomically. A file whose entries already hold exactly these values is left as it is (its
// "recorded_with" too). An existing file that is malformed is not touched: Error(kBadInput) saying
// so; an update that WhyNotRecordable refuses writes nothing either: Error(kBadInput) naming the
// case, and so does first baselines' update of a case whose baseline was measured. First baselines
// mark the file's "recorded_with" with "counters": "emulated". Returns the files written, sorted.
std::vector<std::filesystem::path> UpdateBaselines(const std::filesystem::path& baselines_dir,
                                                   const std::string& arch, const RunMetadata& recorded_with,
                                                   const std::vector<BaselineUpdate>& updates,
                                                   const RecordAdvice& record = {},
                                                   Recording recording = Recording::kMeasured);

// Removes the named entries (e.g. StaleBaselineEntries) under the same lock, atomically; a file
// left with no cases is deleted. Names without an entry are ignored. Returns the files changed.
std::vector<std::filesystem::path> RemoveBaselineEntries(const std::filesystem::path& baselines_dir,
                                                         const std::string& arch,
                                                         const std::vector<std::string>& case_names,
                                                         const RecordAdvice& record = {});

// Baseline entries whose case is not registered any more (renamed or deleted cases), sorted.
std::vector<std::string> StaleBaselineEntries(const BaselineSet& baselines,
                                              const std::vector<std::string>& registered_case_names);

}  // namespace bankcheck
