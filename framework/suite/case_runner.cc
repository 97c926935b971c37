#include "suite/internal/case_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "bankcheck/core/error.h"
#include "bankcheck/core/report.h"
#include "bankcheck/core/results.h"
#include "bankcheck/core/run_metadata.h"
#include "bankcheck/suite/suite.h"
#include "core/platform/environment.h"
#include "core/platform/file_io.h"
#include "core/records/launch_emulation.h"
#include "core/reports/text_table.h"
#include "cuda/internal/launch_records.h"
#include "testing/internal/held_results.h"

namespace bankcheck::suites {

namespace {
// A folder from the environment (an absolute path, checked), else the suite's own.
std::filesystem::path FolderFromEnvironmentOr(const char* variable, const std::string& suite_folder) {
  const std::string folder = AbsolutePathFromEnvironment(variable);
  return folder.empty() ? std::filesystem::path(suite_folder) : std::filesystem::path(folder);
}

void CheckKind(MemoryKind kind, const KindExpectation& expected, const KindCounts& measured,
               std::vector<std::string>& mismatches) {
  std::ostringstream out;
  // Ways and conflicts only where the ideal is exact: a hardware-sourced ideal varies by run.
  const bool exact = measured.ideal_provenance == Provenance::kExact;
  if (exact && std::fabs(measured.ways() - expected.ways) > 1e-9)
    out << " expected " << expected.ways << "-way;";
  if (expected.instructions && *expected.instructions != measured.instructions)
    out << " expected " << *expected.instructions << " instructions;";
  if (expected.wavefronts && *expected.wavefronts != measured.wavefronts)
    out << " expected " << *expected.wavefronts << " wavefronts;";
  if (exact && expected.conflicts && *expected.conflicts != measured.conflicts())
    out << " expected " << *expected.conflicts << " conflicts;";
  if (!out.str().empty())
    mismatches.push_back(InfoOf(kind).title + std::string(": ") + Describe(kind, measured) + " --" +
                         out.str());
}
}  // namespace

std::filesystem::path BaselinesDir() {
  return FolderFromEnvironmentOr("BANKCHECK_BASELINES_DIR", GetSuiteSettings().baselines_dir);
}
std::filesystem::path ResultsDir() {
  std::filesystem::path folder =
      FolderFromEnvironmentOr("BANKCHECK_RESULTS_DIR", GetSuiteSettings().results_dir);
  // The emulated program (docs/emulate.md) writes beside the measured program's folder, never into
  // it: the folder's name with "-emulated" (BANKCHECK_RESULTS_DIR's, else the suite's RESULTS_DIR).
  // Written here only: CMake gives both programs RESULTS_DIR, and scripts ask the program
  // (--bankcheck_results_dir).
  if (internal::EmulatedProgram()) {
    while (folder.has_relative_path() && !folder.has_filename()) folder = folder.parent_path();
    folder += "-emulated";
  }
  return folder;
}
namespace {
constexpr char kRunStarted[] = "BANKCHECK_RUN_STARTED";
}  // namespace

void BeginRun() {
  const char* started = std::getenv(kRunStarted);
  if (started == nullptr || *started == '\0')
    ::setenv(kRunStarted, CurrentUtcTimestampMicroseconds().c_str(), /*overwrite=*/1);
}

FragmentRun ThisFragmentRun() {
  static const FragmentRun run = [] {
    FragmentRun fragment_run;
    const char* started = std::getenv(kRunStarted);
    // Without one (a child not started by the supervisor): a run of its own. Not setenv: this
    // process may have other threads by now.
    fragment_run.started =
        started != nullptr && *started != '\0' ? std::string(started) : CurrentUtcTimestampMicroseconds();
    if (!IsRunStart(fragment_run.started)) {
      throw Error(ErrorKind::kBadInput,
                  std::string(kRunStarted) + "='" + PlainLine(fragment_run.started) +
                      "' is not a UTC time such as 2026-12-07T12:41:09.123456Z (ctest's test file "
                      "gives it; unset it to let the program give its own)");
    }
    std::error_code error;
    fragment_run.program = std::filesystem::read_symlink("/proc/self/exe", error).filename().string();
    return fragment_run;
  }();
  return run;
}

std::optional<Recording> BaselineRecording() {
  const char* value = std::getenv("BANKCHECK_UPDATE_BASELINES");
  if (value != nullptr && std::string(value) == "emulated") return Recording::kEmulatedFirstBaselines;
  if (FlagFromEnvironment("BANKCHECK_UPDATE_BASELINES")) return Recording::kMeasured;
  return std::nullopt;
}
bool UpdatingBaselines() { return BaselineRecording().has_value(); }

std::string WhyThisProgramCannotRecord(Recording recording, bool emulated) {
  if (emulated && recording == Recording::kMeasured)
    return "BANKCHECK_UPDATE_BASELINES=1 records counts measured on a GPU, and this emulated program "
           "measures none: record on a machine with a GPU, or record the emulator's derived counts as "
           "first baselines on purpose with BANKCHECK_UPDATE_BASELINES=emulated (docs/emulate.md)";
  if (!emulated && recording == Recording::kEmulatedFirstBaselines)
    return "BANKCHECK_UPDATE_BASELINES=emulated records the emulator's derived counts, which only the "
           "suite's emulated program (its <prefix>/emulated/<topic> tests) has: here, with a GPU, record "
           "measured counts with BANKCHECK_UPDATE_BASELINES=1";
  return "";
}

bool NvidiaDriverPresent() {
  std::error_code error;
  return std::filesystem::exists("/proc/driver/nvidia/version", error);
}
bool PruningBaselines() { return FlagFromEnvironment("BANKCHECK_PRUNE_BASELINES"); }

RecordCommand SuiteRecordCommand() {
  const SuiteSettings& settings = GetSuiteSettings();
  RecordCommand record;
  record.test_command = settings.test_command;
  record.topic_test_prefix = settings.test_prefix;
  // The emulated program on a machine without an NVIDIA driver: the command that works here records
  // first baselines through the emulated tests.
  if (internal::EmulatedProgram() && !NvidiaDriverPresent()) {
    record.topic_test_prefix = settings.test_prefix.empty() ? "" : settings.test_prefix + "/emulated";
    record.update_value = "emulated";
  }
  // A folder given at run time must be given again, or the command records into the suite's own.
  record.baselines_dir = AbsolutePathFromEnvironment("BANKCHECK_BASELINES_DIR");
  return record;
}

std::string PruneBaselinesCommand() {
  const SuiteSettings& settings = GetSuiteSettings();
  return SuiteRecordCommand().RunTestsWith(
      "BANKCHECK_PRUNE_BASELINES",
      settings.annotation_test_prefix + GtestNameForBaselineFilesCheck(settings.test_prefix).Full());
}

std::string SoftwareChangeNote(const BaselineSet& baselines, const std::string& case_name,
                               const RunMetadata& now) {
  const RunMetadata* recorded = baselines.RecordedWith(case_name);
  const std::string change = recorded == nullptr ? "" : SoftwareChange(*recorded, now);
  if (change.empty()) return "";
  return "Note: the baseline was recorded with other GPU software (" + change +
         "): the change may come from the toolkit or driver, not from your code. A new toolkit or driver can "
         "change the generated code, and so the counts, without a change in the kernel: review the "
         "instructions below, then record.\n";
}

std::string JitNote(const RunMetadata& now) {
  const std::string warning = PtxJitWarning(now.cuda_architectures, now.arch);
  return warning.empty() ? "" : "Note: " + warning + ".\n";
}

namespace {
// A path as one shell word: as it is where that is safe, else in single quotes.
std::string ShellWord(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of(
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789_./+:@%-") == std::string::npos;
  if (plain) return text;
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}
}  // namespace

std::string UpdateBaselinesCommand(const std::filesystem::path& results_dir,
                                   const std::filesystem::path& baselines_dir) {
  return "bankcheck merge-results " + ShellWord(results_dir.string()) + " && bankcheck update-baselines " +
         ShellWord((results_dir / "results.json").string()) + " --baselines " +
         ShellWord(baselines_dir.string());
}

std::vector<std::string> AnnotationMismatches(const Expectation& expect, const LaunchRecord& record) {
  std::vector<std::string> mismatches;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    // Sectors are checked where the case asks (c.expect[MemoryKind::kGlobalLoad]), bank conflicts always.
    if ((info.space != MemorySpace::kShared && !expect.named(info.kind)) || record.not_counted[info.kind])
      continue;
    if (record.unsupported[info.kind]) {
      // Zeros from a kind the device cannot count would pass for "none executed": say so instead.
      const KindExpectation& e = expect[info.kind];
      if (e.ways != 1.0 || e.instructions.value_or(0) != 0 || e.wavefronts.value_or(0) != 0)
        mismatches.push_back(std::string(info.title) +
                             ": the annotation expects some, but this device's counters cannot measure them");
      continue;
    }
    CheckKind(info.kind, expect[info.kind], record.kinds[info.kind], mismatches);
  }
  return mismatches;
}

std::vector<std::string> ModelMismatches(const PredictedCounts& predicted,
                                         const std::vector<LaunchRecord>& measured) {
  std::vector<std::string> mismatches;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (info.space != MemorySpace::kShared) continue;  // the model speaks of shared memory only
    const KindCounts total = SumCounts(measured, info.kind);
    KindCounts model = predicted[info.kind];
    // Compared as exactly as measured: instructions and wavefronts only, where the ideal is not exact.
    model.ideal_provenance = total.ideal_provenance;
    if (ExactCounts(model) != ExactCounts(total))
      mismatches.push_back("model predicts " + Describe(info.kind, predicted[info.kind]) + "; measured " +
                           Describe(info.kind, total));
  }
  return mismatches;
}

