#include "bankcheck/core/line_annotations.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"
#include "core/annotations/internal/source_lexer.h"
#include "core/platform/file_io.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace {

constexpr std::string_view kMarker = "bankcheck:";

// A problem's line is cut here: it quotes a comment, which may be the whole of a long line.
constexpr size_t kMaxProblemBytes = 1000;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// "ld, st, atom, ldsm, stsm, ldgsts, gmma, dsmem": the kind table's labels.
std::string KindLabels() {
  std::string labels;
  for (const MemoryKindInfo& info : MemoryKinds())
    labels += (labels.empty() ? "" : ", ") + std::string(info.label);
  return labels;
}

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

// `N-way` (N >= 1: digits with at most one decimal point), `conflict-free` or `coalesced`; the
// error otherwise.
std::optional<double> ParseWays(std::string_view word, std::string& error) {
  // `coalesced` reads better of a global kind's sectors; it is the same 1-way.
  if (word == "conflict-free" || word == "coalesced") return 1.0;
  if (EndsWith(word, "-ways")) {
    error = Quote(word) + ": write " + Quote(word.substr(0, word.size() - 1)) + " (singular)";
    return std::nullopt;
  }
  if (!EndsWith(word, "-way")) {
    error = Quote(word) + ": expected N-way (such as 2-way or 1.5-way) or conflict-free";
    return std::nullopt;
  }
  const std::string_view number = word.substr(0, word.size() - 4);
  const size_t point = number.find('.');
  const std::string_view whole = number.substr(0, point);
  const std::string_view fraction =
      point == std::string_view::npos ? std::string_view() : number.substr(point + 1);
  auto digits = [](std::string_view part) {
    return !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(whole) || (point != std::string_view::npos && !digits(fraction))) {
    error =
        Quote(word) + ": N in N-way must be a number such as 2 or 1.5 (digits, at most one decimal point)";
    return std::nullopt;
  }
  if (fraction.size() > 6) {
    error = Quote(word) + ": at most 6 digits after the decimal point";
    return std::nullopt;
  }
  const size_t significant = whole.find_first_not_of('0');
  if (significant != std::string_view::npos && whole.size() - significant > 7) {
    error = Quote(word) + ": more ways than " + std::to_string(static_cast<uint64_t>(kMaxExpectedWays)) +
            ", the most bankcheck accepts (limits.h)";
    return std::nullopt;
  }
  // Exact: an integer below 2^53 over a power of ten that a double holds exactly.
  uint64_t scaled = 0;
  for (const char d : whole) scaled = scaled * 10 + static_cast<uint64_t>(d - '0');
  double scale = 1;
  for (const char d : fraction) {
    scaled = scaled * 10 + static_cast<uint64_t>(d - '0');
    scale *= 10;
  }
  const double ways = static_cast<double>(scaled) / scale;
  if (ways < 1) {
    error = Quote(word) + ": ways are wavefronts per ideal wavefront, at least 1 (conflict-free is 1-way)";
    return std::nullopt;
  }
  if (ways > kMaxExpectedWays) {
    error = Quote(word) + ": more ways than " + std::to_string(static_cast<uint64_t>(kMaxExpectedWays)) +
            ", the most bankcheck accepts (limits.h)";
    return std::nullopt;
  }
  return ways;
}

struct Term {
  std::string_view text;
  std::optional<MemoryKind> kind;
  double ways = 1.0;
  std::vector<std::string_view> globs;  // after `in`; empty: no `in`
};

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    if (IsBlank(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !IsBlank(text[end])) ++end;
    words.push_back(text.substr(i, end - i));
    i = end;
  }
  return words;
}

bool IsKindName(std::string_view word) {
  return MemoryKindFromKey(std::string(word)) || MemoryKindFromOp(std::string(word));
}

