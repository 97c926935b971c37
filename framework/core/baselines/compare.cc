#include "bankcheck/core/compare.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/results.h"
#include "core/baselines/internal/parsed_documents.h"
#include "core/platform/file_io.h"
#include "core/platform/json_io.h"
#include "core/reports/internal/markdown.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace {

// "ld 0 → 1984 · ldsm 28 → 0" over the kinds either side shows; `field` picks the count.
std::string Totals(const std::vector<LaunchRecord>& before, const std::vector<LaunchRecord>& after,
                   uint64_t (*field)(const KindCounts&), const char* arrow = " → ") {
  std::vector<LaunchRecord> both = before;
  both.insert(both.end(), after.begin(), after.end());
  std::string text;
  for (const MemoryKind kind : ShownKinds(both)) {
    const KindCounts old_total = ExactCounts(SumCounts(before, kind));
    const KindCounts new_total = ExactCounts(SumCounts(after, kind));
    text += std::string(text.empty() ? "" : " · ") + InfoOf(kind).label + " " +
            BeforeAfter(std::to_string(field(old_total)), std::to_string(field(new_total)), arrow);
  }
  return text;
}

// A changed case's details: the source lines that differ, then the launches' before -> after table.
std::string DetailsText(const BaselineComparison& comparison) {
  std::string text;
  if (!comparison.line_differences.empty()) {
    text = "Source lines that differ:\n";
    for (const std::string& difference : comparison.line_differences) text += "  " + difference + "\n";
    text += "\n";
  }
  return text + comparison.table;
}

uint64_t Conflicts(const KindCounts& c) { return c.conflicts(); }
uint64_t Wavefronts(const KindCounts& c) { return c.wavefronts; }

std::string TotalsPlain(const std::vector<LaunchRecord>& before, const std::vector<LaunchRecord>& after,
                        uint64_t (*field)(const KindCounts&)) {
  return Totals(before, after, field, " -> ");
}

std::string Describe(const MeasurementSet& set) {
  std::string text =
      markdown::Code(set.path.string(), markdown::kMaxPathBytes) + " (" + markdown::Inline(set.kind);
  if (!set.arch.empty()) text += ", " + markdown::Inline(set.arch);
  if (!set.date.empty()) text += ", " + markdown::Inline(set.date);
  return text + ")";
}

