#pragma once
// What the kernel suite programs share: where baselines and results live (the suite's settings,
// bankcheck/suite/suite.h), what their messages tell a person to run, and the checks every registered
// case goes through.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/line_annotations.h"
#include "bankcheck/core/results.h"
#include "bankcheck/core/verdict.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "core/annotations/line_counts.h"
#include "core/baselines/line_keys.h"
#include "suite/internal/record_command.h"

namespace bankcheck::suites {

// BANKCHECK_BASELINES_DIR, else the suite's BASELINES_DIR.
std::filesystem::path BaselinesDir();
// Where this program's results go: BANKCHECK_RESULTS_DIR, else the suite's RESULTS_DIR; in the
// emulated program that folder's name with "-emulated", beside the measured program's. The one
// place of that rule: the suite's programs print it (--bankcheck_results_dir) for scripts.
std::filesystem::path ResultsDir();
// The run this process's fragments belong to (FragmentRun, results.h): this program's file name, and
// BANKCHECK_RUN_STARTED (its tests' start, given by ctest's test file; checked), else BeginRun's.
FragmentRun ThisFragmentRun();
// Where nothing gave BANKCHECK_RUN_STARTED (a run outside ctest), sets it to now, before the
// supervisor starts its children: every process of the run writes the same run.
void BeginRun();
// BANKCHECK_UPDATE_BASELINES: 1 (a true flag) records measured counts instead of checking them,
// "emulated" the emulated program's derived counts as first baselines; nullopt when unset or false.
std::optional<Recording> BaselineRecording();
bool UpdatingBaselines();
// Why this program (the emulated one, or not) cannot record as `recording` asks; "" when it can.
std::string WhyThisProgramCannotRecord(Recording recording, bool emulated);
// Whether this machine has an NVIDIA driver (/proc/driver/nvidia/version): where the emulated
// program's messages say to record on the GPU rather than first baselines.
bool NvidiaDriverPresent();

// How this program's messages say to record baselines: the suite's test command and test names,
// and the baselines folder when it came from BANKCHECK_BASELINES_DIR.
RecordCommand SuiteRecordCommand();

// BANKCHECK_PRUNE_BASELINES=1: remove baseline entries whose case is no longer registered.
bool PruningBaselines();
// "BANKCHECK_PRUNE_BASELINES=1 <test command> -R '^<annotation prefix><test prefix>\.baseline_files'"
// (the CTest name of GtestNameForBaselineFilesCheck), with the folder as in SuiteRecordCommand().
std::string PruneBaselinesCommand();

// For a case whose counts differ from its baseline: a line saying that the baseline was recorded
// with other GPU software than `now` (SoftwareChange, run_metadata.h), which can change the
// counts without a change in the kernel; "" when the software is the same or not known.
std::string SoftwareChangeNote(const BaselineSet& baselines, const std::string& case_name,
                               const RunMetadata& now);

// A line saying that this run's GPU has no native code in the kernels' build, so that it runs
// JIT-compiled PTX (PtxJitWarning, run_metadata.h); "" when it has, or when that is not known.
std::string JitNote(const RunMetadata& now);

// Records every changed case of a run at once, after it, with a summary:
// "bankcheck merge-results <results_dir> && bankcheck update-baselines <results_dir>/results.json
// --baselines <baselines_dir>" (paths quoted for the shell where they need it).
std::string UpdateBaselinesCommand(const std::filesystem::path& results_dir,
                                   const std::filesystem::path& baselines_dir);

// Failure text when a launch disagrees with the case's annotation; empty when it agrees.
std::vector<std::string> AnnotationMismatches(const Expectation& expect, const LaunchRecord& record);

// Failure text when the CPU model's prediction disagrees with the measured launches (summed);
// empty when it agrees.
std::vector<std::string> ModelMismatches(const PredictedCounts& predicted,
                                         const std::vector<LaunchRecord>& measured);

// BANKCHECK_ATTRIBUTE=1: attribute every case's wavefronts to its instructions, not only those of
// a failing case.
bool AttributionRequested();

// Runs the case once more with a CaseContext whose Measure attributes wavefronts to instructions
// (AttributeInstructions) instead of measuring, and fills the per-instruction counts of `records`
// (the first run's). The second run's own test failures are swallowed: the first run reported its
// checks. Needs a case whose run function can run twice (every registered case allocates its own
// inputs). Returns "" or why attribution was not possible.
std::string AttributeCase(const KernelCase& c, std::vector<LaunchRecord>& records);

// Where the per-instruction sums of a kernel differ from the totals of its attributed launches, for
// what both sources measure: instructions and wavefronts of every kind that is counted per
// instruction (not TMA's launch totals), and the ideal where the record's is exact. Empty when they
// agree.
std::vector<std::string> AttributionSumMismatches(const std::vector<LaunchRecord>& records);

// Per attributed kernel with excess wavefronts: a heading and its `top` instructions by excess.
std::string AttributionSummary(const std::vector<LaunchRecord>& records, size_t top);

// Whether the case's launches are to carry their per-instruction tables (SessionOptions::
// attribute_instructions): always when recording baselines (BANKCHECK_UPDATE_BASELINES=1, which
// keeps each launch's per-line counts), else when its lines are its contract (no c.expect, or line
// annotations in the file that registers it), when its baseline has per-line counts to compare
// (`baseline_has_lines`) or on request (BANKCHECK_ATTRIBUTE=1); not with BANKCHECK_LINES=off
// (benchmarks/line_checks_cost.sh), which compares launch totals only, though a failing case still
// gets them by a second run.
bool WantsInstructionTables(const KernelCase& c, bool baseline_has_lines = false);

// BANKCHECK_LINES=off (set, and not a true flag).
bool LinesOff();

// Whether every launch of `records` has its per-instruction table (counted through SASS metrics,
// or attributed by AttributeCase).
bool HaveInstructionTables(const std::vector<LaunchRecord>& records);

// The line annotations of the source file `file` as it is now, read once per process; nullptr when
// it cannot be read.
const LineAnnotationScan* AnnotationsOf(const std::string& file);
// The keys of its lines (SourceLineKeys, line_keys.h), from the same one read; nullptr when it
// cannot be read.
const std::vector<SourceLineKey>* LineKeysOf(const std::string& file);
// Gives every launch with its per-instruction table its per-line counts (AttachLineRecords), keyed
// by the sources as they are now, files relative to DisplayRoot().
void AttachCaseLines(std::vector<LaunchRecord>& records);

// A case's launches line by line, checked against the line annotations of their sources
// (CheckLines, line_counts.h).
struct CaseLines {
  std::vector<LineCounts> lines;
  LineCheck check;
};
CaseLines CheckCaseLines(const std::string& case_name, const std::vector<LaunchRecord>& records);

// The lines of the cases that ran in this process (each case records its CaseLines::lines), for the
// check across cases: the case globs of annotations that select none of the cases that ran their
// line (NeverMatchingGlobs, line_counts.h). Every case of `registered` not recorded here (of another
// topic, not selected, run by another process after a fault, skipped, without per-line counts)
// counts as one that might have run the line, so a glob that selects one of them is never reported.
void RecordCaseLines(const std::string& case_name, const std::vector<LineCounts>& lines);
std::vector<LineFailure> NeverMatchingGlobsOfThisRun(const std::vector<const KernelCase*>& registered);

// What a case's counts are checked against besides its baseline.
ExpectedBy ExpectationOf(const KernelCase& c, const CaseLines& lines);

// The instructions of `records` attributed to `file`:`line` (each shared table once), as a table.
std::string InstructionsOfLine(const std::vector<LaunchRecord>& records, const std::string& file,
                               uint32_t line);

// The prefix that tables cut off file paths: BANKCHECK_SOURCE_ROOT, else the suite's source folder.
std::string DisplayRoot();

// The registered cases whose access pattern is declared: those with a CPU model check.
std::vector<const KernelCase*> CasesWithAccessPattern();

}  // namespace bankcheck::suites
