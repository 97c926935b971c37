#include "core/internal/annotation_edit.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include "bankcheck/error.h"
#include "bankcheck/line_annotations.h"
#include "core/internal/line_counts.h"

namespace bankcheck {
namespace {

constexpr std::string_view kMarker = "bankcheck:";

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// One line of a text: its content without the line break, and the break ("\n", "\r\n" or "" at the
// end of a text without a final newline).
struct LineSpan {
  size_t begin = 0;
  size_t end = 0;
  std::string eol;
};

std::vector<LineSpan> SplitLines(std::string_view text) {
  std::vector<LineSpan> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t newline = text.find('\n', begin);
    const bool last = newline == std::string_view::npos;
    if (last) newline = text.size();
    const size_t end = newline > begin && text[newline - 1] == '\r' ? newline - 1 : newline;
    lines.push_back({begin, end, std::string(text.substr(end, (last ? newline : newline + 1) - end))});
    begin = last ? text.size() : newline + 1;
  }
  return lines;
}

// A backslash at the end continues a line (a macro's body): a comment after it, or a line between
// it and the next, would change the code.
bool Continued(std::string_view content) {
  while (!content.empty() && IsBlank(content.back())) content.remove_suffix(1);
  return !content.empty() && content.back() == '\\';
}

// What ScanLineAnnotations says, in an order that does not depend on the comments' order.
using Entry =
    std::tuple<uint32_t, uint32_t, int, double, std::string>;  // line, comment line, kind, ways, problem

std::vector<Entry> Entries(const LineAnnotationScan& scan) {
  std::vector<Entry> entries;
  for (const LineAnnotation& a : scan.annotations)
    entries.emplace_back(a.line, a.comment_line, a.kind ? static_cast<int>(*a.kind) : -1, a.ways, "");
  for (const LineAnnotationProblem& p : scan.problems) entries.emplace_back(0, p.line, 0, 0.0, p.message);
  std::sort(entries.begin(), entries.end());
  return entries;
}

std::vector<LineAnnotation> TermsOf(const LineAnnotationScan& scan, uint32_t line) {
  std::vector<LineAnnotation> terms;
  for (const LineAnnotation& a : scan.annotations)
    if (a.line == line) terms.push_back(a);
  return terms;
}

bool SameTerms(std::vector<LineAnnotation> a, std::vector<LineAnnotation> b) {
  const auto key = [](const LineAnnotation& x) {
    return std::make_tuple(x.kind.has_value(), x.kind, x.ways);
  };
  const auto less = [&](const LineAnnotation& x, const LineAnnotation& y) { return key(x) < key(y); };
  std::sort(a.begin(), a.end(), less);
  std::sort(b.begin(), b.end(), less);
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](const LineAnnotation& x, const LineAnnotation& y) { return key(x) == key(y); });
}

// Whether `after` is `before` with line `line`'s annotation replaced by `terms` (now on `new_line`,
// its comment on `comment_line`), and, when a line was inserted at `inserted` (0: none), every line
// from there on moved down by one.
bool ReadsBack(const LineAnnotationScan& before, const LineAnnotationScan& after, uint32_t line,
               const std::vector<LineAnnotation>& terms, uint32_t new_line, uint32_t comment_line,
               uint32_t inserted) {
  const auto shift = [&](uint32_t l) { return inserted != 0 && l >= inserted ? l + 1 : l; };
  LineAnnotationScan expected;
  for (const LineAnnotation& a : before.annotations) {
    if (a.line == line) continue;
    expected.annotations.push_back({a.file, shift(a.line), shift(a.comment_line), a.kind, a.ways});
  }
  for (const LineAnnotation& term : terms)
    expected.annotations.push_back({term.file, new_line, comment_line, term.kind, term.ways});
  for (const LineAnnotationProblem& p : before.problems)
    expected.problems.push_back({p.file, shift(p.line), p.message});
  return Entries(expected) == Entries(after);
}

// The text of `annotation` before its note, without the marker: "4-way"; and its note from the ';'.
std::pair<std::string, std::string> SplitAnnotation(const std::string& annotation) {
  std::string_view body = std::string_view(annotation).substr(kMarker.size());
  const size_t semicolon = body.find(';');
  std::string_view terms = body.substr(0, semicolon);
  while (!terms.empty() && IsBlank(terms.front())) terms.remove_prefix(1);
  while (!terms.empty() && IsBlank(terms.back())) terms.remove_suffix(1);
  return {std::string(terms), semicolon == std::string_view::npos ? "" : std::string(body.substr(semicolon))};
}

// The positions in `content` of `//` comments that begin with the marker: where an existing
// annotation may be (one of them is; a string literal may hold the others).
std::vector<size_t> MarkerComments(std::string_view content) {
  std::vector<size_t> found;
  for (size_t at = content.find("//"); at != std::string_view::npos; at = content.find("//", at + 1)) {
    size_t body = at + 2;
    while (body < content.size() && IsBlank(content[body])) ++body;
    if (content.substr(body, kMarker.size()) == kMarker && content.substr(body + kMarker.size(), 1) != ":")
      found.push_back(body + kMarker.size());
  }
  return found;
}

