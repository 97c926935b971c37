#include "core/annotations/annotation_edit.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "bankcheck/core/error.h"
#include "bankcheck/core/line_annotations.h"
#include "core/annotations/internal/source_lexer.h"
#include "core/annotations/line_counts.h"

namespace bankcheck {
namespace {

constexpr std::string_view kMarker = "bankcheck:";

// A line that an appended annotation would make longer than this gets it alone on a line above
// instead: an annotation that selects cases by name can be long, and a line must stay readable.
constexpr size_t kMaxAppendedLineBytes = 200;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// What ScanLineAnnotations says, in an order that does not depend on the comments' order.
using Entry = std::tuple<uint32_t, uint32_t, int, double, std::vector<std::string>,
                         std::string>;  // line, comment line, kind, ways, case globs, problem

std::vector<Entry> Entries(const LineAnnotationScan& scan) {
  std::vector<Entry> entries;
  for (const LineAnnotation& a : scan.annotations)
    entries.emplace_back(a.line, a.comment_line, a.kind ? static_cast<int>(*a.kind) : -1, a.ways, a.cases,
                         "");
  for (const LineAnnotationProblem& p : scan.problems)
    entries.emplace_back(0, p.line, 0, 0.0, std::vector<std::string>(), p.message);
  std::sort(entries.begin(), entries.end());
  return entries;
}

bool SameTerms(std::vector<LineAnnotation> a, std::vector<LineAnnotation> b) {
  const auto key = [](const LineAnnotation& x) {
    return std::make_tuple(x.kind.has_value(), x.kind, x.ways, x.cases);
  };
  const auto less = [&](const LineAnnotation& x, const LineAnnotation& y) { return key(x) < key(y); };
  std::sort(a.begin(), a.end(), less);
  std::sort(b.begin(), b.end(), less);
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](const LineAnnotation& x, const LineAnnotation& y) { return key(x) == key(y); });
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

// One change to the text: [begin, end) becomes `text`.
struct Splice {
  size_t begin = 0;
  size_t end = 0;
  std::string text;
  size_t edit = 0;            // the index of its edit
  uint32_t comment_line = 0;  // where its annotation's comment is, in the original text's lines
  bool above = false;         // the comment is a line of its own, inserted above comment_line
};

// Every edit is decided from one lexing of the original text (where each line starts and ends
// between tokens: internal::LexSource), the changes are made in one pass, and the result is read
// back once: linear in the text and the edits, however many there are.
class Editor {
 public:
  Editor(std::string_view text, std::string file)
      : text_(text),
        file_(std::move(file)),
        scan_(ScanLineAnnotations(text, file_)),
        source_(internal::LexSource(text)) {
    lines_ = source_.lines.size();
    const internal::SourceLine& last = source_.lines.back();
    if (last.begin == text.size() && last.end == text.size()) --lines_;  // after the final line end
    for (const LineAnnotation& a : scan_.annotations) annotated_[a.line].push_back(a);
    for (const internal::SourceComment& comment : source_.comments)
      if (!comment.block) line_comment_[comment.line] = &comment;
  }

  EditResult Decide(const AnnotationEdit& edit, size_t index) {
    EditResult result;
    result.line = edit.line;
    if (edit.line == 0 || edit.line > lines_) {
      result.reason = "the file has " + std::to_string(lines_) + " lines (has it changed since the run?)";
      return result;
    }
    const auto existing = annotated_.find(edit.line);
    if (existing != annotated_.end()) {
      result.comment_line = existing->second.front().comment_line;
      result.existing = FormatAnnotationTerms(existing->second);
      if (SameTerms(existing->second, terms_of_[index])) {
        result.outcome = EditOutcome::kUnchanged;
      } else if (!edit.overwrite) {
        result.outcome = EditOutcome::kKept;
      } else if (Replace(edit, result.comment_line, index)) {
        result.outcome = EditOutcome::kReplaced;
        replaced_.insert(edit.line);
      } else {
        result.reason =
            "the annotation on line " + std::to_string(result.comment_line) + " could not be replaced";
      }
      return result;
    }
    const internal::SourceLine& line = Line(edit.line);
    size_t kept = line.end;
    while (kept > line.begin && IsBlank(text_[kept - 1])) --kept;
    const std::string appended = "  // " + edit.annotation;
    if (line.has_code && line.ends_clean && kept - line.begin + appended.size() <= kMaxAppendedLineBytes) {
      splices_.push_back({kept, line.end, appended, index, edit.line, false});
      result.outcome = EditOutcome::kAppended;
      return result;
    }
    if (line.continued || (edit.line > 1 && Line(edit.line - 1).continued)) {
      result.reason = "the line is continued by a backslash (a macro?): annotate it by hand";
      return result;
    }
    if (line.has_code && line.starts_clean) {
      const std::string_view content = text_.substr(line.begin, line.end - line.begin);
      const std::string indent(content.substr(0, content.find_first_not_of(" \t")));
      const size_t eol = internal::LineEndAt(text_, line.end);
      const std::string line_end = eol == 0 ? "\n" : std::string(text_.substr(line.end, eol));
      splices_.push_back(
          {line.begin, line.begin, indent + "// " + edit.annotation + line_end, index, edit.line, true});
      inserted_.push_back(edit.line);
      result.outcome = EditOutcome::kInsertedAbove;
      return result;
    }
    result.reason = "no place on or above the line where the annotation reads back as written";
    return result;
  }

  void SetTerms(std::vector<std::vector<LineAnnotation>> terms, const std::vector<AnnotationEdit>& edits) {
    terms_of_ = std::move(terms);
    edits_ = &edits;
  }

