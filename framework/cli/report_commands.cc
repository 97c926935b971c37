// `bankcheck report`, `bankcheck compare`, `bankcheck merge-results` and `bankcheck lines`: the
// results and baseline files as Markdown for people (or text for a terminal, JSON for programs), the
// one-file-per-run step after a CTest run, and the per-instruction tables of attributed launches.

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/case_selection.h"
#include "bankcheck/core/compare.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/report.h"
#include "bankcheck/core/results.h"
#include "commands.h"
#include "core/platform/environment.h"
#include "core/platform/file_io.h"
#include "core/reports/text_table.h"
#include "source_root.h"

namespace bankcheck::cli {
namespace {

// The most --max-bytes and --top take: more is no bound at all, which 0 already says.
constexpr size_t kMaxMaxBytes = 1'000'000'000'000;
constexpr size_t kMaxTop = 1'000'000;

// Prints `text` to stdout, or writes it to `output` when one was given (never through a link).
void Emit(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text << std::flush;
    return;
  }
  WriteFileAtomically(output, text);
}

// A whole number from 0 to `max` (decimal digits only). CLI11's NonNegativeNumber reads a double and
// names DBL_MAX, all 309 digits of it, when it refuses "-1".
CLI::Validator WholeNumberUpTo(size_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        const std::string wanted = "give a whole number from 0 to " + WithThousands(max);
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "'" + text + "' is not a whole number; " + wanted;
        errno = 0;
        const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
        if (errno == ERANGE || value > max) return "'" + text + "' is too large; " + wanted;
        return "";
      },
      "");
}

// --max-bytes: the bound on the Markdown's size (GitHub's job summary holds at most 1 MiB).
void AddMaxBytesOption(CLI::App& command, size_t& max_bytes) {
  command
      .add_option("--max-bytes", max_bytes,
                  "Keep the Markdown under N bytes: headline and totals first, then as many cases as fit, "
                  "regressions first (0: no limit; default " +
                      WithThousands(kMaxReportBytes) + ", under GitHub's 1 MiB job summary)")
      ->type_name("N")
      ->check(WholeNumberUpTo(kMaxMaxBytes));
}

// --format markdown|text|json (default markdown), and for `report` (`at_lines`) github|sarif.
void AddFormatOption(CLI::App& command, std::string& format, bool at_lines) {
  std::string help =
      "markdown (default: for a pull request or job summary), text (for a terminal) or json (for a program: "
      "totals, regressions, improvements, changed, missing and every case)";
  std::vector<std::string> names = {"markdown", "text", "json"};
  if (at_lines) {
    help +=
        "; or the failures at their source lines: github (workflow commands for a GitHub Actions log: "
        "annotations on the pull request's lines) or sarif (SARIF 2.1.0 for GitHub code scanning)";
    names.insert(names.end(), {"github", "sarif"});
  }
  command.add_option("--format", format, help)->type_name("FORMAT")->check(CLI::IsMember(names));
}

OutputFormat FormatNamed(const std::string& name) {
  return name == "json"     ? OutputFormat::kJson
         : name == "text"   ? OutputFormat::kText
         : name == "github" ? OutputFormat::kGithub
         : name == "sarif"  ? OutputFormat::kSarif
                            : OutputFormat::kMarkdown;
}

// --category: a SARIF run's category, as GitHub code scanning shows and keys it.
CLI::Validator CategoryName() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool valid = !text.empty() && text.size() <= 100 &&
                           text.find_first_not_of(
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                               "0123456789._+/-") == std::string::npos;
        return valid ? "" : "'" + text + "' is no category; give 1 to 100 of A-Z a-z 0-9 . _ + / -";
      },
      "");
}

}  // namespace

void AddAllowMissingFlag(CLI::App& command, bool& allow_missing) {
  command.add_flag("--allow-missing", allow_missing,
                   "A case with no baseline (for compare: not measured on the old side) passes; by default "
                   "it fails, so a new kernel cannot pass unchecked");
}

