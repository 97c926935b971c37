#include "bankcheck/cuda/kernel_registry.h"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <map>

#include "bankcheck/core/error.h"

namespace bankcheck {

namespace {
// Keyed by name: sorted order for free, and duplicates are caught at registration.
std::map<std::string, KernelCase>& Registry() {
  static std::map<std::string, KernelCase> registry;
  return registry;
}

// Under BANKCHECK_COUNTERS=off a case's measured launches run between cudaProfilerStart and
// cudaProfilerStop, so that `ncu --profile-from-start off` profiles those launches and none of the
// case's others (a correctness run after the measured one): benchmarks/ncu_crosscheck.sh.
class ProfiledRegion {
 public:
  ProfiledRegion() { static_cast<void>(cudaProfilerStart()); }
  ~ProfiledRegion() { static_cast<void>(cudaProfilerStop()); }
  ProfiledRegion(const ProfiledRegion&) = delete;
  ProfiledRegion& operator=(const ProfiledRegion&) = delete;
};
}  // namespace

void CaseContext::Measure(const std::function<void()>& launches) {
  if (CountersDisabled()) {
    const ProfiledRegion region;
    launches();
    return;
  }
  std::vector<LaunchRecord> measured = bankcheck::Measure(launches, options_);
  records_.insert(records_.end(), measured.begin(), measured.end());
}

void RegisterKernelCase(KernelCase kernel_case, const char* file, int line) {
  if (kernel_case.source_file.empty() && file != nullptr) {
    kernel_case.source_file = file;
    kernel_case.source_line = line;
  }
  const std::string& name = kernel_case.name;
  const bool valid_name = !name.empty() && name.find('/') != std::string::npos &&
                          std::all_of(name.begin(), name.end(), [](char c) {
                            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '/';
                          });
  if (!valid_name) {
    throw Error(
        ErrorKind::kBadInput,
        "kernel case name '" + name + "' must be 'topic/variant[/size]' using only a-z, 0-9, '_' and '/'");
  }
  if (!kernel_case.run) throw Error(ErrorKind::kBadInput, "kernel case '" + name + "' has no run function");
  // Read through a const reference: writing through Expectation::operator[] states an expectation.
  const Expectation& expect = kernel_case.expect;
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (expect[info.kind].ways < 1.0) {
      throw Error(ErrorKind::kBadInput,
                  "kernel case '" + name + "': expected ways of " + info.title + " must be at least 1");
    }
  }
  const auto [it, inserted] = Registry().emplace(name, std::move(kernel_case));
  if (!inserted) throw Error(ErrorKind::kBadInput, "kernel case '" + it->first + "' is registered twice");
}

std::vector<const KernelCase*> RegisteredKernelCases() {
  std::vector<const KernelCase*> cases;
  for (const auto& entry : Registry()) cases.push_back(&entry.second);
  return cases;
}

void ClearKernelCasesForTesting() { Registry().clear(); }

}  // namespace bankcheck
