#include "bankcheck/baseline.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <system_error>

#include "bankcheck/error.h"
#include "bankcheck/limits.h"
#include "core/internal/file_io.h"
#include "core/internal/json_io.h"
#include "core/internal/parsed_documents.h"
#include "core/internal/record_json.h"
#include "core/internal/run_metadata_json.h"
#include "core/internal/text_table.h"

namespace bankcheck {
namespace {

using nlohmann::json;

std::string BaselineFileAdvice(const std::filesystem::path& path, const RecordCommand& record) {
  return std::string("Fix the file by hand, restore it with `git checkout -- ") + path.string() +
         "`, or delete it and record it again with " + record.ForAll();
}

// A topic names a file: keep it to characters that are safe in any file system and shell.
void ValidateTopic(const std::string& case_name) {
  const std::string topic = TopicOfCase(case_name);
  const bool safe = !topic.empty() && topic[0] != '.' && std::all_of(topic.begin(), topic.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  if (!safe) {
    throw Error(ErrorKind::kBadInput, "case name \"" + case_name + "\" has topic \"" + topic +
                                          "\", which cannot name a baseline file; start case names with "
                                          "a topic of letters, digits, '_', '-' or '.' followed by '/'");
  }
}

void ValidateArch(const std::string& arch) {
  if (arch.empty() || arch.find('/') != std::string::npos || arch[0] == '.') {
    throw Error(
        ErrorKind::kBadInput,
        "\"" + arch + "\" is not a GPU architecture name for a baseline folder (expected e.g. sm_90)");
  }
}

json BaselineEntryToJson(const BaselineUpdate& update) {
  return {{"description", update.description},
          {"launches", LaunchRecordsToJson(update.launches, RecordDetail::kExact)}};
}

json NewBaselineDocument(const std::string& arch) {
  return {
      {"format", kBaselineFormat}, {"version", kBaselineVersion}, {"arch", arch}, {"cases", json::object()}};
}

// Reads and validates an existing file for a read-modify-write; refuses (throws) when it is
// malformed, so a damaged file is never replaced by one that silently lost its other cases.
json ReadDocumentForUpdate(const std::filesystem::path& path, const std::string& arch,
                           const RecordCommand& record) {
  const std::string advice = BaselineFileAdvice(path, record);
  try {
    const json document = ParseJsonText(ReadTextFile(path, advice), path, advice);
    const BaselineFile file = internal::BaselineFileFromJson(document, path, record);
    if (file.arch != arch) {
      throw Error(ErrorKind::kBadInput, path.string() + ": arch is \"" + file.arch +
                                            "\", but the file is in the " + arch + " folder. " + advice);
    }
    return document;
  } catch (const Error& e) {
    throw Error(ErrorKind::kBadInput, "not updating " + path.string() +
                                          ", which is malformed; it was left "
                                          "unchanged: " +
                                          e.what());
  }
}

std::filesystem::path PrepareArchFolder(const std::filesystem::path& baselines_dir, const std::string& arch) {
  ValidateArch(arch);
  const std::filesystem::path folder = baselines_dir / arch;
  CreateOutputFolders(folder);
  return folder;
}

// --- comparison ---------------------------------------------------------------------------------

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
  return name.size() > kMaxWidth ? name.substr(0, kMaxWidth - 3) + "..." : name;
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

std::string GtestNameForCase(const std::string& case_name) {
  std::string name = case_name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::string GtestTestNameForCase(const std::string& case_name) {
  return kCaseTestPrefix + GtestNameForCase(case_name);
}

namespace {
// `text` in single quotes, as one shell word whatever it holds.
std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// `text` as a regular expression (CTest's) that matches exactly it.
std::string RegexEscape(const std::string& text) {
  std::string regex;
  for (const char c : text) {
    if (std::string(".[]()*+?^$|\\{}").find(c) != std::string::npos) regex += '\\';
    regex += c;
  }
  return regex;
}

// The environment of every command: `variable`=1, and the folder when it is not the suite's own.
std::string CommandEnvironment(const RecordCommand& record, const std::string& variable) {
  return variable + "=1 " +
         (record.baselines_dir.empty() ? ""
                                       : "BANKCHECK_BASELINES_DIR=" + ShellQuote(record.baselines_dir) + " ");
}
}  // namespace

std::string RecordCommand::CtestNameForCase(const std::string& case_name) const {
  return topic_test_prefix.empty() ? "" : topic_test_prefix + "/" + TopicOfCase(case_name);
}

std::string RecordCommand::CtestRegexForCase(const std::string& case_name) const {
  const std::string topic = RegexEscape(TopicOfCase(case_name));
  return topic_test_prefix.empty() ? "/" + topic + "$"
                                   : "^" + RegexEscape(topic_test_prefix) + "/" + topic + "$";
}

std::string RecordCommand::ForCase(const std::string& case_name) const {
  return CommandEnvironment(*this, "BANKCHECK_UPDATE_BASELINES") +
         "GTEST_FILTER=" + ShellQuote(GtestTestNameForCase(case_name)) + " " + test_command + " -R " +
         ShellQuote(CtestRegexForCase(case_name));
}

std::string RecordCommand::ForAll() const {
  return RunTestsWith("BANKCHECK_UPDATE_BASELINES", topic_test_prefix.empty() ? "" : topic_test_prefix + "/");
}

std::string RecordCommand::RunTestsWith(const std::string& variable,
                                        const std::string& test_name_prefix) const {
  const std::string command = CommandEnvironment(*this, variable) + test_command;
  return test_name_prefix.empty() ? command
                                  : command + " -R " + ShellQuote("^" + RegexEscape(test_name_prefix));
}

std::string TopicOfCase(const std::string& case_name) { return case_name.substr(0, case_name.find('/')); }

BaselineFile internal::BaselineFileFromJson(const json& document, const std::filesystem::path& path,
                                            const RecordCommand& record) {
  const std::string advice = BaselineFileAdvice(path, record);
  const FieldReader root(document, path.string(), advice);
  root.RequireObject();
  const FieldReader format = root.Field("format");
  if (format.String() != kBaselineFormat) {
    format.FailWith("is \"" + format.String() + "\", but a baseline file's format is \"" + kBaselineFormat +
                    "\"; is this the right file?");
  }
  root.AllowOnlyFields({"format", "version", "arch", "recorded_with", "cases"});
  const FieldReader version = root.Field("version");
  if (version.Unsigned() != static_cast<uint64_t>(kBaselineVersion)) {
    version.FailWith("is " + std::to_string(version.Unsigned()) + ", but this bankcheck reads version " +
                     std::to_string(kBaselineVersion) +
                     " only; use the bankcheck that wrote it, or record again");
  }
  BaselineFile file;
  file.arch = root.Field("arch").String();
  file.recorded_with = internal::RecordedWithFromJson(root.Field("recorded_with"));
  const FieldReader cases = root.Field("cases");
  cases.RequireObject();
  if (cases.json().size() > kMaxCases) {
    cases.FailWith("holds " + std::to_string(cases.json().size()) + " cases, more than the " +
                   std::to_string(kMaxCases) + " bankcheck reads from one file (limits.h)");
  }
  if (internal::LaunchesInCases(cases.json()) > kMaxLaunchesPerFile) {
    cases.FailWith("hold more than " + std::to_string(kMaxLaunchesPerFile) +
                   " launches, the most bankcheck reads from one file (limits.h)");
  }
  for (const auto& item : cases.json().items()) {
    const std::string where = path.string() + ": case \"" + item.key() + "\"";
    const FieldReader entry(item.value(), where, advice);
    entry.RequireObject();
    entry.AllowOnlyFields({"description", "launches"});
    BaselineEntry parsed;
    parsed.description = entry.Field("description").String();
    parsed.launches = LaunchRecordsFromJson(entry.Field("launches").json(), where, advice, "launches");
    file.cases.emplace(item.key(), std::move(parsed));
  }
  return file;
}

BaselineFile ParseBaselineFile(const std::string& text, const std::filesystem::path& path,
                               const RecordCommand& record) {
  return internal::BaselineFileFromJson(ParseJsonText(text, path, BaselineFileAdvice(path, record)), path,
                                        record);
}

BaselineFile ReadBaselineFile(const std::filesystem::path& path, const RecordCommand& record) {
  return ParseBaselineFile(ReadTextFile(path, BaselineFileAdvice(path, record)), path, record);
}

std::string SerializeBaselineFile(const BaselineFile& file) {
  json document = NewBaselineDocument(file.arch);
  document["recorded_with"] = internal::RecordedWithToJson(file.recorded_with);
  for (const auto& [name, entry] : file.cases) {
    document["cases"][name] = BaselineEntryToJson({name, entry.description, entry.launches});
  }
  return DumpJson(document);
}

BaselineSet BaselineSet::Load(const std::filesystem::path& baselines_dir, const std::string& arch,
                              const RecordCommand& record) {
  ValidateArch(arch);
  BaselineSet set;
  set.record_ = record;
  set.arch_ = arch;
  set.folder_ = baselines_dir / arch;
  std::error_code error;
  if (!std::filesystem::exists(set.folder_, error)) {
    set.state_ = State::kNoFolder;
    return set;
  }
  if (!std::filesystem::is_directory(set.folder_, error)) {
    throw Error(ErrorKind::kBadInput, set.folder_.string() + " is not a folder; baselines for " + arch +
                                          " must be a folder of <topic>.json files");
  }
  set.state_ = State::kLoaded;
  std::vector<std::filesystem::path> files;
  for (const auto& item : std::filesystem::directory_iterator(set.folder_)) {
    // Only *.json: the lock file and a crashed writer's "<file>.tmp.<pid>" are not baselines.
    if (item.is_regular_file() && item.path().extension() == ".json") files.push_back(item.path());
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& path : files) {
    BaselineFile file = ReadBaselineFile(path, record);
    if (file.arch != arch) {
      throw Error(ErrorKind::kBadInput, path.string() + ": arch is \"" + file.arch +
                                            "\", but the file is in the " + arch + " folder. " +
                                            BaselineFileAdvice(path, record));
    }
    const std::string topic = path.stem().string();
    for (auto& [name, entry] : file.cases) {
      if (TopicOfCase(name) != topic) {
        throw Error(ErrorKind::kBadInput,
                    path.string() + ": case \"" + name + "\" belongs in " +
                        (set.folder_ / (TopicOfCase(name) + ".json")).string() +
                        " (a case's file is named after the case's topic). Move the entry "
                        "there or record it again with " +
                        record.ForAll());
      }
      set.entries_.emplace(name, std::move(entry));
    }
  }
  return set;
}

std::string BaselineSet::no_folder_reason() const {
  if (state_ == State::kLoaded) return "";
  return "no baselines for " + arch_ + " (" + folder_.string() +
         " does not exist), so baseline checks are skipped. Record them with: " + record_.ForAll();
}

const BaselineEntry* BaselineSet::Find(const std::string& case_name) const {
  const auto found = entries_.find(case_name);
  return found == entries_.end() ? nullptr : &found->second;
}

std::filesystem::path BaselineSet::FileForCase(const std::string& case_name) const {
  return folder_ / (TopicOfCase(case_name) + ".json");
}

BaselineSet BaselineSet::FromEntries(std::filesystem::path folder, std::string arch,
                                     std::map<std::string, BaselineEntry> entries, RecordCommand record) {
  BaselineSet set;
  set.record_ = std::move(record);
  set.state_ = State::kLoaded;
  set.folder_ = std::move(folder);
  set.arch_ = std::move(arch);
  set.entries_ = std::move(entries);
  return set;
}

const char* BaselineVerdictName(BaselineVerdict verdict) {
  switch (verdict) {
    case BaselineVerdict::kMatch:
      return "match";
    case BaselineVerdict::kRegression:
      return "regression";
    case BaselineVerdict::kImprovement:
      return "improvement";
    case BaselineVerdict::kChanged:
      return "changed";
    case BaselineVerdict::kMissing:
      return "missing";
  }
  return "unknown";
}

std::optional<BaselineVerdict> ParseBaselineVerdict(const std::string& name) {
  for (const BaselineVerdict verdict :
       {BaselineVerdict::kMatch, BaselineVerdict::kRegression, BaselineVerdict::kImprovement,
        BaselineVerdict::kChanged, BaselineVerdict::kMissing}) {
    if (name == BaselineVerdictName(verdict)) return verdict;
  }
  return std::nullopt;
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
  const std::string record = baselines.record_command().ForCase(case_name);
  const BaselineEntry* entry = baselines.Find(case_name);
  if (entry == nullptr) {
    BaselineComparison missing;
    missing.verdict = BaselineVerdict::kMissing;
    const std::string test = baselines.record_command().CtestNameForCase(case_name);
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

std::vector<std::filesystem::path> UpdateBaselines(const std::filesystem::path& baselines_dir,
                                                   const std::string& arch, const RunMetadata& recorded_with,
                                                   const std::vector<BaselineUpdate>& updates,
                                                   const RecordCommand& record) {
  std::map<std::string, std::vector<const BaselineUpdate*>> by_topic;
  for (const BaselineUpdate& update : updates) {
    ValidateTopic(update.case_name);
    by_topic[TopicOfCase(update.case_name)].push_back(&update);
  }
  if (by_topic.empty()) return {};
  const std::filesystem::path folder = PrepareArchFolder(baselines_dir, arch);
  const ExclusiveFileLock lock(folder / ".lock");
  std::vector<std::filesystem::path> written;
  for (const auto& [topic, topic_updates] : by_topic) {
    const std::filesystem::path path = folder / (topic + ".json");
    std::error_code error;
    json document = std::filesystem::exists(path, error) ? ReadDocumentForUpdate(path, arch, record)
                                                         : NewBaselineDocument(arch);
    bool changed = !document.contains("recorded_with");
    for (const BaselineUpdate* update : topic_updates) {
      json entry = BaselineEntryToJson(*update);
      json& slot = document["cases"][update->case_name];
      changed = changed || slot != entry;
      slot = std::move(entry);
    }
    // Re-recording the same values leaves the file alone, so a full re-record diffs only where
    // something changed (not a new date in every file).
    if (!changed) continue;
    document["recorded_with"] = internal::RecordedWithToJson(recorded_with);
    WriteFileAtomically(path, DumpJson(document));
    written.push_back(path);
  }
  return written;
}

std::vector<std::filesystem::path> RemoveBaselineEntries(const std::filesystem::path& baselines_dir,
                                                         const std::string& arch,
                                                         const std::vector<std::string>& case_names,
                                                         const RecordCommand& record) {
  ValidateArch(arch);
  const std::filesystem::path folder = baselines_dir / arch;
  std::error_code error;
  if (case_names.empty() || !std::filesystem::is_directory(folder, error)) return {};
  std::map<std::string, std::vector<std::string>> by_topic;
  for (const std::string& name : case_names) by_topic[TopicOfCase(name)].push_back(name);
  const ExclusiveFileLock lock(folder / ".lock");
  std::vector<std::filesystem::path> changed;
  for (const auto& [topic, names] : by_topic) {
    const std::filesystem::path path = folder / (topic + ".json");
    if (topic.empty() || !std::filesystem::exists(path, error)) continue;
    json document = ReadDocumentForUpdate(path, arch, record);
    size_t removed = 0;
    for (const std::string& name : names) removed += document["cases"].erase(name);
    if (removed == 0) continue;
    if (document["cases"].empty()) {
      std::filesystem::remove(path);
    } else {
      WriteFileAtomically(path, DumpJson(document));
    }
    changed.push_back(path);
  }
  return changed;
}

std::vector<std::string> StaleBaselineEntries(const BaselineSet& baselines,
                                              const std::vector<std::string>& registered_case_names) {
  const std::set<std::string> registered(registered_case_names.begin(), registered_case_names.end());
  std::vector<std::string> stale;
  for (const auto& [name, entry] : baselines.entries()) {
    if (registered.count(name) == 0) stale.push_back(name);
  }
  return stale;
}

}  // namespace bankcheck
