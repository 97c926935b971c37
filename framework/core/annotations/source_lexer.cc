#include "core/annotations/internal/source_lexer.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <utility>

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

namespace {

// LexSource's state machine: one member per state, each reading the character at i_ and moving on.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) { out_.lines.push_back({}); }

  LexedSource Run() && {
    const size_t n = text_.size();
    while (i_ < n) {
      // Splices first (phase 2), except in a raw string, where the compiler reverts them.
      if (state_ != State::kRawString) {
        if (const size_t splice = SpliceAt(text_, i_)) {
          size_t eol = i_ + 1;
          while (LineEndAt(text_, eol) == 0) ++eol;
          EndLine(eol, i_ + splice, true);
          i_ += splice;
          continue;
        }
      }
      if (const size_t eol = LineEndAt(text_, i_)) {
        if (state_ == State::kRawString) out_.lines.back().has_code = true;
        EndLine(i_, i_ + eol, false);
        i_ += eol;
        continue;
      }
      Step(text_[i_]);
    }
    if (state_ == State::kBlockComment || state_ == State::kBlockStar) {
      SourceComment& comment = out_.comments.back();  // unterminated: to the end
      comment.text = text_.substr(comment.begin);
    }
    EndLine(n, n, false);
    out_.lines.pop_back();  // the line after the end
    return std::move(out_);
  }

 private:
  uint32_t LineNumber() const { return static_cast<uint32_t>(out_.lines.size()); }

  // Ends the current line at `at`; the next begins at `next`.
  void EndLine(size_t at, size_t next, bool spliced) {
    if (open_comment_ != SIZE_MAX) {
      SourceComment& comment = out_.comments[open_comment_];
      comment.text = text_.substr(comment.begin, at - comment.begin);
      open_comment_ = SIZE_MAX;
    }
    SourceLine& line = out_.lines.back();
    line.end = at;
    line.continued = spliced;
    line.ends_clean = !spliced && state_ == State::kCode;
    if (!spliced) {
      // What a line end ends: a `//` comment, an unterminated literal, a pending '/'.
      if (state_ == State::kSlash) out_.lines[slash_line_ - 1].has_code = true;
      if (state_ == State::kLineComment || state_ == State::kLiteral || state_ == State::kLiteralEscape ||
          state_ == State::kSlash)
        state_ = State::kCode;
      if (state_ == State::kBlockStar) state_ = State::kBlockComment;
    }
    SourceLine following;
    following.begin = next;
    following.starts_clean = !spliced && state_ == State::kCode;
    out_.lines.push_back(following);
  }

  void Step(char c) {
    switch (state_) {
      case State::kSlash:
        return AfterSlash(c);
      case State::kLineComment:
        ++i_;
        return;
      case State::kBlockComment:
      case State::kBlockStar:
        return InBlockComment(c);
      case State::kLiteral:
      case State::kLiteralEscape:
        return InLiteral(c);
      case State::kRawString:
        return InRawString();
      case State::kCode:
        return InCode(c);
    }
  }

  void AfterSlash(char c) {
    if (c == '/' || c == '*') {
      const bool block = c == '*';
      out_.comments.push_back({slash_line_, block, out_.lines[slash_line_ - 1].has_code, i_ + 1, {}});
      if (!block) open_comment_ = out_.comments.size() - 1;
      state_ = block ? State::kBlockComment : State::kLineComment;
      ++i_;
    } else {
      out_.lines[slash_line_ - 1].has_code = true;
      state_ = State::kCode;  // this character is read again as code
    }
  }

  void InBlockComment(char c) {
    if (state_ == State::kBlockStar && c == '/') {
      SourceComment& comment = out_.comments.back();
      comment.text = text_.substr(comment.begin, block_star_ - comment.begin);
      state_ = State::kCode;
    } else if (c == '*') {
      state_ = State::kBlockStar;
      block_star_ = i_;
    } else {
      state_ = State::kBlockComment;
    }
    ++i_;
  }

  void InLiteral(char c) {
    out_.lines.back().has_code = true;
    if (state_ == State::kLiteralEscape) {
      state_ = State::kLiteral;
    } else {
      if (c == '\\') state_ = State::kLiteralEscape;
      if (c == quote_) state_ = State::kCode;
    }
    ++i_;
  }

  void InRawString() {
    out_.lines.back().has_code = true;
    if (text_.compare(i_, raw_closing_.size(), raw_closing_) == 0) {
      state_ = State::kCode;
      i_ += raw_closing_.size();
    } else {
      ++i_;
    }
  }

  void InCode(char c) {
    if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
      ++i_;
      return;
    }
    if (c == '/') {
      state_ = State::kSlash;
      slash_line_ = LineNumber();
      ++i_;
      return;
    }
    out_.lines.back().has_code = true;
    if (c == '"') {
      const std::string_view prefix = WordBefore(text_, i_);
      const bool raw = prefix == "R" || prefix == "LR" || prefix == "uR" || prefix == "UR" || prefix == "u8R";
      const size_t open = raw ? RawOpening(text_, i_) : std::string_view::npos;
      if (open != std::string_view::npos) {
        raw_closing_ = ")" + std::string(text_.substr(i_ + 1, open - i_ - 1)) + "\"";
        state_ = State::kRawString;
        i_ = open + 1;
        return;
      }
      state_ = State::kLiteral;
      quote_ = '"';
    } else if (c == '\'') {
      const std::string_view prefix = WordBefore(text_, i_);
      if (prefix.empty() || prefix == "L" || prefix == "u" || prefix == "U" || prefix == "u8") {
        state_ = State::kLiteral;  // else a digit separator (1'000)
        quote_ = '\'';
      }
    }
    ++i_;
  }

  std::string_view text_;
  LexedSource out_;
  size_t i_ = 0;
  State state_ = State::kCode;
  char quote_ = '"';
  std::string raw_closing_;
  size_t open_comment_ = SIZE_MAX;  // the `//` comment whose text ends with its first line
  uint32_t slash_line_ = 0;         // the line of the '/' of kSlash
  size_t block_star_ = 0;           // the '*' of kBlockStar
};

}  // namespace

LexedSource LexSource(std::string_view text) { return Lexer(text).Run(); }

}  // namespace bankcheck::internal
