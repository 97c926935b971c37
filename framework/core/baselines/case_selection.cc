#include "bankcheck/core/case_selection.h"

#include <cstddef>

#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"
#include "core/platform/file_io.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace {

constexpr size_t kNone = std::string_view::npos;

// The character that the element at `p` names literally: the one after a '\' (or the '\' itself at
// the end), else pattern[p]; `p` moves past it.
unsigned char LiteralAt(std::string_view pattern, size_t& p) {
  if (pattern[p] == '\\' && p + 1 < pattern.size()) ++p;
  return static_cast<unsigned char>(pattern[p++]);
}

// Whether the set "[...]" that opens at `p` (pattern[p] == '[') holds `c`, with `p` moved past its
// ']'. A '[' that no ']' closes is no set: false, and `p` unchanged.
bool SetHolds(std::string_view pattern, size_t& p, unsigned char c, bool& is_set) {
  size_t j = p + 1;
  const bool negated = j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^');
  if (negated) ++j;
  bool held = false;
  bool first = true;
  while (j < pattern.size() && (first || pattern[j] != ']')) {
    first = false;
    const unsigned char low = LiteralAt(pattern, j);
    unsigned char high = low;
    if (j + 1 < pattern.size() && pattern[j] == '-' && pattern[j + 1] != ']') {
      ++j;
      high = LiteralAt(pattern, j);
    }
    held = held || (low <= c && c <= high);
  }
  is_set = j < pattern.size();
  if (!is_set) return false;
  p = j + 1;
  return held != negated;
}

// Whether the pattern element at `p` (not '*') matches `c`; `p` moves past it when it does.
bool ElementMatches(std::string_view pattern, size_t& p, unsigned char c) {
  if (pattern[p] == '?') {
    ++p;
    return true;
  }
  if (pattern[p] == '[') {
    size_t after = p;
    bool is_set = false;
    const bool held = SetHolds(pattern, after, c, is_set);
    if (is_set) {
      if (held) p = after;
      return held;
    }
  }
  size_t after = p;
  if (LiteralAt(pattern, after) != c) return false;
  p = after;
  return true;
}

}  // namespace

bool MatchesGlob(std::string_view name, std::string_view pattern) {
  // Two positions and the last '*' seen: on a mismatch, that '*' takes one more character and the
  // rest of the pattern is tried again from there. An earlier '*' never needs to take more (the
  // later one can take whatever it would), so there is no backtracking beyond the last '*' and no
  // recursion: at most name length times pattern length steps.
  size_t p = 0;
  size_t n = 0;
  size_t star = kNone;   // the pattern position after the last '*'
  size_t star_name = 0;  // where in the name that '*' ends now
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = ++p;
      star_name = n;
      continue;
    }
    size_t next = p;
    if (p < pattern.size() && ElementMatches(pattern, next, static_cast<unsigned char>(name[n]))) {
      p = next;
      ++n;
      continue;
    }
    if (star == kNone) return false;
    p = star;
    n = ++star_name;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

CaseSelection::CaseSelection(std::string_view selection) : every_(selection.empty()) {
  // Split at each ',' that no '\' escapes; the escapes stay for MatchesGlob. A pattern without a
  // glob character names one case: looked up, so that a selection of many names (a shard's,
  // BANKCHECK_CASES_FILE) costs one lookup per case, not one match per pattern.
  size_t begin = 0;
  std::string literal;
  bool is_literal = true;
  for (size_t i = 0; i <= selection.size(); ++i) {
    if (i == selection.size() || selection[i] == ',') {
      const std::string_view pattern = selection.substr(begin, i - begin);
      if (!pattern.empty()) {
        if (is_literal) {
          names_.insert(literal);
        } else {
          globs_.emplace_back(pattern);
        }
      }
      begin = i + 1;
      literal.clear();
      is_literal = true;
    } else if (selection[i] == '\\') {
      literal += i + 1 < selection.size() ? selection[++i] : '\\';
    } else {
      is_literal = is_literal && std::string_view("*?[").find(selection[i]) == kNone;
      literal += selection[i];
    }
  }
}

