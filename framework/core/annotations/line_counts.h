#pragma once
// Lines as the contract (docs/annotations.md): a case's per-instruction counts added up per source
// line and kind, checked against the line annotations of the kernel's sources, and the annotation
// that would match each line (for failure messages and `bankcheck annotate`). Host-only.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/line_annotations.h"
#include "bankcheck/core/memory_kind.h"

namespace bankcheck {

// The instructions of one kind attributed to one source line (InstructionCounts::file/line, the call
// site for inlined code), summed over a case's launches.
struct LineCounts {
  std::string file;
  uint32_t line = 0;
  MemoryKind kind = MemoryKind::kSharedLoad;
  uint64_t executions = 0;
  uint64_t wavefronts = 0;
  uint64_t ideal_wavefronts = 0;
  std::vector<std::string> opcodes;  // distinct, in the order of their first instruction's offset
  // The innermost frame of the line's first inlined instruction when not the line itself ("" else):
  // "…/cute/arch/copy_sm80.hpp:64", shown beside the line.
  std::string inlined_from;
  // Counted by the emulator (CountedBy::kEmulated), not measured: messages say "derived".
  bool derived = false;

  // Wavefronts per ideal wavefront; 1 when the ideal is 0.
  double ways() const;
  // Whether the kind has wavefronts to compare (a kind without a wavefront counter reads 0 and 0).
  bool measurable() const { return wavefronts != 0 || ideal_wavefronts != 0; }
};

// Whether a line's accesses of `kind` are checked by its annotation without a term naming the kind,
// and suggested by `annotate`: the shared-memory kinds (bank conflicts). A global or local kind's
// sectors are checked only where a term names it.
bool CheckedUnnamed(MemoryKind kind);

// Per source line and kind, sorted by file, line and kind. Records whose instructions hold one
// table for several launches (LaunchRecord::attributed_launches > 1) count that table once;
// instructions without line info are left out.
std::vector<LineCounts> CountsByLine(const std::vector<LaunchRecord>& records);

// How an annotation writes `ways`: "conflict-free" for 1, else "N-way" with N rounded to two
// decimals and trailing zeros dropped ("2-way", "2.5-way", "1.67-way").
std::string FormatWays(double ways);

// Whether measured ways match annotated ways: equal to two decimals (|measured - annotated| <=
// 0.005), the precision FormatWays writes, so that a suggestion always matches its measurement (a
// tie such as 1.125, written 1.12, is 0.005 away).
bool WaysMatch(double measured, double annotated);

// The terms of one line's annotation as written: "2-way", "ld 2-way, st conflict-free", "2-way in
// a/* | b/*" (ways to the six decimals the grammar allows).
std::string FormatAnnotationTerms(const std::vector<LineAnnotation>& terms);

// Of one line's measurable kinds (as SuggestedAnnotation takes them): their distinct opcodes in kind
// order ("LDS.128, STS"), and their ways as the suggestion writes them ("4-way", "ld 2-way, st
// conflict-free"); empty when no kind is measurable.
std::string LineOpcodes(const std::vector<LineCounts>& line_kinds);
std::string LineWays(const std::vector<LineCounts>& line_kinds);

// The annotation text that matches the measured kinds of one line (all of `line_kinds` must be of
// the same file and line): "bankcheck: 4-way" when every measurable kind has the same ways, else a
// kind-qualified term per kind in kind-table order: "bankcheck: ld 2-way, st conflict-free". Empty
// when no kind is measurable.
std::string SuggestedAnnotation(const std::vector<LineCounts>& line_kinds);

// The annotations of a source file (ScanLineAnnotations of the file as it is now), or nullptr when
// the file cannot be read (not on this machine: a library's header in a build elsewhere).
using AnnotationsOfFile = std::function<const LineAnnotationScan*(const std::string& file)>;

// One line that does not do what its annotation (or, unannotated in an annotated file,
// conflict-free) says; or an annotation that is wrong in itself (`measured` empty): malformed, or its
// case globs select a case twice or never.
struct LineFailure {
  std::string file;
  uint32_t line = 0;       // the code line (the comment's line for an annotation wrong in itself)
  std::string annotated;   // "2-way", "ld 2-way", "conflict-free (not annotated)"
  std::string measured;    // "4-way (LDS.128: 8,192 wavefronts, 2,048 ideal)"
  std::string suggestion;  // "bankcheck: 4-way": the annotation that matches the measurement
  std::string message;     // one paragraph: all of the above, for a test failure
  std::string detail;      // `message` without its "file:line: " (for output that gives the place apart)
};

struct LineCheck {
  // Whether any measured line is in a file that has line annotations: only then are lines checked.
  bool applies = false;
  std::vector<LineFailure> failures;  // in file and line order
};

// The terms of one line's annotation (all of one line) that hold for the case `case_name`, in their
// order: per kind (or for the terms without a kind), the term whose case globs select the case, else
// the term of that kind without `in`, else none. When two terms of one kind both select the case,
// `overlap` is set to why (naming the case and both terms), once.
std::vector<const LineAnnotation*> TermsForCase(const std::vector<const LineAnnotation*>& terms,
                                                std::string_view case_name, std::string& overlap);

// Checks `lines` (CountsByLine of the case `case_name`) against the annotations of their files. A file
// with at least one annotation is "annotated": each of its measured lines must match the terms of its
// annotation that hold for the case (TermsForCase; a kind-qualified term checks that kind's
// instructions, a term without a kind all of the line's measurable kinds summed), and each measured
// line without such terms must be conflict-free. Lines in files without annotations, kinds without
// wavefronts and annotations of lines this case did not run are not checked. A malformed annotation
// in a file with measured lines, and an annotation of a measured line two of whose terms of a kind
// select the case, are failures at the comment's line.
LineCheck CheckLines(const std::vector<LineCounts>& lines, const AnnotationsOfFile& annotations_of,
                     const std::string& case_name);

// One case's measured lines (CountsByLine), for checks across cases.
struct CaseLineCounts {
  std::string case_name;
  std::vector<LineCounts> lines;
};

// The case globs (`in GLOB`) of annotated lines that select none of the cases that executed their
// line (a measurable kind) in `ran`: each a failure at its annotation's comment line (`measured`
// empty), in file and line order. `unknown` names every other case that might have executed the
// line (not run here, skipped, without per-line counts): a glob that selects one of them is not
// reported, since what it did is not known. Lines no case of `ran` executed are not checked.
std::vector<LineFailure> NeverMatchingGlobs(const std::vector<CaseLineCounts>& ran,
                                            const std::vector<std::string>& unknown,
                                            const AnnotationsOfFile& annotations_of);

// The per-line table of what to write, for a case whose lines fail or are not annotated: one row
// per measured line, "kernels/gemm.cu:74  LDS.128  4-way  // bankcheck: 4-way", paths relative to
// `source_root` when under it. Empty when no line is measurable.
std::string FormatSuggestions(const std::vector<LineCounts>& lines, const std::string& source_root = "");

}  // namespace bankcheck
