#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "bankcheck/core/baseline.h"
#include "core/annotations/line_counts.h"
#include "core/baselines/internal/line_moves.h"
#include "core/baselines/line_keys.h"
#include "core/records/internal/name_table.h"
#include "core/reports/text_table.h"

// Comparing measured launches with recorded ones (baseline.h).
namespace bankcheck {
namespace {

const KindCounts kNoTraffic{};

// The kinds shown for a launch in either version that both counted (IsCompared).
std::vector<MemoryKind> KindsOf(const LaunchRecord* before, const LaunchRecord* after) {
  std::vector<MemoryKind> kinds;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (!IsCompared(before, after, info.kind)) continue;
    if ((before != nullptr && IsShown(*before, info.kind)) ||
        (after != nullptr && IsShown(*after, info.kind)))
      kinds.push_back(info.kind);
  }
  return kinds;
}

// The lines of `lines` whose kind both versions of the launch counted.
std::vector<LineRecord> ComparedLines(const std::vector<LineRecord>& lines, const LaunchRecord& before,
                                      const LaunchRecord& after) {
  std::vector<LineRecord> compared;
  for (const LineRecord& line : lines)
    if (IsCompared(&before, &after, line.kind)) compared.push_back(line);
  return compared;
}

std::string Count(uint64_t value) { return std::to_string(value); }

// A kernel's demangled name without what changes from compile to compile: cudafe names an
// internal-linkage entity used in another's name (a function of an anonymous namespace as a
// template argument) _INTERNAL_<hash>_<length>_<file>_<hash>_<process id>, the hashes and the id
// new in every compile; kept are the file (<length> characters) and everything else.
std::string StableKernelName(const std::string& name) {
  static const std::regex internal("_INTERNAL_[0-9a-f]+_([0-9]+)_");
  std::string stable;
  std::string::const_iterator rest = name.begin();
  std::smatch match;
  while (std::regex_search(rest, name.end(), match, internal)) {
    const size_t length = std::stoul(match[1].str());
    const auto file = match[0].second;
    if (static_cast<size_t>(name.end() - file) < length) break;
    stable.append(rest, match[0].first).append("_INTERNAL_").append(file, file + length);
    rest = file + length;
    static const std::regex suffix("^_[0-9a-f]+_[0-9]+");
    std::smatch tail;
    if (std::regex_search(rest, name.end(), tail, suffix)) rest = tail[0].second;
  }
  return stable.append(rest, name.end());
}

std::string KernelLabel(const LaunchRecord& record) {
  constexpr size_t kMaxWidth = 48;
  const std::string& name = record.kernel.empty() ? record.mangled_kernel : record.kernel;
  return ShortenKernelName(name, kMaxWidth);
}

// The ideal and so the conflicts compare only where both sides know the ideal. A side that does
// not (a range-profiler run of a kind whose ideal only SASS metrics give: docs/counters.md) makes
// the comparison a change, never more or fewer conflicts.
bool IdealsComparable(const KindCounts& before, const KindCounts& after) {
  return before.ideal_known() && after.ideal_known();
}

std::string IdealText(const KindCounts& counts, uint64_t value) {
  return counts.ideal_known() ? Count(value) : std::string("not measured");
}

// "wavefronts 64 -> 2048, conflicts 0 -> 1984" for the fields of one direction that differ
// ("sectors ..., excess ..." for global and local memory).
std::string CountDifferences(MemoryKind kind, const KindCounts& before, const KindCounts& after) {
  std::vector<std::string> parts;
  const auto add = [&parts](const char* name, uint64_t a, uint64_t b) {
    if (a != b) parts.push_back(std::string(name) + " " + Count(a) + " -> " + Count(b));
  };
  add("instructions", before.instructions, after.instructions);
  add(TrafficUnit(kind), before.wavefronts, after.wavefronts);
  if (IdealsComparable(before, after)) {
    add("ideal", before.ideal_wavefronts, after.ideal_wavefronts);
    add(ExcessName(kind), before.conflicts(), after.conflicts());
  } else if (before.ideal_known() != after.ideal_known()) {
    parts.push_back("ideal " + IdealText(before, before.ideal_wavefronts) + " -> " +
                    IdealText(after, after.ideal_wavefronts) + " (" + ExcessName(kind) + " not compared)");
  }
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

bool More(const KindCounts& before, const KindCounts& after) {
  return after.wavefronts > before.wavefronts ||
         (IdealsComparable(before, after) && after.conflicts() > before.conflicts());
}

bool Fewer(const KindCounts& before, const KindCounts& after) {
  return after.wavefronts < before.wavefronts ||
         (IdealsComparable(before, after) && after.conflicts() < before.conflicts());
}

void AddTableRows(std::vector<TableRow>& rows, size_t index, const LaunchRecord* before,
                  const LaunchRecord* after) {
  const auto label = [](const LaunchRecord* record, const auto& field) {
    return record == nullptr ? std::string("-") : field(*record);
  };
  const auto both = [&](const auto& field) { return BeforeAfter(label(before, field), label(after, field)); };
  const auto counts_row = [&](MemoryKind kind) {
    const auto cell = [&](const auto& value_of) {
      const auto text = [&](const LaunchRecord* record) {
        return record == nullptr ? std::string("-") : value_of(record->kinds[kind]);
      };
      return BeforeAfter(text(before), text(after));
    };
    const auto ideal_text = [](const KindCounts& c, uint64_t value) {
      if (!c.ideal_known()) return std::string("n/a");
      return Count(value) + (c.ideal_provenance == Provenance::kHardware ? " (hw)" : "");
    };
    return TableRow{"",
                    "",
                    "",
                    "",
                    InfoOf(kind).label,
                    cell([](const KindCounts& c) { return Count(c.instructions); }),
                    cell([](const KindCounts& c) { return Count(c.wavefronts); }),
                    cell([&](const KindCounts& c) { return ideal_text(c, c.ideal_wavefronts); }),
                    cell([&](const KindCounts& c) { return ideal_text(c, c.conflicts()); })};
  };
  const std::vector<MemoryKind> kinds = KindsOf(before, after);
  for (size_t k = 0; k < kinds.size(); ++k) {
    TableRow row = counts_row(kinds[k]);
    if (k == 0) {
      row[0] = std::to_string(index);
      row[1] = both(KernelLabel);
      row[2] = both([](const LaunchRecord& r) { return ToString(r.grid); });
      row[3] = both([](const LaunchRecord& r) { return ToString(r.block); });
    }
    rows.push_back(std::move(row));
  }
}

// What the comparison of some counts found.
struct Found {
  bool more = false;   // more wavefronts or conflicts somewhere
  bool fewer = false;  // fewer somewhere
  bool other = false;  // any other difference
  BaselineVerdict verdict() const {
    return more    ? BaselineVerdict::kRegression
           : fewer ? BaselineVerdict::kImprovement
           : other ? BaselineVerdict::kChanged
                   : BaselineVerdict::kMatch;
  }
};

// A line's code as a difference shows it: at most kShownCode bytes (at a UTF-8 boundary), "…" after.
std::string ShownCode(const std::string& code) {
  constexpr size_t kShownCode = 60;
  if (code.size() <= kShownCode) return code;
  size_t end = kShownCode;
  while (end > 0 && (static_cast<unsigned char>(code[end]) & 0xC0) == 0x80) --end;
  return code.substr(0, end) + "…";
}

// "kernels/transpose.cu:31 out[i] = tile[x][y];" (":31 (line 28 before)" when it moved).
std::string LinePlace(const LineRecord* before, const LineRecord* after) {
  const LineRecord& line = after != nullptr ? *after : *before;
  std::string place = line.file + ":" + std::to_string(line.line);
  if (before != nullptr && after != nullptr && before->line != after->line)
    place += " (line " + std::to_string(before->line) + " before)";
  return line.code.empty() ? place : place + " " + ShownCode(line.code);
}

// The lines of two launches side by side: by key, and a line on one side only paired with one on
// the other side only at the same file, number and kind (its code was edited in place), so that an
// edited line is one line changed, not one gone and one added.
std::vector<std::pair<const LineRecord*, const LineRecord*>> PairLines(const std::vector<LineRecord>& before,
                                                                       const std::vector<LineRecord>& after) {
  std::map<LineKey, std::pair<const LineRecord*, const LineRecord*>> by_key;
  for (const LineRecord& line : before) by_key[KeyOf(line)].first = &line;
  for (const LineRecord& line : after) by_key[KeyOf(line)].second = &line;
  using Place = std::tuple<std::string, uint32_t, MemoryKind>;
  std::map<Place, const LineRecord*> added;  // after only, by place
  for (const auto& [key, sides] : by_key)
    if (sides.first == nullptr)
      added.emplace(Place{sides.second->file, sides.second->line, sides.second->kind}, sides.second);
  std::vector<std::pair<const LineRecord*, const LineRecord*>> pairs;
  std::set<const LineRecord*> paired;
  for (const auto& [key, sides] : by_key) {
    if (sides.second == nullptr) {
      const auto edited = added.find(Place{sides.first->file, sides.first->line, sides.first->kind});
      if (edited != added.end()) {
        pairs.emplace_back(sides.first, edited->second);
        paired.insert(edited->second);
        added.erase(edited);
        continue;
      }
    }
    pairs.push_back(sides);
  }
  pairs.erase(std::remove_if(pairs.begin(), pairs.end(),
                             [&](const auto& sides) {
                               return sides.first == nullptr && paired.count(sides.second) > 0;
                             }),
              pairs.end());
  return pairs;
}

// Whether a line differs from its pair: one side only, its code edited, or other counts.
bool LinesDiffer(const LineRecord* before, const LineRecord* after) {
  if (before == nullptr || after == nullptr) return true;
  return KeyOf(*before) != KeyOf(*after) || before->executions != after->executions ||
         before->wavefronts != after->wavefronts || before->ideal_wavefronts != after->ideal_wavefronts;
}

// Compares the lines of one launch; appends one difference per line that differs, or, where the
// launch's totals are equal and its lines only moved to other files (OnlyMovedLines), one per file
// they moved from, and sets `moved`.
void CompareLines(const std::vector<LineRecord>& before, const std::vector<LineRecord>& after,
                  const std::string& launch, bool totals_equal, Found& found, bool& moved,
                  std::vector<std::string>& differences) {
  static const LineRecord kNoAccess{};
  std::vector<std::pair<const LineRecord*, const LineRecord*>> differing;
  for (const auto& sides : PairLines(before, after))
    if (LinesDiffer(sides.first, sides.second)) differing.push_back(sides);
  if (totals_equal) {
    if (const auto moves = internal::OnlyMovedLines(differing)) {
      found.other = true;
      moved = true;
      for (const internal::LineMove& move : *moves)
        differences.push_back(launch + " " + std::to_string(move.lines) +
                              (move.lines == 1 ? " line" : " lines") + " moved from " + move.from + " to " +
                              move.to + ", their counts unchanged");
      return;
    }
  }
  for (const auto& [b, a] : differing) {
    const LineRecord& old_line = b != nullptr ? *b : kNoAccess;
    const LineRecord& new_line = a != nullptr ? *a : kNoAccess;
    std::vector<std::string> counts;
    const auto add = [&counts](const char* name, uint64_t x, uint64_t y) {
      if (x != y) counts.push_back(std::string(name) + " " + Count(x) + " -> " + Count(y));
    };
    const MemoryKind kind = (a != nullptr ? a : b)->kind;
    add("executions", old_line.executions, new_line.executions);
    add(TrafficUnit(kind), old_line.wavefronts, new_line.wavefronts);
    add("ideal", old_line.ideal_wavefronts, new_line.ideal_wavefronts);
    const bool edited = b != nullptr && a != nullptr && KeyOf(*b) != KeyOf(*a);
    found.more = found.more || new_line.wavefronts > old_line.wavefronts ||
                 new_line.conflicts() > old_line.conflicts();
    found.fewer = found.fewer || new_line.wavefronts < old_line.wavefronts ||
                  new_line.conflicts() < old_line.conflicts();
    found.other = true;
    const auto ways = [](const LineRecord* line) {
      return line == nullptr ? std::string("no access") : FormatWays(line->ways());
    };
    std::string text =
        launch + " " + LinePlace(b, a) + ": " + InfoOf(kind).label + " " + ways(b) + " -> " + ways(a);
    std::vector<std::string> notes;
    if (b == nullptr) notes.push_back("a line that was not there before");
    if (a == nullptr) notes.push_back("no longer executed");
    if (edited) notes.push_back("its code was " + ShownCode(b->code));
    notes.insert(notes.end(), counts.begin(), counts.end());
    for (size_t i = 0; i < notes.size(); ++i) text += (i == 0 ? " (" : ", ") + notes[i];
    if (!notes.empty()) text += ")";
    differences.push_back(std::move(text));
  }
}

std::string Indent(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += "  " + line + "\n";
  return text;
}

}  // namespace

namespace {
// Each verdict with its name in results files and reports.
constexpr std::pair<BaselineVerdict, const char*> kVerdictNames[] = {
    {BaselineVerdict::kMatch, "match"},
    {BaselineVerdict::kRegression, "regression"},
    {BaselineVerdict::kImprovement, "improvement"},
    {BaselineVerdict::kChanged, "changed"},
    {BaselineVerdict::kMissing, "missing"},
};
}  // namespace

const char* BaselineVerdictName(BaselineVerdict verdict) {
  return internal::NameIn(kVerdictNames, verdict, "unknown");
}

std::optional<BaselineVerdict> ParseBaselineVerdict(const std::string& name) {
  return internal::ValueNamed(kVerdictNames, name);
}

BaselineVerdict HeadlineVerdict(BaselineVerdict launches, const std::optional<BaselineVerdict>& lines) {
  if (launches == BaselineVerdict::kMissing || !lines) return launches;
  for (const BaselineVerdict verdict :
       {BaselineVerdict::kRegression, BaselineVerdict::kImprovement, BaselineVerdict::kChanged}) {
    if (launches == verdict || *lines == verdict) return verdict;
  }
  return BaselineVerdict::kMatch;
}

bool HasLineData(const std::vector<LaunchRecord>& launches) {
  return std::all_of(launches.begin(), launches.end(),
                     [](const LaunchRecord& launch) { return launch.lines.has_value(); });
}

BaselineComparison CompareLaunches(const std::vector<LaunchRecord>& before,
                                   const std::vector<LaunchRecord>& after) {
  BaselineComparison comparison;
  bool more = false;
  bool fewer = false;
  bool other = before.size() != after.size();
  Found lines;
  bool lines_compared = false;
  bool moved = false;  // some launch's lines only moved to other files
  size_t lines_differ_otherwise = 0;
  std::vector<std::string> line_differences;
  std::vector<TableRow> rows;
  for (size_t i = 0; i < std::max(before.size(), after.size()); ++i) {
    const LaunchRecord* b = i < before.size() ? &before[i] : nullptr;
    const LaunchRecord* a = i < after.size() ? &after[i] : nullptr;
    AddTableRows(rows, i, b, a);
    const std::string launch =
        "launch " + std::to_string(i) + " (" + KernelLabel(a != nullptr ? *a : *b) + ")";
    bool totals_equal = true;
    for (const MemoryKind kind : KindsOf(b, a)) {
      const KindCounts old_counts = ExactCounts(b != nullptr ? b->kinds[kind] : kNoTraffic);
      const KindCounts new_counts = ExactCounts(a != nullptr ? a->kinds[kind] : kNoTraffic);
      totals_equal = totals_equal && old_counts == new_counts;
      more = more || More(old_counts, new_counts);
      fewer = fewer || Fewer(old_counts, new_counts);
      other = other || old_counts != new_counts;
      const std::string differences = CountDifferences(kind, old_counts, new_counts);
      if (!differences.empty() && a != nullptr && b != nullptr) {
        comparison.differences.push_back(launch + " " + InfoOf(kind).label + ": " + differences);
      }
    }
    if (b == nullptr || a == nullptr) {
      const LaunchRecord& only = a != nullptr ? *a : *b;
      std::string traffic;
      for (const MemoryKind kind : ShownKinds(only)) {
        const KindCounts& c = only.kinds[kind];
        traffic += std::string(traffic.empty() ? "" : "; ") + InfoOf(kind).label + " " + Count(c.wavefronts) +
                   " " + TrafficUnit(kind) + ", " + Count(c.conflicts()) + " " + ExcessName(kind);
      }
      comparison.differences.push_back(
          launch + (a != nullptr ? ": a launch that was not there before" : ": no longer launched") + " (" +
          traffic + ")");
      continue;
    }
    std::vector<std::string> changes;
    // Demangled names only: nvcc's mangling of anonymous namespaces differs from build to build.
    if (StableKernelName(b->kernel) != StableKernelName(a->kernel)) {
      changes.push_back("kernel " + b->kernel + " -> " + a->kernel);
    }
    if (b->grid != a->grid) changes.push_back("grid " + ToString(b->grid) + " -> " + ToString(a->grid));
    if (b->block != a->block) changes.push_back("block " + ToString(b->block) + " -> " + ToString(a->block));
    if (b->dynamic_shared_bytes != a->dynamic_shared_bytes) {
      changes.push_back("dynamic shared bytes " + Count(b->dynamic_shared_bytes) + " -> " +
                        Count(a->dynamic_shared_bytes));
    }
    for (const std::string& change : changes) comparison.differences.push_back(launch + ": " + change);
    other = other || !changes.empty();
    if (b->lines && a->lines) {
      lines_compared = true;
      bool launch_moved = false;
      const size_t differences_before = line_differences.size();
      CompareLines(ComparedLines(*b->lines, *b, *a), ComparedLines(*a->lines, *b, *a), launch,
                   totals_equal && changes.empty(), lines, launch_moved, line_differences);
      moved = moved || launch_moved;
      if (!launch_moved) lines_differ_otherwise += line_differences.size() - differences_before;
    }
  }
  comparison.verdict = Found{more, fewer, other}.verdict();
  if (lines_compared) comparison.lines = lines.verdict();
  comparison.lines_only_moved =
      moved && lines_differ_otherwise == 0 && comparison.verdict == BaselineVerdict::kMatch;
  comparison.differences.insert(comparison.differences.end(), line_differences.begin(),
                                line_differences.end());
  comparison.line_differences = std::move(line_differences);
  comparison.table = FormatTextTable(
      {"launch", "kernel", "grid", "block", "", "instructions", "wavefronts", "ideal", "conflicts"}, rows);
  switch (comparison.headline()) {
    case BaselineVerdict::kRegression:
      comparison.message = "regression: more bank conflicts, wavefronts or sectors than before:\n";
      break;
    case BaselineVerdict::kImprovement:
      comparison.message = "improvement: fewer bank conflicts, wavefronts or sectors than before:\n";
      break;
    case BaselineVerdict::kChanged:
      comparison.message = "changed: the same conflicts and wavefronts as before, but other values differ:\n";
      break;
    default:
      comparison.message = "match: every value is as before\n";
  }
  comparison.message += Indent(comparison.differences);
  return comparison;
}

BaselineComparison CompareWithBaseline(const BaselineSet& baselines, const std::string& case_name,
                                       const std::vector<LaunchRecord>& measured) {
  const std::string file = baselines.FileForCase(case_name).string();
  const std::string record = baselines.record_advice().ForCase(case_name);
  const BaselineEntry* entry = baselines.Find(case_name);
  if (entry == nullptr) {
    BaselineComparison missing;
    missing.verdict = BaselineVerdict::kMissing;
    const std::string test = baselines.record_advice().TestOfCase(case_name);
    missing.message = "MISSING: case \"" + case_name + "\"" + (test.empty() ? "" : " (test " + test + ")") +
                      " has no baseline in " + file + ". Record it with:\n  " + record + "\n";
    return missing;
  }
  BaselineComparison comparison = CompareLaunches(entry->launches, measured);
  const std::string differences = Indent(comparison.differences);
  switch (comparison.headline()) {
    case BaselineVerdict::kRegression:
      comparison.message = "REGRESSION: case \"" + case_name +
                           "\" has more bank conflicts, wavefronts or sectors than its baseline in " + file +
                           ":\n" + differences +
                           "If the change is intended, record the new values with:\n  " + record + "\n";
      break;
    case BaselineVerdict::kImprovement:
      comparison.message = "IMPROVEMENT: case \"" + case_name +
                           "\" has fewer bank conflicts, wavefronts or sectors than its baseline in " + file +
                           ":\n" + differences + "Record the improvement so that it is kept:\n  " + record +
                           "\n";
      break;
    case BaselineVerdict::kChanged:
      if (comparison.lines_only_moved) {
        comparison.message =
            "STALE BASELINE: case \"" + case_name + "\" has the counts of its baseline in " + file +
            ", but its source lines moved to other files (the same lines with the same "
            "counts at new paths: not a regression):\n" +
            differences + "Its baseline names the old paths; record it again with:\n  " + record + "\n";
        break;
      }
      comparison.message = "CHANGED: case \"" + case_name +
                           "\" has the conflicts and wavefronts of its baseline in " + file +
                           ", but other values differ:\n" + differences +
                           "If the change is intended, record the new values with:\n  " + record + "\n";
      break;
    default:
      comparison.message = "case \"" + case_name + "\" matches its baseline in " + file + "\n";
  }
  // First baselines derived by the emulator, measured now: a difference is the emulator's fault, never
  // the kernel's, and the derived baseline stays until it is recorded on purpose.
  if (IsDerived(entry->launches) && !IsDerived(measured)) {
    comparison.message =
        comparison.headline() == BaselineVerdict::kMatch
            ? comparison.message +
                  "Its baseline was derived by the emulator (\"counters\": \"emulated\") and this GPU "
                  "run measured the same: record it to keep it as measured:\n  " +
                  record + "\n"
            : "EMULATOR FAULT: the baseline of case \"" + case_name + "\" in " + file +
                  " was derived by the emulator (first baselines, \"counters\": \"emulated\"), and this GPU "
                  "measured otherwise: the emulator is wrong about the lines below, not your kernel. Please "
                  "report it (docs/emulate.md). Then record the measured counts, replacing the derived "
                  "ones:\n  " +
                  record + "\nWhat was measured against what was derived:\n" + differences;
  }
  if (!comparison.lines && !HasLineData(entry->launches) && HasLineData(measured) && !measured.empty()) {
    comparison.message +=
        "Its baseline has no per-line counts (recorded before baselines kept them), so it "
        "was compared by launch totals only; recording it again adds them:\n  " +
        record + "\n";
  }
  return comparison;
}

}  // namespace bankcheck
