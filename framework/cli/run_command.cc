// `bankcheck run [options] -- COMMAND [ARGS...]` (docs/run.md): runs COMMAND with
// libbankcheck_inject.so injected (CUDA_INJECTION64_PATH, and NVTX_INJECTION64_PATH for NVTX
// ranges), so that every kernel launch of its processes is counted by the suites' own SASS-metrics
// session; then combines what each process wrote, checks or records baselines, writes the results
// file and prints the report. The command needs only the core: the library, loaded here only to
// ask whether a usable GPU is present, carries the GPU side.

#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/report.h"
#include "bankcheck/core/results.h"
#include "bankcheck/core/run_metadata.h"
#include "bankcheck/core/verdict.h"
#include "commands.h"
#include "core/platform/environment.h"
#include "core/platform/file_io.h"
#include "core/platform/output_folder.h"
#include "core/platform/subprocess.h"
#include "core/records/run_cases.h"

extern char** environ;

namespace bankcheck::cli {
namespace {

// The exit status of a run that measured nothing because no usable GPU was found: CTest's and
// Automake's "skipped" (SKIP_RETURN_CODE 77).
constexpr int kExitSkipped = 77;

struct RunOptions {
  std::vector<std::string> command;
  std::string output = "bankcheck-run.json";
  std::string kernel;
  std::string range;
  uint64_t max_launches = 0;
  bool attribute = false;
  bool measure_once = false;
  std::string baselines;
  bool update_baselines = false;
  bool allow_missing = false;
  std::string report;
  std::string record_command;
  bool emulated = false;
};

// The injection library: BANKCHECK_INJECTION_LIBRARY, else where the build or the install puts it
// relative to this program (BANKCHECK_INJECTION_RELATIVE_PATH, from CMake; empty when bankcheck was
// built without the GPU side), only where nobody but root and the caller can have put it or changed
// it (OthersMayChangeFile): it is loaded here and injected into the program measured, often as root.
std::filesystem::path InjectionLibrary() {
  const std::string from_environment = AbsolutePathFromEnvironment("BANKCHECK_INJECTION_LIBRARY");
  if (!from_environment.empty()) return from_environment;
  const std::string relative = BANKCHECK_INJECTION_RELATIVE_PATH;
  if (relative.empty())
    throw Error(ErrorKind::kBadInput,
                "run: this bankcheck was built without the GPU side (BANKCHECK_ENABLE_CUDA=OFF), so it "
                "cannot measure programs; build it with CUDA");
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path library = (self.parent_path() / relative).lexically_normal();
  if (error || !std::filesystem::is_regular_file(library, error))
    throw Error(ErrorKind::kBadInput,
                "run: the injection library is not at " + library.string() +
                    "; set BANKCHECK_INJECTION_LIBRARY to libbankcheck_inject.so's path");
  if (const std::string why = OthersMayChangeFile(library, "load"); !why.empty())
    throw Error(ErrorKind::kBadInput, "run: " + why +
                                          "; or set BANKCHECK_INJECTION_LIBRARY to a libbankcheck_inject.so "
                                          "that nobody else can change");
  return library;
}

// The shared library that a failed dlopen could not find, from glibc's "NAME: cannot open shared
// object file: ..." (dlerror); "" when it failed for another reason.
std::string MissingLibrary(const std::string& why) {
  const std::string marker = ": cannot open shared object file";
  const size_t end = why.find(marker);
  return end == std::string::npos || end == 0 ? "" : why.substr(0, end);
}

// Whether a GPU whose counters this user may read is present, asked of the library (which holds the
// GPU probe); the reason when not. A library the injection library needs and the loader cannot find
// (CUPTI, the CUDA runtime, the driver) means that nothing can be measured here, as without a GPU:
// the run is skipped with what to install, where a pip user gets them from the `cuda` extra.
std::optional<std::string> WhyNoGpu(const std::filesystem::path& library) {
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    const std::string why = error ? error : "unknown error";
    const std::string missing = MissingLibrary(why);
    if (missing.rfind("libcuda.so", 0) == 0)
      return "no NVIDIA driver: " + library.filename().string() + " needs " + missing +
             ", which cannot be loaded";
    if (!missing.empty() && missing != library.string())
      return "the CUDA libraries cannot be loaded: " + library.filename().string() + " needs " + missing +
             ", not found. Install them with pip install 'bankcheck[cuda]' (NVIDIA's CUPTI and CUDA "
             "runtime wheels, beside bankcheck), or the CUDA toolkit, or name their folder in "
             "LD_LIBRARY_PATH";
    throw Error(ErrorKind::kCuda, "run: cannot load " + library.string() + ": " + why);
  }
  using Probe = int (*)(char*, size_t);
  const auto probe = reinterpret_cast<Probe>(::dlsym(handle, "bankcheck_injection_probe"));
  if (probe == nullptr)
    throw Error(ErrorKind::kCuda, "run: " + library.string() + " is not bankcheck's injection library");
  std::array<char, 1024> reason{};
  if (probe(reason.data(), reason.size()) == 1) return std::nullopt;
  return std::string(reason.data());
}

// The variable that tells an emulated program (--emulated) to write its launches for this run.
constexpr char kEmulatedVariable[] = "BANKCHECK_RUN_EMULATED";

// The program's environment: this one's, with the settings and the injection (`library`), or, for an
// emulated program (no library), BANKCHECK_RUN_EMULATED=1.
std::vector<std::string> ProgramEnvironment(const std::optional<std::filesystem::path>& library,
                                            const internal::RunSettings& settings) {
  std::vector<std::pair<std::string, std::string>> added = settings.ToEnvironment();
  if (library) {
    added.emplace_back("CUDA_INJECTION64_PATH", library->string());
    added.emplace_back("NVTX_INJECTION64_PATH", library->string());
  } else {
    added.emplace_back(kEmulatedVariable, "1");
  }
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    const bool replaced =
        std::any_of(added.begin(), added.end(), [&](const auto& pair) { return pair.first == name; });
    if (!replaced) environment.push_back(text);
  }
  for (const auto& [name, value] : added) environment.push_back(name + "=" + value);
  return environment;
}

