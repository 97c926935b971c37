#pragma once
// Text from results and baseline files, made inert for Markdown and HTML: what `bankcheck report`
// and `bankcheck compare` put in a pull request's summary. Case names, topics, kernel names,
// metadata, messages and paths come from files a pull request can supply, so every one of them goes
// through these helpers; none is written raw. Internal (src/), not an installed header.

#include <cstddef>
#include <string>
#include <string_view>

namespace bankcheck::markdown {

// The longest piece of inline text shown, in bytes of the original text (names, metadata fields).
inline constexpr size_t kMaxInlineBytes = 200;
// The longest path shown (a file or folder named on the command line or in a results file).
inline constexpr size_t kMaxPathBytes = 1024;
// The longest code block shown, in bytes of the original text (messages, before -> after tables).
inline constexpr size_t kMaxBlockBytes = 20000;

// At most `max_bytes` bytes of `text`, cut at a UTF-8 character boundary, with "…" appended when
// something was cut (the marker is not counted in `max_bytes`).
std::string Truncate(std::string_view text, size_t max_bytes);

// One line of text that means the same in Markdown (a heading, a table cell, a list item) and in
// HTML (<summary>): at most `max_bytes` bytes of `text` (Truncate); line breaks, control
// characters and Unicode line separators and direction overrides each become a space, so nothing
// can start a line of its own; malformed UTF-8 becomes U+FFFD; & < > " ' are HTML entities, and
// so are Markdown's active characters (\ ` * [ ] | ~ #, _ other than between letters or digits,
// and a leading - + =), so no markup, link, code span or HTML tag can be formed from it.
std::string Inline(std::string_view text, size_t max_bytes = kMaxInlineBytes);

// Inline(text) as code: "<code>…</code>" (HTML, so that it can go where a Markdown code span could
// not: in <summary>, and with entities).
std::string Code(std::string_view text, size_t max_bytes = kMaxInlineBytes);

// `body` as a fenced code block, with a backtick fence longer than any run of backticks in it (at
// least three), so no line of the body can close it. At most `max_bytes` bytes of `body` are shown
// ("[... N more bytes not shown]" after them); control characters but newline and tab show as
// \xNN, and a carriage return before a newline is dropped. Ends with a newline.
std::string FencedBlock(std::string_view body, size_t max_bytes = kMaxBlockBytes);

}  // namespace bankcheck::markdown
