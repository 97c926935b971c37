#include "core/annotations/line_counts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "bankcheck/core/case_selection.h"
#include "bankcheck/core/count_sum.h"
#include "bankcheck/core/report.h"
#include "core/platform/source_paths.h"
#include "core/reports/text_table.h"

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

// A kinded term's ways as its annotation reads: 1-way sectors are `coalesced`.
std::string AnnotatedWays(MemoryKind kind, double ways) {
  const std::string text = AnnotatedWays(ways);
  return InfoOf(kind).space != MemorySpace::kShared && text == "conflict-free" ? "coalesced" : text;
}

// The measurable shared-memory kinds of one line, in kind order: what a term without a kind, a
// line without a term and a suggestion speak of. A global or local kind is checked only where a
// term names it (NamedBy): bank conflicts are every annotated line's, sectors a line's that asks.
std::vector<const LineCounts*> Measurable(const std::vector<const LineCounts*>& kinds) {
  std::vector<const LineCounts*> measurable;
  for (const LineCounts* kind : kinds)
    if (kind->measurable() && CheckedUnnamed(kind->kind)) measurable.push_back(kind);
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

// "4-way (LDS.128: 8,192 wavefronts, 2,048 ideal)"; sectors for global and local memory.
std::string Measured(const LineCounts& counts) {
  return FormatWays(counts.ways()) + " (" + Joined(counts.opcodes) + ": " + WithThousands(counts.wavefronts) +
         " " + TrafficUnit(counts.kind) + ", " + WithThousands(counts.ideal_wavefronts) + " ideal)";
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

// "ld 2-way in X, st conflict-free in X" from "ld 2-way, st conflict-free": each term of `ways` for
// the cases `glob` selects.
std::string ForCases(const std::string& ways, const std::string& glob) {
  std::string terms;
  size_t start = 0;
  while (true) {
    const size_t comma = ways.find(", ", start);
    terms += (terms.empty() ? "" : ", ") + ways.substr(start, comma - start) + " in " + glob;
    if (comma == std::string::npos) return terms;
    start = comma + 2;
  }
}

// The line's terms that hold for one case (TermsForCase), with what the line's annotation is.
struct CaseTerms {
  std::vector<const LineAnnotation*> terms;
  bool annotated = false;  // the line has an annotation (for this case or others)
  bool by_case = false;    // some term of it selects cases with `in`
};

// The failure of one measured line (its measurable kinds, not empty) of the case `case_name` against
// the terms that hold for it; nullopt when it matches.
std::optional<LineFailure> CheckLine(const std::vector<const LineCounts*>& measurable,
                                     const CaseTerms& of_case, const std::string& case_name) {
  const std::vector<const LineAnnotation*>& terms = of_case.terms;
  const LineCounts& first = *measurable.front();
  LineFailure failure;
  failure.file = first.file;
  failure.line = first.line;
  const std::string ways = Ways(measurable);
  failure.suggestion = "bankcheck: " + ways;
  const LineCounts sum = Sum(measurable);
  const bool kindless = terms.empty() || !terms.front()->kind;
  if (kindless) {
    // Not annotated (for this case) in an annotated file reads as `// bankcheck: conflict-free`.
    const double expected = terms.empty() ? 1.0 : terms.front()->ways;
    if (WaysMatch(sum.ways(), expected)) return std::nullopt;
    failure.annotated = !terms.empty()      ? AnnotatedWays(expected)
                        : of_case.annotated ? "conflict-free (no term selects this case)"
                                            : "conflict-free (not annotated)";
    failure.measured = Measured(sum);
  } else {
    // Each measurable kind against its term; a kind the annotation does not name must be conflict-free.
    bool matches = true;
    std::vector<std::string> annotated, measured;
    for (const LineAnnotation* term : terms)
      annotated.push_back(std::string(InfoOf(*term->kind).label) + " " +
                          AnnotatedWays(*term->kind, term->ways));
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
  // Counts the emulator derived from the SASS were not measured: said so.
  const std::string counted = first.derived ? "derived " : "measured ";
  const std::string what = !terms.empty() ? "annotated " + failure.annotated + ", " + counted
                           : of_case.annotated
                               ? "annotated for other cases only (so conflict-free), " + counted
                               : "not annotated (so conflict-free), " + counted;
  // On a line annotated by case, this case's ways are terms of their own among the line's.
  const std::string write =
      of_case.by_case ? "give this case terms such as `" + ForCases(ways, CasePatternFor(case_name)) + "`"
                      : "write `// " + failure.suggestion + "`";
  failure.detail = what + failure.measured + inlined + "; " + write + " if that is intended";
  failure.message = where + failure.detail;
  return failure;
}

// A failure at the comment's line of an annotation (`measured` empty): a malformed annotation, or
// terms that select cases wrongly.
LineFailure AnnotationFailure(const std::string& file, uint32_t comment_line, const std::string& detail) {
  LineFailure failure;
  failure.file = file;
  failure.line = comment_line;
  failure.detail = detail;
  failure.message = file + ":" + std::to_string(comment_line) + ": " + detail;
  return failure;
}

std::string TermText(const LineAnnotation& term) { return "'" + FormatAnnotationTerms({term}) + "'"; }

}  // namespace

bool CheckedUnnamed(MemoryKind kind) { return InfoOf(kind).space == MemorySpace::kShared; }

double LineCounts::ways() const {
  return ideal_wavefronts == 0 ? 1.0
                               : static_cast<double>(wavefronts) / static_cast<double>(ideal_wavefronts);
}

std::vector<LineCounts> CountsByLine(const std::vector<LaunchRecord>& records) {
  // Ordered by file, line and kind: the order the result is documented in.
  std::map<std::tuple<std::string, uint32_t, MemoryKind>, std::vector<const InstructionCounts*>> by_line;
  // A table of one launch counts for that launch, even when another launch's is the same; a table
  // of several launches of a kernel (a second run) is attached to each of them and counts once.
  std::vector<size_t> tables;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].attributed_launches == 1) tables.push_back(i);
  std::set<std::string> shared_counted;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].attributed_launches > 1 && shared_counted.insert(records[i].mangled_kernel).second)
      tables.push_back(i);
  std::set<std::tuple<std::string, uint32_t, MemoryKind>> derived;
  for (const size_t i : tables) {
    for (const InstructionCounts& instruction : records[i].instructions) {
      if (instruction.file.empty() || instruction.line == 0) continue;
      by_line[{instruction.file, instruction.line, instruction.kind}].push_back(&instruction);
      if (records[i].counted_by == CountedBy::kEmulated)
        derived.insert({instruction.file, instruction.line, instruction.kind});
    }
  }
  std::vector<LineCounts> lines;
  for (auto& [key, instructions] : by_line) {
    std::stable_sort(
        instructions.begin(), instructions.end(),
        [](const InstructionCounts* a, const InstructionCounts* b) { return a->pc_offset < b->pc_offset; });
    LineCounts line;
    std::tie(line.file, line.line, line.kind) = key;
    line.derived = derived.count(key) != 0;
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
    text += term.kind ? AnnotatedWays(*term.kind, term.ways) : AnnotatedWays(term.ways);
    for (size_t i = 0; i < term.cases.size(); ++i) text += (i == 0 ? " in " : " | ") + term.cases[i];
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

std::vector<const LineAnnotation*> TermsForCase(const std::vector<const LineAnnotation*>& terms,
                                                std::string_view case_name, std::string& overlap) {
  // Per kind (nullopt: the terms without a kind), the term that selects the case, else the default.
  std::map<std::optional<MemoryKind>, const LineAnnotation*> selecting, fallback;
  for (const LineAnnotation* term : terms) {
    if (term->cases.empty()) {
      fallback.emplace(term->kind, term);
      continue;
    }
    const bool selects = std::any_of(term->cases.begin(), term->cases.end(),
                                     [&](const std::string& glob) { return MatchesGlob(case_name, glob); });
    if (!selects) continue;
    const auto [earlier, first] = selecting.emplace(term->kind, term);
    if (!first && overlap.empty()) {
      overlap = "the case '" + std::string(case_name) + "' is selected by two terms, " +
                TermText(*earlier->second) + " and " + TermText(*term) +
                "; give each case one term of a kind (globs that do not overlap)";
    }
  }
  std::vector<const LineAnnotation*> of_case;
  for (const LineAnnotation* term : terms) {
    const auto chosen = selecting.find(term->kind);
    const auto by_default = fallback.find(term->kind);
    if (chosen != selecting.end() ? chosen->second == term
                                  : by_default != fallback.end() && by_default->second == term)
      of_case.push_back(term);
  }
  return of_case;
}

LineCheck CheckLines(const std::vector<LineCounts>& lines, const AnnotationsOfFile& annotations_of,
                     const std::string& case_name) {
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
      check.failures.push_back(AnnotationFailure(file, problem.line, problem.message));
      malformed.insert(problem.line);
    }
    std::map<uint32_t, std::vector<const LineAnnotation*>> terms_of;
    for (const LineAnnotation& term : scan->annotations) terms_of[term.line].push_back(&term);
    for (const auto& [number, kinds] : by_line) {
      std::vector<const LineCounts*> measurable = Measurable(kinds);
      const bool any_measurable =
          std::any_of(kinds.begin(), kinds.end(), [](const LineCounts* kind) { return kind->measurable(); });
      // A line with a malformed annotation after its code fails as that annotation already.
      if (!any_measurable || malformed.count(number) != 0) continue;
      const auto terms = terms_of.find(number);
      CaseTerms of_case;
      if (terms != terms_of.end()) {
        std::string overlap;
        of_case.terms = TermsForCase(terms->second, case_name, overlap);
        of_case.annotated = true;
        of_case.by_case = std::any_of(terms->second.begin(), terms->second.end(),
                                      [](const LineAnnotation* term) { return !term->cases.empty(); });
        if (!overlap.empty()) {
          check.failures.push_back(AnnotationFailure(file, terms->second.front()->comment_line, overlap));
          continue;
        }
      }
      // The line's global and local kinds that a term for this case names.
      for (const LineCounts* kind : kinds) {
        const bool named = std::any_of(of_case.terms.begin(), of_case.terms.end(),
                                       [&](const LineAnnotation* term) { return term->kind == kind->kind; });
        if (kind->measurable() && !CheckedUnnamed(kind->kind) && named) measurable.push_back(kind);
      }
      if (measurable.empty()) continue;
      std::optional<LineFailure> failure = CheckLine(measurable, of_case, case_name);
      if (failure) check.failures.push_back(std::move(*failure));
    }
  }
  std::stable_sort(check.failures.begin(), check.failures.end(),
                   [](const LineFailure& a, const LineFailure& b) {
                     return std::tie(a.file, a.line) < std::tie(b.file, b.line);
                   });
  return check;
}

