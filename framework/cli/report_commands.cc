// `bankcheck report`, `bankcheck compare` and `bankcheck merge-results`: the results and
// baseline files as Markdown for people, and the one-file-per-run step after a CTest run.

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "bankcheck/compare.h"
#include "bankcheck/error.h"
#include "bankcheck/report.h"
#include "bankcheck/results.h"
#include "commands.h"

namespace bankcheck::cli {
namespace {

// Prints `text` to stdout, or writes it to `output` when one was given.
void Emit(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream file(output, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file)
    throw Error(ErrorKind::kBadInput, "cannot write " + output + "; is its folder there and writable?");
}

void AddReportCommand(CLI::App& app) {
  struct Options {
    std::string results;
    std::string baselines;
    std::string output;
  };
  auto options = std::make_shared<Options>();
  CLI::App* report = app.add_subcommand(
      "report", "Print a results file as Markdown for a pull request or CI job summary, regressions first");
  report->add_option("RESULTS", options->results, "The results file (results.json from merge-results)")
      ->required()
      ->type_name("FILE");
  report
      ->add_option("--baselines", options->baselines,
                   "Compare each case with the baselines in DIR/<arch>/ instead of the comparison stored "
                   "in the results (default: BANKCHECK_BASELINES_DIR when set, as the suite's run does)")
      ->type_name("DIR");
  report->add_option("-o,--output", options->output, "Write the Markdown to FILE instead of stdout")
      ->type_name("FILE");
  report->callback([options] {
    ReportOptions report_options;
    // The folder a suite run used when BANKCHECK_BASELINES_DIR overrode its own: compared the same way.
    const char* from_environment = std::getenv("BANKCHECK_BASELINES_DIR");
    if (!options->baselines.empty()) {
      report_options.baselines_dir = options->baselines;
    } else if (from_environment != nullptr && *from_environment != '\0') {
      report_options.baselines_dir = from_environment;
    }
    Emit(RenderMarkdownReport(ReadResults(options->results), report_options), options->output);
  });
}

void AddCompareCommand(CLI::App& app) {
  struct Options {
    std::string before;
    std::string after;
    std::string output;
  };
  auto options = std::make_shared<Options>();
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Show the differences between two results or baseline files, or a baselines folder and either; exit 1 "
      "if any case regressed");
  compare->footer(
      "Exit status: 0 no case regressed; 1 some case has more conflicts or wavefronts than before; "
      "2 a file could not be read (nothing is written).");
  compare
      ->add_option("OLD", options->before,
                   "The earlier results or baseline file, or a baselines folder (its baselines of NEW's "
                   "architecture, e.g. the suite's BASELINES_DIR)")
      ->required()
      ->type_name("PATH");
  compare->add_option("NEW", options->after, "The later results or baseline file, or a baselines folder")
      ->required()
      ->type_name("PATH");
  compare->add_option("-o,--output", options->output, "Write the Markdown to FILE instead of stdout")
      ->type_name("FILE");
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
    const CompareOutcome outcome = CompareMeasurementSets(before, after);
    Emit(outcome.markdown, options->output);
    if (outcome.regressed()) throw CLI::RuntimeError(kExitFailure);
  });
}

void AddMergeResultsCommand(CLI::App& app) {
  struct Options {
    std::string results_dir;
    std::string output;
  };
  auto options = std::make_shared<Options>();
  CLI::App* merge = app.add_subcommand(
      "merge-results",
      "Combine the per-case results in DIR/cases/ (one per test process) into one results file");
  merge->add_option("DIR", options->results_dir, "The suite run's results folder")
      ->required()
      ->type_name("DIR");
  merge->add_option("-o,--output", options->output, "The file to write (default DIR/results.json)")
      ->type_name("FILE");
  merge->callback([options] {
    const RunResults merged = MergeResults(options->results_dir);
    const std::filesystem::path output = options->output.empty()
                                             ? std::filesystem::path(options->results_dir) / "results.json"
                                             : std::filesystem::path(options->output);
    WriteResults(output, merged);
    std::cout << "wrote " << output.string() << " (" << merged.cases.size() << " cases)\n";
  });
}

}  // namespace

void AddReportCommands(CLI::App& app) {
  AddReportCommand(app);
  AddCompareCommand(app);
  AddMergeResultsCommand(app);
}

}  // namespace bankcheck::cli