class Editor {
 public:
  Editor(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {
    scan_ = ScanLineAnnotations(text_, file_);
  }

  EditResult Apply(const AnnotationEdit& edit, const std::vector<LineAnnotation>& terms, bool& moved) {
    EditResult result;
    result.line = edit.line;
    const std::vector<LineSpan> lines = SplitLines(text_);
    if (edit.line == 0 || edit.line > lines.size()) {
      result.reason =
          "the file has " + std::to_string(lines.size()) + " lines (has it changed since the run?)";
      return result;
    }
    const std::vector<LineAnnotation> existing = TermsOf(scan_, edit.line);
    if (!existing.empty()) {
      result.comment_line = existing.front().comment_line;
      result.existing = FormatAnnotationTerms(existing);
      if (SameTerms(existing, terms)) {
        result.outcome = EditOutcome::kUnchanged;
      } else if (!edit.overwrite) {
        result.outcome = EditOutcome::kKept;
      } else if (Replace(lines[result.comment_line - 1], edit, terms, result.comment_line)) {
        result.outcome = EditOutcome::kReplaced;
      } else {
        result.reason =
            "the annotation on line " + std::to_string(result.comment_line) + " could not be replaced";
      }
      return result;
    }
    const LineSpan& span = lines[edit.line - 1];
    const std::string_view content = std::string_view(text_).substr(span.begin, span.end - span.begin);
    if (!Continued(content)) {
      std::string_view kept = content;
      while (!kept.empty() && IsBlank(kept.back())) kept.remove_suffix(1);
      const std::string appended = std::string(kept) + "  // " + edit.annotation;
      if (TryEdit(span.begin, span.end, appended, edit.line, terms, edit.line, edit.line, 0)) {
        result.outcome = EditOutcome::kAppended;
        return result;
      }
    }
    if (Continued(content) || (edit.line > 1 && Continued(LineText(lines[edit.line - 2])))) {
      result.reason = "the line is continued by a backslash (a macro?): annotate it by hand";
      return result;
    }
    const std::string indent(content.substr(0, content.find_first_not_of(" \t")));
    const std::string eol = span.eol.empty() ? "\n" : span.eol;
    if (TryEdit(span.begin, span.begin, indent + "// " + edit.annotation + eol, edit.line, terms,
                edit.line + 1, edit.line, edit.line)) {
      result.outcome = EditOutcome::kInsertedAbove;
      moved = true;
      return result;
    }
    result.reason = "no place on or above the line where the annotation reads back as written";
    return result;
  }

  const std::string& text() const { return text_; }

 private:
  std::string_view LineText(const LineSpan& span) const {
    return std::string_view(text_).substr(span.begin, span.end - span.begin);
  }

  // Replaces text_[begin, end) with `replacement` when the result reads back as expected.
  bool TryEdit(size_t begin, size_t end, const std::string& replacement, uint32_t line,
               const std::vector<LineAnnotation>& terms, uint32_t new_line, uint32_t comment_line,
               uint32_t inserted) {
    std::string candidate = text_.substr(0, begin) + replacement + text_.substr(end);
    LineAnnotationScan scan = ScanLineAnnotations(candidate, file_);
    if (!ReadsBack(scan_, scan, line, terms, new_line, comment_line, inserted)) return false;
    text_ = std::move(candidate);
    scan_ = std::move(scan);
    return true;
  }

  // The annotation's terms in the comment on `span` (line `comment_line`) replaced; its note stays.
  bool Replace(const LineSpan& span, const AnnotationEdit& edit, const std::vector<LineAnnotation>& terms,
               uint32_t comment_line) {
    const std::string_view content = LineText(span);
    const auto [new_terms, new_note] = SplitAnnotation(edit.annotation);
    for (const size_t terms_begin : MarkerComments(content)) {
      const size_t semicolon = content.find(';', terms_begin);
      const std::string note =
          semicolon == std::string_view::npos ? new_note : std::string(content.substr(semicolon));
      const std::string replaced = std::string(content.substr(0, terms_begin)) + " " + new_terms + note;
      if (TryEdit(span.begin, span.end, replaced, edit.line, terms, edit.line, comment_line, 0)) return true;
    }
    return false;
  }

  std::string text_;
  std::string file_;
  LineAnnotationScan scan_;
};

}  // namespace

EditedSource ApplyAnnotationEdits(std::string_view text, const std::string& file,
                                  const std::vector<AnnotationEdit>& edits) {
  std::vector<std::vector<LineAnnotation>> terms;
  std::set<uint32_t> lines;
  for (const AnnotationEdit& edit : edits) {
    if (!lines.insert(edit.line).second)
      throw Error(ErrorKind::kBadInput, file + ": two annotations for line " + std::to_string(edit.line));
    const std::string probe = "x; // " + edit.annotation;
    const LineAnnotationScan scan = ScanLineAnnotations(probe, file);
    if (edit.annotation.find_first_of("\r\n") != std::string::npos ||
        edit.annotation.compare(0, kMarker.size(), kMarker) != 0 || !scan.problems.empty() ||
        scan.annotations.empty()) {
      throw Error(ErrorKind::kBadInput, file + ":" + std::to_string(edit.line) + ": '" + edit.annotation +
                                            "' is not one well-formed annotation");
    }
    terms.push_back(scan.annotations);
  }
  // Bottom-up: an edit never moves the lines above it.
  std::vector<size_t> order(edits.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return edits[a].line > edits[b].line; });
  EditedSource edited;
  edited.results.resize(edits.size());
  Editor editor(text, file);
  for (const size_t i : order) edited.results[i] = editor.Apply(edits[i], terms[i], edited.lines_moved);
  edited.text = editor.text();
  return edited;
}

}  // namespace bankcheck
