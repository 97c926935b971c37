#include "core/internal/text_table.h"

#include <algorithm>

#include "bankcheck/limits.h"

namespace bankcheck {
namespace {

// Display width: counts UTF-8 code points, not bytes, so "→" pads like one character.
size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

void AppendRow(std::string& out, const TableRow& row, const std::vector<size_t>& widths) {
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
  for (const TableRow& row : rows) {
    for (size_t column = 0; column < std::min(row.size(), widths.size()); ++column) {
      widths[column] = std::max(widths[column], std::min(DisplayWidth(row[column]), kMaxColumnWidth));
    }
  }
  std::string out;
  AppendRow(out, header, widths);
  TableRow underline;
  for (const size_t width : widths) underline.push_back(std::string(width, '-'));
  AppendRow(out, underline, widths);
  for (const TableRow& row : rows) AppendRow(out, row, widths);
  return out;
}

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
