#include "bankcheck/compare.h"

#include <algorithm>

#include "bankcheck/baseline.h"
#include "bankcheck/error.h"
#include "bankcheck/file_io.h"
#include "bankcheck/json_io.h"
#include "bankcheck/results.h"
#include "bankcheck/text_table.h"
#include "parsed_documents.h"

namespace bankcheck {
namespace {

// "ld 0 → 1984 · ldsm 28 → 0" over the kinds either side shows; `field` picks the count.
std::string Totals(const std::vector<LaunchRecord>& before, const std::vector<LaunchRecord>& after,
                   uint64_t (*field)(const SharedCounts&)) {
  std::vector<LaunchRecord> both = before;
  both.insert(both.end(), after.begin(), after.end());
  std::string text;
  for (const SharedKind kind : ShownKinds(both)) {
    const SharedCounts old_total = ExactCounts(SumCounts(before, kind));
    const SharedCounts new_total = ExactCounts(SumCounts(after, kind));
    text += std::string(text.empty() ? "" : " · ") + InfoOf(kind).label + " " +
            BeforeAfter(std::to_string(field(old_total)), std::to_string(field(new_total)), " → ");
  }
  return text;
}

uint64_t Conflicts(const SharedCounts& c) { return c.conflicts(); }
uint64_t Wavefronts(const SharedCounts& c) { return c.wavefronts; }

std::string NameList(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += "- `" + name + "`\n";
  return text;
}

std::string Describe(const MeasurementSet& set) {
  std::string text = "`" + set.path.string() + "` (" + set.kind;
  if (!set.arch.empty()) text += ", " + set.arch;
  if (!set.date.empty()) text += ", " + set.date;
  return text + ")";
}

}  // namespace

MeasurementSet ReadMeasurementSet(const std::filesystem::path& path) {
  const std::string advice = "bankcheck compare reads results files and baseline files";
  // Parsed once: the document tells which kind of file it is, and is then read as that kind.
  const nlohmann::json document = ParseJsonText(ReadTextFile(path, advice), path, advice);
  const FieldReader root(document, path.string(), advice);
  root.RequireObject();
  const std::string format = root.Field("format").String();
  MeasurementSet set;
  set.path = path;
  if (format == kBaselineFormat) {
    BaselineFile file = internal::BaselineFileFromJson(document, path);
    set.kind = "baseline";
    set.arch = file.arch;
    set.date = file.recorded_with.date;
    for (auto& [name, entry] : file.cases) set.cases.emplace(name, std::move(entry.launches));
  } else if (format == kResultsFormat) {
    RunResults results = internal::ResultsFromJson(document, path);
    set.kind = "results";
    set.arch = results.metadata.arch;
    set.date = results.metadata.date;
    for (auto& [name, result] : results.cases) {
      if (result.status == CaseStatus::kSkipped && result.launches.empty()) {
        set.not_measured.insert(name);
      } else {
        set.cases.emplace(name, std::move(result.launches));
      }
    }
  } else {
    root.Field("format").FailWith("is \"" + format + "\", but bankcheck compare reads \"" + kResultsFormat +
                                  "\" and \"" + kBaselineFormat + "\" files");
  }
  return set;
}

MeasurementSet ReadBaselineFolder(const std::filesystem::path& baselines_dir, const std::string& arch) {
  if (arch.empty()) {
    throw Error(ErrorKind::kBadInput,
                "the other side names no GPU architecture (did its run skip every case?), so "
                "there are no baselines in " +
                    baselines_dir.string() + " to compare it with");
  }
  const BaselineSet baselines = BaselineSet::Load(baselines_dir, arch);
  if (!baselines.has_folder()) {
    throw Error(ErrorKind::kBadInput, baselines.folder().string() + " does not exist: " +
                                          baselines_dir.string() + " holds no baselines for " + arch);
  }
  MeasurementSet set;
  set.path = baselines.folder();
  set.kind = "baselines";
  set.arch = arch;
  for (const auto& [name, entry] : baselines.entries()) set.cases.emplace(name, entry.launches);
  return set;
}

CompareOutcome CompareMeasurementSets(const MeasurementSet& before, const MeasurementSet& after) {
  CompareOutcome outcome;
  struct Row {
    BaselineVerdict verdict;
    std::string name;
    BaselineComparison comparison;
  };
  std::vector<Row> rows;
  for (const auto& [name, launches] : after.cases) {
    const auto old = before.cases.find(name);
    if (old == before.cases.end()) {
      if (before.not_measured.count(name) == 0) outcome.added.push_back(name);
      continue;
    }
    BaselineComparison comparison = CompareLaunches(old->second, launches);
    switch (comparison.verdict) {
      case BaselineVerdict::kRegression:
        ++outcome.regressions;
        break;
      case BaselineVerdict::kImprovement:
        ++outcome.improvements;
        break;
      case BaselineVerdict::kChanged:
        ++outcome.changed;
        break;
      default:
        ++outcome.unchanged;
        continue;
    }
    rows.push_back({comparison.verdict, name, std::move(comparison)});
  }
  for (const auto& [name, launches] : before.cases) {
    if (after.cases.count(name) == 0 && after.not_measured.count(name) == 0) outcome.removed.push_back(name);
  }
  // Regressions first, then improvements, then other changes (the enum's order after kMatch).
  const auto order = [](BaselineVerdict verdict) {
    return verdict == BaselineVerdict::kRegression ? 0 : verdict == BaselineVerdict::kImprovement ? 1 : 2;
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const Row& a, const Row& b) { return order(a.verdict) < order(b.verdict); });