std::vector<LineFailure> NeverMatchingGlobs(const std::vector<CaseLineCounts>& ran,
                                            const std::vector<std::string>& unknown,
                                            const AnnotationsOfFile& annotations_of) {
  // The cases that executed each line (a measurable kind).
  std::map<std::pair<std::string, uint32_t>, std::vector<const std::string*>> executed_by;
  for (const CaseLineCounts& c : ran) {
    for (const LineCounts& line : c.lines) {
      if (!line.measurable()) continue;
      auto& cases = executed_by[{line.file, line.line}];
      if (cases.empty() || cases.back() != &c.case_name) cases.push_back(&c.case_name);
    }
  }
  std::vector<LineFailure> failures;
  std::string file_read;
  const LineAnnotationScan* scan = nullptr;
  std::map<uint32_t, std::vector<const LineAnnotation*>> terms_of;
  for (const auto& [where, cases] : executed_by) {
    if (where.first != file_read || scan == nullptr) {
      file_read = where.first;
      scan = annotations_of(file_read);
      terms_of.clear();
      if (scan != nullptr)
        for (const LineAnnotation& term : scan->annotations) terms_of[term.line].push_back(&term);
    }
    const auto terms = terms_of.find(where.second);
    if (terms == terms_of.end()) continue;
    for (const LineAnnotation* term : terms->second) {
      for (const std::string& glob : term->cases) {
        const auto selects = [&](const std::string& name) { return MatchesGlob(name, glob); };
        if (std::any_of(cases.begin(), cases.end(),
                        [&](const std::string* name) { return selects(*name); }) ||
            std::any_of(unknown.begin(), unknown.end(), selects))
          continue;
        std::string names;
        for (size_t i = 0; i < cases.size() && i < 5; ++i) names += (i == 0 ? "" : ", ") + *cases[i];
        if (cases.size() > 5) names += " and " + std::to_string(cases.size() - 5) + " more";
        failures.push_back(AnnotationFailure(
            where.first, term->comment_line,
            "case glob '" + glob + "' of " + TermText(*term) + " selects none of the cases that ran line " +
                std::to_string(where.second) + " (" + names +
                "), nor a case that did not run; correct the glob, or remove it"));
      }
    }
  }
  return failures;
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