bool AttributionRequested() { return FlagFromEnvironment("BANKCHECK_ATTRIBUTE"); }

namespace {
// A run of a case in which Measure attributes instead of measuring; tables of a kernel measured
// in several Measure calls add up.
class AttributingContext : public CaseContext {
 public:
  void Measure(const std::function<void()>& launches) override {
    for (const auto& [kernel, instructions] : AttributeInstructions(launches)) {
      std::map<uint32_t, InstructionCounts>& by_pc = tables_[kernel];
      for (const InstructionCounts& instruction : instructions) {
        auto [it, added] = by_pc.emplace(instruction.pc_offset, instruction);
        if (added) continue;
        it->second.executions += instruction.executions;
        it->second.wavefronts += instruction.wavefronts;
        it->second.ideal_wavefronts += instruction.ideal_wavefronts;
      }
    }
  }
  KernelInstructions tables() const {
    KernelInstructions out;
    for (const auto& [kernel, by_pc] : tables_) {
      std::vector<InstructionCounts>& table = out[kernel];
      for (const auto& [pc, instruction] : by_pc) table.push_back(instruction);
      SortByExcess(table);
    }
    return out;
  }

 private:
  std::map<std::string, std::map<uint32_t, InstructionCounts>> tables_;
};
}  // namespace

