#pragma once
// Tables for terminals (aligned columns) and for Markdown (pipes), as reports and the CLI print them.

#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck {

using TableRow = std::vector<std::string>;

// Columns padded to their widest cell, but to at most kMaxColumnWidth (limits.h: a longer cell is
// printed whole and unpadded, so the table grows linearly with its cells), separated by two
// spaces; trailing spaces trimmed. A header underline of dashes follows the header row.
std::string FormatTextTable(const TableRow& header, const std::vector<TableRow>& rows);

// A GitHub-flavoured Markdown table; '|' and newlines in cells are escaped.
std::string FormatMarkdownTable(const TableRow& header, const std::vector<TableRow>& rows);

// "before -> after", or just the value when equal; `arrow` lets Markdown use "→".
std::string BeforeAfter(const std::string& before, const std::string& after, const char* arrow = " -> ");

// "16,777,216": digits in groups of three, for counts people compare by eye.
std::string WithThousands(uint64_t value);

}  // namespace bankcheck
