#include "core/records/run_cases.h"

#include <cerrno>
#include <cstdlib>

#include "bankcheck/core/error.h"
#include "core/platform/environment.h"
#include "core/platform/json_io.h"
#include "core/records/record_json.h"

namespace bankcheck::internal {
namespace {

constexpr char kDirVariable[] = "BANKCHECK_RUN_DIR";
constexpr char kKernelVariable[] = "BANKCHECK_RUN_KERNEL";
constexpr char kRangeVariable[] = "BANKCHECK_RUN_RANGE";
constexpr char kMaxLaunchesVariable[] = "BANKCHECK_RUN_MAX_LAUNCHES";
constexpr char kAttributeVariable[] = "BANKCHECK_RUN_ATTRIBUTE";
constexpr char kMeasureOnceVariable[] = "BANKCHECK_RUN_MEASURE_ONCE";

std::string Variable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::optional<std::regex> Compile(const std::string& pattern, const char* option) {
  if (pattern.empty()) return std::nullopt;
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw Error(ErrorKind::kBadInput, std::string(option) + " '" + pattern +
                                          "' is not a valid regular expression (" + e.what() + ")");
  }
}

// The position of the '(' that opens the last top-level parenthesized group ending at `end`
// (exclusive), or npos.
size_t OpeningOf(const std::string& name, size_t end, char open, char close) {
  int depth = 0;
  for (size_t i = end; i-- > 0;) {
    if (name[i] == close) ++depth;
    if (name[i] == open && --depth == 0) return i;
  }
  return std::string::npos;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> RunSettings::ToEnvironment() const {
  return {{kDirVariable, output_dir},
          {kKernelVariable, kernel_pattern},
          {kRangeVariable, range_pattern},
          {kMaxLaunchesVariable, std::to_string(max_launches)},
          {kAttributeVariable, attribute ? "1" : "0"},
          {kMeasureOnceVariable, measure_once ? "1" : "0"}};
}

std::optional<RunSettings> RunSettings::FromEnvironment() {
  RunSettings settings;
  settings.output_dir = AbsolutePathFromEnvironment(kDirVariable);
  if (settings.output_dir.empty()) return std::nullopt;
  settings.kernel_pattern = Variable(kKernelVariable);
  settings.range_pattern = Variable(kRangeVariable);
  const std::string max = Variable(kMaxLaunchesVariable);
  if (!max.empty()) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(max.c_str(), &end, 10);
    if (max.find_first_not_of("0123456789") != std::string::npos || errno != 0 || *end != '\0')
      throw Error(ErrorKind::kBadInput,
                  std::string(kMaxLaunchesVariable) + " is '" + max + "'; give a whole number (0: no limit)");
    settings.max_launches = value;
  }
  settings.attribute = FlagFromEnvironment(kAttributeVariable);
  settings.measure_once = FlagFromEnvironment(kMeasureOnceVariable);
  return settings;
}

namespace {
constexpr std::string_view kRepeatsPrefix = "measure-once: ";
constexpr std::string_view kRepeatsSuffix =
    " later launch(es) of this launch's configuration ran unmeasured; their counts are taken to be this "
    "launch's";
}  // namespace

std::string RepeatsNote(uint64_t repeats) {
  return std::string(kRepeatsPrefix) + std::to_string(repeats) + std::string(kRepeatsSuffix);
}

uint64_t RepeatsOf(const LaunchRecord& record) {
  for (const std::string& note : record.notes) {
    if (note.compare(0, kRepeatsPrefix.size(), kRepeatsPrefix) != 0) continue;
    const size_t digits = note.find_first_not_of("0123456789", kRepeatsPrefix.size());
    // Read from a results file: only a note exactly as RepeatsNote writes it, at most 19 digits.
    if (digits == std::string::npos || digits == kRepeatsPrefix.size() ||
        digits - kRepeatsPrefix.size() > 19 || std::string_view(note).substr(digits) != kRepeatsSuffix)
      continue;
    return std::stoull(note.substr(kRepeatsPrefix.size(), digits - kRepeatsPrefix.size()));
  }
  return 0;
}

std::string LaunchConfigurationKey(const std::string& nvtx_range, const std::string& mangled,
                                   const Dim3& grid, const Dim3& block, uint64_t dynamic_shared_bytes,
                                   const std::string& argument_bytes) {
  std::string key;
  const auto field = [&key](const std::string& bytes) { key += std::to_string(bytes.size()) + ":" + bytes; };
  field(nvtx_range);
  field(mangled);
  for (const uint64_t n : {uint64_t{grid.x}, uint64_t{grid.y}, uint64_t{grid.z}, uint64_t{block.x},
                           uint64_t{block.y}, uint64_t{block.z}, dynamic_shared_bytes})
    field(std::to_string(n));
  field(argument_bytes);
  return key;
}

LaunchFilter::LaunchFilter(const std::string& kernel_pattern, const std::string& range_pattern)
    : kernel_(Compile(kernel_pattern, "--kernel")), range_(Compile(range_pattern, "--range")) {}

bool LaunchFilter::Matches(const std::string& kernel, const std::string& nvtx_range) const {
  return (!kernel_ || std::regex_search(kernel, *kernel_)) &&
         (!range_ || std::regex_search(nvtx_range, *range_));
}

std::string KernelFunctionName(const std::string& demangled) {
  std::string name = demangled;
  // The parameter list, then template arguments, each balanced from the end.
  if (!name.empty() && name.back() == ')') {
    const size_t open = OpeningOf(name, name.size(), '(', ')');
    if (open == std::string::npos || open == 0) return demangled;
    name.resize(open);
  }
  while (!name.empty() && name.back() == '>') {
    const size_t open = OpeningOf(name, name.size(), '<', '>');
    if (open == std::string::npos || open == 0) return demangled;
    name.resize(open);
  }
  // The last scope, and after the return type ("void "): the last top-level "::" or space.
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    const char c = name[i];
    if (c == ')' || c == '>') ++depth;
    if (c == '(' || c == '<') --depth;
    if (depth == 0 && (c == ' ' || (c == ':' && i > 0 && name[i - 1] == ':'))) {
      name = name.substr(i + 1);
      break;
    }
  }
  return name.empty() ? demangled : name;
}