std::string AttributeCase(const KernelCase& c, std::vector<LaunchRecord>& records) {
  AttributingContext context;
  try {
    // The case's own checks ran in its first run: this run's results are dropped.
    gtest::HeldResults dropped(gtest::HeldResults::Threads::kThisThread);
    c.run(context);
  } catch (const std::exception& e) {
    return std::string("per-instruction attribution failed: ") + e.what();
  }
  AttachInstructions(context.tables(), records);
  return "";
}

std::vector<std::string> AttributionSumMismatches(const std::vector<LaunchRecord>& records) {
  std::vector<std::string> mismatches;
  std::set<std::string> checked;
  for (const LaunchRecord& record : records) {
    if (record.attributed_launches == 0) continue;
    // Its counts include its device-launched children, its table only its own instructions.
    if (std::find(record.notes.begin(), record.notes.end(), internal::kDeviceLaunchesNote) !=
        record.notes.end())
      continue;
    // A table of one launch (read with the launch's counts, graph nodes included) is checked against
    // its record; a table of several launches of a kernel (a second run) against all of them.
    std::vector<LaunchRecord> launches;
    if (record.attributed_launches == 1) {
      launches.push_back(record);
    } else {
      if (!checked.insert(record.mangled_kernel).second) continue;
      for (const LaunchRecord& other : records)
        if (other.mangled_kernel == record.mangled_kernel && other.graph_kernels.empty())
          launches.push_back(other);
    }
    const PerKind<InstructionTotals> totals = TotalsByKind(record.instructions);
    for (const MemoryKindInfo& info : MemoryKinds()) {
      // A kind no per-instruction counter sees (TMA's global traffic) is a launch total on no row,
      // whoever counted it (a range-profiler session, the emulator): nothing to sum.
      if (!SassMetricsCount(info)) continue;
      const KindCounts measured = SumCounts(launches, info.kind);
      const InstructionTotals& summed = totals[info.kind];
      const bool wavefronts_measured =
          std::all_of(launches.begin(), launches.end(), [&info](const LaunchRecord& r) {
            return TrafficMeasured(info, r.counted_by != CountedBy::kRangeProfiler);
          });
      // The per-instruction ideal of a 16-byte cp.async with lanes apart is 4 wavefronts, where a
      // range-profiler session's (wavefronts - instrumented conflicts) is 32: two definitions
      // (docs/attribution.md). Records counted through SASS metrics take the first.
      const bool same_definition = info.kind != MemoryKind::kSharedCpAsync ||
                                   std::all_of(launches.begin(), launches.end(), [](const LaunchRecord& r) {
                                     return r.counted_by == CountedBy::kSassMetrics;
                                   });
      const bool ideal_exact =
          measured.ideal_provenance == Provenance::kExact && wavefronts_measured && same_definition;
      if (summed.executions == measured.instructions &&
          (!wavefronts_measured || summed.wavefronts == measured.wavefronts) &&
          (!ideal_exact || summed.ideal_wavefronts == measured.ideal_wavefronts))
        continue;
      std::ostringstream out;
      out << record.kernel << ", " << info.title << ": per-instruction sums " << summed.executions
          << " executions, " << summed.wavefronts << " wavefronts, " << summed.ideal_wavefronts
          << " ideal; the " << launches.size() << " launch(es) measured " << Describe(info.kind, measured);
      mismatches.push_back(out.str());
    }
  }
  return mismatches;
}

