#include "bankcheck/run_metadata.h"

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/internal/environment.h"
#include "core/internal/run_metadata_json.h"

namespace bankcheck {

RunMetadata DescribeRun(const std::string& device, const std::string& arch, int cuda_driver_version,
                        int cuda_runtime_version) {
  RunMetadata metadata;
  metadata.arch = arch;
  metadata.device = device;
  std::ifstream proc_version("/proc/driver/nvidia/version");
  if (proc_version) {
    std::ostringstream text;
    text << proc_version.rdbuf();
    metadata.driver = ParseNvidiaDriverVersion(text.str());
  }
  metadata.cuda_driver = CudaVersionString(cuda_driver_version);
  metadata.cuda_runtime = CudaVersionString(cuda_runtime_version);
  metadata.date = CurrentUtcTimestamp();
  metadata.git_commit = LabelFromEnvironment("BANKCHECK_GIT_COMMIT");
  return metadata;
}

std::string SoftwareChange(const RunMetadata& recorded, const RunMetadata& now) {
  const std::pair<const char*, std::string RunMetadata::*> fields[] = {
      {"device", &RunMetadata::device},
      {"driver", &RunMetadata::driver},
      {"CUDA runtime", &RunMetadata::cuda_runtime},
      {"CUDA driver", &RunMetadata::cuda_driver},
  };
  std::string change;
  for (const auto& [name, field] : fields) {
    const std::string& before = recorded.*field;
    const std::string& after = now.*field;
    if (before.empty() || after.empty() || before == after) continue;
    change += (change.empty() ? "" : ", ") + std::string(name) + " " + before + " -> " + after;
  }
  return change;
}

std::string CudaVersionString(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string CurrentUtcTimestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string ParseNvidiaDriverVersion(const std::string& proc_version_text) {
  const std::string marker = "Kernel Module";
  const size_t at = proc_version_text.find(marker);
  if (at == std::string::npos) return "";
  // The first word that looks like a version: the open module says "Kernel Module for x86_64  575.57.08".
  const std::string first_line = proc_version_text.substr(at, proc_version_text.find('\n', at) - at);
  std::istringstream words(first_line.substr(marker.size()));
  std::string word;
  while (words >> word) {
    if (std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos) return word;
  }
  return "";
}

}  // namespace bankcheck

namespace bankcheck::internal {

nlohmann::json RecordedWithToJson(const RunMetadata& metadata) {
  return {{"device", metadata.device},
          {"driver", metadata.driver},
          {"cuda_runtime", metadata.cuda_runtime},
          {"cuda_driver", metadata.cuda_driver},
          {"date", metadata.date}};
}

nlohmann::json RunMetadataToJson(const RunMetadata& metadata) {
  nlohmann::json out = RecordedWithToJson(metadata);
  out["arch"] = metadata.arch;
  out["git_commit"] = metadata.git_commit;
  return out;
}

namespace {
// The fields a baseline's "recorded_with" and a results file's "metadata" share.
RunMetadata ReadRecordedWithFields(const FieldReader& field) {
  RunMetadata metadata;
  metadata.device = field.Field("device").String();
  metadata.driver = field.Field("driver").String();
  metadata.cuda_runtime = field.Field("cuda_runtime").String();
  metadata.cuda_driver = field.Field("cuda_driver").String();
  metadata.date = field.Field("date").String();
  return metadata;
}
}  // namespace

RunMetadata RecordedWithFromJson(const FieldReader& field) {
  field.AllowOnlyFields({"device", "driver", "cuda_runtime", "cuda_driver", "date"});
  return ReadRecordedWithFields(field);
}

RunMetadata RunMetadataFromJson(const FieldReader& field) {
  field.AllowOnlyFields({"arch", "device", "driver", "cuda_runtime", "cuda_driver", "date", "git_commit"});
  RunMetadata metadata = ReadRecordedWithFields(field);
  metadata.arch = field.Field("arch").String();
  metadata.git_commit = field.Field("git_commit").String();
  return metadata;
}

}  // namespace bankcheck::internal
