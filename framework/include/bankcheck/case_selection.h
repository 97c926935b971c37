#pragma once
// Selecting cases by name, the same way everywhere: BANKCHECK_CASES (the suite, ci/test.sh
// --case), `bankcheck update-baselines --case` and `bankcheck lines --case`. A selection is
// ','-separated glob patterns over the whole case name: '*' any characters ('/' too), '?' one
// character, [...] one of a set ("[a-c]" a range, "[!...]" or "[^...]" none of it), '\' makes the
// next character literal (also ',' and '\' itself). Case names come from pull requests
// (docs/security.md), so matching takes at most name length times pattern length steps, with no
// recursion, and case names are bounded in length where they are read (kMaxCaseNameBytes, limits.h).

#include <string>
#include <string_view>

namespace bankcheck {

// Whether `name` matches the one glob `pattern` (no ',' splitting), as a whole.
bool MatchesGlob(std::string_view name, std::string_view pattern);

// Whether `case_name` matches one of the ','-separated patterns of `selection`; an empty
// selection selects every case.
bool MatchesCasePatterns(std::string_view case_name, std::string_view selection);

// The pattern that matches `case_name` alone: its glob characters and ',' escaped.
std::string CasePatternFor(std::string_view case_name);

// Error(kBadInput) "<what> '<selection>' ..." when `selection` is longer than kMaxCaseNameBytes
// (limits.h), holds a control character, or holds no pattern but commas.
void CheckCaseSelection(std::string_view selection, const std::string& what);

// Error(kBadInput) "<where>: a case name of N bytes, ..." when `name` is longer than
// kMaxCaseNameBytes.
void CheckCaseNameLength(std::string_view name, const std::string& where);

}  // namespace bankcheck