std::map<std::string, CaseResult> RunCases(const std::vector<LaunchRecord>& records) {
  std::map<std::string, CaseResult> cases;
  std::map<std::string, int> launches_of;
  for (const LaunchRecord& record : records) {
    const std::string function = record.graph_kernels.empty() ? KernelFunctionName(record.kernel) : "graph";
    std::string name = record.nvtx_range.empty() ? function : record.nvtx_range + "/" + function;
    const int occurrence = ++launches_of[name];
    if (occurrence > 1) name += "#" + std::to_string(occurrence);
    CaseResult result;
    result.name = name;
    result.description =
        "launch " + std::to_string(record.process_launch) + " of the process: " + record.kernel;
    if (!record.nvtx_range.empty()) result.description += " in NVTX range '" + record.nvtx_range + "'";
    if (const uint64_t repeats = RepeatsOf(record); repeats != 0)
      result.description += "; measured once for it and " + std::to_string(repeats) +
                            " later launch(es) of the same configuration (--measure-once)";
    result.expected_by = ExpectedBy::kBaselineOnly;
    result.launches.push_back(record);
    cases.emplace(name, std::move(result));
  }
  return cases;
}

RunResults CombineProcessResults(const std::vector<RunResults>& processes) {
  RunResults combined;
  for (size_t i = 0; i < processes.size(); ++i) {
    const RunResults& process = processes[i];
    if (combined.metadata.arch.empty()) {
      combined.metadata = process.metadata;  // a process that launched nothing names no GPU
    } else if (!process.metadata.arch.empty() && process.metadata.arch != combined.metadata.arch) {
      throw Error(ErrorKind::kBadInput, "the measured processes ran on different GPU architectures (" +
                                            combined.metadata.arch + ", " + process.metadata.arch +
                                            "); measure one architecture per run");
    }
    for (const auto& [name, result] : process.cases) {
      std::string unique = name;
      if (combined.cases.count(unique) != 0) unique += " (process " + std::to_string(i + 1) + ")";
      CaseResult renamed = result;
      renamed.name = unique;
      combined.cases.emplace(unique, std::move(renamed));
    }
  }
  return combined;
}

}  // namespace bankcheck::internal

namespace bankcheck::internal {

RunResults EmulatedProcessResults(const std::string& text, const std::filesystem::path& path,
                                  const LaunchFilter& filter, const RunMetadata& metadata) {
  const std::string advice =
      "The emulated program wrote it for `bankcheck run --emulated`; its writer is at fault.";
  const nlohmann::json document = ParseJsonText(text, path, advice);
  const FieldReader root(document, path.string(), advice);
  root.RequireObject();
  root.AllowOnlyFields({"launches"});
  const FieldReader launches = root.Field("launches");
  launches.RequireArray();
  std::vector<LaunchRecord> records;
  std::map<uint64_t, std::string> output_of;  // by process_launch
  for (size_t i = 0; i < document["launches"].size(); ++i) {
    const FieldReader launch = launches.Element(i);
    launch.RequireObject();
    launch.AllowOnlyFields({"nvtx_range", "process_launch", "output", "record"});
    const std::string field_path = "launches[" + std::to_string(i) + "].record";
    LaunchRecord record =
        LaunchRecordFromJson(launch.Field("record").json(), path.string(), advice, field_path);
    if (record.counted_by != CountedBy::kEmulated)
      launch.Field("record").FailWith("is not a launch the emulator counted (\"counters\": \"emulated\")");
    record.nvtx_range = launch.Field("nvtx_range").String();
    record.process_launch = launch.Field("process_launch").Unsigned();
    if (!filter.Matches(record.kernel, record.nvtx_range)) continue;
    output_of[record.process_launch] = launch.Field("output").String();
    records.push_back(std::move(record));
  }
  RunResults results;
  results.metadata = metadata;
  results.cases = RunCases(records);
  for (auto& [name, result] : results.cases)
    result.output = output_of[result.launches.front().process_launch];
  return results;
}

}  // namespace bankcheck::internal
