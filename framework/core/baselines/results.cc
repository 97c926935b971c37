#include "bankcheck/core/results.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <system_error>
#include <utility>

#include "bankcheck/core/case_selection.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"
#include "core/baselines/internal/parsed_documents.h"
#include "core/platform/file_io.h"
#include "core/platform/json_io.h"
#include "core/records/internal/name_table.h"
#include "core/records/internal/run_metadata_json.h"
#include "core/records/record_json.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace {

using nlohmann::json;

constexpr char kNotCompared[] = "not_compared";

std::string ResultsFileAdvice(const std::filesystem::path& path) {
  return "Is " + path.string() +
         " a bankcheck results file? Produce it again with the suite run (or `bankcheck merge-results`)";
}

// Loads and stores always; other kinds where the annotation or the launches name them.
json ExpectedWaysToJson(const CaseResult& result) {
  json out = json::object();
  for (const MemoryKind kind : ShownKinds(result.launches))
    if (InfoOf(kind).space == MemorySpace::kShared) out[InfoOf(kind).key] = result.expected_ways[kind];
  for (const MemoryKindInfo& info : MemoryKinds())
    if (result.expected_ways[info.kind] != 1.0) out[info.key] = result.expected_ways[info.kind];
  return out;
}

json CaseResultToJson(const CaseResult& result) {
  json out = {{"description", result.description},
              {"status", CaseStatusName(result.status)},
              {"expected", ExpectedWaysToJson(result)},
              {"expected_by", ExpectedByName(result.expected_by)},
              {"launches", LaunchRecordsToJson(result.launches, RecordDetail::kFull)},
              {"baseline", result.baseline ? BaselineVerdictName(*result.baseline) : kNotCompared},
              {"baseline_table", result.baseline_table},
              {"messages", result.messages}};
  // Only where the lines were compared: results of runs without per-line baselines read as before.
  if (result.baseline_lines) out["baseline_lines"] = BaselineVerdictName(*result.baseline_lines);
  if (!result.output.empty()) out["output"] = result.output;  // emulated runs only
  return out;
}

CaseResult CaseResultFromJson(const std::string& name, const json& value, const std::filesystem::path& path) {
  const std::string where = path.string() + ": case \"" + PlainLine(name) + "\"";
  const std::string advice = ResultsFileAdvice(path);
  const FieldReader entry(value, where, advice);
  entry.AllowOnlyFields({"description", "status", "expected", "expected_by", "launches", "baseline",
                         "baseline_lines", "baseline_table", "messages", "output"});
  CaseResult result;
  result.name = name;
  result.description = entry.Field("description").String();
  const FieldReader status = entry.Field("status");
  const std::optional<CaseStatus> parsed_status = ParseCaseStatus(status.String());
  if (!parsed_status) status.Fail("\"passed\", \"failed\" or \"skipped\"");
  result.status = *parsed_status;
  const FieldReader expected = entry.Field("expected");
  expected.RequireObject();
  for (const auto& item : expected.json().items()) {
    // "load_ways"/"store_ways": results files written before the per-kind blocks.
    const std::optional<MemoryKind> kind = item.key() == "load_ways"    ? MemoryKind::kSharedLoad
                                           : item.key() == "store_ways" ? MemoryKind::kSharedStore
                                                                        : MemoryKindFromKey(item.key());
    if (!kind) expected.Field(item.key()).FailWith("is not a kind of memory instruction");
    result.expected_ways[*kind] = expected.Field(item.key()).NumberIn(0, kMaxExpectedWays);
  }
  // Absent from files written before cases could go without c.expect: the case's annotation.
  if (entry.Has("expected_by")) {
    const FieldReader expected_by = entry.Field("expected_by");
    const std::optional<ExpectedBy> parsed = ExpectedByFromName(expected_by.String());
    if (!parsed) expected_by.Fail("\"case\", \"lines\" or \"baseline\"");
    result.expected_by = *parsed;
  }
  result.launches = LaunchRecordsFromJson(entry.Field("launches").json(), where, advice, "launches");
  const FieldReader baseline = entry.Field("baseline");
  if (baseline.String() != kNotCompared) {
    result.baseline = ParseBaselineVerdict(baseline.String());
    if (!result.baseline) {
      baseline.Fail(
          "\"match\", \"regression\", \"improvement\", \"changed\", \"missing\" or \"not_compared\"");
    }
  }
  if (entry.Has("baseline_lines")) {
    const FieldReader lines = entry.Field("baseline_lines");
    result.baseline_lines = ParseBaselineVerdict(lines.String());
    if (!result.baseline_lines || *result.baseline_lines == BaselineVerdict::kMissing)
      lines.Fail("\"match\", \"regression\", \"improvement\" or \"changed\"");
  }
  result.baseline_table = entry.Field("baseline_table").String();
  result.messages = entry.Field("messages").StringArray();
  if (entry.Has("output")) result.output = entry.Field("output").String();
  return result;
}

