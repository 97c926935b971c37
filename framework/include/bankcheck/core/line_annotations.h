#pragma once
// Line annotations: what a kernel's source says each shared-memory access costs, in a comment on
// its line (docs/annotations.md has the grammar and examples):
//
//   float v = tile[threadIdx.x][threadIdx.y];  // bankcheck: 32-way
//   // bankcheck: ld 2-way, st conflict-free; the tile is padded by one word
//   tile[y][x] = tile[x][y];
//   acc += a[k];  // bankcheck: 2-way in sgemm/vectorized/*, conflict-free
//
// A `//` comment whose text starts with `bankcheck:` (not `bankcheck::`, a C++ name) is an annotation; on a
// line with code it annotates that line, alone on its line it annotates the next line that is neither blank
// nor only comments. Anything else that merely mentions bankcheck is not read. This file parses the
// annotations; checking them against measured per-line counts is not done here.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/core/memory_kind.h"

namespace bankcheck {

// One term of an annotation: `ld 2-way` annotates the loads of a line, `2-way` all of its accesses,
// `2-way in sgemm/vectorized/*` the accesses of the cases whose names that glob selects (a templated
// kernel's line, compiled once per case). An annotation of several terms (`ld 2-way, st
// conflict-free`) gives one LineAnnotation per term.
struct LineAnnotation {
  std::string file;                // as the caller named it
  uint32_t line = 0;               // the annotated code line, 1-based
  uint32_t comment_line = 0;       // the line of the comment (== line for a comment after code)
  std::optional<MemoryKind> kind;  // nullopt: every shared-memory access of the line
  double ways = 1.0;               // wavefronts / ideal wavefronts; conflict-free = 1
  // The case-name globs after `in` (MatchesGlob, case_selection.h), as written; empty: the term holds
  // for every case that no term of its kind with globs selects (docs/annotations.md).
  std::vector<std::string> cases;

  friend bool operator==(const LineAnnotation& a, const LineAnnotation& b) {
    return a.file == b.file && a.line == b.line && a.comment_line == b.comment_line && a.kind == b.kind &&
           a.ways == b.ways && a.cases == b.cases;
  }
};

// A malformed annotation: where and what is wrong.
struct LineAnnotationProblem {
  std::string file;
  uint32_t line = 0;  // the comment's line
  std::string message;

  // "file:line: message", the form compilers use, which editors and CI logs link to the line.
  std::string ToString() const;
};

// Everything one source text holds: its well-formed annotations, in the order of their comments,
// and every malformed one (a malformed annotation gives no LineAnnotation).
struct LineAnnotationScan {
  std::vector<LineAnnotation> annotations;
  std::vector<LineAnnotationProblem> problems;
};

// Scans C++/CUDA source `text`, named `file` in what it returns. `//` inside string and character
// literals (raw strings too) and inside `/* */` comments is not a comment; a block comment that
// starts with `bankcheck:` is a problem (annotations are `//` comments), as is an annotation that
// annotates nothing (only blank lines and comments follow it) and a second annotation of a line.
LineAnnotationScan ScanLineAnnotations(std::string_view text, const std::string& file);

// The annotations of `text`; Error(kBadInput) when any is malformed, its message every problem's
// ToString(), one per line.
std::vector<LineAnnotation> ParseLineAnnotations(std::string_view text, const std::string& file);

// ParseLineAnnotations of the file at `path` (read whole, at most kMaxInputFileBytes, limits.h),
// named path.string(); Error(kBadInput) naming the file when it cannot be read.
std::vector<LineAnnotation> ReadLineAnnotations(const std::filesystem::path& path);

}  // namespace bankcheck
