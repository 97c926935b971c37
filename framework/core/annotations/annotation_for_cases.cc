#include "core/annotations/annotation_for_cases.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankcheck/core/case_selection.h"
#include "bankcheck/core/limits.h"
#include "bankcheck/core/line_annotations.h"
#include "bankcheck/core/memory_kind.h"

namespace bankcheck {
namespace {

// Beyond these a line is a person's call, and a results file (hostile: docs/security.md) cannot
// make the checks below grow with the product of its cases: at most this many different ways of
// a kind, and an annotation at most this long, which bounds the globs each case is matched with.
constexpr size_t kMaxWaysOfAKind = 16;
constexpr size_t kMaxAnnotationBytes = 1000;

// What one case measured on the line: its ways per measurable kind, and summed.
struct Measurement {
  std::string summed;                          // FormatWays of the kinds summed
  std::map<MemoryKind, std::string> per_kind;  // FormatWays of each measurable kind
  // Whether one term without a kind states it (every kind has the summed ways: SuggestedAnnotation).
  bool one_term() const {
    return std::all_of(per_kind.begin(), per_kind.end(),
                       [&](const auto& kind) { return kind.second == summed; });
  }
};

Measurement Measure(const std::vector<LineCounts>& kinds) {
  Measurement m;
  LineCounts sum;
  for (const LineCounts& kind : kinds) {
    if (!kind.measurable() || !CheckedUnnamed(kind.kind)) continue;
    m.per_kind[kind.kind] = FormatWays(kind.ways());
    sum.wavefronts += kind.wavefronts;
    sum.ideal_wavefronts += kind.ideal_wavefronts;
  }
  m.summed = FormatWays(sum.ways());
  return m;
}

// Whether a glob can name `name` (the grammar's globs hold no blank, ',', ';' or '|').
bool Spellable(std::string_view name) {
  return std::none_of(name.begin(), name.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte <= 0x20 || byte == 0x7F || c == ',' || c == ';' || c == '|';
  });
}

// Globs that select every name of `selected` and none of `others` (names in order, none empty).
std::vector<std::string> Selector(const std::vector<std::string>& selected,
                                  const std::vector<std::string>& others) {
  if (selected.size() > 1) {
    std::string_view prefix = selected.front();
    for (const std::string& name : selected) {
      size_t common = 0;
      while (common < prefix.size() && common < name.size() && prefix[common] == name[common]) ++common;
      prefix = prefix.substr(0, common);
    }
    const std::string glob = CasePatternFor(prefix) + "*";
    if (!prefix.empty() && std::none_of(others.begin(), others.end(),
                                        [&](const std::string& name) { return MatchesGlob(name, glob); }))
      return {glob};
  }
  std::vector<std::string> globs;
  for (const std::string& name : selected) globs.push_back(CasePatternFor(name));
  return globs;
}

// The terms of one kind (`label` "ld ", or "" for the kinds summed) from each case's ways.
std::optional<std::string> Terms(const std::string& label,
                                 const std::map<std::string, std::string>& ways_of) {
  // The ways in the order their first case (by name) measured them, with their cases.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& [name, ways] : ways_of) {
    // An init-capture: C++17 does not let a lambda capture a structured binding (clang refuses it).
    auto group =
        std::find_if(groups.begin(), groups.end(), [&ways = ways](const auto& g) { return g.first == ways; });
    if (group == groups.end()) group = groups.insert(groups.end(), {ways, {}});
    group->second.push_back(name);
  }
  if (groups.size() > kMaxWaysOfAKind) return std::nullopt;
  const auto most = std::max_element(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return a.second.size() < b.second.size();
  });
  std::string terms = label + most->first;
  for (const auto& [ways, names] : groups) {
    if (ways == most->first) continue;
    std::vector<std::string> others;
    for (const auto& [name, other] : ways_of)
      if (other != ways) others.push_back(name);
    const std::vector<std::string> globs = Selector(names, others);
    terms += ", " + label + ways + " in ";
    for (size_t i = 0; i < globs.size(); ++i) {
      if (globs[i].size() > kMaxCaseNameBytes) return std::nullopt;
      terms += (i == 0 ? "" : " | ") + globs[i];
    }
  }
  return terms;
}

}  // namespace

std::string AnnotationForCases(const std::vector<CaseLineCounts>& cases) {
  std::map<std::string, Measurement> measured;  // by case name
  for (const CaseLineCounts& c : cases) {
    Measurement m = Measure(c.lines);
    if (m.per_kind.empty()) continue;
    const auto [earlier, first] = measured.emplace(c.case_name, m);
    if (!first && (earlier->second.per_kind != m.per_kind || earlier->second.summed != m.summed)) return "";
  }
  if (measured.empty()) return "";
  // Cases that agree need no glob, whatever their names.
  std::set<std::string> suggestions;
  for (const CaseLineCounts& c : cases) {
    std::string suggestion = SuggestedAnnotation(c.lines);
    if (!suggestion.empty()) suggestions.insert(std::move(suggestion));
  }
  if (suggestions.size() == 1) return *suggestions.begin();
  const bool summed =
      std::all_of(measured.begin(), measured.end(), [](const auto& c) { return c.second.one_term(); });
  std::map<std::optional<MemoryKind>, std::map<std::string, std::string>> ways_of;  // kind -> case -> ways
  for (const auto& [name, m] : measured) {
    if (!Spellable(name)) return "";
    if (summed) {
      ways_of[std::nullopt][name] = m.summed;
    } else {
      for (const auto& [kind, ways] : m.per_kind) ways_of[kind][name] = ways;
    }
  }
  std::string annotation = "bankcheck: ";
  bool first = true;
  for (const auto& [kind, of_cases] : ways_of) {
    const std::optional<std::string> terms =
        Terms(kind ? std::string(InfoOf(*kind).label) + " " : "", of_cases);
    if (!terms) return "";
    annotation += (first ? "" : ", ") + *terms;
    first = false;
    if (annotation.size() > kMaxAnnotationBytes) return "";
  }
  // The annotation must read back and hold for every case as CheckLines checks it; an annotation
  // that ends in a backslash would join the next line to its comment.
  const LineAnnotationScan scan = ScanLineAnnotations("x; // " + annotation, "");
  if (!scan.problems.empty() || annotation.back() == '\\') return "";
  const AnnotationsOfFile lookup = [&](const std::string&) { return &scan; };
  for (const CaseLineCounts& c : cases) {
    std::vector<LineCounts> on_line = c.lines;
    for (LineCounts& kind : on_line) {
      kind.file.clear();
      kind.line = 1;
    }
    if (!CheckLines(on_line, lookup, c.case_name).failures.empty()) return "";
  }
  return annotation;
}

}  // namespace bankcheck
