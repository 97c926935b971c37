#include "case_runner.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace bankcheck::suites {

namespace {
std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::string Describe(const char* what, const SharedCounts& c) {
  std::ostringstream out;
  out << what << ": " << c.instructions << " instructions, " << c.wavefronts << " wavefronts, "
      << c.ideal_wavefronts << " ideal, " << c.conflicts() << " conflicts (" << c.ways() << "-way)";
  return out.str();
}

void CheckDirection(const char* what, double expected_ways,
                    const std::optional<uint64_t>& expected_instructions,
                    const std::optional<uint64_t>& expected_conflicts, const SharedCounts& measured,
                    std::vector<std::string>& mismatches) {
  std::ostringstream out;
  if (std::fabs(measured.ways() - expected_ways) > 1e-9) out << " expected " << expected_ways << "-way;";
  if (expected_instructions && *expected_instructions != measured.instructions)
    out << " expected " << *expected_instructions << " instructions;";
  if (expected_conflicts && *expected_conflicts != measured.conflicts())
    out << " expected " << *expected_conflicts << " conflicts;";
  if (!out.str().empty()) mismatches.push_back(Describe(what, measured) + " --" + out.str());
}
}  // namespace

std::filesystem::path BaselinesDir() {
  return EnvOr("BANKCHECK_BASELINES_DIR", BANKCHECK_DEFAULT_BASELINES_DIR);
}
std::filesystem::path ResultsDir() { return EnvOr("BANKCHECK_RESULTS_DIR", BANKCHECK_DEFAULT_RESULTS_DIR); }
bool UpdatingBaselines() { return EnvOr("BANKCHECK_UPDATE_BASELINES", "0") == "1"; }
bool PruningBaselines() { return EnvOr("BANKCHECK_PRUNE_BASELINES", "0") == "1"; }

std::vector<std::string> AnnotationMismatches(const Expectation& expect, const LaunchRecord& record) {
  std::vector<std::string> mismatches;
  CheckDirection("shared loads", expect.load_ways, expect.load_instructions, expect.load_conflicts,
                 record.loads, mismatches);
  CheckDirection("shared stores", expect.store_ways, expect.store_instructions, expect.store_conflicts,
                 record.stores, mismatches);
  return mismatches;
}

std::vector<std::string> ModelMismatches(const PredictedCounts& predicted,
                                         const std::vector<LaunchRecord>& measured) {
  SharedCounts loads;
  SharedCounts stores;
  for (const LaunchRecord& r : measured) {
    loads.instructions += r.loads.instructions;
    loads.wavefronts += r.loads.wavefronts;
    loads.ideal_wavefronts += r.loads.ideal_wavefronts;
    stores.instructions += r.stores.instructions;
    stores.wavefronts += r.stores.wavefronts;
    stores.ideal_wavefronts += r.stores.ideal_wavefronts;
  }
  std::vector<std::string> mismatches;
  if (predicted.loads != loads)
    mismatches.push_back("model predicts " + Describe("loads", predicted.loads) + "; measured " +
                         Describe("loads", loads));
  if (predicted.stores != stores)
    mismatches.push_back("model predicts " + Describe("stores", predicted.stores) + "; measured " +
                         Describe("stores", stores));
  return mismatches;
}

std::vector<const KernelCase*> CasesWithAccessPattern() {
  std::vector<const KernelCase*> cases;
  for (const KernelCase* c : RegisteredKernelCases())
    if (c->predict) cases.push_back(c);
  return cases;
}

}  // namespace bankcheck::suites
