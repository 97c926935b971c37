#include "bankcheck/core/run_metadata.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "bankcheck/core/version.h"
#include "core/platform/environment.h"
#include "core/records/internal/run_metadata_json.h"

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
  metadata.bankcheck_version = Version();
  return metadata;
}

std::string SoftwareChange(const RunMetadata& recorded, const RunMetadata& now) {
  const std::pair<const char*, std::string RunMetadata::*> fields[] = {
      {"device", &RunMetadata::device},
      {"driver", &RunMetadata::driver},
      {"CUDA runtime", &RunMetadata::cuda_runtime},
      {"CUDA driver", &RunMetadata::cuda_driver},
      {"CUDA compiler", &RunMetadata::cuda_compiler},
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

namespace {

// One entry of CUDA_ARCHITECTURES: "90", "90a-real", "100f-virtual".
struct CudaArchitecture {
  int number = 0;    // 90, 100
  char variant = 0;  // 'a' (sm_90a: that GPU only), 'f' (its family), 0
  bool sass = true;  // not "-virtual"
  bool ptx = true;   // not "-real"
};

std::optional<CudaArchitecture> ParseCudaArchitecture(const std::string& text) {
  CudaArchitecture parsed;
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 4) return std::nullopt;
  parsed.number = std::stoi(text.substr(0, digits));
  std::string rest = text.substr(digits);
  if (!rest.empty() && (rest[0] == 'a' || rest[0] == 'f')) {
    parsed.variant = rest[0];
    rest = rest.substr(1);
  }
  if (rest == "-real") {
    parsed.ptx = false;
  } else if (rest == "-virtual") {
    parsed.sass = false;
  } else if (!rest.empty()) {
    return std::nullopt;
  }
  return parsed;
}

// Whether SASS built for `built` runs on a GPU of compute capability `device` (90 for sm_90).
bool RunsNatively(const CudaArchitecture& built, int device) {
  if (built.variant == 'a') return built.number == device;
  return built.number / 10 == device / 10 && built.number <= device;
}

}  // namespace

std::string PtxJitWarning(const std::string& cuda_architectures, const std::string& arch) {
  if (cuda_architectures.empty() || arch.rfind("sm_", 0) != 0) return "";
  const std::optional<CudaArchitecture> device = ParseCudaArchitecture(arch.substr(3));
  if (!device || device->variant != 0 || !device->ptx) return "";
  bool native = false;
  bool ptx = false;
  std::istringstream entries(cuda_architectures);
  std::string entry;
  while (std::getline(entries, entry, ';')) {
    const std::optional<CudaArchitecture> built = ParseCudaArchitecture(entry);
    if (!built) return "";  // "native", "all", "all-major", "OFF": not a list to judge
    native = native || (built->sass && RunsNatively(*built, device->number));
    ptx = ptx || (built->ptx && built->variant == 0 && built->number <= device->number);
  }
  if (native) return "";
  const std::string built = "built for CUDA_ARCHITECTURES \"" + cuda_architectures + "\"";
  if (!ptx) {
    return "the kernels were " + built + ", which holds neither native code (SASS) nor PTX for this " + arch +
           " GPU, so they cannot run on it; add " + arch.substr(3) + " to CUDA_ARCHITECTURES";
  }
  return "the kernels were " + built + ", which holds no native code (SASS) for this " + arch +
         " GPU, so the driver JIT-compiles their PTX; counts of JIT-compiled code can differ from those of a "
         "native build (and from baselines recorded with one). Add " +
         arch.substr(3) + " to CUDA_ARCHITECTURES to measure the code nvcc makes for this GPU";
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

std::string CurrentUtcTimestampMicroseconds() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const size_t length = std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + length, sizeof(text) - length, ".%06lldZ", static_cast<long long>(micros));
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
  nlohmann::json out = {{"device", metadata.device},
                        {"driver", metadata.driver},
                        {"cuda_runtime", metadata.cuda_runtime},
                        {"cuda_driver", metadata.cuda_driver},
                        {"date", metadata.date}};
  // Only when known: files of runs that do not know it read as before.
  if (!metadata.cuda_compiler.empty()) out["cuda_compiler"] = metadata.cuda_compiler;
  if (!metadata.counters.empty()) out["counters"] = metadata.counters;
  return out;
}

nlohmann::json RunMetadataToJson(const RunMetadata& metadata) {
  nlohmann::json out = RecordedWithToJson(metadata);
  out["arch"] = metadata.arch;
  out["git_commit"] = metadata.git_commit;
  if (!metadata.cuda_architectures.empty()) out["cuda_architectures"] = metadata.cuda_architectures;
  if (!metadata.bankcheck_version.empty()) out["bankcheck_version"] = metadata.bankcheck_version;
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
  if (field.Has("cuda_compiler")) metadata.cuda_compiler = field.Field("cuda_compiler").String();
  if (field.Has("counters")) {
    metadata.counters = field.Field("counters").String();
    if (metadata.counters != "emulated")
      field.Field("counters").FailWith("is not \"emulated\" (measured counts leave it out)");
  }
  return metadata;
}
}  // namespace

RunMetadata RecordedWithFromJson(const FieldReader& field) {
  field.AllowOnlyFields(
      {"device", "driver", "cuda_runtime", "cuda_driver", "date", "cuda_compiler", "counters"});
  return ReadRecordedWithFields(field);
}

RunMetadata RunMetadataFromJson(const FieldReader& field) {
  field.AllowOnlyFields({"arch", "device", "driver", "cuda_runtime", "cuda_driver", "date", "git_commit",
                         "cuda_compiler", "cuda_architectures", "bankcheck_version", "counters"});
  RunMetadata metadata = ReadRecordedWithFields(field);
  metadata.arch = field.Field("arch").String();
  metadata.git_commit = field.Field("git_commit").String();
  if (field.Has("cuda_architectures"))
    metadata.cuda_architectures = field.Field("cuda_architectures").String();
  if (field.Has("bankcheck_version")) metadata.bankcheck_version = field.Field("bankcheck_version").String();
  return metadata;
}

}  // namespace bankcheck::internal
