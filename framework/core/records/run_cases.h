#pragma once
// `bankcheck run` (docs/run.md) on the core's side: the settings the command hands to the program
// it runs (through the environment, to the injection library), which launches it reports, and the
// cases it names after them. CUDA-free, so the command needs only the core.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/results.h"

namespace bankcheck::internal {

// What the injection library of a measured process is told, as environment variables
// (BANKCHECK_RUN_*): one definition for the command that writes them and the library that reads them.
struct RunSettings {
  std::string output_dir;      // BANKCHECK_RUN_DIR: each process writes process-<pid>.json here
  std::string kernel_pattern;  // BANKCHECK_RUN_KERNEL: ECMAScript regex searched in the kernel's name
  std::string range_pattern;   // BANKCHECK_RUN_RANGE: ECMAScript regex searched in the NVTX range
  uint64_t max_launches = 0;   // BANKCHECK_RUN_MAX_LAUNCHES: per process; 0 = no limit
  bool attribute = false;      // BANKCHECK_RUN_ATTRIBUTE: per-instruction tables
  bool measure_once = false;   // BANKCHECK_RUN_MEASURE_ONCE: each launch configuration measured once

  // NAME=value pairs for the program's environment.
  std::vector<std::pair<std::string, std::string>> ToEnvironment() const;
  // From this process's environment; nullopt when BANKCHECK_RUN_DIR is unset (the library was
  // injected without `bankcheck run`). Error(kBadInput) naming the variable for a bad value.
  static std::optional<RunSettings> FromEnvironment();
};

// What --measure-once compares (docs/run.md): the launch's NVTX range, kernel (mangled), grid, block,
// dynamic shared memory bytes and argument bytes (the kernel's parameters as passed, by value:
// pointers as addresses, not what they point to). Each field is length-prefixed, so two launches
// have the same key exactly when every field is equal.
std::string LaunchConfigurationKey(const std::string& nvtx_range, const std::string& mangled,
                                   const Dim3& grid, const Dim3& block, uint64_t dynamic_shared_bytes,
                                   const std::string& argument_bytes);

// --measure-once: the note a measured launch's record carries for the `repeats` later launches of
// its configuration that ran unmeasured, and how many a record's notes say (0 without such a note).
std::string RepeatsNote(uint64_t repeats);
uint64_t RepeatsOf(const LaunchRecord& record);

// Which launches are reported (--kernel, --range): both patterns searched (std::regex_search,
// ECMAScript); an empty pattern matches everything.
class LaunchFilter {
 public:
  // Error(kBadInput) naming the option for a pattern that is not a valid regex.
  LaunchFilter(const std::string& kernel_pattern, const std::string& range_pattern);
  // `kernel`: the demangled name (a graph launch's record name for graph launches).
  bool Matches(const std::string& kernel, const std::string& nvtx_range) const;

 private:
  std::optional<std::regex> kernel_;
  std::optional<std::regex> range_;
};

// A kernel's function name without return type, scopes, template arguments or parameters:
// "void ns::transpose<32>(float const*, float*)" -> "transpose", "matmul_kernel" -> itself. A name
// that cannot be read so is returned whole.
std::string KernelFunctionName(const std::string& demangled);

// One case per record, in `records`' order (process_launch order): "<nvtx range>/<function>" (or
// "<function>" outside any range), "#2", "#3", ... for the same name's later launches. Each case
// holds its launch alone and a description that begins "launch <process_launch>".
std::map<std::string, CaseResult> RunCases(const std::vector<LaunchRecord>& records);

// The cases of several processes' results as one run: the first process's names as they are, a
// later process's that already exist with " (process <k>)" appended, k from 2 in the order given.
// The metadata is the first's that names a GPU. Error(kBadInput) when two processes ran on
// different architectures.
RunResults CombineProcessResults(const std::vector<RunResults>& processes);

// `bankcheck run --emulated` (docs/run.md): a process of an emulated program (the pytest plugin's CPU
// mode) writes its launches, each counted by the emulator, to process-<pid>.launches.json in
// BANKCHECK_RUN_DIR instead of the injection library's process-<pid>.json:
//   {"launches": [{"nvtx_range": "...", "process_launch": 1, "output": "", "record": {...}}]}
// "record" a launch as results files hold it ("counters": "emulated"), "output" the case's output
// status (CaseResult::output: "" where the outputs were computed, "not computed: <why>" otherwise).
// Returns the process's results: the launches that `filter` matches, named by RunCases as measured
// launches are, with `metadata`. Error(kBadInput) naming `path` and the field for a malformed file.
RunResults EmulatedProcessResults(const std::string& text, const std::filesystem::path& path,
                                  const LaunchFilter& filter, const RunMetadata& metadata);

}  // namespace bankcheck::internal