// A new private folder for the processes' results.
std::filesystem::path MakeRunFolder() {
  std::error_code error;
  std::string pattern = (std::filesystem::temp_directory_path(error) / "bankcheck-run.XXXXXX").string();
  if (error) pattern = "/tmp/bankcheck-run.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw Error(ErrorKind::kBadInput,
                "run: cannot make a temporary folder (" + pattern + "): " + std::strerror(errno));
  return pattern;
}

struct ProcessFiles {
  std::vector<RunResults> results;  // by process id
  std::vector<std::string> errors;  // why a process stopped measuring
};

// The processes' files: process-<pid>.json from the injection library, or, from an emulated program,
// process-<pid>.launches.json (EmulatedProcessResults: the cases named and filtered here, as the
// injection library names and filters measured launches).
ProcessFiles ReadProcessFiles(const std::filesystem::path& folder, const RunOptions& options) {
  constexpr std::string_view kEmulatedSuffix = ".launches.json";
  const internal::LaunchFilter filter(options.kernel, options.range);
  RunMetadata emulated = DescribeRun("bankcheck emulated sm_90", "sm_90", 0, 0);
  emulated.driver.clear();  // the emulator's counts owe nothing to a driver this machine may have
  emulated.counters = "emulated";
  std::vector<std::pair<long, std::filesystem::path>> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("process-", 0) != 0) continue;
    files.emplace_back(std::atol(name.c_str() + 8), entry.path());
  }
  std::sort(files.begin(), files.end());
  ProcessFiles read;
  for (const auto& [pid, path] : files) {
    const std::string name = path.filename().string();
    const bool launches =
        name.size() > kEmulatedSuffix.size() &&
        name.compare(name.size() - kEmulatedSuffix.size(), kEmulatedSuffix.size(), kEmulatedSuffix) == 0;
    if (options.emulated && launches)
      read.results.push_back(
          internal::EmulatedProcessResults(ReadTextFile(path, ""), path, filter, emulated));
    else if (!options.emulated && !launches && path.extension() == ".json")
      read.results.push_back(ReadResults(path));
    if (path.extension() == ".error") {
      std::string why = ReadTextFile(path, "");
      while (!why.empty() && why.back() == '\n') why.pop_back();
      read.errors.push_back("process " + std::to_string(pid) + ": " + why);
    }
  }
  return read;
}

