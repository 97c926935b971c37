#pragma once
// Writing line annotations into a source's text, for `bankcheck annotate --apply`: text in, text
// out (the CLI reads and writes the files). The edited text is read back with ScanLineAnnotations,
// so an edit either annotates its line as asked and changes no other annotation and no code line,
// or is not made.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck {

// One line to annotate.
struct AnnotationEdit {
  uint32_t line = 0;       // the code line, 1-based, in the text as given
  std::string annotation;  // "bankcheck: 4-way" (SuggestedAnnotation, line_counts.h)
  bool overwrite = false;  // replace the terms of the line's annotation when it differs (its note stays)
};

enum class EditOutcome {
  kAppended,       // "  // bankcheck: ..." at the end of the line; no line moved
  kInsertedAbove,  // alone on a new line above it, with its indentation: the lines below moved by one
  kReplaced,       // the terms of the line's annotation replaced (overwrite)
  kUnchanged,      // the line's annotation already says this
  kKept,           // the line has a different annotation and overwrite was not asked for
  kNotPlaced,      // nowhere to put it that reads back as written: `reason`
};

struct EditResult {
  uint32_t line = 0;  // the edit's line
  EditOutcome outcome = EditOutcome::kNotPlaced;
  uint32_t comment_line = 0;  // kReplaced, kUnchanged, kKept: the existing annotation's comment line
  std::string existing;       // kReplaced, kKept: the existing annotation's terms ("2-way")
  std::string reason;         // kNotPlaced
};

struct EditedSource {
  std::string text;
  std::vector<EditResult> results;  // one per edit, in the order given
  bool lines_moved = false;         // some annotation was inserted above its line
};

// Applies `edits`, each to a different line, to the C++/CUDA source `text` named `file` (for
// ScanLineAnnotations). Every edit's line number is its line's in `text`: all are decided from one
// reading of it (internal::LexSource), made in one pass, and the result read back once (linear in
// the text and the edits); when it does not hold the same annotations and code lines as expected,
// nothing is changed and every placed edit is reported not placed. A line
// without an annotation gets it appended, or, where that would not read back (another `//` comment
// ends the line, a `/*` is left open) or would make the line longer than 200 bytes, alone on a new
// line above; never after a backslash that
// continues a line, nor between two lines it joins (a macro's body would end early). Error(kBadInput)
// when two edits name one line or an edit's annotation is not one well-formed annotation.
EditedSource ApplyAnnotationEdits(std::string_view text, const std::string& file,
                                  const std::vector<AnnotationEdit>& edits);

}  // namespace bankcheck
