#include "core/internal/line_counts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "bankcheck/count_sum.h"
#include "bankcheck/report.h"
#include "core/internal/source_paths.h"
#include "core/internal/text_table.h"

namespace bankcheck {
namespace {

// `value` with at most `decimals` decimals, trailing zeros dropped: "2", "2.5", "1.67".
std::string Number(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  std::string number = text;
  if (number.find('.') != std::string::npos) {
    number.erase(number.find_last_not_of('0') + 1);
    if (number.back() == '.') number.pop_back();
  }
  return number;
}

// As an annotation writes ways: "conflict-free" for 1, else "N-way".
std::string WaysText(double ways, int decimals) {
  const std::string number = Number(ways, decimals);
  return number == "1" ? "conflict-free" : number + "-way";
}

// An annotation's own ways, to the six decimals the grammar allows, so that a failure shows them
// as written.
std::string AnnotatedWays(double ways) { return WaysText(ways, 6); }

// The measurable kinds of one line, in kind order.
std::vector<const LineCounts*> Measurable(const std::vector<const LineCounts*>& kinds) {
  std::vector<const LineCounts*> measurable;
  for (const LineCounts* kind : kinds)
    if (kind->measurable()) measurable.push_back(kind);
  std::stable_sort(measurable.begin(), measurable.end(),
                   [](const LineCounts* a, const LineCounts* b) { return a->kind < b->kind; });
  return measurable;
}

std::vector<const LineCounts*> Pointers(const std::vector<LineCounts>& lines) {
  std::vector<const LineCounts*> pointers;
  for (const LineCounts& line : lines) pointers.push_back(&line);
  return pointers;
}

// The kinds summed, as a term without a kind checks them.
LineCounts Sum(const std::vector<const LineCounts*>& kinds) {
  LineCounts sum;
  std::set<std::string_view> opcodes;  // seen: linear in the opcodes of the kinds
  for (const LineCounts* kind : kinds) {
    sum.executions = AddCounts(sum.executions, kind->executions, "execution");
    sum.wavefronts = AddCounts(sum.wavefronts, kind->wavefronts, "wavefront");
    sum.ideal_wavefronts = AddCounts(sum.ideal_wavefronts, kind->ideal_wavefronts, "ideal wavefront");
    for (const std::string& opcode : kind->opcodes)
      if (opcodes.insert(opcode).second) sum.opcodes.push_back(opcode);
    if (sum.inlined_from.empty()) sum.inlined_from = kind->inlined_from;
  }
  return sum;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

// "4-way (LDS.128: 8,192 wavefronts, 2,048 ideal)".
std::string Measured(const LineCounts& counts) {
  return FormatWays(counts.ways()) + " (" + Joined(counts.opcodes) + ": " + WithThousands(counts.wavefronts) +
         " wavefronts, " + WithThousands(counts.ideal_wavefronts) + " ideal)";
}

// "ld 2-way, st conflict-free" from measured kinds (not empty).
std::string KindTerms(const std::vector<const LineCounts*>& kinds) {
  std::string terms;
  for (const LineCounts* kind : kinds)
    terms +=
        (terms.empty() ? "" : ", ") + std::string(InfoOf(kind->kind).label) + " " + FormatWays(kind->ways());
  return terms;
}

// The measured ways of a line's measurable kinds as a suggestion writes them.
std::string Ways(const std::vector<const LineCounts*>& measurable) {
  if (measurable.empty()) return "";
  const std::string summed = FormatWays(Sum(measurable).ways());
  for (const LineCounts* kind : measurable)
    if (FormatWays(kind->ways()) != summed) return KindTerms(measurable);
  return summed;
}

// The failure of one measured line (its measurable kinds, not empty) against its annotation terms
// (empty: not annotated); nullopt when it matches.
std::optional<LineFailure> CheckLine(const std::vector<const LineCounts*>& measurable,
                                     const std::vector<const LineAnnotation*>& terms) {
  const LineCounts& first = *measurable.front();
  LineFailure failure;
  failure.file = first.file;
  failure.line = first.line;
  failure.suggestion = "bankcheck: " + Ways(measurable);
  const LineCounts sum = Sum(measurable);
  const bool kindless = terms.empty() || !terms.front()->kind;
  if (kindless) {
    // Not annotated in an annotated file reads as `// bankcheck: conflict-free`.
    const double expected = terms.empty() ? 1.0 : terms.front()->ways;
    if (WaysMatch(sum.ways(), expected)) return std::nullopt;
    failure.annotated = terms.empty() ? "conflict-free (not annotated)" : AnnotatedWays(expected);
    failure.measured = Measured(sum);
  } else {
    // Each measurable kind against its term; a kind the annotation does not name must be conflict-free.
    bool matches = true;
    std::vector<std::string> annotated, measured;
    for (const LineAnnotation* term : terms)
      annotated.push_back(std::string(InfoOf(*term->kind).label) + " " + AnnotatedWays(term->ways));
    for (const LineCounts* kind : measurable) {
      const auto term = std::find_if(terms.begin(), terms.end(),
                                     [&](const LineAnnotation* t) { return t->kind == kind->kind; });
      const double expected = term == terms.end() ? 1.0 : (*term)->ways;
      matches = matches && WaysMatch(kind->ways(), expected);
      if (term == terms.end())
        annotated.push_back(std::string(InfoOf(kind->kind).label) + " conflict-free (not annotated)");
      measured.push_back(std::string(InfoOf(kind->kind).label) + " " + Measured(*kind));
    }
    if (matches) return std::nullopt;
    failure.annotated = Joined(annotated);
    failure.measured = Joined(measured);
  }
  const std::string where = failure.file + ":" + std::to_string(failure.line) + ": ";
  const std::string inlined = sum.inlined_from.empty() ? "" : ", in code inlined from " + sum.inlined_from;
  const std::string what = terms.empty() ? "not annotated (so conflict-free), measured "
                                         : "annotated " + failure.annotated + ", measured ";
  failure.detail =
      what + failure.measured + inlined + "; write `// " + failure.suggestion + "` if that is intended";
  failure.message = where + failure.detail;
  return failure;
}

}  // namespace

double LineCounts::ways() const {
  return ideal_wavefronts == 0 ? 1.0
                               : static_cast<double>(wavefronts) / static_cast<double>(ideal_wavefronts);
}

std::vector<LineCounts> CountsByLine(const std::vector<LaunchRecord>& records) {
  // Ordered by file, line and kind: the order the result is documented in.
  std::map<std::tuple<std::string, uint32_t, SharedKind>, std::vector<const InstructionCounts*>> by_line;
  // A table of one launch counts for that launch, even when another launch's is the same; a table
  // of several launches of a kernel (a second run) is attached to each of them and counts once.
  std::vector<size_t> tables;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].attributed_launches == 1) tables.push_back(i);
  std::set<std::string> shared_counted;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].attributed_launches > 1 && shared_counted.insert(records[i].mangled_kernel).second)
      tables.push_back(i);
  for (const size_t i : tables) {
    for (const InstructionCounts& instruction : records[i].instructions) {
      if (instruction.file.empty() || instruction.line == 0) continue;
      by_line[{instruction.file, instruction.line, instruction.kind}].push_back(&instruction);
    }
  }
  std::vector<LineCounts> lines;
  for (auto& [key, instructions] : by_line) {
    std::stable_sort(
        instructions.begin(), instructions.end(),
        [](const InstructionCounts* a, const InstructionCounts* b) { return a->pc_offset < b->pc_offset; });
    LineCounts line;
    std::tie(line.file, line.line, line.kind) = key;
    std::set<std::string_view> opcodes;  // seen: a line of many instructions stays linear
    for (const InstructionCounts* instruction : instructions) {
      line.executions = AddCounts(line.executions, instruction->executions, "execution");
      line.wavefronts = AddCounts(line.wavefronts, instruction->wavefronts, "wavefront");
      line.ideal_wavefronts =
          AddCounts(line.ideal_wavefronts, instruction->ideal_wavefronts, "ideal wavefront");
      if (opcodes.insert(instruction->opcode).second) line.opcodes.push_back(instruction->opcode);
      const SourceFrame* from = InlinedFrom(*instruction);
      if (line.inlined_from.empty() && from != nullptr)
        line.inlined_from = from->file + ":" + std::to_string(from->line);
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string FormatWays(double ways) { return WaysText(ways, 2); }

bool WaysMatch(double measured, double annotated) {
  // A tie (1.125 written as 1.12 or 1.13) is 0.005 apart exactly: within, and so is its rounding error.
  return std::fabs(measured - annotated) <= 0.005 + 1e-9;
}

std::string FormatAnnotationTerms(const std::vector<LineAnnotation>& terms) {
  std::string text;
  for (const LineAnnotation& term : terms) {
    text += text.empty() ? "" : ", ";
    if (term.kind) text += std::string(InfoOf(*term.kind).label) + " ";
    text += AnnotatedWays(term.ways);
  }
  return text;
}

std::string LineOpcodes(const std::vector<LineCounts>& line_kinds) {
  return Joined(Sum(Measurable(Pointers(line_kinds))).opcodes);
}

std::string LineWays(const std::vector<LineCounts>& line_kinds) {
  return Ways(Measurable(Pointers(line_kinds)));
}

std::string SuggestedAnnotation(const std::vector<LineCounts>& line_kinds) {
  const std::string ways = LineWays(line_kinds);
  return ways.empty() ? "" : "bankcheck: " + ways;
}

LineCheck CheckLines(const std::vector<LineCounts>& lines, const AnnotationsOfFile& annotations_of) {
  std::map<std::string, std::map<uint32_t, std::vector<const LineCounts*>>> files;
  for (const LineCounts& line : lines) files[line.file][line.line].push_back(&line);
  LineCheck check;
  for (const auto& [file, by_line] : files) {
    const LineAnnotationScan* scan = annotations_of(file);
    // An unreadable file, or one without annotations, has not opted in.
    if (scan == nullptr || (scan->annotations.empty() && scan->problems.empty())) continue;
    check.applies = true;
    std::set<uint32_t> malformed;
    for (const LineAnnotationProblem& problem : scan->problems) {
      LineFailure failure;
      failure.file = file;
      failure.line = problem.line;
      failure.detail = problem.message;
      failure.message = file + ":" + std::to_string(problem.line) + ": " + failure.detail;
      check.failures.push_back(std::move(failure));
      malformed.insert(problem.line);
    }
    std::map<uint32_t, std::vector<const LineAnnotation*>> terms_of;
    for (const LineAnnotation& term : scan->annotations) terms_of[term.line].push_back(&term);
    for (const auto& [number, kinds] : by_line) {
      const std::vector<const LineCounts*> measurable = Measurable(kinds);
      // A line with a malformed annotation after its code fails as that annotation already.
      if (measurable.empty() || malformed.count(number) != 0) continue;
      const auto terms = terms_of.find(number);
      std::optional<LineFailure> failure = CheckLine(
          measurable, terms == terms_of.end() ? std::vector<const LineAnnotation*>() : terms->second);
      if (failure) check.failures.push_back(std::move(*failure));
    }
  }
  std::stable_sort(check.failures.begin(), check.failures.end(),
                   [](const LineFailure& a, const LineFailure& b) {
                     return std::tie(a.file, a.line) < std::tie(b.file, b.line);
                   });
  return check;
}

std::string FormatSuggestions(const std::vector<LineCounts>& lines, const std::string& source_root) {
  std::map<std::pair<std::string, uint32_t>, std::vector<LineCounts>> by_line;
  for (const LineCounts& line : lines) by_line[{line.file, line.line}].push_back(line);
  std::vector<TableRow> rows;
  for (const auto& [where, kinds] : by_line) {
    const std::string suggestion = SuggestedAnnotation(kinds);
    if (suggestion.empty()) continue;
    std::string location = WithoutRoot(where.first, source_root) + ":" + std::to_string(where.second);
    const std::string inlined_from = Sum(Measurable(Pointers(kinds))).inlined_from;
    if (!inlined_from.empty()) location += " (" + WithoutRoot(inlined_from, source_root) + ")";
    rows.push_back({location, LineOpcodes(kinds), LineWays(kinds), "// " + suggestion});
  }
  return FormatTextRows(rows);
}

}  // namespace bankcheck