  // Makes the changes decided, in one pass, and reads the result back: it must hold every
  // annotation as before, the new ones where they were placed, and code on the same lines (moved
  // down by the lines inserted). Otherwise nothing is changed and every placed edit is refused.
  EditedSource Finish(std::vector<EditResult> results) {
    EditedSource edited;
    std::sort(splices_.begin(), splices_.end(), [](const Splice& a, const Splice& b) {
      return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
    });
    std::string out;
    out.reserve(text_.size() + splices_.size() * 40);
    size_t at = 0;
    for (const Splice& splice : splices_) {
      out.append(text_.substr(at, splice.begin - at));
      out += splice.text;
      at = splice.end;
    }
    out.append(text_.substr(at));
    if (splices_.empty() || ReadsBack(out)) {
      edited.text = std::move(out);
      edited.lines_moved = !inserted_.empty();
    } else {
      edited.text = std::string(text_);
      for (const Splice& splice : splices_) {
        results[splice.edit].outcome = EditOutcome::kNotPlaced;
        results[splice.edit].reason =
            "the edited file did not read back with its annotations and code lines as before; annotate it by "
            "hand";
      }
    }
    edited.results = std::move(results);
    return edited;
  }

 private:
  const internal::SourceLine& Line(uint32_t line) const { return source_.lines[line - 1]; }

  // The terms of the `//` annotation comment on `comment_line` replaced; its note stays. Not when
  // the comment is continued onto the next line by a splice (replacing its end could end it).
  bool Replace(const AnnotationEdit& edit, uint32_t comment_line, size_t index) {
    const auto found = line_comment_.find(comment_line);
    if (found == line_comment_.end() || Line(comment_line).continued) return false;
    const internal::SourceComment& comment = *found->second;
    size_t body = 0;
    while (body < comment.text.size() && IsBlank(comment.text[body])) ++body;
    if (comment.text.substr(body, kMarker.size()) != kMarker) return false;
    const size_t terms_begin = body + kMarker.size();
    const size_t semicolon = comment.text.find(';', terms_begin);
    const auto [new_terms, new_note] = SplitAnnotation(edit.annotation);
    const std::string note =
        semicolon == std::string_view::npos ? new_note : std::string(comment.text.substr(semicolon));
    splices_.push_back({comment.begin + terms_begin, comment.begin + comment.text.size(),
                        " " + new_terms + note, index, comment_line, false});
    return true;
  }

  bool ReadsBack(const std::string& edited) const {
    std::vector<uint32_t> inserted = inserted_;
    std::sort(inserted.begin(), inserted.end());
    // A line inserted above line L moves L and every line after it down by one.
    const auto shift = [&](uint32_t l) {
      return l +
             static_cast<uint32_t>(std::upper_bound(inserted.begin(), inserted.end(), l) - inserted.begin());
    };
    LineAnnotationScan expected;
    for (const LineAnnotation& a : scan_.annotations) {
      if (replaced_.count(a.line) != 0) continue;
      expected.annotations.push_back({a.file, shift(a.line), shift(a.comment_line), a.kind, a.ways, a.cases});
    }
    for (const Splice& splice : splices_) {
      const AnnotationEdit& edit = (*edits_)[splice.edit];
      const uint32_t comment_line =
          splice.above ? shift(splice.comment_line) - 1 : shift(splice.comment_line);
      for (const LineAnnotation& term : terms_of_[splice.edit])
        expected.annotations.push_back(
            {file_, shift(edit.line), comment_line, term.kind, term.ways, term.cases});
    }
    for (const LineAnnotationProblem& p : scan_.problems)
      expected.problems.push_back({p.file, shift(p.line), p.message});
    if (Entries(expected) != Entries(ScanLineAnnotations(edited, file_))) return false;

    const internal::LexedSource after = internal::LexSource(edited);
    if (after.lines.size() != source_.lines.size() + inserted.size()) return false;
    std::vector<bool> code(after.lines.size(), false);
    for (uint32_t l = 1; l <= source_.lines.size(); ++l) code[shift(l) - 1] = Line(l).has_code;
    for (size_t l = 0; l < after.lines.size(); ++l)
      if (after.lines[l].has_code != code[l]) return false;
    return true;
  }

  std::string_view text_;
  std::string file_;
  LineAnnotationScan scan_;
  internal::LexedSource source_;
  size_t lines_ = 0;
  std::map<uint32_t, std::vector<LineAnnotation>> annotated_;  // code line -> its terms
  std::map<uint32_t, const internal::SourceComment*>
      line_comment_;                                   // line -> the `//` comment starting there
  std::vector<std::vector<LineAnnotation>> terms_of_;  // by edit
  const std::vector<AnnotationEdit>* edits_ = nullptr;
  std::vector<Splice> splices_;
  std::vector<uint32_t> inserted_;
  std::set<uint32_t> replaced_;
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
    // A backslash at its end (before blanks) would join the next line to the comment.
    const size_t last = edit.annotation.find_last_not_of(" \t\f\v");
    if (edit.annotation.find_first_of(std::string("\r\n\0", 3)) != std::string::npos ||
        (last != std::string::npos && edit.annotation[last] == '\\') ||
        edit.annotation.compare(0, kMarker.size(), kMarker) != 0 || !scan.problems.empty() ||
        scan.annotations.empty()) {
      throw Error(ErrorKind::kBadInput, file + ":" + std::to_string(edit.line) + ": '" + edit.annotation +
                                            "' is not one well-formed annotation");
    }
    terms.push_back(scan.annotations);
  }
  Editor editor(text, file);
  editor.SetTerms(std::move(terms), edits);
  std::vector<EditResult> results;
  results.reserve(edits.size());
  for (size_t i = 0; i < edits.size(); ++i) results.push_back(editor.Decide(edits[i], i));
  return editor.Finish(std::move(results));
}

}  // namespace bankcheck