namespace {

void AddReportCommand(CLI::App& app) {
  struct Options {
    std::string results;
    std::string baselines;
    std::string output;
    size_t max_bytes = kMaxReportBytes;
    std::string format = "markdown";
    bool allow_missing = false;
    std::string source_root;
    std::string category = "bankcheck";
  };
  auto options = std::make_shared<Options>();
  CLI::App* report = app.add_subcommand("report",
                                        "Print a results file as Markdown for a pull request or CI job "
                                        "summary (or --format text|json|github|sarif), "
                                        "regressions first; exit 1 if any case fails");
  report->add_option("RESULTS", options->results, "The results file (results.json from merge-results)")
      ->required()
      ->type_name("FILE");
  report
      ->add_option("--baselines", options->baselines,
                   "Compare each case with the baselines in DIR/<arch>/ instead of the comparison stored "
                   "in the results (default: BANKCHECK_BASELINES_DIR when set, as the suite's run does)")
      ->type_name("DIR");
  report->add_option("-o,--output", options->output, "Write the report to FILE instead of stdout")
      ->type_name("FILE");
  AddMaxBytesOption(*report, options->max_bytes);
  AddFormatOption(*report, options->format, true);
  CLI::Option* source_root =
      report
          ->add_option("--source-root", options->source_root,
                       "github and sarif: the repository's root, which their paths are relative to; only "
                       "files under it are read for line annotations (default: $BANKCHECK_SOURCE_ROOT, else "
                       "the current directory)")
          ->type_name("DIR");
  report
      ->add_option("--category", options->category,
                   "sarif: the analysis' category (automationDetails.id), one per SARIF file uploaded from a "
                   "job (default bankcheck)")
      ->type_name("NAME")
      ->check(CategoryName());
  AddAllowMissingFlag(*report, options->allow_missing);
  report->footer(kVerdictExitStatus);
  report->callback([options, source_root] {
    const RunResults results = ReadResults(options->results);
    ReportOptions report_options;
    // The folder a suite run used when BANKCHECK_BASELINES_DIR overrode its own: compared the same way.
    std::string baselines_dir = options->baselines;
    if (baselines_dir.empty()) baselines_dir = AbsolutePathFromEnvironment("BANKCHECK_BASELINES_DIR");
    // The baselines of the results' architecture, loaded here: the renderer reads no file. Results
    // that name no architecture (a run that skipped) have none to load; the report says so.
    std::optional<BaselineSet> baselines;
    if (!baselines_dir.empty()) {
      if (results.metadata.arch.empty()) {
        report_options.baselines_requested_without_arch = true;
      } else {
        baselines = BaselineSet::Load(baselines_dir, results.metadata.arch);
        report_options.baselines = &*baselines;
      }
    }
    report_options.max_bytes = options->max_bytes;
    report_options.results_path = options->results;
    report_options.format = FormatNamed(options->format);
    report_options.policy.allow_missing = options->allow_missing;
    report_options.category = options->category;
    if (report_options.format == OutputFormat::kGithub || report_options.format == OutputFormat::kSarif)
      report_options.source_file =
          SourceFilesUnder(SourceRoot(options->source_root, source_root->count() > 0));
    const ReportOutcome outcome = RenderReport(results, report_options);
    Emit(outcome.output, options->output);
    if (outcome.fails()) throw CLI::RuntimeError(kExitFailure);
  });
}

void AddCompareCommand(CLI::App& app) {
  struct Options {
    std::string before;
    std::string after;
    std::string output;
    size_t max_bytes = kMaxReportBytes;
    std::string format = "markdown";
    bool all = false;
    bool allow_missing = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Show the differences between two results or baseline files, or a baselines folder and either; exit 1 "
      "if any case of NEW fails against OLD");
  compare->footer(
      std::string(kVerdictExitStatus) +
      " OLD is NEW's baseline: a case NEW measured and OLD did not is missing; a case NEW skipped "
      "passes; OLD's cases that NEW lacks are not judged.");
  compare
      ->add_option("OLD", options->before,
                   "The earlier results or baseline file, or a baselines folder (its baselines of NEW's "
                   "architecture, e.g. the suite's BASELINES_DIR)")
      ->required()
      ->type_name("PATH");
  compare->add_option("NEW", options->after, "The later results or baseline file, or a baselines folder")
      ->required()
      ->type_name("PATH");
  compare->add_option("-o,--output", options->output, "Write the comparison to FILE instead of stdout")
      ->type_name("FILE");
  AddMaxBytesOption(*compare, options->max_bytes);
  AddFormatOption(*compare, options->format, false);
  compare->add_flag("--all", options->all,
                    "Also list OLD's cases that NEW does not hold as removed (by default only the cases NEW "
                    "holds are compared, so a baselines folder against one topic's results removes nothing)");
  AddAllowMissingFlag(*compare, options->allow_missing);
  compare->callback([options] {
    // Both sides are read before anything is written, so bad input leaves no partial output. A
    // folder is read after the file on the other side, whose architecture picks its baselines.
    std::error_code error;
    const bool old_is_folder = std::filesystem::is_directory(options->before, error);
    const bool new_is_folder = std::filesystem::is_directory(options->after, error);
    if (old_is_folder && new_is_folder)
      throw Error(ErrorKind::kBadInput,
                  "OLD and NEW are both folders; compare a baselines folder with a results "
                  "or baseline file");
    MeasurementSet before, after;
    if (old_is_folder) {
      after = ReadMeasurementSet(options->after);
      before = ReadBaselineFolder(options->before, after.arch);
    } else {
      before = ReadMeasurementSet(options->before);
      after = new_is_folder ? ReadBaselineFolder(options->after, before.arch)
                            : ReadMeasurementSet(options->after);
    }
    CompareOptions compare_options;
    compare_options.max_bytes = options->max_bytes;
    compare_options.format = FormatNamed(options->format);
    compare_options.all = options->all;
    compare_options.policy.allow_missing = options->allow_missing;
    const CompareOutcome outcome = CompareMeasurementSets(before, after, compare_options);
    Emit(outcome.output, options->output);
    if (outcome.fails()) throw CLI::RuntimeError(kExitFailure);
  });
}

void AddMergeResultsCommand(CLI::App& app) {
  struct Options {
    std::vector<std::string> sources;
    std::string output;
  };
  auto options = std::make_shared<Options>();
  CLI::App* merge = app.add_subcommand(
      "merge-results",
      "Combine the per-case results in DIR/cases/ (one per test process), or the results of several "
      "shards or runners of one run, into one results file");
  merge
      ->add_option("SOURCE", options->sources,
                   "A suite run's results folder (its cases/), or a results file; several: the shards "
                   "or runners of one run")
      ->required()
      ->type_name("DIR|FILE");
  merge->add_option("-o,--output", options->output, "The file to write (default DIR/results.json of one DIR)")
      ->type_name("FILE");
  merge->footer(
      "The sources must be of one run: the same commit, build, GPU kind, software and counters (only "
      "the times may differ), each case in one of them only. Of a folder, each suite program's newest "
      "run is merged: fragments of its earlier runs are left out, and counted.\n"
      "Exit status: 0 written (whatever the cases' verdicts: `bankcheck report` judges them); 2 no "
      "fragments, a malformed one, results of different runs, a case in two sources, or a file that "
      "could not be written.");
  merge->callback([options] {
    const std::vector<std::filesystem::path> sources(options->sources.begin(), options->sources.end());
    std::filesystem::path output = options->output;
    if (output.empty()) {
      if (sources.size() != 1 || !std::filesystem::is_directory(sources.front()))
        throw Error(ErrorKind::kBadInput,
                    "give the file to write with -o: its default, DIR/results.json, is "
                    "for one results folder");
      output = sources.front() / "results.json";
    }
    std::string left_out;
    const RunResults merged = MergeResults(sources, &left_out);
    WriteResults(output, merged);
    if (!left_out.empty()) std::cout << "bankcheck: " << left_out << "\n";
    std::cout << "wrote " << output.string() << " (" << merged.cases.size() << " cases)\n";
  });
}

// The cases that `selection` selects (case_selection.h; every case when it is empty).
std::vector<const CaseResult*> SelectCases(const RunResults& results, const std::string& selection,
                                           const std::string& path) {
  CheckCaseSelection(selection, "--case");
  std::vector<const CaseResult*> selected;
  for (const auto& [name, result] : results.cases)
    if (MatchesCasePatterns(name, selection)) selected.push_back(&result);
  if (selected.empty() && !selection.empty())
    throw Error(ErrorKind::kBadInput, "no case in " + PlainLine(path) + " matches --case '" +
                                          PlainLine(selection) +
                                          "' (','-separated glob patterns over whole case names, such as "
                                          "'transpose/*' or '*/naive')");
  return selected;
}

// "case transpose/naive, launch 0: transpose(float*) (2 launches attributed)" and its table, for
// each distinct table of the selected cases; empty when none of their launches was attributed.
std::string InstructionTables(const std::vector<const CaseResult*>& cases, size_t top,
                              const std::string& source_root) {
  std::string out;
  for (const CaseResult* result : cases) {
    for (const size_t i : LaunchesWithDistinctInstructions(result->launches)) {
      const LaunchRecord& launch = result->launches[i];
      const uint32_t attributed = launch.attributed_launches;
      out += std::string(out.empty() ? "" : "\n") + "case " + PlainLine(result->name) + ", launch " +
             std::to_string(i) + ": " + PlainLine(launch.kernel) + " (" + std::to_string(attributed) +
             (attributed == 1 ? " launch" : " launches") + " attributed)\n" +
             FormatInstructionTable(launch.instructions, top, source_root);
    }
  }
  return out;
}

void AddLinesCommand(CLI::App& app) {
  struct Options {
    std::string results;
    std::string case_filter;
    size_t top = 10;
    std::string source_root;
  };
  auto options = std::make_shared<Options>();
  CLI::App* lines = app.add_subcommand("lines",
                                       "Show which memory instructions (source lines) cost a case its "
                                       "wavefronts or sectors, most excess first");
  lines->footer(
      "Per-instruction counts are recorded for a case that fails, and for every case of a run with "
      "BANKCHECK_ATTRIBUTE=1. Exit status: 0 tables printed; 1 no selected launch has them; 2 bad input.");
  lines->add_option("RESULTS", options->results, "A results file (results.json, or one case's fragment)")
      ->required()
      ->type_name("FILE");
  lines
      ->add_option("--case", options->case_filter,
                   "Only the cases whose name matches one of these ','-separated glob patterns "
                   "('*' any characters, '?' one, [...] a set; the whole name), as BANKCHECK_CASES")
      ->type_name("PATTERNS");
  lines
      ->add_option("--top", options->top,
                   "Show the N instructions of most excess per kernel (0: all; default 10)")
      ->type_name("N")
      ->check(WholeNumberUpTo(kMaxTop));
  CLI::Option* source_root =
      lines
          ->add_option("--source-root", options->source_root,
                       "Show source paths relative to DIR (default: $BANKCHECK_SOURCE_ROOT)")
          ->type_name("DIR");
  lines->callback([options, source_root] {
    const RunResults results = ReadResults(options->results);
    const std::string root = source_root->count() > 0 ? options->source_root : SourceRootFromEnvironment();
    const std::string tables =
        InstructionTables(SelectCases(results, options->case_filter, options->results), options->top, root);
    if (tables.empty()) {
      std::cerr << "bankcheck: error: no launch of the selected cases in " << PlainLine(options->results)
                << " has per-instruction counts. They are recorded when a case fails; to record them for "
                   "a case that passes, run it with BANKCHECK_ATTRIBUTE=1 (e.g. BANKCHECK_ATTRIBUTE=1 "
                   "ctest -R <suite>) and merge the results again.\n";
      throw CLI::RuntimeError(kExitFailure);
    }
    std::cout << tables << std::flush;
  });
}

}  // namespace

void AddReportCommands(CLI::App& app) {
  AddReportCommand(app);
  AddCompareCommand(app);
  AddMergeResultsCommand(app);
  AddLinesCommand(app);
}

}  // namespace bankcheck::cli
