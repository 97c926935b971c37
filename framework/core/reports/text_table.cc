#include "core/reports/text_table.h"

#include <algorithm>

#include "bankcheck/core/limits.h"

namespace bankcheck {
namespace {

// Display width: counts UTF-8 code points, not bytes, so "→" pads like one character.
size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

// Cells come from results files and sources: each is shown on one line with its control characters
// visible (PlainLine), whole however long.
TableRow PlainRow(const TableRow& row) {
  TableRow plain;
  for (const std::string& cell : row) plain.push_back(PlainLine(cell, cell.size()));
  return plain;
}

void AppendRow(std::string& out, const TableRow& raw, const std::vector<size_t>& widths) {
  const TableRow row = PlainRow(raw);
  std::string line;
  for (size_t column = 0; column < widths.size(); ++column) {
    const std::string cell = column < row.size() ? row[column] : "";
    line += cell;
    // A cell wider than its column (one longer than kMaxColumnWidth) is printed whole, unpadded.
    if (column + 1 < widths.size())
      line += std::string(widths[column] - std::min(widths[column], DisplayWidth(cell)) + 2, ' ');
  }
  line.erase(line.find_last_not_of(' ') + 1);
  out += line + "\n";
}

// Widens `widths` to the cells of `rows` (each column to at most kMaxColumnWidth).
void WidenTo(const std::vector<TableRow>& rows, std::vector<size_t>& widths) {
  for (const TableRow& raw : rows) {
    const TableRow row = PlainRow(raw);
    for (size_t column = 0; column < std::min(row.size(), widths.size()); ++column)
      widths[column] = std::max(widths[column], std::min(DisplayWidth(row[column]), kMaxColumnWidth));
  }
}

// The byte offset after the first `count` code points of `text`.
size_t PrefixBytes(std::string_view text, size_t count) {
  size_t i = 0;
  for (size_t seen = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ == count) break;
  }
  return i;
}

// `text` in at most `max_width` code points: its first and last code points with "…" between.
std::string CutMiddle(std::string_view text, size_t max_width) {
  const size_t width = DisplayWidth(text);
  if (width <= max_width) return std::string(text);
  if (max_width == 0) return std::string();
  const size_t head = (max_width - 1) / 2;
  const size_t tail = max_width - 1 - head;  // the end of a name (its function) gets the odd one
  return std::string(text.substr(0, PrefixBytes(text, head))) + "…" +
         std::string(text.substr(PrefixBytes(text, width - tail)));
}

// The parts of a demangled name "R ns::Class::f<T>(args)": return type with its space, scopes with
// their last "::", the function, the parameter list. False when brackets do not pair up (an
// operator such as operator<, a name that is not demangled): the name is then cut in its middle.
struct NameParts {
  std::string_view return_type, scopes, function, params;
};

bool SplitName(std::string_view name, NameParts& parts) {
  size_t head_end = name.size();
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    size_t i = name.size();
    while (i-- > 0) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) break;
    }
    if (depth != 0 || i == std::string_view::npos) return false;
    // "ns::(anonymous namespace)" ends in ')' but is a scope, not a parameter list.
    if (i > 0 && name[i - 1] != ':') head_end = i;
  }
  const std::string_view head = name.substr(0, head_end);
  parts.params = name.substr(head_end);
  int depth = 0;
  size_t name_start = 0;
  size_t last_scope = std::string_view::npos;  // the position after the last top-level "::"
  for (size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') {
      if (--depth < 0) return false;
    }
    if (depth != 0) continue;
    if (c == ' ') {
      name_start = i + 1;
      last_scope = std::string_view::npos;
    } else if (c == ':' && i + 1 < head.size() && head[i + 1] == ':') {
      last_scope = i + 2;
      ++i;
    }
  }
  if (depth != 0) return false;
  const size_t function_start = last_scope == std::string_view::npos ? name_start : last_scope;
  parts.return_type = head.substr(0, name_start);
  parts.scopes = head.substr(name_start, function_start - name_start);
  parts.function = head.substr(function_start);
  return !parts.function.empty();
}

std::string MarkdownCell(const std::string& text) {
  std::string cell;
  for (const char c : text) {
    if (c == '|') {
      cell += "\\|";
    } else if (c == '\n') {
      cell += "<br>";
    } else {
      cell += c;
    }
  }
  return cell;
}

}  // namespace

std::string FormatTextTable(const TableRow& header, const std::vector<TableRow>& rows) {
  std::vector<size_t> widths(header.size(), 0);
  for (size_t column = 0; column < header.size(); ++column) widths[column] = DisplayWidth(header[column]);
  WidenTo(rows, widths);
  std::string out;
  AppendRow(out, header, widths);
  TableRow underline;
  for (const size_t width : widths) underline.push_back(std::string(width, '-'));
  AppendRow(out, underline, widths);
  for (const TableRow& row : rows) AppendRow(out, row, widths);
  return out;
}

