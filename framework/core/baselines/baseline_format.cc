#include "core/baselines/internal/baseline_format.h"

#include <algorithm>
#include <cctype>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/case_selection.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"
#include "core/baselines/internal/parsed_documents.h"
#include "core/platform/file_io.h"
#include "core/platform/json_io.h"
#include "core/records/internal/run_metadata_json.h"
#include "core/records/record_json.h"
#include "core/reports/text_table.h"

// Baseline files: their format, checked field by field (baseline.h).
namespace bankcheck {

using nlohmann::json;

std::string internal::BaselineFileAdvice(const std::filesystem::path& path, const RecordAdvice& record) {
  return std::string("Fix the file by hand, restore it with `git checkout -- ") + path.string() +
         "`, or delete it and record it again with " + record.ForAll();
}

void internal::ValidateBaselineArch(const std::string& arch) {
  if (arch.empty() || arch.find('/') != std::string::npos || arch[0] == '.') {
    throw Error(
        ErrorKind::kBadInput,
        "\"" + arch + "\" is not a GPU architecture name for a baseline folder (expected e.g. sm_90)");
  }
}

json internal::BaselineEntryToJson(const BaselineUpdate& update) {
  return {{"description", update.description},
          {"launches", LaunchRecordsToJson(update.launches, RecordDetail::kExact)}};
}

json internal::NewBaselineDocument(const std::string& arch) {
  return {
      {"format", kBaselineFormat}, {"version", kBaselineVersion}, {"arch", arch}, {"cases", json::object()}};
}

// A topic names a file, so it is made safe in any file system and shell whatever the case name
// (`bankcheck run` names cases after NVTX ranges, which may hold anything, and numbers a kernel's
// repeated launches outside any range "<kernel>#2"): see baseline.h.
std::string TopicOfCase(const std::string& case_name) {
  std::string topic = case_name.substr(0, std::min(case_name.find('/'), case_name.find('#')));
  if (topic.size() > kMaxTopicLength) topic.resize(kMaxTopicLength);
  for (char& c : topic)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  for (char& c : topic) {
    if (c != '.') break;
    c = '_';
  }
  return topic.empty() ? "_" : topic;
}

BaselineFile internal::BaselineFileFromJson(const json& document, const std::filesystem::path& path,
                                            const RecordAdvice& record) {
  const std::string advice = internal::BaselineFileAdvice(path, record);
  const FieldReader root(document, path.string(), advice);
  root.RequireObject();
  const FieldReader format = root.Field("format");
  if (format.String() != kBaselineFormat) {
    format.FailWith("is \"" + format.String() + "\", but a baseline file's format is \"" + kBaselineFormat +
                    "\"; is this the right file?");
  }
  root.AllowOnlyFields({"format", "version", "arch", "recorded_with", "cases"});
  const FieldReader version = root.Field("version");
  if (version.Unsigned() < static_cast<uint64_t>(kOldestBaselineVersion) ||
      version.Unsigned() > static_cast<uint64_t>(kBaselineVersion)) {
    version.FailWith("is " + std::to_string(version.Unsigned()) + ", but this bankcheck reads versions " +
                     std::to_string(kOldestBaselineVersion) + " to " + std::to_string(kBaselineVersion) +
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
    CheckCaseNameLength(item.key(), path.string());
    const std::string where = path.string() + ": case \"" + PlainLine(item.key()) + "\"";
    const FieldReader entry(item.value(), where, advice);
    entry.RequireObject();
    entry.AllowOnlyFields({"description", "launches"});
    BaselineEntry parsed;
    parsed.description = entry.Field("description").String();
    parsed.launches = LaunchRecordsFromJson(entry.Field("launches").json(), where, advice, "launches");
    for (LaunchRecord& launch : parsed.launches)
      MarkKindsNewerThan(static_cast<int>(version.Unsigned()), launch);
    if (version.Unsigned() < 2) {
      for (size_t i = 0; i < parsed.launches.size(); ++i)
        if (parsed.launches[i].lines)
          entry.FailWith("launches[" + std::to_string(i) +
                         "] holds \"lines\", which a version 1 baseline does not have; make the file's "
                         "version 2");
    }
    file.cases.emplace(item.key(), std::move(parsed));
  }
  return file;
}

BaselineFile ParseBaselineFile(const std::string& text, const std::filesystem::path& path,
                               const RecordAdvice& record) {
  return internal::BaselineFileFromJson(ParseJsonText(text, path, internal::BaselineFileAdvice(path, record)),
                                        path, record);
}

BaselineFile ReadBaselineFile(const std::filesystem::path& path, const RecordAdvice& record) {
  return ParseBaselineFile(ReadTextFile(path, internal::BaselineFileAdvice(path, record)), path, record);
}

std::string SerializeBaselineFile(const BaselineFile& file) {
  json document = internal::NewBaselineDocument(file.arch);
  document["recorded_with"] = internal::RecordedWithToJson(file.recorded_with);
  for (const auto& [name, entry] : file.cases) {
    document["cases"][name] = internal::BaselineEntryToJson({name, entry.description, entry.launches});
  }
  return DumpJson(document);
}

}  // namespace bankcheck
