#include <algorithm>
#include <optional>
#include <utility>

#include "bankcheck/baseline.h"
#include "core/internal/name_table.h"
#include "core/internal/text_table.h"

// Comparing measured launches with recorded ones (baseline.h).
namespace bankcheck {
namespace {

const SharedCounts kNoTraffic{};

// The kinds shown for a launch in either version.
std::vector<SharedKind> KindsOf(const LaunchRecord* before, const LaunchRecord* after) {
  std::vector<SharedKind> kinds;
  for (const SharedKindInfo& info : SharedKinds()) {
    if ((before != nullptr && IsShown(*before, info.kind)) ||
        (after != nullptr && IsShown(*after, info.kind)))
      kinds.push_back(info.kind);
  }
  return kinds;
}

std::string Count(uint64_t value) { return std::to_string(value); }

std::string KernelLabel(const LaunchRecord& record) {
  constexpr size_t kMaxWidth = 48;
  const std::string& name = record.kernel.empty() ? record.mangled_kernel : record.kernel;
  return ShortenKernelName(name, kMaxWidth);
}

// The ideal and so the conflicts compare only where both sides know the ideal. A side that does
// not (a range-profiler run of a kind whose ideal only SASS metrics give: docs/counters.md) makes
// the comparison a change, never more or fewer conflicts.
bool IdealsComparable(const SharedCounts& before, const SharedCounts& after) {
  return before.ideal_known() && after.ideal_known();
}

std::string IdealText(const SharedCounts& counts, uint64_t value) {
  return counts.ideal_known() ? Count(value) : std::string("not measured");
}

// "wavefronts 64 -> 2048, conflicts 0 -> 1984" for the fields of one direction that differ.
std::string CountDifferences(const SharedCounts& before, const SharedCounts& after) {
  std::vector<std::string> parts;
  const auto add = [&parts](const char* name, uint64_t a, uint64_t b) {
    if (a != b) parts.push_back(std::string(name) + " " + Count(a) + " -> " + Count(b));
  };
  add("instructions", before.instructions, after.instructions);
  add("wavefronts", before.wavefronts, after.wavefronts);
  if (IdealsComparable(before, after)) {
    add("ideal", before.ideal_wavefronts, after.ideal_wavefronts);
    add("conflicts", before.conflicts(), after.conflicts());
  } else if (before.ideal_known() != after.ideal_known()) {
    parts.push_back("ideal " + IdealText(before, before.ideal_wavefronts) + " -> " +
                    IdealText(after, after.ideal_wavefronts) + " (conflicts not compared)");
  }
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

bool More(const SharedCounts& before, const SharedCounts& after) {
  return after.wavefronts > before.wavefronts ||
         (IdealsComparable(before, after) && after.conflicts() > before.conflicts());
}

bool Fewer(const SharedCounts& before, const SharedCounts& after) {
  return after.wavefronts < before.wavefronts ||
         (IdealsComparable(before, after) && after.conflicts() < before.conflicts());
}

void AddTableRows(std::vector<TableRow>& rows, size_t index, const LaunchRecord* before,
                  const LaunchRecord* after) {
  const auto label = [](const LaunchRecord* record, const auto& field) {
    return record == nullptr ? std::string("-") : field(*record);
  };
  const auto both = [&](const auto& field) { return BeforeAfter(label(before, field), label(after, field)); };
  const auto counts_row = [&](SharedKind kind) {
    const auto cell = [&](const auto& value_of) {
      const auto text = [&](const LaunchRecord* record) {
        return record == nullptr ? std::string("-") : value_of(record->shared[kind]);
      };
      return BeforeAfter(text(before), text(after));
    };
    const auto ideal_text = [](const SharedCounts& c, uint64_t value) {
      if (!c.ideal_known()) return std::string("n/a");
      return Count(value) + (c.ideal_provenance == Provenance::kHardware ? " (hw)" : "");
    };
    return TableRow{"",
                    "",
                    "",
                    "",
                    InfoOf(kind).label,
                    cell([](const SharedCounts& c) { return Count(c.instructions); }),
                    cell([](const SharedCounts& c) { return Count(c.wavefronts); }),
                    cell([&](const SharedCounts& c) { return ideal_text(c, c.ideal_wavefronts); }),
                    cell([&](const SharedCounts& c) { return ideal_text(c, c.conflicts()); })};
  };
  const std::vector<SharedKind> kinds = KindsOf(before, after);
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

BaselineComparison CompareLaunches(const std::vector<LaunchRecord>& before,
                                   const std::vector<LaunchRecord>& after) {
  BaselineComparison comparison;
  bool more = false;
  bool fewer = false;
  bool other = before.size() != after.size();
  std::vector<TableRow> rows;
  for (size_t i = 0; i < std::max(before.size(), after.size()); ++i) {
    const LaunchRecord* b = i < before.size() ? &before[i] : nullptr;
    const LaunchRecord* a = i < after.size() ? &after[i] : nullptr;
    AddTableRows(rows, i, b, a);
    const std::string launch =
        "launch " + std::to_string(i) + " (" + KernelLabel(a != nullptr ? *a : *b) + ")";
    for (const SharedKind kind : KindsOf(b, a)) {
      const SharedCounts old_counts = ExactCounts(b != nullptr ? b->shared[kind] : kNoTraffic);
      const SharedCounts new_counts = ExactCounts(a != nullptr ? a->shared[kind] : kNoTraffic);
      more = more || More(old_counts, new_counts);
      fewer = fewer || Fewer(old_counts, new_counts);
      other = other || old_counts != new_counts;
      const std::string differences = CountDifferences(old_counts, new_counts);
      if (!differences.empty() && a != nullptr && b != nullptr) {
        comparison.differences.push_back(launch + " " + InfoOf(kind).label + ": " + differences);
      }
    }
    if (b == nullptr || a == nullptr) {
      const LaunchRecord& only = a != nullptr ? *a : *b;
      std::string traffic;
      for (const SharedKind kind : ShownKinds(only)) {
        const SharedCounts& c = only.shared[kind];
        traffic += std::string(traffic.empty() ? "" : "; ") + InfoOf(kind).label + " " + Count(c.wavefronts) +
                   " wavefronts, " + Count(c.conflicts()) + " conflicts";
      }
      comparison.differences.push_back(
          launch + (a != nullptr ? ": a launch that was not there before" : ": no longer launched") + " (" +
          traffic + ")");
      continue;
    }
    std::vector<std::string> changes;
    // Demangled names only: nvcc's mangling of anonymous namespaces differs from build to build.
    if (b->kernel != a->kernel) {
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
  }
  comparison.verdict = more    ? BaselineVerdict::kRegression
                       : fewer ? BaselineVerdict::kImprovement
                       : other ? BaselineVerdict::kChanged
                               : BaselineVerdict::kMatch;
  comparison.table = FormatTextTable(
      {"launch", "kernel", "grid", "block", "", "instructions", "wavefronts", "ideal", "conflicts"}, rows);
  switch (comparison.verdict) {
    case BaselineVerdict::kRegression:
      comparison.message = "regression: more shared-memory bank conflicts or wavefronts than before:\n";
      break;
    case BaselineVerdict::kImprovement:
      comparison.message = "improvement: fewer shared-memory bank conflicts or wavefronts than before:\n";
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
  switch (comparison.verdict) {
    case BaselineVerdict::kRegression:
      comparison.message = "REGRESSION: case \"" + case_name +
                           "\" has more shared-memory bank conflicts or wavefronts than its baseline in " +
                           file + ":\n" + differences +
                           "If the change is intended, record the new values with:\n  " + record + "\n";
      break;
    case BaselineVerdict::kImprovement:
      comparison.message = "IMPROVEMENT: case \"" + case_name +
                           "\" has fewer shared-memory bank conflicts or wavefronts than its baseline in " +
                           file + ":\n" + differences + "Record the improvement so that it is kept:\n  " +
                           record + "\n";
      break;
    case BaselineVerdict::kChanged:
      comparison.message = "CHANGED: case \"" + case_name +
                           "\" has the conflicts and wavefronts of its baseline in " + file +
                           ", but other values differ:\n" + differences +
                           "If the change is intended, record the new values with:\n  " + record + "\n";
      break;
    default:
      comparison.message = "case \"" + case_name + "\" matches its baseline in " + file + "\n";
  }
  return comparison;
}

}  // namespace bankcheck