std::string AttributionSummary(const std::vector<LaunchRecord>& records, size_t top) {
  std::string out;
  for (const size_t i : LaunchesWithDistinctInstructions(records)) {
    const LaunchRecord& record = records[i];
    uint64_t excess = 0;
    for (const InstructionCounts& instruction : record.instructions) excess += instruction.excess();
    if (excess == 0) continue;
    out += "Excess wavefronts and sectors by instruction, " + record.kernel + " (" +
           std::to_string(record.attributed_launches) + " launch" +
           (record.attributed_launches == 1 ? "" : "es") + "):\n" +
           FormatInstructionTable(record.instructions, top, DisplayRoot());
  }
  return out;
}

bool LinesOff() {
  return std::getenv("BANKCHECK_LINES") != nullptr && !FlagFromEnvironment("BANKCHECK_LINES");
}

bool WantsInstructionTables(const KernelCase& c, bool baseline_has_lines) {
  // A baseline recorded without its lines would lose them: recording attributes every case.
  if (UpdatingBaselines()) return true;
  if (LinesOff()) return false;
  if (!c.expect.stated() || AttributionRequested() || baseline_has_lines) return true;
  const LineAnnotationScan* own = AnnotationsOf(c.source_file);
  return own != nullptr && (!own->annotations.empty() || !own->problems.empty());
}