// Fails when a results file's cases are more than kMaxCases (limits.h).
void CheckCaseCount(const FieldReader& cases) {
  if (cases.json().size() > kMaxCases) {
    cases.FailWith("holds " + std::to_string(cases.json().size()) + " cases, more than the " +
                   std::to_string(kMaxCases) + " bankcheck reads from one file (limits.h)");
  }
}

// Adds a case's launches to `total`; fails when the file's (or the merge's) launches are more
// than kMaxLaunchesPerFile.
void CountLaunches(size_t& total, size_t launches, const std::filesystem::path& path) {
  total += launches;
  if (total > kMaxLaunchesPerFile) {
    throw Error(ErrorKind::kBadInput, path.string() + ": more than " + std::to_string(kMaxLaunchesPerFile) +
                                          " launches, the most bankcheck reads from one results file "
                                          "(limits.h)");
  }
}

// Where each field of the merged metadata came from, for the message that refuses a disagreement.
using MetadataSources = std::map<std::string, std::filesystem::path>;

// The rule for one run, written once: results merged into one file (a folder's fragments, the
// files of several shards or runners) must come from one build of one commit, measured on one kind
// of GPU with one software stack, by one kind of counters. So these fields must agree, where both
// sides know them (a field one side leaves empty, e.g. a case that skipped before the GPU was
// probed, is taken from the other): arch, device, driver, cuda_runtime, cuda_driver, git_commit,
// cuda_compiler, cuda_architectures, bankcheck_version; and counters exactly (empty means
// measured). What may differ between runners is not recorded (host, device serial), except the
// date: the merged run began when its first case did.
void MergeMetadata(RunMetadata& into, MetadataSources& sources, const RunMetadata& from,
                   const std::filesystem::path& from_source, const std::string& advice) {
  const auto refuse = [&](const char* name, const std::string& theirs, const std::string& mine) {
    throw Error(ErrorKind::kBadInput,
                "the case results come from different runs: " + from_source.string() + " has " + name +
                    " \"" + theirs + "\", " +
                    (sources.count(name) ? sources[name].string() : "the results before it") + " \"" + mine +
                    "\". " + advice);
  };
  const auto merge = [&](const char* name, std::string RunMetadata::*field) {
    std::string& mine = into.*field;
    const std::string& theirs = from.*field;
    if (theirs.empty() || mine == theirs) return;
    if (!mine.empty()) refuse(name, theirs, mine);
    mine = theirs;
    sources[name] = from_source;
  };
  merge("arch", &RunMetadata::arch);
  merge("device", &RunMetadata::device);
  merge("driver", &RunMetadata::driver);
  merge("cuda_runtime", &RunMetadata::cuda_runtime);
  merge("cuda_driver", &RunMetadata::cuda_driver);
  merge("git_commit", &RunMetadata::git_commit);
  merge("cuda_compiler", &RunMetadata::cuda_compiler);
  merge("cuda_architectures", &RunMetadata::cuda_architectures);
  merge("bankcheck_version", &RunMetadata::bankcheck_version);
  if (sources.count("counters") == 0) {
    into.counters = from.counters;
    sources["counters"] = from_source;
  } else if (into.counters != from.counters) {
    refuse("counters", from.counters, into.counters);
  }
  if (into.date.empty() || (!from.date.empty() && from.date < into.date)) into.date = from.date;
}