// How to record the baselines of this run again: --record-command where a tool that runs bankcheck
// run for the user gives the user's own command, else this run with --update-baselines.
std::string RecordCommandFor(const RunOptions& options) {
  if (!options.record_command.empty()) return options.record_command;
  std::string command = "bankcheck run --baselines " + options.baselines + " --update-baselines";
  if (!options.kernel.empty()) command += " --kernel '" + options.kernel + "'";
  if (!options.range.empty()) command += " --range '" + options.range + "'";
  command += " --";
  for (const std::string& word : options.command) command += " " + word;
  return command;
}

// Checks or records the baselines of every case; returns whether any fails (DecideCase, verdict.h).
bool CheckBaselines(const RunOptions& options, RunResults& results) {
  if (options.baselines.empty() || results.metadata.arch.empty()) return false;
  RecordAdvice advice;
  advice.all = RecordCommandFor(options);
  if (options.update_baselines) {
    // An emulated run records first baselines (docs/emulate.md): its derived counts, marked so, and
    // only where no GPU measured the case (a derived count never replaces a measured one).
    const Recording recording = options.emulated ? Recording::kEmulatedFirstBaselines : Recording::kMeasured;
    const BaselineSet before = options.emulated
                                   ? BaselineSet::Load(options.baselines, results.metadata.arch, advice)
                                   : BaselineSet();
    std::vector<BaselineUpdate> updates;
    for (const auto& [name, result] : results.cases) {
      const BaselineEntry* entry = options.emulated ? before.Find(name) : nullptr;
      if (entry != nullptr && !IsDerived(entry->launches)) {
        std::cerr
            << "bankcheck run: left alone: " << name
            << " (its baseline was measured on a GPU, and derived counts never replace measured ones)\n";
        continue;
      }
      updates.push_back({name, result.description, result.launches});
    }
    RunMetadata recorded_with = results.metadata;
    recorded_with.arch.clear();
    recorded_with.git_commit.clear();
    for (const auto& path :
         UpdateBaselines(options.baselines, results.metadata.arch, recorded_with, updates, advice, recording))
      std::cerr << "bankcheck run: recorded " << path.string() << "\n";
  }
  const BaselineSet baselines = BaselineSet::Load(options.baselines, results.metadata.arch, advice);
  VerdictPolicy policy;
  policy.allow_missing = options.allow_missing;
  bool failed = false;
  for (auto& [name, result] : results.cases) {
    // With no folder for the architecture every case is missing; the message says why, once per case.
    const BaselineCheck check = CheckBaseline(baselines, name, result.launches, policy, result.status);
    result.baseline = check.comparison.verdict;
    if (!baselines.has_folder()) {
      result.messages.push_back(baselines.no_folder_reason());
    } else {
      result.baseline_lines = check.comparison.lines;
      result.baseline_table = check.comparison.table;
      if (check.comparison.headline() != BaselineVerdict::kMatch)
        result.messages.push_back(check.comparison.message);
    }
    if (check.decision.fails) {
      result.status = CaseStatus::kFailed;
      failed = true;
    }
  }
  return failed;
}

// What the program is told (its environment), checked before it runs.
internal::RunSettings SettingsFor(const RunOptions& options) {
  internal::RunSettings settings;
  settings.kernel_pattern = options.kernel;
  settings.range_pattern = options.range;
  internal::LaunchFilter(options.kernel, options.range);  // bad patterns fail here, before the program runs
  settings.max_launches = options.max_launches;
  settings.attribute = options.attribute;
  settings.measure_once = options.measure_once;
  if (options.emulated && (options.max_launches != 0 || options.attribute || options.measure_once))
    throw Error(
        ErrorKind::kBadInput,
        "run: --emulated takes no --max-launches, --attribute or --measure-once: the emulated program "
        "counts every launch, with its lines");
  return settings;
}

