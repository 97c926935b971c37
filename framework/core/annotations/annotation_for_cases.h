#pragma once
// The annotation of one source line that every case's measurement of it matches, for `bankcheck
// annotate`: the plain one when the cases agree, else one that selects cases by name (a templated
// kernel's line, compiled once per case; docs/annotations.md).

#include <string>
#include <vector>

#include "core/annotations/line_counts.h"

namespace bankcheck {

// The annotation ("bankcheck: ...") that matches the measurement of one line by each of `cases`
// (CaseLineCounts::lines: that line's kinds, as SuggestedAnnotation takes them). When every case
// suggests the same, that suggestion. Otherwise, per kind (or for the line's kinds summed, when no
// case's kinds differ among themselves), the ways most cases measured as the term without `in` (the
// first case's, by name, among equals), and a term for each other ways with globs that select
// exactly the cases that measured them among those that measured that kind: their common prefix and
// `*` when that selects no other of them, else each name (CasePatternFor) joined by " | ". Empty when
// no case measured anything, when a case name cannot be a glob (it holds a blank, a control
// character, ',', ';' or '|', or its pattern would end the comment with a backslash or be longer
// than kMaxCaseNameBytes), when one case name measured two things, when a kind has more than 16
// different ways, or when the annotation would be longer than 1000 bytes: a person's call.
std::string AnnotationForCases(const std::vector<CaseLineCounts>& cases);

}  // namespace bankcheck