// A list of case names under its title, in the part of the budget left: the names that fit, then
// how many did not. Returns how many were not shown.
size_t AppendNameList(std::string& out, const std::string& title, const std::vector<std::string>& names,
                      const std::function<bool(size_t)>& take) {
  if (names.empty()) return 0;
  std::string list;
  size_t shown = 0;
  for (const std::string& name : names) {
    const std::string item = "- " + markdown::Code(name) + "\n";
    if (!take(item.size() + (shown == 0 ? title.size() + 1 : 0))) break;
    list += item;
    ++shown;
  }
  if (shown > 0) out += title + list + "\n";
  return names.size() - shown;
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

namespace {

std::string LeftOutLine(size_t left_out, const std::string& quote = "`") {
  return std::to_string(left_out) + (left_out == 1 ? " case" : " cases") +
         " of the old side that the new one does not hold " + (left_out == 1 ? "was" : "were") +
         " not compared (" + quote + "--all" + quote + " lists them as removed).";
}

std::string RenderCompareMarkdown(const MeasurementSet& before, const MeasurementSet& after,
                                  const CompareOutcome& outcome, const CompareOptions& options) {
  // The headline and totals, always shown and first; then, while the budget lasts, the changed
  // cases (regressions first) and their details, then the new, removed and skipped cases.
  std::string head =
      "## bankcheck compare\n\nOld: " + Describe(before) + "  \nNew: " + Describe(after) + "\n\n";
  if (!before.arch.empty() && !after.arch.empty() && before.arch != after.arch) {
    head += "> **Warning:** the files were measured on different architectures (" +
            markdown::Inline(before.arch) + " and " + markdown::Inline(after.arch) +
            "); their counts are not expected to agree.\n\n";
  }
  head += (outcome.regressions > 0 ? "**" + std::to_string(outcome.regressions) + " regressed**"
                                   : std::string("0 regressed")) +
          ", " + std::to_string(outcome.improvements) + " improved, " + std::to_string(outcome.changed) +
          " changed, " + std::to_string(outcome.unchanged) + " unchanged; " +
          std::to_string(outcome.added.size()) + " new, " + std::to_string(outcome.removed.size()) +
          " removed  \n" +
          (outcome.fails() ? "**" + outcome.verdicts.Line() + "**" : outcome.verdicts.Line()) + "\n\n";
  if (outcome.left_out > 0) head += LeftOutLine(outcome.left_out) + "\n\n";

  constexpr size_t kNoteBytes = 512;  // room for the note on what is not shown
  const size_t fixed = head.size() + kNoteBytes;
  const size_t max_bytes = options.max_bytes;
  const size_t budget = max_bytes == 0 ? SIZE_MAX : max_bytes > fixed ? max_bytes - fixed : 0;
  size_t used = 0;
  bool full = false;
  const std::function<bool(size_t)> take = [&](size_t cost) {
    if (full || cost > budget - used) full = true;
    if (full) return false;
    used += cost;
    return true;
  };

  std::vector<const ComparedCase*> rows;
  for (const ComparedCase& compared : outcome.cases)
    if (compared.verdict != BaselineVerdict::kMatch) rows.push_back(&compared);
  std::string body;
  const TableRow header = {"case", "change", "conflicts (exact)", "wavefronts"};
  const std::string empty_table = FormatMarkdownTable(header, {});
  std::vector<TableRow> table;
  for (const ComparedCase* row : rows) {
    const std::vector<LaunchRecord>& old_launches = before.cases.at(row->name);
    const std::vector<LaunchRecord>& new_launches = after.cases.at(row->name);
    const std::string verdict = BaselineVerdictName(row->verdict);
    TableRow cells = {markdown::Code(row->name),
                      row->verdict == BaselineVerdict::kRegression ? "**" + verdict + "**" : verdict,
                      Totals(old_launches, new_launches, Conflicts),
                      Totals(old_launches, new_launches, Wavefronts)};
    const size_t cost = FormatMarkdownTable(header, {cells}).size() - empty_table.size() +
                        (table.empty() ? empty_table.size() + 1 : 0);
    if (!take(cost)) break;
    table.push_back(std::move(cells));
  }
  size_t not_shown = rows.size() - table.size();
  if (!table.empty()) body += FormatMarkdownTable(header, table) + "\n";
  // The details of the rows shown come before the lists of names in the budget, after them on the page.
  std::string details;
  size_t details_not_shown = 0;
  for (size_t i = 0; i < table.size(); ++i) {
    const ComparedCase& row = *rows[i];
    const std::string section = "<details><summary>" + markdown::Code(row.name) + ": " +
                                BaselineVerdictName(row.verdict) + "</summary>\n\n" +
                                markdown::FencedBlock(DetailsText(row.comparison)) + "</details>\n\n";
    if (take(section.size())) {
      details += section;
    } else {
      ++details_not_shown;
    }
  }
  not_shown += AppendNameList(body, "New cases (only in the new file):\n\n", outcome.added, take);
  not_shown += AppendNameList(body, "Removed cases (only in the old file):\n\n", outcome.removed, take);
  not_shown +=
      AppendNameList(body, "Not compared (skipped in one of the runs):\n\n", outcome.not_compared, take);
  body += details;

  std::string note;
  if (not_shown > 0 || details_not_shown > 0) {
    note =
        "> **Not shown:** " + std::to_string(not_shown) + " more " + (not_shown == 1 ? "case" : "cases") +
        (details_not_shown > 0 ? " and the details of " + std::to_string(details_not_shown) : std::string()) +
        ", to keep this comparison under " + WithThousands(max_bytes) +
        " bytes (regressions come first). For all of it, run `bankcheck compare` with `--max-bytes 0 -o "
        "compare.md`.\n\n";
  }
  return head + note + body;
}

std::string DescribePlain(const MeasurementSet& set) {
  std::string text = PlainLine(set.path.string(), markdown::kMaxPathBytes) + " (" + PlainLine(set.kind);
  if (!set.arch.empty()) text += ", " + PlainLine(set.arch);
  if (!set.date.empty()) text += ", " + PlainLine(set.date);
  return text + ")";
}

std::string RenderCompareText(const MeasurementSet& before, const MeasurementSet& after,
                              const CompareOutcome& outcome) {
  std::string out =
      "bankcheck compare\nOld: " + DescribePlain(before) + "\nNew: " + DescribePlain(after) + "\n";
  if (!before.arch.empty() && !after.arch.empty() && before.arch != after.arch) {
    out += "Warning: the files were measured on different architectures (" + PlainLine(before.arch) +
           " and " + PlainLine(after.arch) + "); their counts are not expected to agree.\n";
  }
  out += "\n" + std::to_string(outcome.regressions) + " regressed, " + std::to_string(outcome.improvements) +
         " improved, " + std::to_string(outcome.changed) + " changed, " + std::to_string(outcome.unchanged) +
         " unchanged; " + std::to_string(outcome.added.size()) + " new, " +
         std::to_string(outcome.removed.size()) + " removed\n" + outcome.verdicts.Line() + "\n";
  if (outcome.left_out > 0) out += LeftOutLine(outcome.left_out, "") + "\n";
  std::vector<TableRow> table;
  std::string details;
  for (const ComparedCase& row : outcome.cases) {
    if (row.verdict == BaselineVerdict::kMatch) continue;
    const std::vector<LaunchRecord>& old_launches = before.cases.at(row.name);
    const std::vector<LaunchRecord>& new_launches = after.cases.at(row.name);
    table.push_back({PlainLine(row.name), BaselineVerdictName(row.verdict),
                     TotalsPlain(old_launches, new_launches, Conflicts),
                     TotalsPlain(old_launches, new_launches, Wavefronts)});
    details += "\n-- " + PlainLine(row.name) + ": " + BaselineVerdictName(row.verdict) + "\n" +
               PlainBlock(DetailsText(row.comparison));
  }
  if (!table.empty())
    out += "\n" + FormatTextTable({"case", "change", "conflicts (exact)", "wavefronts"}, table);
  const auto list = [&out](const char* title, const std::vector<std::string>& names) {
    if (names.empty()) return;
    out += std::string("\n") + title + "\n";
    for (const std::string& name : names) out += "  " + PlainLine(name) + "\n";
  };
  list("New cases (only in the new file):", outcome.added);
  list("Removed cases (only in the old file):", outcome.removed);
  list("Not compared (skipped in one of the runs):", outcome.not_compared);
  if (!details.empty()) out += "\nDetails:\n" + details;
  return out;
}

nlohmann::json SideJson(const MeasurementSet& set) {
  return {{"path", set.path.string()}, {"kind", set.kind}, {"arch", set.arch}, {"date", set.date}};
}

std::string RenderCompareJson(const MeasurementSet& before, const MeasurementSet& after,
                              const CompareOutcome& outcome, const CompareOptions& options) {
  nlohmann::json out = {{"format", "bankcheck-compare"}, {"version", 1}};
  out["old"] = SideJson(before);
  out["new"] = SideJson(after);
  out["all"] = options.all;
  out["totals"] = {{"regressions", outcome.regressions},
                   {"improvements", outcome.improvements},
                   {"changed", outcome.changed},
                   {"unchanged", outcome.unchanged},
                   {"added", outcome.added.size()},
                   {"removed", outcome.removed.size()},
                   {"not_compared", outcome.not_compared.size()},
                   {"left_out", outcome.left_out}};
  out["gate"] = {{"fails", outcome.fails()},
                 {"failing", outcome.verdicts.failing},
                 {"summary", outcome.verdicts.Line()},
                 {"allow_missing", options.policy.allow_missing}};
  for (const char* key : {"regressions", "improvements", "changed", "missing", "cases"})
    out[key] = nlohmann::json::array();
  for (const ComparedCase& row : outcome.cases) {
    nlohmann::json object = {
        {"name", row.name},
        {"verdict", BaselineVerdictName(row.verdict)},
        {"differences", row.comparison.differences},
        {"table", row.verdict == BaselineVerdict::kMatch ? std::string() : row.comparison.table},
        {"lines", row.comparison.lines ? nlohmann::json(BaselineVerdictName(*row.comparison.lines))
                                       : nlohmann::json()}};
    if (row.verdict == BaselineVerdict::kRegression) out["regressions"].push_back(object);
    if (row.verdict == BaselineVerdict::kImprovement) out["improvements"].push_back(object);
    if (row.verdict == BaselineVerdict::kChanged) out["changed"].push_back(object);
    out["cases"].push_back(std::move(object));
  }
  for (const std::string& name : outcome.added) {
    out["missing"].push_back({{"name", name},
                              {"verdict", BaselineVerdictName(BaselineVerdict::kMissing)},
                              {"differences", nlohmann::json::array()},
                              {"table", ""},
                              {"lines", nullptr}});
  }
  out["added"] = outcome.added;
  out["removed"] = outcome.removed;
  out["not_compared"] = outcome.not_compared;
  return DumpJson(out);
}

}  // namespace

CompareOutcome CompareMeasurementSets(const MeasurementSet& before, const MeasurementSet& after,
                                      const CompareOptions& options) {
  CompareOutcome outcome;
  std::vector<CaseDecision> decisions;
  const auto decide = [&](std::optional<BaselineVerdict> verdict, CaseStatus status,
                          std::optional<BaselineVerdict> lines = std::nullopt) {
    decisions.push_back(DecideVerdicts(verdict, lines, status, options.policy));
  };
  for (const auto& [name, launches] : after.cases) {
    const auto old = before.cases.find(name);
    if (old == before.cases.end()) {
      // Nothing on the old side to hold it to: missing, whether new or skipped there.
      if (before.not_measured.count(name) == 0) outcome.added.push_back(name);
      decide(BaselineVerdict::kMissing, CaseStatus::kPassed);
      continue;
    }
    BaselineComparison comparison = CompareLaunches(old->second, launches);
    decide(comparison.verdict, CaseStatus::kPassed, comparison.lines);
    const BaselineVerdict headline = comparison.headline();
    switch (headline) {
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
        break;
    }
    outcome.cases.push_back({name, headline, std::move(comparison)});
  }
  for (const auto& [name, launches] : before.cases) {
    if (after.cases.count(name) > 0 || after.not_measured.count(name) > 0) continue;
    if (options.all) {
      outcome.removed.push_back(name);
    } else {
      ++outcome.left_out;
    }
  }
  for (const std::string& name : after.not_measured) {
    if (before.cases.count(name) > 0) outcome.not_compared.push_back(name);
    decide(std::nullopt, CaseStatus::kSkipped);
  }
  outcome.verdicts = SummarizeDecisions(decisions);
  for (const std::string& name : before.not_measured) {
    if (after.cases.count(name) > 0) outcome.not_compared.push_back(name);
  }
  // Regressions first, then improvements, then other changes, then matches.
  const auto order = [](BaselineVerdict verdict) {
    switch (verdict) {
      case BaselineVerdict::kRegression:
        return 0;
      case BaselineVerdict::kImprovement:
        return 1;
      case BaselineVerdict::kMatch:
        return 3;
      default:
        return 2;
    }
  };
  std::stable_sort(
      outcome.cases.begin(), outcome.cases.end(),
      [&](const ComparedCase& a, const ComparedCase& b) { return order(a.verdict) < order(b.verdict); });
  switch (options.format) {
    case OutputFormat::kMarkdown:
      outcome.output = RenderCompareMarkdown(before, after, outcome, options);
      break;
    case OutputFormat::kText:
      outcome.output = RenderCompareText(before, after, outcome);
      break;
    case OutputFormat::kJson:
      outcome.output = RenderCompareJson(before, after, outcome, options);
      break;
    case OutputFormat::kGithub:
    case OutputFormat::kSarif:
      // Failures at source lines need a results file's per-instruction counts: `report` writes them.
      throw Error(ErrorKind::kBadInput,
                  "compare writes markdown, text or json; `bankcheck report` writes github and sarif");
  }
  return outcome;
}

CompareOutcome CompareMeasurementSets(const MeasurementSet& before, const MeasurementSet& after,
                                      size_t max_bytes) {
  CompareOptions options;
  options.max_bytes = max_bytes;
  return CompareMeasurementSets(before, after, options);
}

}  // namespace bankcheck
