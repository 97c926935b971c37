// The kernel suite: every registered case (the suite's kernel files) runs on the GPU as a test of
// its own (RegisterCaseTests), and its launches are checked for correctness (by the case), against its
// annotation, against the CPU model (when the case declares its access pattern) and against the stored
// baseline. Each case also writes its results fragment (see results.h) for reports.
#include "suite/internal/case_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/results.h"
#include "bankcheck/core/run_metadata.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/cuda/kernel_registry.h"
#include "bankcheck/suite/suite.h"
#include "bankcheck/testing/testing.h"
#include "core/records/launch_emulation.h"
#include "suite/internal/case_runner.h"
#include "suite/internal/emulated_case.h"
#include "suite/internal/suite_runner.h"

namespace bankcheck::suites {
namespace {

// A failure about case `c`, reported at the line that registered it in the kernel's own file (where
// an editor or CI log links), or here when that is not known.
const char* FailureFile(const KernelCase& c, const char* here) {
  return c.source_file.empty() ? here : c.source_file.c_str();
}
int FailureLine(const KernelCase& c, int here) { return c.source_file.empty() ? here : c.source_line; }
#define CASE_FAILURE(c) ADD_FAILURE_AT(FailureFile((c), __FILE__), FailureLine((c), __LINE__))

RunMetadata ThisRun() {
  const GpuProbe& probe = ProbeGpu();
  RunMetadata run = DescribeRun(probe.device_name, probe.usable() ? probe.arch() : "", probe.driver_version,
                                probe.runtime_version);
  run.cuda_compiler = GetSuiteBuild().cuda_compiler;
  run.cuda_architectures = GetSuiteBuild().cuda_architectures;
  // Once per process: every case of the run measures the same build on the same GPU.
  static const bool warned = [&run] {
    const std::string warning = PtxJitWarning(run.cuda_architectures, run.arch);
    if (!warning.empty()) std::cerr << "bankcheck: warning: " << warning << "\n";
    return true;
  }();
  static_cast<void>(warned);
  return run;
}

// Loaded once per process; a malformed file fails every case that needs it, with the file named.
const BaselineSet& Baselines(const std::string& arch) {
  static const BaselineSet baselines = BaselineSet::Load(BaselinesDir(), arch, SuiteRecordCommand().Advice());
  return baselines;
}

class CaseTest : public ::testing::Test {
 public:
  explicit CaseTest(const KernelCase& c) : case_(c) {}
  void TestBody() override;

 protected:
  void TearDown() override {
    const ::testing::TestResult& test = *::testing::UnitTest::GetInstance()->current_test_info()->result();
    result_.status = test.Skipped()  ? CaseStatus::kSkipped
                     : test.Failed() ? CaseStatus::kFailed
                                     : CaseStatus::kPassed;
    for (int i = 0; i < test.total_part_count(); ++i)
      result_.messages.push_back(test.GetTestPartResult(i).message());
    WriteCaseResult(ResultsDir(), ThisRun(), result_, ThisFragmentRun());
  }

  // Gives every record its per-instruction table: read with the counts (the default), else by
  // running the case again (AttributeCase). Returns false, having said why, when that failed.
  bool EnsureInstructionTables(const KernelCase& c, std::vector<LaunchRecord>& records);
  // Checks the tables' sums against the launch totals: a line's counts are only as good as its
  // instructions'.
  void CheckTableSums(const KernelCase& c, const std::vector<LaunchRecord>& records);
  // Shows where the excess wavefronts are: in the failure message of a failing case, in the output
  // on request.
  void ShowExcess(const KernelCase& c, const std::vector<LaunchRecord>& records);
  // Checks each measured line against its annotation; returns what the lines measured.
  CaseLines CheckLineAnnotations(const KernelCase& c, const std::vector<LaunchRecord>& records);
  // The emulated program's run of the case (docs/emulate.md): what it computed, noted in the result.
  EmulatedCaseRun RunEmulated(const KernelCase& c, CaseContext& context,
                              internal::LaunchEmulation& emulation);
  // Checks the launches against the case's annotation (c.expect) and its CPU model (c.predict).
  void CheckExpectations(const KernelCase& c, const std::vector<LaunchRecord>& records);
  // Keeps the comparison with the stored baseline in the result, and says when it was made with
  // the launch totals only.
  void KeepComparison(const KernelCase& c, const BaselineComparison& comparison);
  // The failure of a case whose counts the baseline does not accept, with how to record them.
  void ReportBaselineFailure(const KernelCase& c, const BaselineComparison& comparison,
                             const std::string& arch, bool emulated, const std::string& suggestions);
  // Shows which instructions the wavefronts come from (reading the tables again when needed).
  void ShowAttribution(const KernelCase& c, bool tables);
  void RecordBaseline(const KernelCase& c, const std::string& arch);