  std::string& out = outcome.markdown;
  out = "## bankcheck compare\n\nOld: " + Describe(before) + "  \nNew: " + Describe(after) + "\n\n";
  if (!before.arch.empty() && !after.arch.empty() && before.arch != after.arch) {
    out += "> **Warning:** the files were measured on different architectures (" + before.arch + " and " +
           after.arch + "); their counts are not expected to agree.\n\n";
  }
  out += (outcome.regressions > 0 ? "**" + std::to_string(outcome.regressions) + " regressed**"
                                  : std::string("0 regressed")) +
         ", " + std::to_string(outcome.improvements) + " improved, " + std::to_string(outcome.changed) +
         " changed, " + std::to_string(outcome.unchanged) + " unchanged; " +
         std::to_string(outcome.added.size()) + " new, " + std::to_string(outcome.removed.size()) +
         " removed\n\n";
  if (!rows.empty()) {
    std::vector<TableRow> table;
    for (const Row& row : rows) {
      const std::vector<LaunchRecord>& old_launches = before.cases.at(row.name);
      const std::vector<LaunchRecord>& new_launches = after.cases.at(row.name);
      const std::string verdict = BaselineVerdictName(row.verdict);
      table.push_back({"`" + row.name + "`",
                       row.verdict == BaselineVerdict::kRegression ? "**" + verdict + "**" : verdict,
                       Totals(old_launches, new_launches, Conflicts),
                       Totals(old_launches, new_launches, Wavefronts)});
    }
    out += FormatMarkdownTable({"case", "change", "conflicts (exact)", "wavefronts"}, table) + "\n";
  }
  if (!outcome.added.empty()) out += "New cases (only in the new file):\n\n" + NameList(outcome.added) + "\n";
  if (!outcome.removed.empty())
    out += "Removed cases (only in the old file):\n\n" + NameList(outcome.removed) + "\n";
  std::vector<std::string> skipped;
  for (const std::string& name : after.not_measured) {
    if (before.cases.count(name) > 0) skipped.push_back(name);
  }
  for (const std::string& name : before.not_measured) {
    if (after.cases.count(name) > 0) skipped.push_back(name);
  }
  if (!skipped.empty()) out += "Not compared (skipped in one of the runs):\n\n" + NameList(skipped) + "\n";
  for (const Row& row : rows) {
    out += "<details><summary>`" + row.name + "`: " + BaselineVerdictName(row.verdict) +
           "</summary>\n\n```\n" + row.comparison.table + "```\n</details>\n\n";
  }
  return outcome;
}

}  // namespace bankcheck
