#include "case_runner.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "bankcheck/suite.h"

namespace bankcheck::suites {

namespace {
std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

void CheckKind(SharedKind kind, const KindExpectation& expected, const SharedCounts& measured,
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
  return EnvOr("BANKCHECK_BASELINES_DIR", GetSuiteSettings().baselines_dir);
}
std::filesystem::path ResultsDir() { return EnvOr("BANKCHECK_RESULTS_DIR", GetSuiteSettings().results_dir); }
bool UpdatingBaselines() { return EnvOr("BANKCHECK_UPDATE_BASELINES", "0") == "1"; }
bool PruningBaselines() { return EnvOr("BANKCHECK_PRUNE_BASELINES", "0") == "1"; }

RecordCommand SuiteRecordCommand() {
  const SuiteSettings& settings = GetSuiteSettings();
  RecordCommand record;
  record.test_command = settings.test_command;
  record.topic_test_prefix = settings.test_prefix;
  // A folder given at run time must be given again, or the command records into the suite's own.
  record.baselines_dir = EnvOr("BANKCHECK_BASELINES_DIR", "");
  return record;
}

std::string PruneBaselinesCommand() {
  return SuiteRecordCommand().RunTestsWith("BANKCHECK_PRUNE_BASELINES",
                                           GetSuiteSettings().annotation_test_prefix + "BaselineFilesTest.");
}

std::vector<std::string> AnnotationMismatches(const Expectation& expect, const LaunchRecord& record) {
  std::vector<std::string> mismatches;
  for (const SharedKindInfo& info : SharedKinds()) {
    if (record.unsupported[info.kind]) {
      // Zeros from a kind the device cannot count would pass for "none executed": say so instead.
      const KindExpectation& e = expect[info.kind];
      if (e.ways != 1.0 || e.instructions.value_or(0) != 0 || e.wavefronts.value_or(0) != 0)
        mismatches.push_back(std::string(info.title) +
                             ": the annotation expects some, but this device's counters cannot measure them");
      continue;
    }
    CheckKind(info.kind, expect[info.kind], record.shared[info.kind], mismatches);
  }
  return mismatches;
}

std::vector<std::string> ModelMismatches(const PredictedCounts& predicted,
                                         const std::vector<LaunchRecord>& measured) {
  std::vector<std::string> mismatches;
  for (const SharedKindInfo& info : SharedKinds()) {
    const SharedCounts total = SumCounts(measured, info.kind);
    SharedCounts model = predicted[info.kind];
    // Compared as exactly as measured: instructions and wavefronts only, where the ideal is not exact.
    model.ideal_provenance = total.ideal_provenance;
    if (ExactCounts(model) != ExactCounts(total))
      mismatches.push_back("model predicts " + Describe(info.kind, predicted[info.kind]) + "; measured " +
                           Describe(info.kind, total));
  }
  return mismatches;
}

std::vector<const KernelCase*> CasesWithAccessPattern() {
  std::vector<const KernelCase*> cases;
  for (const KernelCase* c : RegisteredKernelCases())
    if (c->predict) cases.push_back(c);
  return cases;
}

}  // namespace bankcheck::suites
