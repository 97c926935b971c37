#include <algorithm>
#include <set>
#include <system_error>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "core/baselines/internal/baseline_format.h"
#include "core/baselines/internal/parsed_documents.h"
#include "core/platform/file_io.h"
#include "core/platform/json_io.h"
#include "core/records/internal/run_metadata_json.h"

// The baselines of an architecture as a folder of files: loading them, and updating them under the
// folder's lock (baseline.h).
namespace bankcheck {
namespace {

using nlohmann::json;

// Reads and validates an existing file for a read-modify-write; refuses (throws) when it is
// malformed, so a damaged file is never replaced by one that silently lost its other cases.
json ReadDocumentForUpdate(const std::filesystem::path& path, const std::string& arch,
                           const RecordAdvice& record) {
  const std::string advice = internal::BaselineFileAdvice(path, record);
  try {
    json document = ParseJsonText(ReadTextFile(path, advice), path, advice);
    const BaselineFile file = internal::BaselineFileFromJson(document, path, record);
    if (file.arch != arch) {
      throw Error(ErrorKind::kBadInput, path.string() + ": arch is \"" + file.arch +
                                            "\", but the file is in the " + arch + " folder. " + advice);
    }
    // An older version's cases are written again as read: their launches then say which kinds
    // they did not count (LaunchRecord::not_counted), which the current version would read as none.
    if (document["version"] != kBaselineVersion)
      for (const auto& [name, entry] : file.cases)
        document["cases"][name] = internal::BaselineEntryToJson({name, entry.description, entry.launches});
    return document;
  } catch (const Error& e) {
    throw Error(ErrorKind::kBadInput, "not updating " + path.string() +
                                          ", which is malformed; it was left "
                                          "unchanged: " +
                                          e.what());
  }
}

// Whether a baseline file's entry (validated) holds a launch the emulator derived.
bool IsDerivedEntry(const json& entry) {
  if (!entry.contains("launches")) return false;
  for (const json& launch : entry["launches"])
    if (launch.contains("counters") && launch["counters"] == "emulated") return true;
  return false;
}

OutputFolder PrepareArchFolder(const std::filesystem::path& baselines_dir, const std::string& arch) {
  internal::ValidateBaselineArch(arch);
  return OutputFolder::Create(baselines_dir / arch);
}

}  // namespace

BaselineSet BaselineSet::Load(const std::filesystem::path& baselines_dir, const std::string& arch,
                              const RecordAdvice& record) {
  internal::ValidateBaselineArch(arch);
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
                                            internal::BaselineFileAdvice(path, record));
    }
    const std::string topic = path.stem().string();
    set.recorded_with_[topic] = file.recorded_with;
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
         " does not exist), so every case measured has no baseline (missing). Record them with: " +
         record_.ForAll();
}

const BaselineEntry* BaselineSet::Find(const std::string& case_name) const {
  const auto found = entries_.find(case_name);
  return found == entries_.end() ? nullptr : &found->second;
}

const RunMetadata* BaselineSet::RecordedWith(const std::string& case_name) const {
  const auto found = recorded_with_.find(TopicOfCase(case_name));
  return found == recorded_with_.end() ? nullptr : &found->second;
}

std::filesystem::path BaselineSet::FileForCase(const std::string& case_name) const {
  return folder_ / (TopicOfCase(case_name) + ".json");
}

BaselineSet BaselineSet::FromEntries(std::filesystem::path folder, std::string arch,
                                     std::map<std::string, BaselineEntry> entries, RecordAdvice record) {
  BaselineSet set;
  set.record_ = std::move(record);
  set.state_ = State::kLoaded;
  set.folder_ = std::move(folder);
  set.arch_ = std::move(arch);
  set.entries_ = std::move(entries);
  return set;
}

bool IsDerived(const std::vector<LaunchRecord>& launches) {
  return std::any_of(launches.begin(), launches.end(),
                     [](const LaunchRecord& launch) { return launch.counted_by == CountedBy::kEmulated; });
}

std::optional<std::string> WhyNotRecordable(const std::vector<LaunchRecord>& launches, Recording recording) {
  const bool derived = IsDerived(launches);
  if (derived && recording == Recording::kMeasured)
    return "its counts were derived by the emulator (BANKCHECK_COUNTERS=emulate), not measured on a GPU; "
           "baselines hold measured counts: record them from a GPU run's results, or record the derived "
           "counts as first baselines on purpose (BANKCHECK_UPDATE_BASELINES=emulated, `bankcheck "
           "update-baselines --emulated`; docs/emulate.md)";
  if (!derived && recording == Recording::kEmulatedFirstBaselines)
    return "first baselines (--emulated) take the emulated program's derived counts, and these were "
           "measured: record them without --emulated";
  return std::nullopt;
}

