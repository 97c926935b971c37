#include "core/internal/source_lexer.h"

#include <cctype>
#include <string>

namespace bankcheck::internal {
namespace {

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// What may stand between a splice's backslash and its line end: GCC's "non-vertical space".
bool IsSpliceBlank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\0'; }

// The identifier characters just before `position` (a literal's encoding or raw prefix, a number).
std::string_view WordBefore(std::string_view text, size_t position) {
  size_t start = position;
  while (start > 0 && IsIdentifierChar(text[start - 1])) --start;
  return text.substr(start, position - start);
}

// The raw string delimiter's '(' after the '"' at `quote`: at most 16 characters, none of them
// space, parentheses, backslash or control characters; npos when there is none. Looks no further
// than that, so that a file of `R"` without '(' is read in linear time.
size_t RawOpening(std::string_view text, size_t quote) {
  for (size_t k = quote + 1; k < text.size() && k <= quote + 17; ++k) {
    const char c = text[k];
    if (c == '(') return k;
    if (c == ' ' || c == ')' || c == '\\' || c == '"' || static_cast<unsigned char>(c) < 0x20) break;
  }
  return std::string_view::npos;
}

enum class State {
  kCode,
  kSlash,  // after a '/' in code: a comment starts if the next character is '/' or '*'
  kLineComment,
  kBlockComment,
  kBlockStar,      // after a '*' in a block comment
  kLiteral,        // a quoted string or character literal
  kLiteralEscape,  // after a '\' in one
  kRawString,
};

}  // namespace

size_t LineEndAt(std::string_view text, size_t i) {
  if (i >= text.size()) return 0;
  if (text[i] == '\n') return 1;
  if (text[i] != '\r') return 0;
  return i + 1 < text.size() && text[i + 1] == '\n' ? 2 : 1;
}

size_t SpliceAt(std::string_view text, size_t i) {
  if (i >= text.size() || text[i] != '\\') return 0;
  size_t k = i + 1;
  while (k < text.size() && IsSpliceBlank(text[k])) ++k;
  const size_t end = LineEndAt(text, k);
  return end == 0 ? 0 : k + end - i;
}

LexedSource LexSource(std::string_view text) {
  LexedSource out;
  const size_t n = text.size();
  State state = State::kCode;
  char quote = '"';
  std::string raw_closing;
  size_t open_comment = SIZE_MAX;  // the `//` comment whose text ends with its first line
  uint32_t slash_line = 0;         // the line of the '/' of kSlash
  size_t block_star = 0;           // the '*' of kBlockStar
  out.lines.push_back({});
  auto line_number = [&] { return static_cast<uint32_t>(out.lines.size()); };
  // Ends the current line at `at`; the next begins at `next`.
  auto end_line = [&](size_t at, size_t next, bool spliced) {
    if (open_comment != SIZE_MAX) {
      SourceComment& comment = out.comments[open_comment];
      comment.text = text.substr(comment.begin, at - comment.begin);
      open_comment = SIZE_MAX;
    }
    SourceLine& line = out.lines.back();
    line.end = at;
    line.continued = spliced;
    line.ends_clean = !spliced && state == State::kCode;
    if (!spliced) {
      // What a line end ends: a `//` comment, an unterminated literal, a pending '/'.
      if (state == State::kSlash) out.lines[slash_line - 1].has_code = true;
      if (state == State::kLineComment || state == State::kLiteral || state == State::kLiteralEscape ||
          state == State::kSlash)
        state = State::kCode;
      if (state == State::kBlockStar) state = State::kBlockComment;
    }
    SourceLine following;
    following.begin = next;
    following.starts_clean = !spliced && state == State::kCode;
    out.lines.push_back(following);
  };

  size_t i = 0;
  while (i < n) {
    // Splices first (phase 2), except in a raw string, where the compiler reverts them.
    if (state != State::kRawString) {
      if (const size_t splice = SpliceAt(text, i)) {
        size_t eol = i + 1;
        while (LineEndAt(text, eol) == 0) ++eol;
        end_line(eol, i + splice, true);
        i += splice;
        continue;
      }
    }
    if (const size_t eol = LineEndAt(text, i)) {
      if (state == State::kRawString) out.lines.back().has_code = true;
      end_line(i, i + eol, false);
      i += eol;
      continue;
    }
    const char c = text[i];
    SourceLine& line = out.lines.back();
    switch (state) {
      case State::kSlash:
        if (c == '/' || c == '*') {
          const bool block = c == '*';
          out.comments.push_back({slash_line, block, out.lines[slash_line - 1].has_code, i + 1, {}});
          if (!block) open_comment = out.comments.size() - 1;
          state = block ? State::kBlockComment : State::kLineComment;
          ++i;
        } else {
          out.lines[slash_line - 1].has_code = true;
          state = State::kCode;  // this character is read again as code
        }
        break;
      case State::kLineComment:
        ++i;
        break;
      case State::kBlockComment:
      case State::kBlockStar:
        if (state == State::kBlockStar && c == '/') {
          SourceComment& comment = out.comments.back();
          comment.text = text.substr(comment.begin, block_star - comment.begin);
          state = State::kCode;
        } else if (c == '*') {
          state = State::kBlockStar;
          block_star = i;
        } else {
          state = State::kBlockComment;
        }
        ++i;
        break;
      case State::kLiteral:
        line.has_code = true;
        if (c == '\\') state = State::kLiteralEscape;
        if (c == quote) state = State::kCode;
        ++i;
        break;
      case State::kLiteralEscape:
        line.has_code = true;
        state = State::kLiteral;
        ++i;
        break;
      case State::kRawString:
        line.has_code = true;
        if (text.compare(i, raw_closing.size(), raw_closing) == 0) {
          state = State::kCode;
          i += raw_closing.size();
        } else {
          ++i;
        }
        break;
      case State::kCode:
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
          ++i;
          break;
        }
        if (c == '/') {
          state = State::kSlash;
          slash_line = line_number();
          ++i;
          break;
        }
        line.has_code = true;
        if (c == '"') {
          const std::string_view prefix = WordBefore(text, i);
          const bool raw =
              prefix == "R" || prefix == "LR" || prefix == "uR" || prefix == "UR" || prefix == "u8R";
          const size_t open = raw ? RawOpening(text, i) : std::string_view::npos;
          if (open != std::string_view::npos) {
            raw_closing = ")" + std::string(text.substr(i + 1, open - i - 1)) + "\"";
            state = State::kRawString;
            i = open + 1;
            break;
          }
          state = State::kLiteral;
          quote = '"';
        } else if (c == '\'') {
          const std::string_view prefix = WordBefore(text, i);
          if (prefix.empty() || prefix == "L" || prefix == "u" || prefix == "U" || prefix == "u8") {
            state = State::kLiteral;  // else a digit separator (1'000)
            quote = '\'';
          }
        }
        ++i;
        break;
    }
  }
  if (state == State::kBlockComment || state == State::kBlockStar) {
    SourceComment& comment = out.comments.back();  // unterminated: to the end
    comment.text = text.substr(comment.begin);
  }
  end_line(n, n, false);
  out.lines.pop_back();  // the line after the end
  return out;
}

}  // namespace bankcheck::internal