// Whether the case's counts were derived by the emulator; nullopt when it has no launch.
std::optional<bool> EmulatedCounts(const CaseResult& result) {
  if (result.launches.empty()) return std::nullopt;
  return result.launches.front().counted_by == CountedBy::kEmulated;
}

// A folder's fragments, read: those of each program's newest run (the rule of MergeResults,
// results.h); `left_out` counts the others and names a few of their cases.
constexpr size_t kLeftOutCasesNamed = 5;
struct Fragments {
  std::vector<std::pair<std::filesystem::path, RunResults>> newest;
  size_t left_out = 0;
  std::string left_out_cases;
};

Fragments NewestRunsFragments(std::vector<std::filesystem::path> paths) {
  std::sort(paths.begin(), paths.end());
  std::vector<std::pair<std::filesystem::path, RunResults>> all;
  std::map<std::string, std::string> newest_start;  // by program
  bool any_run = false;
  for (const std::filesystem::path& path : paths) {
    RunResults part = ReadResults(path);
    if (!part.run.started.empty()) {
      any_run = true;
      std::string& newest = newest_start[part.run.program];
      newest = std::max(newest, part.run.started);
    }
    all.emplace_back(path, std::move(part));
  }
  Fragments fragments;
  for (auto& [path, part] : all) {
    const bool newest =
        part.run.started.empty() ? !any_run : part.run.started == newest_start[part.run.program];
    if (newest) {
      fragments.newest.emplace_back(path, std::move(part));
      continue;
    }
    for (const auto& [name, result] : part.cases) {
      if (fragments.left_out < kLeftOutCasesNamed)
        fragments.left_out_cases += (fragments.left_out == 0 ? "\"" : ", \"") + PlainLine(name) + "\"";
    }
    ++fragments.left_out;
  }
  return fragments;
}

