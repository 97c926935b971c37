#pragma once
// `bankcheck report`: a results file as Markdown for a pull request or a CI job summary.
//
// One table per suite (topic): case, expected ways (ld/st), measured ld and st (conflicts and
// ways), baseline verdict, status. Regressions come first (then failures, improvements, changed
// values, missing baselines); cases that passed unchanged are counted in one line per suite, and
// suites with regressions come before the others. Before -> after tables follow in <details>, with
// the per-instruction table (instruction_counts.h) of each attributed kernel of the case.
//
// Results files can come from a pull request, so nothing in them is written raw: names, topics,
// kernel names, metadata and reasons are one line each, cut to length, with HTML and Markdown
// markup escaped; messages and tables go in code blocks whose fence no line of theirs can close.
// The report stays under ReportOptions::max_bytes (GitHub's job summary holds at most 1 MiB): the
// headline and totals always come first, then as many cases as fit, regressions first, and a line
// saying how many are not shown.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/line_annotations.h"
#include "bankcheck/core/results.h"
#include "bankcheck/core/verdict.h"

namespace bankcheck {

// What `report` and `compare` print: Markdown (for a pull request or a job summary), plain text
// (for a terminal: aligned tables, no markup, control characters shown as "?") or JSON (for a
// program: the documented object of RenderReport and CompareMeasurementSets; keys sorted). `report`
// also writes the failures at their source lines: GitHub workflow commands (kGithub, for a job's
// log, so that each shows on its line of the pull request's diff) and SARIF 2.1.0 (kSarif, for
// GitHub code scanning); see RenderReport. `compare` writes the first three only.
enum class OutputFormat { kMarkdown, kText, kJson, kGithub, kSarif };

// The default bound on a report's (and a comparison's) size: under GitHub's 1 MiB step summary.
inline constexpr size_t kMaxReportBytes = 1'000'000;

// A source file that line info names, as the caller found it on this machine: the renderer reads
// no file.
struct SourceFile {
  // The file relative to the repository's root, '/'-separated ("kernels/transpose.cu"), where a
  // GitHub annotation or a SARIF location can point; empty: the file is not in the repository (a
  // library's header, a path of another machine), and a failure there is shown without a place.
  std::string repository_path;
  // The file's line annotations (ScanLineAnnotations), against which its measured lines are checked
  // (docs/annotations.md); nullptr: not read (outside the repository, not on this machine). Owned
  // by the caller; it must outlive the render.
  const LineAnnotationScan* annotations = nullptr;
};

// What the report is rendered with. The renderer reads no file: baselines are loaded by the caller.
struct ReportOptions {
  // Compare each case with these baselines instead of using the comparison stored in the results.
  // The caller loads them for the results' architecture, BaselineSet::Load(dir,
  // results.metadata.arch), which throws Error(kBadInput) for a malformed baseline file; a set
  // without a folder for that architecture (State::kNoFolder) compares no case, and the report
  // says why. Not owned; it must outlive the call. nullptr: the comparison stored in the results.
  const BaselineSet* baselines = nullptr;
  // Baselines were asked for, but the results name no GPU architecture to load them for (the run
  // skipped): the report says they were not compared and shows the stored comparison. Read only
  // for such results, which are never compared with `baselines` either.
  bool baselines_requested_without_arch = false;
  // The most bytes the report may take (0: no limit).
  size_t max_bytes = kMaxReportBytes;
  // The results file, named in the line saying how to get the full report when cases are not shown.
  std::string results_path;
  // Markdown is bounded by max_bytes; text, JSON, GitHub and SARIF hold every case.
  OutputFormat format = OutputFormat::kMarkdown;
  // When a case fails (verdict.h): strict unless --allow-missing.
  VerdictPolicy policy;
  // GitHub and SARIF: each file that the cases' per-instruction counts name, as the caller found it
  // (called once or more per file). nullptr: no failure is placed at a line, and no line is checked.
  std::function<SourceFile(const std::string& file)> source_file;
  // SARIF: the run's category (automationDetails.id "<category>/"): GitHub code scanning keeps the
  // latest analysis of each category, so each suite uploaded from one job needs its own.
  std::string category = "bankcheck";
};

struct ReportOutcome {
  std::string output;       // in ReportOptions::format
  size_t regressions = 0;   // cases whose baseline verdict is a regression
  VerdictSummary verdicts;  // DecideCase over every case: `report` exits 1 when it fails
  bool regressed() const { return regressions > 0; }
  bool fails() const { return verdicts.fails(); }
};

// The verdicts are computed once and each format only renders them, so the formats agree. The JSON:
//   {"format": "bankcheck-report", "version": 1,
//    "run": {"arch", "device", "driver", "cuda_runtime", "cuda_driver", "date", "git_commit"},
//    "baselines": {"compared": "run" | "folder" | "none", "folder", "reason"},
//    "totals": {"regressions", "improvements", "changed", "missing", "unchanged", "not_compared",
//               "cases", "passed", "failed", "skipped"},   (the Markdown headline's numbers)
//    "gate": {"fails", "failing", "summary" ("2 cases fail: 2 missing."), "allow_missing"},
//    "skip_reasons": [...],
//    "regressions", "improvements", "changed", "missing", "failed": [case, ...],
//    "cases": [case, ...]}   (every case, suites and cases in the Markdown's order)
// where a case is {"name", "topic", "status", "verdict" (null: not compared), "differences" (one
// line each; only when the report compared with --baselines), "table" (before -> after),
// "launches", "conflicts" ({"ld": 1984, ...}; null where the ideal is unknown), "messages",
// "case_verdict" (CaseVerdictName: "missing", "failed", "match", ...), "fails", "reason"}.
//
// GitHub and SARIF list the failures, each at its source line where one is known (README.md):
// each line of the cases' per-instruction counts that does not do what its annotation says (the
// check of docs/annotations.md, against ReportOptions::source_file's annotations; one per line and
// measurement, naming its cases) and each malformed annotation, then each failing case (a failed
// check, or any difference from its baseline, a missing one included) at the line of its kernel
// with the most excess wavefronts in the repository. GitHub: a first line "bankcheck: <headline>",
// then one `::error file=F,line=N,title=T::MESSAGE` per failure (no file where none is known),
// escaped by github_escape.h. SARIF: one rule per kind of failure, one result (level error) per
// failure with a place; failures without one are the invocation's error notifications.
ReportOutcome RenderReport(const RunResults& results, const ReportOptions& options = {});
// RenderReport(...).output in Markdown, whatever options.format says.
std::string RenderMarkdownReport(const RunResults& results, const ReportOptions& options = {});

// The positions in `launches` whose per-instruction tables a reader is shown: each launch with
// instructions, but not one whose kernel and table an earlier launch already shows (every
// attributed launch of a kernel holds the kernel's one table).
std::vector<size_t> LaunchesWithDistinctInstructions(const std::vector<LaunchRecord>& launches);

}  // namespace bankcheck