bool CaseSelection::Selects(std::string_view case_name) const {
  if (every_ || names_.count(std::string(case_name)) != 0) return true;
  for (const std::string& glob : globs_)
    if (MatchesGlob(case_name, glob)) return true;
  return false;
}

bool MatchesCasePatterns(std::string_view case_name, std::string_view selection) {
  return CaseSelection(selection).Selects(case_name);
}

std::string CasePatternFor(std::string_view case_name) {
  std::string pattern;
  for (const char c : case_name) {
    if (std::string_view("*?[]\\,").find(c) != kNone) pattern += '\\';
    pattern += c;
  }
  return pattern;
}

void CheckCaseSelection(std::string_view selection, const std::string& what) {
  const std::string shown = what + "='" + PlainLine(selection, 80) + "'";
  if (selection.size() > kMaxCaseNameBytes) {
    throw Error(ErrorKind::kBadInput, shown + " is " + std::to_string(selection.size()) +
                                          " bytes long, more than the " + std::to_string(kMaxCaseNameBytes) +
                                          " bankcheck reads (limits.h); select fewer cases at once");
  }
  for (const char c : selection) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      throw Error(ErrorKind::kBadInput,
                  shown +
                      " holds a control character; give glob patterns over case names, such as "
                      "'transpose/*' or 'transpose/*,reduce/naive'");
    }
  }
  if (selection.find_first_not_of(',') == kNone && !selection.empty()) {
    throw Error(ErrorKind::kBadInput, shown +
                                          " holds no pattern; give glob patterns over case names, such "
                                          "as 'transpose/*' or 'transpose/*,reduce/naive'");
  }
}

void CheckCaseNameLength(std::string_view name, const std::string& where) {
  if (name.size() <= kMaxCaseNameBytes) return;
  throw Error(ErrorKind::kBadInput, where + ": a case name of " + std::to_string(name.size()) + " bytes (" +
                                        PlainLine(name, 40) + "), longer than the " +
                                        std::to_string(kMaxCaseNameBytes) + " bankcheck reads (limits.h)");
}

std::string ReadCaseSelectionFile(const std::filesystem::path& path, const std::string& what) {
  const std::string shown = what + "=" + PlainLine(path.string(), 200);
  const std::string text = ReadTextFile(
      path, "(" + what + ": a file of case selections, one per line, such as bankcheck-shard-plan writes)");
  std::string selection;
  size_t lines = 0;
  size_t begin = 0;
  for (size_t number = 1; begin < text.size(); ++number) {
    size_t end = text.find('\n', begin);
    if (end == kNone) end = text.size();
    std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::string where = shown + ", line " + std::to_string(number);
    CheckCaseSelection(line, where);
    // Joined with ',', a last '\' would escape that comma and glue two lines into one pattern.
    const size_t kept = line.find_last_not_of('\\');
    if ((line.size() - (kept == kNone ? 0 : kept + 1)) % 2 == 1) {
      throw Error(ErrorKind::kBadInput, where +
                                            " ends in a '\\' that escapes nothing; end it with '\\\\' "
                                            "for a literal one");
    }
    if (++lines > kMaxCases) {
      throw Error(ErrorKind::kBadInput, shown + " holds more than " + std::to_string(kMaxCases) +
                                            " selections (limits.h kMaxCases); select fewer cases at once");
    }
    selection += (selection.empty() ? "" : ",") + std::string(line);
  }
  if (lines == 0) {
    throw Error(ErrorKind::kBadInput,
                shown +
                    " holds no case selection (an empty file would select every case): "
                    "a shard with no case has nothing to run; run it only when the file "
                    "is not empty");
  }
  return selection;
}

}  // namespace bankcheck