int Run(const RunOptions& options) {
  if (options.command.empty()) {
    PrintError("run: give the program to measure after --: bankcheck run [options] -- COMMAND [ARGS...]");
    std::cerr << "Run 'bankcheck run --help' for more information.\n";
    return kExitBadInput;
  }
  if (options.update_baselines && options.baselines.empty())
    throw Error(ErrorKind::kBadInput,
                "run: --update-baselines needs --baselines DIR, the folder to record into");
  if (const char* other = std::getenv("CUDA_INJECTION64_PATH"); other != nullptr && *other != '\0')
    throw Error(ErrorKind::kProfilerBusy,
                std::string("run: another tool injects into CUDA programs here (CUDA_INJECTION64_PATH=") +
                    other +
                    ": Nsight Compute, Nsight Systems or a second bankcheck run); only one can read the "
                    "counters. Run bankcheck run outside it.");
  internal::RunSettings settings = SettingsFor(options);

  // An emulated program needs no GPU and no injection: it counts its launches itself.
  std::optional<std::filesystem::path> library;
  if (!options.emulated) library = InjectionLibrary();
  if (const std::optional<std::string> why = library ? WhyNoGpu(*library) : std::nullopt) {
    const bool required = FlagFromEnvironment("BANKCHECK_REQUIRE_GPU");
    if (required) {
      PrintError("run: " + *why + "; the program was not run (BANKCHECK_REQUIRE_GPU=1)");
      return kExitFailure;
    }
    PrintMessage("skipped", "run: " + *why + "; the program was not run (exit status 77: skipped)");
    return kExitSkipped;
  }

  const std::filesystem::path folder = MakeRunFolder();
  settings.output_dir = folder.string();
  struct RemoveFolder {
    std::filesystem::path folder;
    ~RemoveFolder() {
      std::error_code ignored;
      std::filesystem::remove_all(folder, ignored);
    }
  } remove_folder{folder};

  const internal::ProgramRun program =
      internal::RunProgramAttached(options.command, ProgramEnvironment(library, settings));
  if (!program.started)
    throw Error(ErrorKind::kBadInput,
                "run: cannot run '" + options.command.front() + "': " + std::strerror(program.spawn_error));
  // A program that no status describes (waitpid failed) counts as failed.
  const int program_status = program.exit_status < 0 ? kExitFailure : program.exit_status;
  const ProcessFiles processes = ReadProcessFiles(folder, options);
  RunResults results = internal::CombineProcessResults(processes.results);
  for (const std::string& error : processes.errors) PrintError("run: measuring stopped in " + error);

  const bool baselines_failed = CheckBaselines(options, results);
  WriteResults(options.output, results);
  if (!options.report.empty()) {
    ReportOptions markdown;
    markdown.results_path = options.output;
    markdown.policy.allow_missing = options.allow_missing;
    // Appended: a job summary ($GITHUB_STEP_SUMMARY) collects every step's report.
    AppendToFile(options.report, RenderReport(results, markdown).output);
  }
  if (!results.cases.empty()) {
    ReportOptions text;
    text.format = OutputFormat::kText;
    text.results_path = options.output;
    text.policy.allow_missing = options.allow_missing;
    std::cerr << RenderReport(results, text).output;
  }
  std::cerr << "bankcheck run: " << results.cases.size() << " launch(es) "
            << (options.emulated ? "emulated" : "measured") << " in " << processes.results.size()
            << " process(es)";
  if (!processes.errors.empty())
    std::cerr << " (measuring stopped: above)";
  else if (processes.results.empty())
    std::cerr << (options.emulated ? " (no process wrote its launches)" : " (no process initialized CUDA)");
  else if (results.cases.empty())
    std::cerr << (options.kernel.empty() && options.range.empty() ? " (the program launched no kernel)"
                                                                  : " (no launch matched --kernel/--range)");
  uint64_t repeats = 0, repeated_cases = 0;
  for (const auto& [name, result] : results.cases)
    for (const LaunchRecord& launch : result.launches) {
      const uint64_t of_launch = internal::RepeatsOf(launch);
      repeats += of_launch;
      repeated_cases += of_launch != 0 ? 1 : 0;
    }
  if (repeats != 0)
    std::cerr << "; " << repeats << " later launch(es) ran unmeasured as repeats of " << repeated_cases
              << " case(s) (--measure-once)";
  std::cerr << "; results: " << options.output << "\n";

  if (program_status != 0) {
    PrintError("run: the program exited with status " + std::to_string(program_status));
    return program_status;
  }
  if (!processes.errors.empty()) return kExitFailure;
  return baselines_failed ? kExitFailure : kExitSuccess;
}

// `run --help`'s one usage line, with the program after --, which CLI11 does not know of.
class RunUsage : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string name) const override {
    return get_label("Usage") + ": " + name + " [OPTIONS] -- COMMAND [ARGS...]\n";
  }
};

