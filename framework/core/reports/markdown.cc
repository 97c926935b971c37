#include "core/reports/internal/markdown.h"

#include <algorithm>
#include <cstdio>

#include "core/reports/text_table.h"

namespace bankcheck::markdown {
namespace {

constexpr char32_t kReplacement = 0xFFFD;
constexpr char kReplacementUtf8[] = "\xEF\xBF\xBD";

// The code point starting at text[i] and its length in bytes; malformed UTF-8 (a stray or missing
// continuation byte, an overlong form, a surrogate, a value past U+10FFFF) is U+FFFD of length 1.
char32_t Decode(std::string_view text, size_t i, size_t& length) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  length = 1;
  if (lead < 0x80) return lead;
  size_t count = 0;
  char32_t value = 0;
  char32_t smallest = 0;
  if ((lead & 0xE0) == 0xC0) {
    count = 1, value = lead & 0x1F, smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    count = 2, value = lead & 0x0F, smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    count = 3, value = lead & 0x07, smallest = 0x10000;
  } else {
    return kReplacement;
  }
  for (size_t k = 1; k <= count; ++k) {
    if (i + k >= text.size() || (byte(i + k) & 0xC0) != 0x80) return kReplacement;
    value = (value << 6) | (byte(i + k) & 0x3F);
  }
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return kReplacement;
  length = count + 1;
  return value;
}

// Characters that break a line, or are invisible and change how the text around them reads:
// controls (C0, DEL, C1), the Unicode line and paragraph separators, direction marks, embeddings,
// overrides and isolates, and the byte order mark.
bool IsDisruptive(char32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069) || c == 0xFEFF;
}

bool IsAsciiAlnum(std::string_view text, size_t i) {
  if (i >= text.size()) return false;
  const char c = text[i];
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The entity that stands for text[i] in Inline, or nullptr where the character is inert as it is.
const char* EntityFor(std::string_view text, size_t i) {
  switch (text[i]) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&#39;";
    case '\\':
      return "&#92;";
    case '`':
      return "&#96;";
    case '*':
      return "&#42;";
    case '[':
      return "&#91;";
    case ']':
      return "&#93;";
    case '|':
      return "&#124;";
    case '~':
      return "&#126;";
    case '#':
      return "&#35;";
    case '_':
      // Between letters or digits an underscore can neither open nor close emphasis.
      return i > 0 && IsAsciiAlnum(text, i - 1) && IsAsciiAlnum(text, i + 1) ? nullptr : "&#95;";
    case '-':
      return i == 0 ? "&#45;" : nullptr;
    case '+':
      return i == 0 ? "&#43;" : nullptr;
    case '=':
      return i == 0 ? "&#61;" : nullptr;
    default:
      return nullptr;
  }
}

std::string Hex(const char* format, unsigned value) {
  char text[16];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

}  // namespace

std::string Truncate(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "…";
}

std::string Inline(std::string_view text, size_t max_bytes) {
  const std::string shown = Truncate(text, max_bytes);
  std::string out;
  out.reserve(shown.size());
  for (size_t i = 0, length = 1; i < shown.size(); i += length) {
    const char32_t c = Decode(shown, i, length);
    if (IsDisruptive(c)) {
      out += ' ';
    } else if (c == kReplacement && length == 1) {
      out += kReplacementUtf8;
    } else if (const char* entity = c < 0x80 ? EntityFor(shown, i) : nullptr) {
      out += entity;
    } else {
      out.append(shown, i, length);
    }
  }
  return out;
}

std::string Code(std::string_view text, size_t max_bytes) {
  return "<code>" + Inline(text, max_bytes) + "</code>";
}

std::string FencedBlock(std::string_view body, size_t max_bytes) {
  const std::string_view shown = body.substr(0, std::min(body.size(), max_bytes));
  std::string clean;
  clean.reserve(shown.size());
  size_t i = 0;
  for (size_t length = 1; i < shown.size(); i += length) {
    const char32_t c = Decode(shown, i, length);
    // A cut through a character leaves its first bytes; they go with the bytes not shown.
    if (c == kReplacement && length == 1 && i + 4 > shown.size() && shown.size() < body.size()) break;
    if (c == '\n' || c == '\t') {
      clean += static_cast<char>(c);
    } else if (c == '\r' && i + 1 < shown.size() && shown[i + 1] == '\n') {
      continue;
    } else if (IsDisruptive(c)) {
      clean += c < 0x80 ? Hex("\\x%02x", static_cast<unsigned>(c)) : Hex("\\u%04x", static_cast<unsigned>(c));
    } else if (c == kReplacement && length == 1) {
      clean += kReplacementUtf8;
    } else {
      clean.append(shown, i, length);
    }
  }
  if (!clean.empty() && clean.back() != '\n') clean += '\n';
  if (i < body.size()) clean += "[... " + std::to_string(body.size() - i) + " more bytes not shown]\n";
  BreakWorkflowCommands(clean);  // the Markdown may be printed into a CI log

  size_t longest_run = 0;
  for (size_t run = 0, k = 0; k < clean.size(); ++k) {
    run = clean[k] == '`' ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
  }
  const std::string fence(std::max<size_t>(3, longest_run + 1), '`');
  return fence + "\n" + clean + fence + "\n";
}

}  // namespace bankcheck::markdown
