// `bankcheck annotate RESULTS...`: the line annotation that matches what each measured source line
// costs (docs/annotations.md), against the sources as they are now; with --apply, written into them.
// The text edits are the core's (annotation_edit.h); this file reads and writes the files.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/line_annotations.h"
#include "bankcheck/core/results.h"
#include "commands.h"
#include "core/annotations/annotation_edit.h"
#include "core/annotations/annotation_for_cases.h"
#include "core/annotations/line_counts.h"
#include "core/platform/file_io.h"
#include "core/platform/source_paths.h"
#include "core/reports/text_table.h"
#include "source_root.h"

namespace bankcheck::cli {
namespace {

namespace fs = std::filesystem;

// One case's measurement of one line.
struct CaseLine {
  std::string case_name;
  std::vector<LineCounts> kinds;
  std::string suggestion;  // "bankcheck: 4-way"
};

// A source file that line info names, and whether annotate may touch it.
struct Source {
  std::string shown;  // relative to the source root when under it, else as line info names it
  fs::path path;      // the file itself (links resolved) when under the root
  bool under_root = false;
  bool found = true;       // false: line info names a file this machine does not have (generated at run time)
  std::string not_source;  // why annotate never writes it (NotAnEditableSource), or ""
  std::string text;
  LineAnnotationScan scan;
};

// kUnwritable: the suggestion is no annotation the grammar allows (fewer wavefronts than ideal).
enum class Status {
  kMatches,
  kNotAnnotated,
  kDiffers,
  kDisagree,
  kUnwritable,
  kOutsideRoot,
  kNotFound,
  kNotSource
};

struct Row {
  const Source* source = nullptr;
  uint32_t line = 0;
  std::vector<CaseLine> cases;
  Status status = Status::kNotAnnotated;
  std::vector<LineAnnotation> existing;  // the line's annotation now
  std::string suggestion;                // what every case's measurement matches (AnnotationForCases)
  std::optional<EditResult> edit;        // what --apply did
  std::string unwritable;                // kUnwritable: why
};

// "a, b: 4-way; c: 2-way": the cases of a line by what they measured, in the order of the cases.
std::string Disagreement(const std::vector<CaseLine>& cases) {
  std::vector<std::pair<std::string, std::string>> by_suggestion;  // suggestion, cases
  for (const CaseLine& c : cases) {
    auto found = std::find_if(by_suggestion.begin(), by_suggestion.end(),
                              [&](const auto& entry) { return entry.first == c.suggestion; });
    if (found == by_suggestion.end()) found = by_suggestion.insert(found, {c.suggestion, ""});
    found->second += (found->second.empty() ? "" : ", ") + c.case_name;
  }
  std::string text;
  for (const auto& [suggestion, names] : by_suggestion)
    text += (text.empty() ? "" : "; ") + names + ": " + suggestion.substr(std::string("bankcheck: ").size());
  return text;
}

// Why one of the suggestions is no annotation the grammar allows (fewer wavefronts than ideal), or "".
std::string Unwritable(const std::set<std::string>& suggestions, const std::string& file) {
  for (const std::string& suggestion : suggestions) {
    const LineAnnotationScan probe = ScanLineAnnotations("x; // " + suggestion, file);
    if (!probe.problems.empty()) return probe.problems.front().message;
  }
  return "";
}

std::vector<CaseLineCounts> OfCases(const std::vector<CaseLine>& cases) {
  std::vector<CaseLineCounts> of_cases;
  for (const CaseLine& c : cases) of_cases.push_back({c.case_name, c.kinds});
  return of_cases;
}

std::set<std::string> Suggestions(const Row& row) {
  std::set<std::string> suggestions;
  for (const CaseLine& c : row.cases) suggestions.insert(c.suggestion);
  return suggestions;
}

// Whether the line's annotation holds for every case's measurement (CheckLines, on this line only).
bool Matches(const Row& row) {
  LineAnnotationScan only;
  only.annotations = row.existing;
  const AnnotationsOfFile lookup = [&](const std::string&) { return &only; };
  for (const CaseLine& c : row.cases)
    if (!CheckLines(c.kinds, lookup, c.case_name).failures.empty()) return false;
  return true;
}

std::string Where(const Row& row) {
  const std::string comment_line = std::to_string(row.existing.front().comment_line);
  return row.existing.front().comment_line == row.line ? "" : " (line " + comment_line + ")";
}

std::string StatusText(const Row& row, bool apply, bool overwrite) {
  switch (row.status) {
    case Status::kMatches:
      return "matches";
    case Status::kOutsideRoot:
      return "outside the source root: not written";
    case Status::kNotFound:
      return "no such file here (generated, or built elsewhere): not written";
    case Status::kNotSource:
      return row.source->not_source + ": not written";
    case Status::kDisagree:
      return "cases disagree (" + Disagreement(row.cases) + "): not written";
    case Status::kUnwritable:
      return "not written: " + row.unwritable;
    case Status::kNotAnnotated:
    case Status::kDiffers:
      break;
  }
  const std::string differs =
      row.existing.empty() ? ""
                           : "annotated differently: " + FormatAnnotationTerms(row.existing) + Where(row);
  if (!apply) {
    if (row.status == Status::kNotAnnotated) return "not annotated";
    return differs + (overwrite ? "" : " (kept without --overwrite)");
  }
  switch (row.edit->outcome) {
    case EditOutcome::kAppended:
      return "written";
    case EditOutcome::kInsertedAbove:
      return "written on a new line above it (the lines below moved)";
    case EditOutcome::kReplaced:
      return "overwritten (was " + row.edit->existing + ")";
    case EditOutcome::kUnchanged:
      return "matches";
    case EditOutcome::kKept:
      return "kept: " + differs + " (--overwrite replaces it)";
    case EditOutcome::kNotPlaced:
      break;
  }
  return "not written: " + row.edit->reason;
}

bool Settled(const Row& row) {
  if (row.status == Status::kMatches || row.status == Status::kOutsideRoot ||
      row.status == Status::kNotFound || row.status == Status::kNotSource)
    return true;
  if (!row.edit) return false;
  const EditOutcome outcome = row.edit->outcome;
  return outcome == EditOutcome::kAppended || outcome == EditOutcome::kInsertedAbove ||
         outcome == EditOutcome::kReplaced || outcome == EditOutcome::kUnchanged;
}

std::string Count(size_t n, const std::string& singular, const std::string& plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

using LineKey = std::pair<std::string, uint32_t>;  // line info's file, line

// What the results measured, by line, before anything is read of the sources.
struct MeasuredLines {
  std::map<LineKey, std::vector<CaseLine>> lines;
  std::set<std::string> per_launch;  // cases that state c.expect: their contract is not the lines
};

MeasuredLines ReadMeasuredLines(const std::vector<std::string>& paths) {
  MeasuredLines measured;
  size_t read = 0, skipped = 0;  // cases
  for (const std::string& path : paths) {
    const RunResults results = ReadResults(path);
    for (const auto& [name, result] : results.cases) {
      ++read;
      if (result.status == CaseStatus::kSkipped) {
        ++skipped;
        continue;
      }
      if (result.expected_by == ExpectedBy::kCase) {
        measured.per_launch.insert(name);
        continue;
      }
      std::map<LineKey, std::vector<LineCounts>> by_line;
      for (LineCounts& counts : CountsByLine(result.launches))
        by_line[{counts.file, counts.line}].push_back(std::move(counts));
      for (auto& [where, kinds] : by_line) {
        std::string suggestion = SuggestedAnnotation(kinds);
        if (!suggestion.empty())
          measured.lines[where].push_back({name, std::move(kinds), std::move(suggestion)});
      }
    }
  }
  if (read > 0 && skipped == read) {
    PrintError("every case of the results (" + std::to_string(read) +
               ") was skipped, so nothing was measured: run them where a usable GPU is (the results "
               "say why they skipped: bankcheck report)");
    throw CLI::RuntimeError(kExitFailure);
  }
  if (measured.lines.empty()) {
    std::cerr << "bankcheck: error: no case in the results without c.expect has per-line counts. Every "
                 "launch counted the default way (SASS metrics) has them; a case counted by the range "
                 "profiler has them when it failed, or with BANKCHECK_ATTRIBUTE=1."
              << (measured.per_launch.empty()
                      ? std::string()
                      : " " + Count(measured.per_launch.size(), "case states", "cases state") +
                            " its expectation per launch (c.expect) and is not annotated by "
                            "line; remove its c.expect to make its lines the contract.")
              << "\n";
    throw CLI::RuntimeError(kExitFailure);
  }
  return measured;
}

// The sources, by line info's name; a file under the root by its resolved path too, so that two
// names of one file are edited as one.
struct Sources {
  std::map<std::string, Source> by_name;
  std::map<std::string, Source*> by_path;
};

// Reads every source under the root that annotations belong in; fails with exit status 2, before
// anything is written, when one cannot be read or has a malformed annotation.
void ReadSources(const std::map<LineKey, std::vector<CaseLine>>& lines, const fs::path& root,
                 Sources& sources) {
  std::vector<std::string> problems;
  for (const auto& [where, cases] : lines) {
    if (sources.by_name.count(where.first) != 0) continue;
    Source& source = sources.by_name[where.first];
    fs::path resolved;
    const std::optional<fs::path> relative = RelativeToRootResolved(where.first, root, resolved);
    source.shown = relative ? relative->string() : where.first;
    if (!relative) continue;
    source.under_root = true;
    source.path = resolved;
    std::error_code missing;
    if (!fs::exists(resolved, missing)) {
      source.found = false;
      continue;
    }
    // Never read nor written unless annotations belong in it: a results file names the files.
    source.not_source = NotAnEditableSource(*relative, resolved);
    if (!source.not_source.empty()) continue;
    // Another name of a file already read (src/./k.cu): never read again, however many names a
    // results file gives it; its rows go to the first (by_path, below).
    if (sources.by_path.count(resolved.string()) != 0) continue;
    try {
      source.text = ReadTextFile(resolved, "");
    } catch (const Error& e) {
      problems.push_back("bankcheck: error: " + std::string(e.what()));
      continue;
    }
    source.scan = ScanLineAnnotations(source.text, source.shown);
    for (const LineAnnotationProblem& problem : source.scan.problems) problems.push_back(problem.ToString());
    sources.by_path.emplace(resolved.string(), &source);
  }
  if (!problems.empty()) {
    for (const std::string& problem : problems) std::cerr << problem << "\n";
    std::cerr << "bankcheck: error: nothing written: a source under " << root.string()
              << " cannot be read or has a malformed annotation (above)\n";
    throw CLI::RuntimeError(kExitBadInput);
  }
}

// Files under the root first, then in file and line order.
using Rows = std::map<std::tuple<bool, std::string, uint32_t>, Row>;
using EditsOf = std::map<const Source*, std::vector<Row*>>;

void ClassifyRow(Row& row) {
  const std::set<std::string> suggestions = Suggestions(row);
  row.suggestion = AnnotationForCases(OfCases(row.cases));
  for (const LineAnnotation& term : row.source->scan.annotations)
    if (term.line == row.line) row.existing.push_back(term);
  if (!row.source->found) {
    row.status = Status::kNotFound;
  } else if (!row.source->under_root) {
    row.status = Status::kOutsideRoot;
  } else if (!row.source->not_source.empty()) {
    row.status = Status::kNotSource;
  } else if (!row.existing.empty() && Matches(row)) {
    row.status = Status::kMatches;
  } else if (const std::string unwritable = Unwritable(suggestions, row.source->shown); !unwritable.empty()) {
    row.status = Status::kUnwritable;
    row.unwritable = unwritable;
  } else if (row.suggestion.empty()) {
    row.status = Status::kDisagree;
  } else {
    row.status = row.existing.empty() ? Status::kNotAnnotated : Status::kDiffers;
  }
}

// One row per line of a file, cases merged, each with its status; the rows to write, by source.
Rows RowsOf(const std::map<LineKey, std::vector<CaseLine>>& lines, const Sources& sources,
            EditsOf& edits_of) {
  Rows rows;
  for (const auto& [where, cases] : lines) {
    const Source* source = &sources.by_name.at(where.first);
    if (source->under_root && source->found && source->not_source.empty())
      source = sources.by_path.at(source->path.string());
    Row& row = rows[{!source->under_root, source->shown, where.second}];
    row.source = source;
    row.line = where.second;
    row.cases.insert(row.cases.end(), cases.begin(), cases.end());
  }
  for (auto& [key, row] : rows) {
    ClassifyRow(row);
    if (row.status == Status::kNotAnnotated || row.status == Status::kDiffers)
      edits_of[row.source].push_back(&row);
  }
  return rows;
}

struct Applied {
  size_t written = 0;           // annotations
  std::set<std::string> moved;  // files whose lines moved
};

Applied ApplyEdits(const EditsOf& edits_of, bool overwrite) {
  Applied applied;
  for (const auto& [source, edit_rows] : edits_of) {
    std::vector<AnnotationEdit> edits;
    for (const Row* row : edit_rows) edits.push_back({row->line, row->suggestion, overwrite});
    const EditedSource edited = ApplyAnnotationEdits(source->text, source->shown, edits);
    for (size_t i = 0; i < edit_rows.size(); ++i) edit_rows[i]->edit = edited.results[i];
    if (edited.text == source->text) continue;
    WriteFileAtomically(source->path, edited.text);
    if (edited.lines_moved) applied.moved.insert(source->shown);
    for (const EditResult& result : edited.results) {
      applied.written += result.outcome == EditOutcome::kAppended ||
                         result.outcome == EditOutcome::kInsertedAbove ||
                         result.outcome == EditOutcome::kReplaced;
    }
  }
  return applied;
}

struct Tally {
  size_t unsettled = 0, outside = 0, disagree = 0, not_annotated = 0, differs = 0;
};

// Prints the table of lines; what the summary below it counts.
Tally PrintRows(const Rows& rows, const fs::path& root, bool apply, bool overwrite) {
  std::vector<TableRow> table;
  Tally tally;
  for (const auto& [key, row] : rows) {
    std::vector<LineCounts> all;
    for (const CaseLine& c : row.cases) all.insert(all.end(), c.kinds.begin(), c.kinds.end());
    const bool one = Suggestions(row).size() == 1;
    std::string location = row.source->shown + ":" + std::to_string(row.line);
    const auto inlined = std::find_if(all.begin(), all.end(), [](const LineCounts& kind) {
      return kind.measurable() && !kind.inlined_from.empty();
    });
    if (inlined != all.end()) location += " (" + WithoutRoot(inlined->inlined_from, root.string()) + ")";
    const std::string annotation =
        row.suggestion.empty() && one ? row.cases.front().suggestion : row.suggestion;
    table.push_back({location, LineOpcodes(all), one ? LineWays(row.cases.front().kinds) : "by case",
                     annotation.empty() ? "" : "// " + annotation, StatusText(row, apply, overwrite)});
    tally.unsettled += !Settled(row);
    tally.outside += row.status == Status::kOutsideRoot;
    tally.disagree += row.status == Status::kDisagree;
    tally.not_annotated += row.status == Status::kNotAnnotated;
    tally.differs += row.status == Status::kDiffers;
  }
  std::cout << FormatTextRows(table) << "\n";
  return tally;
}

void PrintSummary(const Tally& tally, const Applied& applied, const MeasuredLines& measured,
                  const fs::path& root, bool apply) {
  if (!apply && tally.not_annotated + tally.differs > 0) {
    std::cout << "Dry run, nothing written: " << Count(tally.not_annotated, "line", "lines")
              << " not annotated, " << Count(tally.differs, "line", "lines")
              << " annotated differently. --apply writes them (--overwrite to replace annotations that "
                 "differ).\n";
  }
  if (apply) std::cout << "Wrote " << Count(applied.written, "annotation", "annotations") << ".\n";
  if (!applied.moved.empty()) {
    std::string files;
    for (const std::string& file : applied.moved) files += (files.empty() ? "" : ", ") + file;
    std::cout << "Lines moved in " << files
              << ": rebuild the kernels before the next measured run (line info must match the sources), "
                 "and do not apply these results again.\n";
  }
  if (tally.disagree > 0) {
    std::cout << Count(tally.disagree, "line is", "lines are")
              << " measured differently by cases that no case glob can tell apart (a name with a blank, "
                 "',', ';' or '|'): not written; annotate by hand.\n";
  }
  if (tally.outside > 0) {
    std::cout << Count(tally.outside, "line is", "lines are") << " outside the source root " << root.string()
              << ": not considered.\n";
  }
  if (!measured.per_launch.empty()) {
    std::cout << Count(measured.per_launch.size(), "case states", "cases state")
              << " its expectation per launch (c.expect): its lines are not suggested.\n";
  }
}

struct AnnotateOptions {
  std::vector<std::string> results;
  bool apply = false;
  bool overwrite = false;
  std::string source_root;
};

// Every input is read before anything is written.
void Annotate(const AnnotateOptions& options, const fs::path& root) {
  const MeasuredLines measured = ReadMeasuredLines(options.results);
  Sources sources;
  ReadSources(measured.lines, root, sources);
  EditsOf edits_of;
  Rows rows = RowsOf(measured.lines, sources, edits_of);
  const Applied applied = options.apply ? ApplyEdits(edits_of, options.overwrite) : Applied{};
  const Tally tally = PrintRows(rows, root, options.apply, options.overwrite);
  PrintSummary(tally, applied, measured, root, options.apply);
  if (tally.unsettled > 0) throw CLI::RuntimeError(kExitFailure);
}

void AddAnnotateCommandTo(CLI::App& app) {
  auto options = std::make_shared<AnnotateOptions>();
  CLI::App* command = app.add_subcommand(
      "annotate",
      "Suggest the line annotation (// bankcheck: 4-way) of every measured source line from results files, "
      "against the sources as they are; --apply writes them");
  command->footer(
      "Per line: file:line, its instructions, the measured ways, the annotation that matches them, and the "
      "line's status in the source now. A line that cases measure differently gets terms that select cases "
      "by name (2-way, 4-way in k/naive*); "
      "only C, C++ and CUDA sources under the source root are written (by extension, never under a folder "
      "whose name starts with '.'), never a library's. --apply appends the annotation to "
      "its line, or puts it alone on a new line above one that ends with another // comment or would be "
      "longer than 200 bytes (lines then "
      "move: rebuild the kernels before the next measured run). Grammar: docs/annotations.md. Exit status: "
      "0 every line under the source root matches or was written; 1 some suggestion was not written (a dry "
      "run with lines to write, cases that no case glob tells apart, an annotation kept without "
      "--overwrite), or no case "
      "has per-line counts; 2 bad input (a results file, the source root, a source that cannot be read or "
      "has a malformed annotation: nothing is written).");
  command
      ->add_option("RESULTS", options->results,
                   "Results files (results.json, or per-case fragments) of a run with per-line counts")
      ->required()
      ->type_name("FILE");
  command->add_flag("--apply", options->apply, "Write the annotations into the sources (default: a dry run)");
  command->add_flag(
      "--overwrite", options->overwrite,
      "Replace an annotation that differs from the measurement (its terms; a note after ';' stays)");
  CLI::Option* root_option =
      command
          ->add_option("--source-root", options->source_root,
                       "Only files under DIR are written (default: $BANKCHECK_SOURCE_ROOT, else the current "
                       "directory)")
          ->type_name("DIR");
  command->callback([options, root_option] {
    Annotate(*options, SourceRoot(options->source_root, root_option->count() > 0));
  });
}

}  // namespace

void AddAnnotateCommand(CLI::App& app) { AddAnnotateCommandTo(app); }

}  // namespace bankcheck::cli