std::vector<std::string>& ProgramAfterSeparator() {
  static std::vector<std::string> program;
  return program;
}

}  // namespace

int SplitRunProgram(int argc, char** argv) {
  const auto separator = std::find(argv + 1, argv + argc, std::string("--"));
  if (separator == argv + argc || std::find(argv + 1, separator, std::string("run")) == separator)
    return argc;
  ProgramAfterSeparator().assign(separator + 1, argv + argc);
  return static_cast<int>(separator - argv);
}

void AddRunCommand(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run",
      "Run a program (C++, Python, anything that launches CUDA kernels) with bankcheck's counters injected: "
      "one case per kernel launch, named by its NVTX range and kernel; write a results file, and check "
      "or record baselines");
  run->add_option("-o,--output", options->output, "The results file to write (default bankcheck-run.json)")
      ->type_name("FILE");
  run->add_option("--kernel", options->kernel,
                  "Report only launches whose kernel name matches REGEX (searched)")
      ->type_name("REGEX");
  run->add_option("--range", options->range,
                  "Report only launches whose NVTX range (outermost first, joined by '/') matches REGEX")
      ->type_name("REGEX");
  run->add_option("--max-launches", options->max_launches,
                  "Stop measuring in a process after N matching launches (0: no limit); the rest runs at "
                  "full speed")
      ->type_name("N");
  run->add_flag("--measure-once", options->measure_once,
                "Measure each launch configuration once per process (kernel, grid, block, dynamic shared "
                "memory, argument bytes, NVTX range); its later launches run unmeasured at full speed and "
                "count as repeats of the first one's case");
  run->add_flag(
      "--attribute", options->attribute,
      "Per-instruction tables with source lines (for code built with -lineinfo): see `bankcheck lines`");
  run->add_option("--baselines", options->baselines,
                  "Check each case against DIR/<arch>/<topic>.json; exit 1 when a case fails (any "
                  "difference from its baseline, or no baseline)")
      ->type_name("DIR");
  AddAllowMissingFlag(*run, options->allow_missing);
  run->add_flag("--update-baselines", options->update_baselines,
                "Record the measured cases into --baselines DIR");
  run->add_flag("--emulated", options->emulated,
                "Run an emulated program (the pytest plugin's CPU mode, docs/python.md): no GPU and no "
                "injection; the program counts its launches in bankcheck's emulator and writes them for this "
                "run (BANKCHECK_RUN_EMULATED=1), checked against --baselines as measured launches are; "
                "--update-baselines records them as first baselines (\"counters\": \"emulated\"), never over "
                "a baseline a GPU measured");
  run->add_option("--record-command", options->record_command,
                  "The command that messages print to record the baselines (default: this bankcheck run "
                  "with --update-baselines), for a tool that runs bankcheck run for its user, as the "
                  "pytest plugin does with the user's pytest command")
      ->type_name("TEXT");
  run->add_option(
         "--report", options->report,
         "Also append the report as Markdown to FILE, created when absent (e.g. $GITHUB_STEP_SUMMARY)")
      ->type_name("FILE");
  run->formatter(std::make_shared<RunUsage>());
  run->footer(
      "Exit status: the program's own when it is not 0; otherwise 1 when a case fails against --baselines "
      "(as report and compare decide: any difference from its baseline, or no baseline unless "
      "--allow-missing) or measuring failed, 0 when all is well; 77 when no usable GPU is found (the "
      "program is not run; 1 with BANKCHECK_REQUIRE_GPU=1); 2 usage error. docs/run.md has the case names "
      "and the details.");
  // The program's own options are not bankcheck's: parsing stops at the first word it does not know
  // (`bankcheck run ./prog --size 4` works; `--` before the program is always safe).
  run->prefix_command();
  run->callback([options, run] {
    options->command = run->remaining();
    // prefix_command() passes an unknown option on as if it began the program.
    if (!options->command.empty() && options->command.front().rfind("-", 0) == 0)
      throw Error(ErrorKind::kBadInput, "run: bankcheck run has no option " + options->command.front() +
                                            " (the program to measure goes after --)");
    options->command.insert(options->command.end(), ProgramAfterSeparator().begin(),
                            ProgramAfterSeparator().end());
    const int status = Run(*options);
    if (status != kExitSuccess) throw CLI::RuntimeError(status);
  });
}

}  // namespace bankcheck::cli