  const KernelCase& case_;
  CaseResult result_;
  bool baseline_has_lines_ = false;  // its baseline entry has per-line counts to compare
};

void CaseTest::TestBody() {
  const KernelCase& c = case_;
  // JUnit XML names the case itself beside its test's name.
  RecordProperty("case", c.name);
  result_.name = c.name;
  result_.description = c.description;
  for (const MemoryKindInfo& info : MemoryKinds())
    result_.expected_ways[info.kind] = c.expect[info.kind].ways;
  BANKCHECK_SKIP_WITHOUT_GPU();
  const bool emulated = internal::EmulatedProgram();
  if (const std::optional<Recording> recording = BaselineRecording()) {
    const std::string why = WhyThisProgramCannotRecord(*recording, emulated);
    ASSERT_TRUE(why.empty()) << why;
  }

  // A baseline with per-line counts is compared line by line, so the launches need their tables.
  const BaselineEntry* entry = UpdatingBaselines() ? nullptr : Baselines(ProbeGpu().arch()).Find(c.name);
  baseline_has_lines_ = entry != nullptr && HasLineData(entry->launches);
  SessionOptions session = c.session;
  session.attribute_instructions =
      session.attribute_instructions || WantsInstructionTables(c, baseline_has_lines_);
  CaseContext context(session);
  if (internal::LaunchEmulation* const emulation = internal::InstalledLaunchEmulation()) {
    // A case the emulated program cannot decide (a launch the evaluator left undecided, a CUDA call
    // it does not emulate) skips, saying which, whatever that made the case do afterwards.
    const EmulatedCaseRun run = RunEmulated(c, context, *emulation);
    if (!run.tool_missing.empty()) {
      if (EmulationRequired()) FAIL() << run.tool_missing << " (BANKCHECK_REQUIRE_EMULATION=1)";
      GTEST_SKIP() << run.tool_missing;
    }
    if (!run.not_emulated.empty()) GTEST_SKIP() << run.not_emulated;
  } else {
    c.run(context);
  }
  if (IsSkipped()) return;  // the case skipped itself (e.g. an instruction the device lacks)
  if (CountersDisabled()) GTEST_SKIP() << "BANKCHECK_COUNTERS=off: the launches ran unmeasured";
  const std::vector<LaunchRecord>& records = context.records();
  result_.launches = records;
  gtest::RecordLaunchProperties(records);
  ASSERT_FALSE(records.empty()) << c.name
                                << " measured no kernel launch: wrap its launch in ctx.Measure(...)";
  // The per-line contract needs each launch's instructions: read with the counts by default.
  const bool tables = EnsureInstructionTables(c, result_.launches);
  if (tables) {
    CheckTableSums(c, result_.launches);
    AttachCaseLines(result_.launches);
  }
  const CaseLines lines = tables ? CheckLineAnnotations(c, result_.launches) : CaseLines{};
  result_.expected_by = ExpectationOf(c, lines);
  const std::string suggestions = FormatSuggestions(lines.lines, DisplayRoot());
  if (result_.expected_by == ExpectedBy::kBaselineOnly)
    std::cout << "  note: " << c.name
              << " has no c.expect and its kernel's lines no annotation: checked against its baseline only\n";
  CheckExpectations(c, records);

  const std::string arch = ProbeGpu().arch();
  bool counts_failed = HasFailure();  // the case's own checks, its annotation or the model
  if (!UpdatingBaselines()) {
    // Also with no folder for this architecture yet: a case with no baseline fails as MISSING, with
    // the command that records it, rather than pass unchecked. CheckBaseline decides (verdict.h).
    const BaselineCheck check = CheckBaseline(Baselines(arch), c.name, result_.launches);
    const BaselineComparison& comparison = check.comparison;
    KeepComparison(c, comparison);
    // Emulated, a case without a baseline has nothing to be checked against: it skips, saying how to
    // record one (or fails as MISSING where the CPU gate is required), after its line checks.
    if (emulated && comparison.verdict == BaselineVerdict::kMissing && !EmulationRequired()) {
      if (HasFailure()) return;
      GTEST_SKIP() << comparison.message
                   << "(skipped: an emulated case is checked against a baseline, and this one has none; "
                      "BANKCHECK_REQUIRE_EMULATION=1 fails instead. "
                   << (NvidiaDriverPresent()
                           ? "The command records measured counts, from the suite's GPU program."
                           : "The command records the emulator's derived counts as first "
                             "baselines, marked as derived until a GPU measures them "
                             "(docs/emulate.md); on a machine with a GPU, record measured ones.")
                   << ")";
    }
    if (check.decision.fails) ReportBaselineFailure(c, comparison, arch, emulated, suggestions);
    counts_failed |=
        comparison.headline() != BaselineVerdict::kMatch && comparison.verdict != BaselineVerdict::kMissing;
  }
  // Which instructions the wavefronts come from: when the counts are not what was expected (not
  // for a baseline that is only missing), and on request.
  if (counts_failed || AttributionRequested()) ShowAttribution(c, tables);
  if (UpdatingBaselines()) RecordBaseline(c, arch);
}

EmulatedCaseRun CaseTest::RunEmulated(const KernelCase& c, CaseContext& context,
                                      internal::LaunchEmulation& emulation) {
  // The emulated program checks baselines and records them only as first baselines
  // (BANKCHECK_UPDATE_BASELINES=emulated). Its checks of what the kernels would have written count
  // where the outputs were computed, and are reported as not evaluated, at their lines, where not.
  EmulatedCaseRun run = RunEmulatedCase(c, context, emulation);
  result_.output = run.output;
  std::cout << UnevaluatedChecksNote(run);
  if (!run.unevaluated_checks.empty())
    RecordProperty("output_not_checked", std::to_string(run.unevaluated_failures));
  return run;
}

void CaseTest::CheckExpectations(const KernelCase& c, const std::vector<LaunchRecord>& records) {
  const PredictedCounts predicted = c.predict ? c.predict() : PredictedCounts{};
  for (size_t i = 0; i < records.size() && c.expect.stated(); ++i) {
    for (const std::string& mismatch : AnnotationMismatches(c.expect, records[i])) {
      CASE_FAILURE(c) << c.name << ": launch " << i << " (" << records[i].kernel
                      << ") does not do what its annotation says: " << mismatch
                      << (predicted.bank_map.empty() ? ""
                                                     : "\nThe CPU model's bank map of its worst access:\n")
                      << predicted.bank_map;
    }
  }
  if (c.predict) {
    for (const std::string& mismatch : ModelMismatches(predicted, records))
      CASE_FAILURE(c) << c.name << ": " << mismatch;
  }
  for (const LaunchRecord& r : records) {
    for (const std::string& note : r.notes) std::cout << "  note (" << r.kernel << "): " << note << "\n";
  }
}

void CaseTest::KeepComparison(const KernelCase& c, const BaselineComparison& comparison) {
  result_.baseline = comparison.verdict;
  result_.baseline_lines = comparison.lines;
  result_.baseline_table = comparison.table;
  ::testing::Test::RecordProperty("baseline", BaselineVerdictName(comparison.headline()));
  if (baseline_has_lines_ && !comparison.lines)
    std::cout << "  note: " << c.name
              << (LinesOff() ? ": BANKCHECK_LINES=off, so" : ": its launches have no per-line counts, so")
              << " it was compared with its baseline's launch totals only, not its per-line counts\n";
}

void CaseTest::ReportBaselineFailure(const KernelCase& c, const BaselineComparison& comparison,
                                     const std::string& arch, bool emulated, const std::string& suggestions) {
  const std::string software = comparison.verdict == BaselineVerdict::kMissing
                                   ? ""
                                   : SoftwareChangeNote(Baselines(arch), c.name, ThisRun());
  // The emulated program's counts are recorded only as first baselines (WhyNotRecordable).
  const std::string record_all =
      emulated ? "These counts were derived by the emulator, not measured (docs/emulate.md).\n"
               : "Or, after the run, record every case that differs at once, with a summary (--dry-run only "
                 "prints it):\n  " +
                     UpdateBaselinesCommand(ResultsDir(), BaselinesDir()) + "\n";
  CASE_FAILURE(c) << comparison.message << record_all << software << JitNote(ThisRun()) << "\n"
                  << comparison.table
                  << (result_.expected_by == ExpectedBy::kBaselineOnly && !suggestions.empty()
                          ? "\nLine annotations that match this run (review them; `bankcheck annotate "
                            "RESULTS --apply` writes them into the sources):\n" +
                                suggestions
                          : "");
}

void CaseTest::ShowAttribution(const KernelCase& c, bool tables) {
  if (!tables && (tables = EnsureInstructionTables(c, result_.launches))) {
    CheckTableSums(c, result_.launches);
    AttachCaseLines(result_.launches);
  }
  if (tables) ShowExcess(c, result_.launches);
}

void CaseTest::RecordBaseline(const KernelCase& c, const std::string& arch) {
  ASSERT_FALSE(HasFailure()) << "not recording a baseline for " << c.name << ": the case failed its checks";
  // With each launch's per-line counts (recording attributes every case).
  for (const auto& file :
       UpdateBaselines(BaselinesDir(), arch, ThisRun(), {{c.name, c.description, result_.launches}},
                       SuiteRecordCommand().Advice(), *BaselineRecording()))
    std::cout << "recorded " << c.name << " in " << file.string() << "\n";
}

bool CaseTest::EnsureInstructionTables(const KernelCase& c, std::vector<LaunchRecord>& records) {
  if (HaveInstructionTables(records)) return true;
  // Not read with the counts (not wanted, or counted by the range profiler): a second run gives
  // them, which a passing case that does not want them does not need.
  if (!WantsInstructionTables(c, baseline_has_lines_) && !HasFailure()) return false;
  const std::string error = AttributeCase(c, records);
  if (error.empty()) return true;
  if (HasFailure())
    std::cout << error << "\n";
  else
    CASE_FAILURE(c) << c.name << ": " << error;
  return false;
}

void CaseTest::CheckTableSums(const KernelCase& c, const std::vector<LaunchRecord>& records) {
  for (const std::string& mismatch : AttributionSumMismatches(records))
    CASE_FAILURE(c) << c.name << ": " << mismatch;
}

void CaseTest::ShowExcess(const KernelCase& c, const std::vector<LaunchRecord>& records) {
  const bool failed = HasFailure();
  const std::string summary = AttributionSummary(records, failed ? 5 : 3);
  if (summary.empty()) return;
  if (failed)
    CASE_FAILURE(c) << c.name << ": where the excess wavefronts are (`bankcheck lines` shows all)\n"
                    << summary;
  else
    std::cout << summary;
}

CaseLines CaseTest::CheckLineAnnotations(const KernelCase& c, const std::vector<LaunchRecord>& records) {
  CaseLines lines = CheckCaseLines(c.name, records);
  RecordCaseLines(c.name, lines.lines);
  // Each failure at the annotated line of the kernel's own file, where editors and CI logs link.
  for (const LineFailure& failure : lines.check.failures) {
    ADD_FAILURE_AT(failure.file.c_str(), static_cast<int>(failure.line))
        << c.name << ": " << failure.message << "\n"
        << (failure.measured.empty() ? "" : InstructionsOfLine(records, failure.file, failure.line));
  }
  return lines;
}

// After the last case: the case globs of line annotations that select none of the cases that ran
// their line, at the annotation's line (a failure of the run, as GoogleTest reports one in a global
// tear-down).
class LineGlobCheck : public ::testing::Environment {
 public:
  explicit LineGlobCheck(std::vector<const KernelCase*> registered) : registered_(std::move(registered)) {}
  void TearDown() override {
    for (const LineFailure& failure : NeverMatchingGlobsOfThisRun(registered_))
      ADD_FAILURE_AT(failure.file.c_str(), static_cast<int>(failure.line)) << failure.message;
  }

 private:
  std::vector<const KernelCase*> registered_;
};

}  // namespace

void InstallLineGlobCheck(const std::vector<const KernelCase*>& registered) {
  ::testing::AddGlobalTestEnvironment(new LineGlobCheck(registered));
}

void RegisterCaseTests(const std::vector<const KernelCase*>& cases, const std::string& test_prefix) {
  const std::string clash = CaseTestNameClash(cases, test_prefix);
  if (!clash.empty()) throw Error(ErrorKind::kBadInput, clash);
  for (const KernelCase* c : cases) {
    const CaseTestName name = GtestNameForCase(test_prefix, c->name);
    ::testing::RegisterTest(name.suite.c_str(), name.test.c_str(), nullptr, nullptr,
                            FailureFile(*c, __FILE__), FailureLine(*c, __LINE__),
                            [c]() -> CaseTest* { return new CaseTest(*c); });
  }
}

}  // namespace bankcheck::suites
