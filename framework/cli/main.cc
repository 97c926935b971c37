// The `bankcheck` command: the command-line front end of the bankcheck framework.

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "bankcheck/error.h"
#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"Shared-memory bank-conflict tools for GPU kernels.", "bankcheck"};
  // At most one subcommand; "none" is checked after parsing, so that a misspelt one is reported
  // as the unexpected word it is rather than as a missing subcommand.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("bankcheck ") + BANKCHECK_VERSION);
  bankcheck::cli::AddModelCommands(app);
  bankcheck::cli::AddReportCommands(app);
  bankcheck::cli::AddAnnotationCommands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's chosen status; it has said what it had to
  } catch (const CLI::ParseError& e) {
    // Prints help for --help (status 0), or the parse error and a pointer to --help.
    return app.exit(e) == 0 ? bankcheck::cli::kExitSuccess : bankcheck::cli::kExitBadInput;
  } catch (const bankcheck::Error& e) {
    std::cerr << "bankcheck: error: " << e.what() << "\n";
    return e.kind() == bankcheck::ErrorKind::kBadInput ? bankcheck::cli::kExitBadInput
                                                       : bankcheck::cli::kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "bankcheck: error: " << e.what() << "\n";
    return bankcheck::cli::kExitFailure;
  }
  if (app.get_subcommands().empty()) {
    std::string names;
    for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + command->get_name();
    }
    std::cerr << "bankcheck: a subcommand is required (" << names
              << ")\nRun with --help for more information.\n";
    return bankcheck::cli::kExitBadInput;
  }
  return bankcheck::cli::kExitSuccess;
}
