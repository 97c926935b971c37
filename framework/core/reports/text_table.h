#pragma once
// Tables for terminals (aligned columns) and for Markdown (pipes), as reports and the CLI print them.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck {

using TableRow = std::vector<std::string>;

// Columns padded to their widest cell, but to at most kMaxColumnWidth (limits.h: a longer cell is
// printed whole and unpadded, so the table grows linearly with its cells), separated by two
// spaces; trailing spaces trimmed. A header underline of dashes follows the header row.
std::string FormatTextTable(const TableRow& header, const std::vector<TableRow>& rows);
// The same rows without a header, for lists that need none.
std::string FormatTextRows(const std::vector<TableRow>& rows);

// A GitHub-flavoured Markdown table; '|' and newlines in cells are escaped.
std::string FormatMarkdownTable(const TableRow& header, const std::vector<TableRow>& rows);

// "before -> after", or just the value when equal; `arrow` lets Markdown use "→".
std::string BeforeAfter(const std::string& before, const std::string& after, const char* arrow = " -> ");

// "16,777,216": digits in groups of three, for counts people compare by eye.
std::string WithThousands(uint64_t value);

// A demangled kernel name in at most `max_width` characters (UTF-8 code points), shortened in the
// middle so that the function's own name stays: first the return type goes, then the enclosing
// namespaces and classes ("…::"), then the parameter list ("(…)"), and only then is the rest cut in
// its middle ("…"). "void bankcheck::kernels::(anonymous namespace)::Transpose<32, 8>(float const*,
// float*)" in 48 characters is "…::Transpose<32, 8>(float const*, float*)". A name that fits is
// returned as it is. Every table that shows kernel names shortens them here.
std::string ShortenKernelName(std::string_view name, size_t max_width);

// Text from a results or baseline file made safe for a terminal: at most `max_bytes` bytes (cut at
// a UTF-8 boundary, "…" appended), control characters (escape sequences) shown as "?", and no line
// a CI log would read as a GitHub workflow command ("::error ..." after whitespace: its first ':'
// shown as "?"; "##[" anywhere: "##?"). PlainLine also makes line breaks and tabs spaces;
// PlainBlock keeps them.
std::string PlainLine(std::string_view text, size_t max_bytes = 200);
// What PlainLine and PlainBlock do against workflow commands, for text shown otherwise (a Markdown
// code block): a line starting with "::" after whitespace gets "?:", and "##[" becomes "##?".
void BreakWorkflowCommands(std::string& text);
std::string PlainBlock(std::string_view text, size_t max_bytes = 20000);

}  // namespace bankcheck
