#pragma once
// The first phases of a C++ (or CUDA) compiler, as far as line annotations need them: where lines
// end, where comments are, which lines hold code, and where a comment could be added without
// changing the code. ScanLineAnnotations reads annotations with it; ApplyAnnotationEdits decides
// where an annotation can go with it. Line ends and line splices follow GCC exactly (checked with
// g++ 12): a line ends at "\n", "\r\n" or a "\r" alone; a backslash followed by spaces, tabs, form
// feeds, vertical tabs or NUL bytes and then a line end joins the two lines (GCC warns "backslash
// and newline separated by space"), everywhere but inside a raw string literal. Trigraphs (??/),
// gone in C++17, are not read.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace bankcheck::internal {

// The length of the line end at `i` ("\n", "\r\n" or "\r"); 0 when there is none.
size_t LineEndAt(std::string_view text, size_t i);

// The length of the line splice at `i` (a '\', blanks, a line end); 0 when there is none.
size_t SpliceAt(std::string_view text, size_t i);

struct SourceComment {
  uint32_t line = 0;        // where it starts
  bool block = false;       // /* */
  bool after_code = false;  // code precedes it on its line
  size_t begin = 0;         // the offset of `text` in the source
  std::string_view text;    // `//`: to the end of its first line; `/*`: to the `*/`
};

struct SourceLine {
  size_t begin = 0;          // offset of its first character
  size_t end = 0;            // offset of its line end (the text's size for a last line without one)
  bool has_code = false;     // a token outside comments
  bool continued = false;    // it ends in a line splice: the next line joins it
  bool starts_clean = true;  // it starts between tokens: a line inserted above it changes no token
  bool ends_clean = false;   // it ends between tokens, in no comment, literal or splice: a `//`
                             // comment appended to it ends with it
};

struct LexedSource {
  std::vector<SourceLine> lines;  // lines[0] is line 1; a text ending in a line end has an empty last line
  std::vector<SourceComment> comments;
};

// One pass over `text`, linear in its length. Ill-formed input (an unterminated literal) ends the
// literal at the line's end, as the compiler's error recovery does.
LexedSource LexSource(std::string_view text);

}  // namespace bankcheck::internal
