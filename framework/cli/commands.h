#pragma once
// The `bankcheck` command's subcommands, each group added to the app by one function.
//
// Exit codes, the same for every subcommand (main.cc maps errors onto them):
//   0  success
//   1  any other failure (a bankcheck::Error of another kind, an unexpected exception)
//   2  bad input: an unknown option, a malformed number, a bankcheck::Error of kind kBadInput
// A command that must end with another status and print nothing more throws
// CLI::RuntimeError(code).

#include <iostream>
#include <string>

#include "core/reports/text_table.h"

namespace CLI {
class App;
}  // namespace CLI

namespace bankcheck::cli {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

// The exit statuses of every command that judges cases (report, compare, run --baselines and
// update-baselines --dry-run): each decides with DecideCase (verdict.h), so they agree.
inline constexpr char kVerdictExitStatus[] =
    "Exit status: 0 no case fails; 1 some case fails: it differs from its baseline (regression, "
    "improvement, changed), has no baseline (unless --allow-missing) or failed in its run (README.md, "
    "\"When a case fails\"); 2 usage error or input that could not be read (nothing is written).";
// --allow-missing, for the commands that judge cases (report_commands.cc).
void AddAllowMissingFlag(CLI::App& command, bool& allow_missing);
// Every message of the command to a person is one line on stderr, "bankcheck: <kind>: <text>":
// kind "error" for every error (PrintError), whichever command or check it comes from. Messages
// quote names and values from files: one plain line (PlainLine), so none adds a line, a terminal
// escape or a CI workflow command of its own.
inline void PrintMessage(const std::string& kind, const std::string& text) {
  std::cerr << "bankcheck: " << kind << ": " << PlainLine(text, 20000) << "\n";
}
inline void PrintError(const std::string& text) { PrintMessage("error", text); }

// `predict` and `explain`: one warp access through the CPU bank model (model_commands.cc).
void AddModelCommands(CLI::App& app);

// Baseline and report commands, and `lines` (report_commands.cc).
void AddReportCommands(CLI::App& app);

// `annotations`: the line annotations of source files as JSON, a linter (annotation_commands.cc);
// and `annotate`.
void AddAnnotationCommands(CLI::App& app);

// `annotate`: the annotations that match results files' per-line counts, written with --apply
// (annotate_command.cc).
void AddAnnotateCommand(CLI::App& app);

// `update-baselines`: records every case of a results file that differs from its baseline
// (update_baselines_command.cc).
void AddUpdateBaselinesCommand(CLI::App& app);

// `run`: a program measured with bankcheck's counters injected (run_command.cc). Its own exit
// statuses are in its --help (the program's, and 77 when no usable GPU is found).
void AddRunCommand(CLI::App& app);
// `bankcheck run ... -- COMMAND ...`: keeps what follows the first "--" after "run" as the program
// to run and returns the count of arguments before it, all that CLI11 is given (it would take the
// program's options for bankcheck's). Other commands' arguments are returned whole.
int SplitRunProgram(int argc, char** argv);

}  // namespace bankcheck::cli
