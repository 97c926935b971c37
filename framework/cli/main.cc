// The `bankcheck` command: the command-line front end of the bankcheck framework.
//
// Every error it prints is one line, `bankcheck: error: <what>` (CLI11's parse errors too, with
// `did you mean 'predict'?` for a misspelt command or option), and usage errors exit 2.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/version.h"
#include "commands.h"

namespace {

// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// "; did you mean 'predict'?" for the nearest of `known` within 2 edits of `word`, else "".
std::string DidYouMean(const std::string& word, const std::vector<std::string>& known) {
  const std::string* nearest = nullptr;
  size_t best = 3;
  for (const std::string& candidate : known) {
    const size_t distance = EditDistance(word, candidate);
    if (distance < best) {
      best = distance;
      nearest = &candidate;
    }
  }
  return nearest ? "; did you mean '" + *nearest + "'?" : "";
}

std::vector<std::string> CommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(command->get_name());
  return names;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

// The long options `command` takes, and --help (and --version for the app itself).
std::vector<std::string> LongOptions(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options())
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

// What an ExtrasError's first unexpected word is, said about `command` (the subcommand given, or
// the app when none was), with the nearest known name.
std::string ExtrasMessage(const CLI::App& app, const CLI::App& command,
                          const std::vector<std::string>& extras) {
  const std::string& word = extras.front();
  std::string message;
  const std::string command_name = &command == &app ? "bankcheck" : "bankcheck " + command.get_name();
  if (word.size() > 1 && word[0] == '-') {
    const std::string name = word.substr(0, word.find('='));
    message = command_name + " has no option " + name;
    if (name.rfind("--", 0) == 0) message += DidYouMean(name, LongOptions(command));
  } else if (&command == &app) {
    message = "'" + word + "' is not a command";
    const std::string suggestion = DidYouMean(word, CommandNames(app));
    message += suggestion.empty() ? " (the commands: " + Joined(CommandNames(app)) + ")" : suggestion;
  } else {
    message = command_name + " takes no argument '" + word + "'";
  }
  if (extras.size() > 1) {
    std::vector<std::string> rest(extras.begin() + 1, extras.end());
    message += " (also unexpected: " + Joined(rest) + ")";
  }
  return message;
}

// The unexpected words in the order they were given (CLI11 keeps them in no useful order).
std::vector<std::string> ExtrasInOrder(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> unordered = app.remaining(true);
  std::vector<std::string> extras;
  for (int i = 1; i < argc; ++i) {
    const auto found = std::find(unordered.begin(), unordered.end(), argv[i]);
    if (found == unordered.end()) continue;
    extras.push_back(*found);
    unordered.erase(found);
  }
  extras.insert(extras.end(), unordered.begin(), unordered.end());
  return extras;
}

// Prints a parse error in the one form, and where to look; returns the exit status.
int ReportParseError(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: printed on stdout
  const std::vector<CLI::App*> given = app.get_subcommands();
  const CLI::App* command = given.empty() ? &app : given.front();
  std::string message = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const std::vector<std::string> extras = ExtrasInOrder(app, argc, argv);
    // A word before the subcommand ("bankcheck merge-result run") is a misspelt command, not an
    // argument of the subcommand that follows it.
    const auto position = [&](const std::string& word) {
      return std::find_if(argv + 1, argv + argc, [&](const char* arg) { return word == arg; }) - argv;
    };
    if (command != &app && !extras.empty() && extras.front()[0] != '-' &&
        position(extras.front()) < position(command->get_name()))
      command = &app;
    if (!extras.empty()) message = ExtrasMessage(app, *command, extras);
  } else if (command != &app) {
    message = command->get_name() + ": " + message;
  }
  const std::string help =
      command == &app ? "bankcheck --help" : "bankcheck " + command->get_name() + " --help";
  std::cerr << "bankcheck: error: " << message << "\nRun '" << help << "' for more information.\n";
  return bankcheck::cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  argc = bankcheck::cli::SplitRunProgram(argc, argv);
  CLI::App app{"Shared-memory bank-conflict tools for GPU kernels.", "bankcheck"};
  // At most one subcommand; "none" is checked after parsing, so that a misspelt one is reported
  // as the unexpected word it is rather than as a missing subcommand.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("bankcheck ") + bankcheck::Version());
  bankcheck::cli::AddModelCommands(app);
  bankcheck::cli::AddReportCommands(app);
  bankcheck::cli::AddAnnotationCommands(app);
  bankcheck::cli::AddUpdateBaselinesCommand(app);
  bankcheck::cli::AddRunCommand(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's chosen status; it has said what it had to
  } catch (const CLI::ParseError& e) {
    return ReportParseError(app, e, argc, argv);
  } catch (const bankcheck::Error& e) {
    bankcheck::cli::PrintError(e.what());
    return e.kind() == bankcheck::ErrorKind::kBadInput ? bankcheck::cli::kExitBadInput
                                                       : bankcheck::cli::kExitFailure;
  } catch (const std::exception& e) {
    bankcheck::cli::PrintError(e.what());
    return bankcheck::cli::kExitFailure;
  }
  if (app.get_subcommands().empty()) {
    std::cerr << "bankcheck: error: a subcommand is required (" << Joined(CommandNames(app))
              << ")\nRun 'bankcheck --help' for more information.\n";
    return bankcheck::cli::kExitBadInput;
  }
  return bankcheck::cli::kExitSuccess;
}
