// `bankcheck update-baselines`: records, from a suite run's results file, every case whose counts
// differ from its baseline, in one step after the report has been reviewed, and says what it changed.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/case_selection.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/results.h"
#include "bankcheck/core/run_metadata.h"
#include "bankcheck/core/verdict.h"
#include "commands.h"
#include "core/platform/environment.h"
#include "core/reports/text_table.h"

namespace bankcheck::cli {
namespace {

// A case's shared-memory launches summed over launches and kinds, exact counts only (what
// baselines hold): its bank conflicts.
KindCounts CaseTotal(const std::vector<LaunchRecord>& launches) {
  KindCounts total;
  for (const LaunchRecord& launch : launches) {
    for (const MemoryKindInfo& info : MemoryKinds())
      if (info.space == MemorySpace::kShared) total += ExactCounts(launch.kinds[info.kind]);
  }
  return total;
}

std::string ConflictsText(const std::optional<KindCounts>& counts) {
  if (!counts) return "-";
  return counts->ideal_known() ? WithThousands(counts->conflicts()) : std::string("n/a");
}

std::string WavefrontsText(const std::optional<KindCounts>& counts) {
  return counts ? WithThousands(counts->wavefronts) : std::string("-");
}

// A case to record: its verdict against the files now, and its totals before (none when missing)
// and after.
struct Change {
  const CaseResult* result;
  BaselineVerdict verdict;  // the headline of the launches' and the lines' comparison
  std::optional<KindCounts> before;
  KindCounts after;
  bool adds_lines = false;  // its entry has no per-line counts, and the results have them
};

// A case left as it is, and why.
struct LeftAlone {
  std::string name;
  std::string reason;
};

struct UpdateOptions {
  std::string results;
  std::string baselines;
  std::string case_pattern;
  bool dry_run = false;
  bool emulated = false;
};

// What to do with each case of the results.
struct Plan {
  std::vector<Change> changes;
  std::vector<LeftAlone> left_alone;
  size_t unchanged = 0;
  size_t not_selected = 0;
  size_t derived_left_alone = 0;  // cases left alone holding counts the emulator derived
};

std::string BaselinesDirOf(const UpdateOptions& options) {
  std::string baselines_dir = options.baselines;
  if (baselines_dir.empty()) baselines_dir = AbsolutePathFromEnvironment("BANKCHECK_BASELINES_DIR");
  if (baselines_dir.empty()) {
    throw Error(ErrorKind::kBadInput,
                "give --baselines DIR, the suite's baselines folder (its BASELINES_DIR, which holds "
                "<arch>/<topic>.json), or set BANKCHECK_BASELINES_DIR");
  }
  return baselines_dir;
}

// Each case compared with the files as they are now, not with the verdicts stored in the results:
// the summary's "before" is what the update replaces.
Plan PlanUpdate(const RunResults& results, const BaselineSet& baselines, const std::string& selection,
                Recording recording) {
  Plan plan;
  for (const auto& [name, result] : results.cases) {
    if (!MatchesCasePatterns(name, selection)) {
      ++plan.not_selected;
      continue;
    }
    // A case skipped for want of a baseline (the emulated program's) kept its counts: recorded as
    // a case with no baseline is; any other skip measured nothing to record.
    if (result.status == CaseStatus::kSkipped && !SkippedForWantOfABaseline(result)) {
      plan.left_alone.push_back(
          {name, "skipped" + (result.messages.empty() ? std::string() : ": " + result.messages.front())});
      continue;
    }
    if (result.launches.empty()) {
      plan.left_alone.push_back({name, "no measured launch in the results: the case did not get to measure"});
      continue;
    }
    if (const std::optional<std::string> why = WhyNotRecordable(result.launches, recording)) {
      plan.derived_left_alone += IsDerived(result.launches);
      plan.left_alone.push_back({name, *why});
      continue;
    }
    const BaselineEntry* entry = baselines.Find(name);
    if (recording == Recording::kEmulatedFirstBaselines && entry != nullptr && !IsDerived(entry->launches)) {
      plan.left_alone.push_back(
          {name, "its baseline was measured on a GPU, and derived counts never replace measured ones"});
      continue;
    }
    const BaselineCheck check = CheckBaseline(baselines, name, result.launches);
    // An entry recorded before baselines kept lines gets them from results that have them.
    const bool adds_lines = entry != nullptr && !HasLineData(entry->launches) && HasLineData(result.launches);
    // Recorded exactly when the comparison fails the case, by the rule every command applies.
    if (!check.decision.fails && !adds_lines) {
      ++plan.unchanged;
      continue;
    }
    plan.changes.push_back(
        {&result, check.comparison.headline(),
         entry == nullptr ? std::nullopt : std::optional<KindCounts>(CaseTotal(entry->launches)),
         CaseTotal(result.launches), adds_lines});
  }
  return plan;
}

// Prints the table of changes and the summary line; the updates to write.
std::vector<BaselineUpdate> PrintPlan(const Plan& plan, const RunResults& results,
                                      const std::string& selection, bool dry_run) {
  std::vector<TableRow> rows;
  std::vector<BaselineUpdate> updates;
  KindCounts total_before;
  KindCounts total_after;
  std::map<BaselineVerdict, size_t> per_verdict;
  size_t adding_lines = 0;  // entries without per-line counts that get them (baseline.h)
  for (const Change& change : plan.changes) {
    adding_lines += change.adds_lines;
    rows.push_back(
        {std::string(BaselineVerdictName(change.verdict)) + (change.adds_lines ? " (+ lines)" : ""),
         PlainLine(change.result->name),
         BeforeAfter(ConflictsText(change.before), ConflictsText(change.after)),
         BeforeAfter(WavefrontsText(change.before), WavefrontsText(change.after))});
    if (change.before) total_before += *change.before;
    total_after += change.after;
    ++per_verdict[change.verdict];
    updates.push_back({change.result->name, change.result->description, change.result->launches});
  }
  if (rows.empty()) {
    std::cout << (plan.derived_left_alone == 0 ? "No case differs from its baseline.\n"
                                               : "No case to record.\n");
  } else {
    const size_t n = plan.changes.size();
    rows.push_back({"total", std::to_string(n) + (n == 1 ? " case" : " cases"),
                    BeforeAfter(ConflictsText(total_before), ConflictsText(total_after)),
                    BeforeAfter(WavefrontsText(total_before), WavefrontsText(total_after))});
    std::cout << FormatTextTable({"baseline", "case", "conflicts", "wavefronts"}, rows);
  }
  std::cout << "\n"
            << (dry_run ? "Would record " : "Recording ") << plan.changes.size() << " of "
            << results.cases.size() << " cases: " << per_verdict[BaselineVerdict::kRegression]
            << " regression, " << per_verdict[BaselineVerdict::kImprovement] << " improvement, "
            << per_verdict[BaselineVerdict::kChanged] << " changed, "
            << per_verdict[BaselineVerdict::kMissing] << " missing"
            << (adding_lines > 0 ? ", " + std::to_string(adding_lines) + " given per-line counts" : "")
            << "; " << plan.unchanged << " unchanged, " << plan.left_alone.size() << " left alone"
            << (!selection.empty() ? ", " + std::to_string(plan.not_selected) + " not matching --case" : "")
            << ".\n";
  for (const LeftAlone& case_left : plan.left_alone)
    std::cout << "  left alone: " << PlainLine(case_left.name) << " (" << PlainLine(case_left.reason)
              << ")\n";
  if (plan.derived_left_alone > 0)
    std::cout << plan.derived_left_alone
              << " case(s) hold counts the emulator derived: record measured ones from a "
                 "GPU run's results, or these as first baselines with --emulated.\n";
  return updates;
}

// Says where the files' GPU software differs from the run's: the new counts may come from it. Sets,
// not searches of the lists so far: a crafted file may name 100,000 topics.
void PrintSoftwareNotes(const Plan& plan, const BaselineSet& baselines, const RunMetadata& run) {
  std::vector<std::string> notes;
  std::set<std::string> noted;
  for (const Change& change : plan.changes) {
    const RunMetadata* recorded = baselines.RecordedWith(change.result->name);
    const std::string software = recorded == nullptr ? "" : SoftwareChange(*recorded, run);
    const std::string note = "  " + baselines.FileForCase(change.result->name).string() +
                             " was recorded with other GPU software (" + software + ")";
    if (!software.empty() && noted.insert(note).second) notes.push_back(note);
  }
  if (notes.empty()) return;
  std::cout << "Note: the toolkit or driver changed since these files were recorded, so the new counts may "
               "come from it rather than from the kernels:\n";
  for (const std::string& note : notes) std::cout << PlainLine(note, 1000) << "\n";
}

void UpdateBaselinesFrom(const UpdateOptions& options) {
  const RunResults results = ReadResults(options.results);
  const RunMetadata& run = results.metadata;
  if (run.arch.empty()) {
    throw Error(ErrorKind::kBadInput,
                options.results +
                    " names no GPU architecture (its metadata's arch is empty: the run skipped its cases or "
                    "found no usable GPU), so there is no <arch> folder to record into; run the suite on a "
                    "GPU, merge its results again and update from those");
  }
  const std::string baselines_dir = BaselinesDirOf(options);
  const std::string& selection = options.case_pattern;
  CheckCaseSelection(selection, "--case");
  const BaselineSet baselines = BaselineSet::Load(baselines_dir, run.arch);
  const Recording recording = options.emulated ? Recording::kEmulatedFirstBaselines : Recording::kMeasured;
  const Plan plan = PlanUpdate(results, baselines, selection, recording);

  const std::string folder = (std::filesystem::path(baselines_dir) / run.arch).string();
  std::cout << (options.dry_run ? "Dry run: nothing is written.\n" : "") << "Updating the "
            << PlainLine(run.arch) << " baselines in " << PlainLine(folder) << " from "
            << PlainLine(options.results) << "\n\n";
  const std::vector<BaselineUpdate> updates = PrintPlan(plan, results, selection, options.dry_run);
  PrintSoftwareNotes(plan, baselines, run);

  if (options.dry_run) {
    std::set<std::string> files;
    for (const Change& change : plan.changes)
      files.insert(baselines.FileForCase(change.result->name).string());
    if (!files.empty()) std::cout << "Would write:\n";
    for (const std::string& file : files) std::cout << "  " << PlainLine(file, 1000) << "\n";
    if (!plan.changes.empty()) throw CLI::RuntimeError(kExitFailure);
    return;
  }
  const std::vector<std::filesystem::path> written =
      UpdateBaselines(baselines_dir, run.arch, run, updates, {}, recording);
  if (!written.empty()) std::cout << "Wrote:\n";
  for (const std::filesystem::path& file : written)
    std::cout << "  " << PlainLine(file.string(), 1000) << "\n";
}

void AddUpdateBaselines(CLI::App& app) {
  auto options = std::make_shared<UpdateOptions>();
  CLI::App* command = app.add_subcommand(
      "update-baselines",
      "Record the measured counts of every case of a results file that differs from its baseline "
      "(regression, improvement, changed or missing), after review, and print what changed");
  command
      ->add_option("RESULTS", options->results,
                   "The suite run's results file (results.json from merge-results)")
      ->required()
      ->type_name("FILE");
  command
      ->add_option("--baselines", options->baselines,
                   "The suite's baselines folder, which holds <arch>/<topic>.json (default: "
                   "BANKCHECK_BASELINES_DIR)")
      ->type_name("DIR");
  command
      ->add_option("--case", options->case_pattern,
                   "Only the cases whose name matches one of these ','-separated glob patterns "
                   "('*' any characters, '?' one, [...] a set; the whole name), as BANKCHECK_CASES")
      ->type_name("PATTERNS");
  command->add_flag("--dry-run", options->dry_run, "Print the summary, but write nothing");
  command->add_flag(
      "--emulated", options->emulated,
      "Record the emulated program's derived counts (its -emulated results) as first baselines, "
      "marked \"counters\": \"emulated\" until a GPU measures them; never over a measured "
      "baseline (docs/emulate.md)");
  command->footer(
      "Each case is compared with its baseline file as it is now and recorded when that comparison fails it "
      "(README.md, \"When a case fails\": any difference, or no baseline); cases that match are left as they "
      "are, and so are skipped cases and cases with no measured launch (listed). Files are updated under the "
      "arch folder's lock and replaced atomically, as the suite's own recording does. Exit status: 0 done "
      "(also when nothing differed); with --dry-run, 0 nothing to record and 1 some case would be recorded "
      "(a case report --baselines fails on the same files); 2 bad input (nothing is written).");
  command->callback([options] { UpdateBaselinesFrom(*options); });
}

}  // namespace

void AddUpdateBaselinesCommand(CLI::App& app) { AddUpdateBaselines(app); }

}  // namespace bankcheck::cli