std::string FormatTextRows(const std::vector<TableRow>& rows) {
  size_t columns = 0;
  for (const TableRow& row : rows) columns = std::max(columns, row.size());
  std::vector<size_t> widths(columns, 0);
  WidenTo(rows, widths);
  std::string out;
  for (const TableRow& row : rows) AppendRow(out, row, widths);
  return out;
}

std::string ShortenKernelName(std::string_view name, size_t max_width) {
  if (DisplayWidth(name) <= max_width) return std::string(name);
  NameParts parts;
  if (!SplitName(name, parts)) return CutMiddle(name, max_width);
  const std::string scopes = parts.scopes.empty() ? "" : "…::";
  const std::string function(parts.function);
  std::vector<std::string> candidates = {
      std::string(parts.scopes) + function + std::string(parts.params),  // no return type
      scopes + function + std::string(parts.params),                     // no namespaces either
  };
  const std::string params = parts.params.size() > 2 ? "(…)" : std::string(parts.params);
  candidates.push_back(scopes + function + params);  // nor parameters
  for (const std::string& candidate : candidates) {
    if (DisplayWidth(candidate) <= max_width) return candidate;
  }
  // The function's own name (its template arguments, mostly) cut in its middle.
  const size_t around = DisplayWidth(scopes) + DisplayWidth(params);
  if (max_width > around + 2) return scopes + CutMiddle(function, max_width - around) + params;
  return CutMiddle(candidates.back(), max_width);
}

namespace {

// The bytes of the whitespace at `at` (ASCII, or a UTF-8 character .NET's Trim removes: no-break
// space, the U+2000 spaces, the line and paragraph separators, ...), 0 if none.
size_t WhitespaceAt(std::string_view text, size_t at) {
  static constexpr std::string_view kUnicodeSpaces[] = {"\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\xA8",
                                                        "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F",
                                                        "\xE3\x80\x80"};
  const char c = text[at];
  if (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r') return 1;
  const std::string_view rest = text.substr(at);
  if (rest.size() >= 3 && rest[0] == '\xE2' && rest[1] == '\x80' &&
      static_cast<unsigned char>(rest[2]) >= 0x80 && static_cast<unsigned char>(rest[2]) <= 0x8A)
    return 3;  // U+2000 to U+200A
  for (const std::string_view space : kUnicodeSpaces)
    if (rest.substr(0, space.size()) == space) return space.size();
  return 0;
}

std::string Plain(std::string_view text, size_t max_bytes, bool keep_lines) {
  size_t cut = std::min(max_bytes, text.size());
  while (cut > 0 && cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string out;
  out.reserve(cut + 3);
  for (size_t i = 0; i < cut; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c == '\n' || c == '\t') && keep_lines) {
      out += static_cast<char>(c);
    } else if (c == '\n' || c == '\t' || c == '\r') {
      out += keep_lines && c == '\r' ? "" : " ";
    } else if (c < 0x20 || c == 0x7F) {
      out += '?';
    } else if (c == 0xC2 && i + 1 < cut && (static_cast<unsigned char>(text[i + 1]) & 0xE0) == 0x80) {
      out += '?';  // a C1 control character (U+0080 to U+009F): CSI and its like
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  BreakWorkflowCommands(out);
  return cut < text.size() ? out + "…" : out;
}

}  // namespace

// A CI log reads a GitHub workflow command from a line that starts with "::" after whitespace, and
// the older "##[command]" anywhere in a line: text from a file never forms one (its first ':' and
// the '[' are shown as "?").
void BreakWorkflowCommands(std::string& text) {
  for (size_t line = 0; line < text.size();) {
    size_t at = line;
    while (at < text.size()) {
      const size_t space = WhitespaceAt(text, at);
      if (space == 0) break;
      at += space;
    }
    if (text.compare(at, 2, "::") == 0) text[at] = '?';
    const size_t end = text.find('\n', line);
    if (end == std::string::npos) break;
    line = end + 1;
  }
  for (size_t at = text.find("##["); at != std::string::npos; at = text.find("##[", at)) text[at + 2] = '?';
}

std::string PlainLine(std::string_view text, size_t max_bytes) { return Plain(text, max_bytes, false); }

std::string PlainBlock(std::string_view text, size_t max_bytes) { return Plain(text, max_bytes, true); }

std::string FormatMarkdownTable(const TableRow& header, const std::vector<TableRow>& rows) {
  std::string out = "|";
  for (const std::string& cell : header) out += " " + MarkdownCell(cell) + " |";
  out += "\n|";
  for (size_t column = 0; column < header.size(); ++column) out += " --- |";
  out += "\n";
  for (const TableRow& row : rows) {
    out += "|";
    for (size_t column = 0; column < header.size(); ++column) {
      out += " " + MarkdownCell(column < row.size() ? row[column] : "") + " |";
    }
    out += "\n";
  }
  return out;
}

std::string BeforeAfter(const std::string& before, const std::string& after, const char* arrow) {
  return before == after ? after : before + arrow + after;
}

std::string WithThousands(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

}  // namespace bankcheck
