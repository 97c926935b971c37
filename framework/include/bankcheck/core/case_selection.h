#pragma once
// Selecting cases by name, the same way everywhere: BANKCHECK_CASES (the suite, ci/test.sh
// --case), `bankcheck update-baselines --case` and `bankcheck lines --case`. A selection is
// ','-separated glob patterns over the whole case name: '*' any characters ('/' too), '?' one
// character, [...] one of a set ("[a-c]" a range, "[!...]" or "[^...]" none of it), '\' makes the
// next character literal (also ',' and '\' itself). Case names come from pull requests
// (docs/security.md), so matching takes at most name length times pattern length steps, with no
// recursion, and case names are bounded in length where they are read (kMaxCaseNameBytes, limits.h).

#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace bankcheck {

// Whether `name` matches the one glob `pattern` (no ',' splitting), as a whole.
bool MatchesGlob(std::string_view name, std::string_view pattern);

// A selection split into its patterns once: whether a case name matches one of them (an empty
// selection selects every case). Patterns without a glob character are looked up by name, so a
// selection of n names decides each case in one lookup.
class CaseSelection {
 public:
  explicit CaseSelection(std::string_view selection);
  bool Selects(std::string_view case_name) const;

 private:
  bool every_;
  std::unordered_set<std::string> names_;
  std::vector<std::string> globs_;
};

// Whether `case_name` matches one of the ','-separated patterns of `selection`; an empty
// selection selects every case. (CaseSelection, made for one question.)
bool MatchesCasePatterns(std::string_view case_name, std::string_view selection);

// The pattern that matches `case_name` alone: its glob characters and ',' escaped.
std::string CasePatternFor(std::string_view case_name);

// Error(kBadInput) "<what> '<selection>' ..." when `selection` is longer than kMaxCaseNameBytes
// (limits.h), holds a control character, or holds no pattern but commas.
void CheckCaseSelection(std::string_view selection, const std::string& what);

// The selection in the file at `path` (BANKCHECK_CASES_FILE): one selection per line (a shard's
// case names, each escaped with CasePatternFor), empty lines skipped, joined with ','. Each line is
// checked as CheckCaseSelection checks a selection, so no line is longer than kMaxCaseNameBytes,
// but the file holds as many as kMaxCases lines (read with the kMaxInputFileBytes limit).
// Error(kBadInput) naming `what`, the file and the line when a line is refused, when the file has
// more lines or none (a file that selects no case would select every case).
std::string ReadCaseSelectionFile(const std::filesystem::path& path, const std::string& what);

// Error(kBadInput) "<where>: a case name of N bytes, ..." when `name` is longer than
// kMaxCaseNameBytes.
void CheckCaseNameLength(std::string_view name, const std::string& where);

}  // namespace bankcheck