// The results to merge from `sources`, read: of a folder, its cases/ fragments of each program's
// newest run (NewestRunsFragments); of a file, the file. Appends to `left_out` what was left out.
std::vector<std::pair<std::filesystem::path, RunResults>> PartsToMerge(
    const std::vector<std::filesystem::path>& sources, std::string& left_out) {
  std::vector<std::pair<std::filesystem::path, RunResults>> parts;
  for (const std::filesystem::path& source : sources) {
    std::error_code error;
    if (std::filesystem::is_regular_file(source, error)) {
      parts.emplace_back(source, ReadResults(source));
      continue;
    }
    const std::filesystem::path cases_dir = source / "cases";
    std::vector<std::filesystem::path> paths;
    if (std::filesystem::is_directory(cases_dir, error)) {
      for (const auto& item : std::filesystem::directory_iterator(cases_dir)) {
        if (item.is_regular_file() && item.path().extension() == ".json") paths.push_back(item.path());
      }
    }
    if (paths.empty()) {
      throw Error(ErrorKind::kBadInput,
                  std::filesystem::is_directory(source, error)
                      ? "no case results in " + cases_dir.string() +
                            "; was the suite run with its results folder set to " + source.string() + "?"
                      : "no results file or folder " + source.string() +
                            ": give a suite run's results folder (its cases/ fragments) or a results file");
    }
    if (parts.size() + paths.size() > kMaxCases) {
      throw Error(ErrorKind::kBadInput,
                  "the results to merge hold more than " + std::to_string(kMaxCases) +
                      " fragments, more than the cases one results file may hold (limits.h)");
    }
    Fragments fragments = NewestRunsFragments(std::move(paths));
    if (fragments.left_out > 0) {
      left_out += std::string(left_out.empty() ? "" : "\n") + "left out " +
                  std::to_string(fragments.left_out) +
                  (fragments.left_out == 1 ? " fragment of an earlier run" : " fragments of earlier runs") +
                  " in " + cases_dir.string() + " (" + fragments.left_out_cases +
                  (fragments.left_out > kLeftOutCasesNamed ? " and more" : "") +
                  "): a results folder's merge is each suite program's newest run; delete " +
                  cases_dir.string() + " before a run to keep none";
    }
    for (auto& part : fragments.newest) parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace

namespace {
constexpr std::pair<ExpectedBy, const char*> kExpectedByNames[] = {
    {ExpectedBy::kCase, "case"},
    {ExpectedBy::kLines, "lines"},
    {ExpectedBy::kBaselineOnly, "baseline"},
};
}  // namespace

const char* ExpectedByName(ExpectedBy expected_by) {
  return internal::NameIn(kExpectedByNames, expected_by, "?");
}
std::optional<ExpectedBy> ExpectedByFromName(const std::string& name) {
  return internal::ValueNamed(kExpectedByNames, name);
}

const char* CaseStatusName(CaseStatus status) {
  switch (status) {
    case CaseStatus::kPassed:
      return "passed";
    case CaseStatus::kFailed:
      return "failed";
    case CaseStatus::kSkipped:
      return "skipped";
  }
  return "unknown";
}

std::optional<CaseStatus> ParseCaseStatus(const std::string& name) {
  for (const CaseStatus status : {CaseStatus::kPassed, CaseStatus::kFailed, CaseStatus::kSkipped}) {
    if (name == CaseStatusName(status)) return status;
  }
  return std::nullopt;
}

std::string SerializeResults(const RunResults& results) {
  json document = {{"format", kResultsFormat},
                   {"version", kResultsVersion},
                   {"metadata", internal::RunMetadataToJson(results.metadata)},
                   {"cases", json::object()}};
  for (const auto& [name, result] : results.cases) document["cases"][name] = CaseResultToJson(result);
  if (!results.run.program.empty() || !results.run.started.empty())
    document["run"] = {{"program", results.run.program}, {"started", results.run.started}};
  return DumpJson(document);
}

RunResults ParseResults(const std::string& text, const std::filesystem::path& path) {
  return internal::ResultsFromJson(ParseJsonText(text, path, ResultsFileAdvice(path)), path);
}

RunResults internal::ResultsFromJson(const json& document, const std::filesystem::path& path) {
  const std::string advice = ResultsFileAdvice(path);
  const FieldReader root(document, path.string(), advice);
  root.RequireObject();
  const FieldReader format = root.Field("format");
  if (format.String() != kResultsFormat) {
    format.FailWith("is \"" + format.String() + "\", but a results file's format is \"" + kResultsFormat +
                    "\"");
  }
  root.AllowOnlyFields({"format", "version", "metadata", "cases", "run"});
  const FieldReader version = root.Field("version");
  if (version.Unsigned() < static_cast<uint64_t>(kOldestResultsVersion) ||
      version.Unsigned() > static_cast<uint64_t>(kResultsVersion)) {
    version.FailWith("is " + std::to_string(version.Unsigned()) + ", but this bankcheck reads versions " +
                     std::to_string(kOldestResultsVersion) + " to " + std::to_string(kResultsVersion) +
                     " only; use the bankcheck that wrote it, or run again");
  }
  RunResults results;
  results.metadata = internal::RunMetadataFromJson(root.Field("metadata"));
  if (root.Has("run")) {
    const FieldReader run = root.Field("run");
    run.AllowOnlyFields({"program", "started"});
    results.run.program = run.Field("program").String();
    const FieldReader started = run.Field("started");
    results.run.started = started.String();
    if (!IsRunStart(results.run.started)) started.Fail("a UTC time such as \"2026-12-07T12:41:09.123456Z\"");
  }
  const FieldReader cases = root.Field("cases");
  cases.RequireObject();
  CheckCaseCount(cases);
  size_t launches = 0;
  CountLaunches(launches, internal::LaunchesInCases(cases.json()), path);
  for (const auto& item : cases.json().items()) {
    CheckCaseNameLength(item.key(), path.string());
    CaseResult result = CaseResultFromJson(item.key(), item.value(), path);
    for (LaunchRecord& launch : result.launches)
      MarkKindsNewerThan(BaselineVersionOfResults(static_cast<int>(version.Unsigned())), launch);
    results.cases.emplace(item.key(), std::move(result));
  }
  return results;
}

RunResults ReadResults(const std::filesystem::path& path) {
  return ParseResults(ReadTextFile(path, ResultsFileAdvice(path)), path);
}

void WriteResults(const std::filesystem::path& path, const RunResults& results) {
  WriteFileAtomically(path, SerializeResults(results));
}

std::string SafeCaseName(const std::string& case_name) {
  std::string name = case_name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::filesystem::path CaseResultPath(const std::filesystem::path& results_dir, const std::string& case_name) {
  return results_dir / "cases" / (SafeCaseName(case_name) + ".json");
}

bool SkippedForWantOfABaseline(const CaseResult& result) {
  return result.status == CaseStatus::kSkipped && result.baseline == BaselineVerdict::kMissing &&
         !result.launches.empty();
}

bool IsRunStart(const std::string& started) {
  constexpr char kShape[] = "0000-00-00T00:00:00.000000Z";  // '0': a digit
  if (started.size() != sizeof(kShape) - 1) return false;
  for (size_t i = 0; i < started.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(started[i])) != 0;
    if (kShape[i] == '0' ? !digit : started[i] != kShape[i]) return false;
  }
  return true;
}

std::filesystem::path WriteCaseResult(const std::filesystem::path& results_dir, const RunMetadata& metadata,
                                      const CaseResult& result, const FragmentRun& run) {
  RunResults fragment;
  fragment.metadata = metadata;
  fragment.run = run;
  fragment.cases.emplace(result.name, result);
  const std::filesystem::path path = CaseResultPath(results_dir, result.name);
  WriteFileIn(OutputFolder::Create(path.parent_path()), path.filename().string(), SerializeResults(fragment));
  return path;
}

RunResults MergeResults(const std::vector<std::filesystem::path>& sources, std::string* left_out) {
  if (sources.empty())
    throw Error(ErrorKind::kBadInput, "no results to merge: give a results folder or file");
  const std::string advice =
      sources.size() == 1 && std::filesystem::is_directory(sources.front())
          ? "Delete " + (sources.front() / "cases").string() +
                " before a run so that it holds one run's results"
          : "Merge the results of one run: every shard or runner builds the same commit with the same "
            "toolkit and measures on the same kind of GPU (docs/ci.md, \"Sharding\")";
  size_t launches = 0;
  RunResults merged;
  MetadataSources metadata_sources;
  std::map<std::string, std::filesystem::path> source_of_case;
  std::optional<std::pair<bool, std::filesystem::path>> counted;  // emulated or measured, and where seen
  std::string left_out_text;
  for (auto& [path, part] : PartsToMerge(sources, left_out_text)) {
    MergeMetadata(merged.metadata, metadata_sources, part.metadata, path, advice);
    if (merged.cases.size() + part.cases.size() > kMaxCases) {
      throw Error(ErrorKind::kBadInput, "the results to merge hold more than " + std::to_string(kMaxCases) +
                                            " cases, the most one results file may hold (limits.h)");
    }
    for (auto& [name, result] : part.cases) {
      CountLaunches(launches, result.launches.size(), path);
      const auto [existing, inserted] = source_of_case.emplace(name, path);
      if (!inserted) {
        throw Error(ErrorKind::kBadInput, "case \"" + name + "\" is in both " + existing->second.string() +
                                              " and " + path.string() + ". " + advice);
      }
      if (const std::optional<bool> emulated = EmulatedCounts(result)) {
        if (!counted) counted.emplace(*emulated, path);
        if (counted->first != *emulated) {
          throw Error(ErrorKind::kBadInput,
                      "the counts in " + (*emulated ? path : counted->second).string() +
                          " were derived by the emulator, those in " +
                          (*emulated ? counted->second : path).string() +
                          " measured on a GPU: merge the GPU program's results and the emulated program's "
                          "(<results>-emulated) apart");
        }
      }
      merged.cases.emplace(name, std::move(result));
    }
  }
  if (left_out != nullptr) *left_out = left_out_text;
  return merged;
}

RunResults MergeResults(const std::filesystem::path& results_dir) {
  return MergeResults(std::vector<std::filesystem::path>{results_dir});
}

std::filesystem::path MergeResultsToFile(const std::filesystem::path& results_dir,
                                         const std::filesystem::path& output) {
  const std::filesystem::path path = output.empty() ? results_dir / "results.json" : output;
  WriteResults(path, MergeResults(results_dir));
  return path;
}

}  // namespace bankcheck