bool HaveInstructionTables(const std::vector<LaunchRecord>& records) {
  return !records.empty() && std::all_of(records.begin(), records.end(), [](const LaunchRecord& record) {
    return record.attributed_launches > 0;
  });
}

namespace {
// A source file as the suite reads it: once per process, for its annotations and its lines' keys.
struct ScannedSource {
  std::optional<LineAnnotationScan> annotations;
  std::optional<std::vector<SourceLineKey>> keys;
};

const ScannedSource& Scanned(const std::string& file) {
  static std::mutex mutex;
  static std::map<std::string, ScannedSource> scanned;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = scanned.find(file);
  if (found == scanned.end()) {
    ScannedSource source;
    std::error_code error;
    if (std::filesystem::is_regular_file(file, error)) {
      try {
        const std::string text = ReadTextFile(file, "");
        source.annotations = ScanLineAnnotations(text, file);
        source.keys = SourceLineKeys(text);
      } catch (const Error&) {
        // Unreadable (or too large): its lines are not checked, as for a library's header, and
        // are known by their numbers.
      }
    }
    found = scanned.emplace(file, std::move(source)).first;
  }
  return found->second;
}
}  // namespace

const LineAnnotationScan* AnnotationsOf(const std::string& file) {
  const ScannedSource& source = Scanned(file);
  return source.annotations ? &*source.annotations : nullptr;
}

const std::vector<SourceLineKey>* LineKeysOf(const std::string& file) {
  const ScannedSource& source = Scanned(file);
  return source.keys ? &*source.keys : nullptr;
}

void AttachCaseLines(std::vector<LaunchRecord>& records) {
  AttachLineRecords(records, DisplayRoot(), LineKeysOf);
}

CaseLines CheckCaseLines(const std::string& case_name, const std::vector<LaunchRecord>& records) {
  CaseLines out;
  out.lines = CountsByLine(records);
  out.check = CheckLines(out.lines, AnnotationsOf, case_name);
  return out;
}

namespace {
std::mutex ran_mutex;
std::vector<CaseLineCounts>& Ran() {
  static std::vector<CaseLineCounts> ran;
  return ran;
}
}  // namespace

void RecordCaseLines(const std::string& case_name, const std::vector<LineCounts>& lines) {
  std::lock_guard<std::mutex> lock(ran_mutex);
  Ran().push_back({case_name, lines});
}

std::vector<LineFailure> NeverMatchingGlobsOfThisRun(const std::vector<const KernelCase*>& registered) {
  std::lock_guard<std::mutex> lock(ran_mutex);
  std::set<std::string> ran;
  for (const CaseLineCounts& c : Ran()) ran.insert(c.case_name);
  std::vector<std::string> unknown;
  for (const KernelCase* c : registered)
    if (ran.count(c->name) == 0) unknown.push_back(c->name);
  return NeverMatchingGlobs(Ran(), unknown, AnnotationsOf);
}

ExpectedBy ExpectationOf(const KernelCase& c, const CaseLines& lines) {
  if (c.expect.stated()) return ExpectedBy::kCase;
  return lines.check.applies ? ExpectedBy::kLines : ExpectedBy::kBaselineOnly;
}

std::string InstructionsOfLine(const std::vector<LaunchRecord>& records, const std::string& file,
                               uint32_t line) {
  std::vector<InstructionCounts> of_line;
  for (const size_t i : LaunchesWithDistinctInstructions(records))
    for (const InstructionCounts& instruction : records[i].instructions)
      if (instruction.file == file && instruction.line == line) of_line.push_back(instruction);
  SortByExcess(of_line);
  return FormatInstructionTable(of_line, 8, DisplayRoot());
}

std::string DisplayRoot() {
  const std::string root = SourceRootFromEnvironment();
  return root.empty() ? GetSuiteSettings().source_dir : root;
}

std::vector<const KernelCase*> CasesWithAccessPattern() {
  std::vector<const KernelCase*> cases;
  for (const KernelCase* c : RegisteredKernelCases())
    if (c->predict) cases.push_back(c);
  return cases;
}

}  // namespace bankcheck::suites