// The globs after `in` (`selectors` is what follows the word): `GLOB { "|" GLOB }`, blanks around
// '|' free. A glob holds no blank (',' ends the term and ';' begins the note before this is read).
std::optional<std::vector<std::string_view>> ParseGlobs(std::string_view term, std::string_view selectors,
                                                        std::string& error) {
  const std::string example =
      "such as '2-way in sgemm/padded/*' or '2-way in sgemm/padded/* | sgemm/swizzled/*'";
  if (Trim(selectors).empty()) {
    error = Quote(term) + ": 'in' without a case glob; write " + example;
    return std::nullopt;
  }
  std::vector<std::string_view> globs;
  size_t start = 0;
  while (true) {
    const size_t bar = selectors.find('|', start);
    const std::string_view glob =
        Trim(selectors.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
    if (glob.empty()) {
      error = "an empty case glob in " + Quote(term) + " (a stray '|'?); write " + example;
      return std::nullopt;
    }
    if (std::any_of(glob.begin(), glob.end(), IsBlank)) {
      error = Quote(glob) + ": a case glob holds no blanks; separate globs with '|', " + example;
      return std::nullopt;
    }
    if (std::any_of(glob.begin(), glob.end(), [](char c) {
          const auto byte = static_cast<unsigned char>(c);
          return byte < 0x20 || byte == 0x7F;
        })) {
      error = "a case glob in " + Quote(term) + " holds a control character";
      return std::nullopt;
    }
    if (glob.size() > kMaxCaseNameBytes) {
      error = "a case glob of " + std::to_string(glob.size()) + " bytes in the term, longer than the " +
              std::to_string(kMaxCaseNameBytes) + " bankcheck reads (limits.h kMaxCaseNameBytes)";
      return std::nullopt;
    }
    globs.push_back(glob);
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return globs;
}

// One comma-separated term: `[KIND] WAYS [in GLOB { | GLOB }]`, WAYS `N-way` or `conflict-free`.
std::optional<Term> ParseTerm(std::string_view text, std::string& error) {
  std::vector<std::string_view> words = Words(text);
  Term term{text, std::nullopt, 1.0, {}};
  // The first word `in` begins the globs; what is before it is the kind and the ways.
  const auto in = std::find(words.begin(), words.end(), std::string_view("in"));
  if (in != words.end()) {
    if (in == words.begin() || (in - words.begin() == 1 && IsKindName(words.front()))) {
      error =
          Quote(text) + ": 'in' and its case globs come after the ways, such as 'ld 2-way in sgemm/padded/*'";
      return std::nullopt;
    }
    const std::string_view after = text.substr(static_cast<size_t>(in->data() + in->size() - text.data()));
    std::optional<std::vector<std::string_view>> globs = ParseGlobs(text, after, error);
    if (!globs) return std::nullopt;
    term.globs = std::move(*globs);
    words.erase(in, words.end());
  }
  const std::string shape =
      "a term is N-way or conflict-free, after a kind or not, then 'in' and case globs or not (such as "
      "2-way, ld 2-way or ld 2-way in sgemm/padded/*)";
  if (words.size() > 2) {
    error = Quote(text) + ": too many words; " + shape;
    return std::nullopt;
  }
  std::string_view ways = words.back();
  if (words.size() == 2) {
    term.kind = MemoryKindFromKey(std::string(words[0]));
    if (!term.kind) {
      std::string ignored;
      if (ParseWays(words[0], ignored) && MemoryKindFromKey(std::string(words[1]))) {
        error = Quote(text) +
                ": put the kind first: " + Quote(std::string(words[1]) + " " + std::string(words[0]));
      } else if (ParseWays(words[0], ignored)) {
        error = Quote(text) + ": " + Quote(words[1]) + " after " + Quote(words[0]) +
                "; separate terms with ',' and begin a note with ';'";
      } else if (const std::optional<MemoryKind> by_op = MemoryKindFromOp(std::string(words[0]))) {
        error = Quote(words[0]) + " is an op name; the kind is " + Quote(InfoOf(*by_op).label) +
                " (kinds: " + KindLabels() + ")";
      } else {
        error = Quote(words[0]) + ": not a kind of memory instruction (kinds: " + KindLabels() + ")";
      }
      return std::nullopt;
    }
  } else if (IsKindName(ways)) {
    error = Quote(text) + ": a kind without ways; write " + Quote(std::string(ways) + " N-way") + " or " +
            Quote(std::string(ways) + " conflict-free");
    return std::nullopt;
  }
  const std::optional<double> parsed = ParseWays(ways, error);
  if (!parsed) return std::nullopt;
  term.ways = *parsed;
  return term;
}

// Why the terms of one annotation cannot stand together, or "": the first term that clashes with
// one before it. Terms of one kind (or all without a kind) may differ in their globs: one without
// `in` is the default of the others; a glob given twice for a kind is refused here, two globs that
// both select a case when that case is checked. In one pass, as every annotation of a hostile
// source is read (docs/security.md: linear work).
std::string FirstClash(const std::vector<Term>& terms) {
  const Term* first_bare = nullptr;                             // the first term without a kind
  const Term* first_kinded = nullptr;                           // the first with one
  std::map<std::optional<MemoryKind>, const Term*> by_default;  // per kind, its term without `in`
  std::map<std::pair<std::optional<MemoryKind>, std::string_view>, const Term*> by_glob;
  for (const Term& term : terms) {
    const Term* other = term.kind ? first_bare : first_kinded;
    if (other != nullptr) {
      const Term& bare = term.kind ? *other : term;
      const Term& qualified = term.kind ? term : *other;
      return Quote(bare.text) + " has no kind but " + Quote(qualified.text) +
             " has one; put a kind before every term, or give one term without a kind";
    }
    (term.kind ? first_kinded : first_bare) = &term;
    const std::string what = term.kind ? "kind " + Quote(InfoOf(*term.kind).label) : "terms without a kind";
    if (term.globs.empty()) {
      const auto [earlier, first] = by_default.emplace(term.kind, &term);
      if (first) continue;
      if (term.kind)
        return what + " given twice (" + Quote(earlier->second->text) + ", " + Quote(term.text) + ")";
      return "two terms without a kind (" + Quote(earlier->second->text) + ", " + Quote(term.text) +
             "); give one, or put a kind before each, or select cases with 'in'";
    }
    for (const std::string_view glob : term.globs) {
      const auto [earlier, first] = by_glob.emplace(std::make_pair(term.kind, glob), &term);
      if (first) continue;
      if (earlier->second == &term) return "case glob " + Quote(glob) + " given twice in " + Quote(term.text);
      return "case glob " + Quote(glob) + " given twice for " + what + " (" + Quote(earlier->second->text) +
             ", " + Quote(term.text) + ")";
    }
  }
  return "";
}

// What follows `bankcheck:`: terms separated by commas, then optionally `;` and a note.
std::optional<std::vector<Term>> ParseTerms(std::string_view body, std::string& error) {
  const std::string_view spec = Trim(body.substr(0, body.find(';')));
  if (spec.empty()) {
    error =
        "'bankcheck:' without terms; write such as 'bankcheck: 2-way', 'bankcheck: conflict-free' or "
        "'bankcheck: ld 2-way, st conflict-free'";
    return std::nullopt;
  }
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    const size_t comma = spec.find(',', start);
    const std::string_view text =
        Trim(spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (text.empty()) {
      error = "an empty term in " + Quote(spec) + " (a stray comma?)";
      return std::nullopt;
    }
    std::optional<Term> term = ParseTerm(text, error);
    if (!term) {
      // `2-way in a*,b*`: the ',' ended the term, and the rest reads as a term of its own.
      if (!terms.empty() && !terms.back().globs.empty() && Words(text).size() == 1 &&
          !EndsWith(text, "-way") && text != "conflict-free" && text != "coalesced" && !IsKindName(text))
        error += " (a case glob holds no ','; separate globs with '|')";
      return std::nullopt;
    }
    terms.push_back(*term);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  error = FirstClash(terms);
  if (!error.empty()) return std::nullopt;
  return terms;
}

}  // namespace

std::string LineAnnotationProblem::ToString() const {
  // The message quotes the source, which may hold escape sequences or line breaks: one line,
  // control characters shown (PlainLine), as every text output shows names.
  const std::string text = file + ":" + std::to_string(line) + ": " + message;
  return PlainLine(text, kMaxProblemBytes);
}

LineAnnotationScan ScanLineAnnotations(std::string_view text, const std::string& file) {
  const internal::LexedSource source = internal::LexSource(text);
  const uint32_t lines = static_cast<uint32_t>(source.lines.size());
  // next_code[l]: the first line at or after l with code; 0 when none.
  std::vector<uint32_t> next_code(lines + 2, 0);
  for (uint32_t l = lines; l >= 1; --l) next_code[l] = source.lines[l - 1].has_code ? l : next_code[l + 1];

  LineAnnotationScan scan;
  std::map<uint32_t, uint32_t> annotated;  // code line -> the line of the comment that annotates it
  for (const internal::SourceComment& comment : source.comments) {
    std::string_view body = comment.text;
    while (!body.empty() && (body.front() == ' ' || body.front() == '\t')) body.remove_prefix(1);
    // `// bankcheck::Error when ...` names a C++ symbol: prose, not an annotation.
    if (!StartsWith(body, kMarker) || StartsWith(body.substr(kMarker.size()), ":")) continue;
    auto problem = [&](const std::string& message) {
      scan.problems.push_back({file, comment.line, message});
    };
    if (comment.block) {
      problem("an annotation must be a // comment; a /* */ comment is not read (write // bankcheck: ...)");
      continue;
    }
    std::string error;
    const std::optional<std::vector<Term>> terms = ParseTerms(body.substr(kMarker.size()), error);
    if (!terms) {
      problem(error);
      continue;
    }
    const uint32_t line = comment.after_code ? comment.line : next_code[comment.line + 1];
    if (line == 0) {
      problem("the annotation annotates no line: only blank lines and comments follow it");
      continue;
    }
    const auto [earlier, first] = annotated.emplace(line, comment.line);
    if (!first) {
      problem("line " + std::to_string(line) + " is already annotated (by the comment on line " +
              std::to_string(earlier->second) +
              "); give all of a line's terms in one annotation, such as 'ld 2-way, st conflict-free'");
      continue;
    }
    for (const Term& term : *terms)
      scan.annotations.push_back(
          {file, line, comment.line, term.kind, term.ways, {term.globs.begin(), term.globs.end()}});
  }
  return scan;
}

std::vector<LineAnnotation> ParseLineAnnotations(std::string_view text, const std::string& file) {
  LineAnnotationScan scan = ScanLineAnnotations(text, file);
  if (!scan.problems.empty()) {
    std::string message;
    for (const LineAnnotationProblem& problem : scan.problems) {
      message += (message.empty() ? "" : "\n") + problem.ToString();
    }
    throw Error(ErrorKind::kBadInput, message);
  }
  return std::move(scan.annotations);
}

std::vector<LineAnnotation> ReadLineAnnotations(const std::filesystem::path& path) {
  return ParseLineAnnotations(ReadTextFile(path, ""), path.string());
}

}  // namespace bankcheck
