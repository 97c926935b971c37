// `bankcheck annotations FILE...`: the line annotations of source files (docs/annotations.md) as
// JSON, a linter for CPU-only CI and pre-commit hooks. Needs no GPU and no build.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/line_annotations.h"
#include "bankcheck/core/memory_kind.h"
#include "commands.h"
#include "core/platform/file_io.h"

namespace bankcheck::cli {
namespace {

void AddAnnotationsCommand(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* command = app.add_subcommand(
      "annotations",
      "Check the line annotations (// bankcheck: 2-way) of source files and print them as JSON");
  command->footer(
      "Prints one JSON array: an object per annotated line and kind, {file, line, comment_line, kind "
      "(a kind key such as \"shared_ld\", or null for every kind), ways, cases (the case globs after 'in', "
      "or "
      "null for every case no such term selects)}. A malformed annotation is "
      "reported on stderr as FILE:LINE: what is wrong, every one of every file, and nothing is printed "
      "on stdout. Grammar: docs/annotations.md. Exit status: 0 all well-formed; 2 a malformed "
      "annotation or a file that cannot be read.");
  command->add_option("FILE", *files, "C++ or CUDA source files")->required()->type_name("FILE");
  command->callback([files] {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    bool failed = false;
    for (const std::string& file : *files) {
      std::string text;
      try {
        text = ReadTextFile(file, "");
      } catch (const Error& e) {
        std::cerr << "bankcheck: error: " << e.what() << "\n";
        failed = true;
        continue;
      }
      const LineAnnotationScan scan = ScanLineAnnotations(text, file);
      for (const LineAnnotationProblem& problem : scan.problems) std::cerr << problem.ToString() << "\n";
      failed = failed || !scan.problems.empty();
      for (const LineAnnotation& annotation : scan.annotations) {
        nlohmann::ordered_json entry;
        entry["file"] = annotation.file;
        entry["line"] = annotation.line;
        entry["comment_line"] = annotation.comment_line;
        entry["kind"] = annotation.kind ? nlohmann::ordered_json(InfoOf(*annotation.kind).key) : nullptr;
        entry["ways"] = annotation.ways;
        entry["cases"] = annotation.cases.empty() ? nlohmann::ordered_json(nullptr)
                                                  : nlohmann::ordered_json(annotation.cases);
        out.push_back(std::move(entry));
      }
    }
    if (failed) throw CLI::RuntimeError(kExitBadInput);
    // A path need not be UTF-8; JSON must be: such bytes print as U+FFFD rather than failing.
    std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n"
              << std::flush;
  });
}

}  // namespace

void AddAnnotationCommands(CLI::App& app) {
  AddAnnotationsCommand(app);
  AddAnnotateCommand(app);
}

}  // namespace bankcheck::cli