std::vector<std::filesystem::path> UpdateBaselines(const std::filesystem::path& baselines_dir,
                                                   const std::string& arch, const RunMetadata& recorded_with,
                                                   const std::vector<BaselineUpdate>& updates,
                                                   const RecordAdvice& record, Recording recording) {
  std::map<std::string, std::vector<const BaselineUpdate*>> by_topic;
  for (const BaselineUpdate& update : updates) {
    if (const std::optional<std::string> why = WhyNotRecordable(update.launches, recording))
      throw Error(ErrorKind::kBadInput, "not recording case \"" + update.case_name + "\": " + *why);
    by_topic[TopicOfCase(update.case_name)].push_back(&update);
  }
  if (by_topic.empty()) return {};
  // The folder is opened once: its lock and its files are on that descriptor, so they are in the
  // folder that was checked (output_folder.h), whatever happens to its path meanwhile.
  const OutputFolder arch_folder = PrepareArchFolder(baselines_dir, arch);
  const std::filesystem::path folder = arch_folder.path();
  const ExclusiveFileLock lock(arch_folder, ".lock");
  std::vector<std::filesystem::path> written;
  for (const auto& [topic, topic_updates] : by_topic) {
    const std::filesystem::path path = folder / (topic + ".json");
    std::error_code error;
    json document = std::filesystem::exists(path, error) ? ReadDocumentForUpdate(path, arch, record)
                                                         : internal::NewBaselineDocument(arch);
    bool changed = !document.contains("recorded_with");
    for (const BaselineUpdate* update : topic_updates) {
      json entry = internal::BaselineEntryToJson(*update);
      json& slot = document["cases"][update->case_name];
      if (recording == Recording::kEmulatedFirstBaselines && slot.is_object() && !IsDerivedEntry(slot))
        throw Error(ErrorKind::kBadInput,
                    "not recording case \"" + update->case_name + "\" in " + path.string() +
                        ": its baseline was measured on a GPU, and derived counts never "
                        "replace measured ones (nothing was written)");
      changed = changed || slot != entry;
      slot = std::move(entry);
    }
    // Re-recording the same values leaves the file alone, so a full re-record diffs only where
    // something changed (not a new date in every file).
    if (!changed) continue;
    // "counters": "emulated" while any of the file's cases holds derived counts, whoever recorded last.
    RunMetadata with = recorded_with;
    with.counters = "";
    for (const auto& [name, entry] : document["cases"].items())
      if (IsDerivedEntry(entry)) with.counters = "emulated";
    document["recorded_with"] = internal::RecordedWithToJson(with);
    // An older file recorded into is the current version: its other cases keep their launch totals
    // only (version 1), and say which kinds they did not count (before version 3).
    document["version"] = kBaselineVersion;
    WriteFileIn(arch_folder, topic + ".json", DumpJson(document));
    written.push_back(path);
  }
  return written;
}

std::vector<std::filesystem::path> RemoveBaselineEntries(const std::filesystem::path& baselines_dir,
                                                         const std::string& arch,
                                                         const std::vector<std::string>& case_names,
                                                         const RecordAdvice& record) {
  internal::ValidateBaselineArch(arch);
  const std::filesystem::path folder = baselines_dir / arch;
  std::error_code error;
  if (case_names.empty() || !std::filesystem::is_directory(folder, error)) return {};
  std::map<std::string, std::vector<std::string>> by_topic;
  for (const std::string& name : case_names) by_topic[TopicOfCase(name)].push_back(name);
  const OutputFolder arch_folder = OutputFolder::Open(folder);
  const ExclusiveFileLock lock(arch_folder, ".lock");
  std::vector<std::filesystem::path> changed;
  for (const auto& [topic, names] : by_topic) {
    const std::filesystem::path path = folder / (topic + ".json");
    if (topic.empty() || !std::filesystem::exists(path, error)) continue;
    json document = ReadDocumentForUpdate(path, arch, record);
    size_t removed = 0;
    for (const std::string& name : names) removed += document["cases"].erase(name);
    if (removed == 0) continue;
    if (document["cases"].empty()) {
      RemoveFileIn(arch_folder, topic + ".json");
    } else {
      WriteFileIn(arch_folder, topic + ".json", DumpJson(document));
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
