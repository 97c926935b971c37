#pragma once
// How the emulated program (docs/emulate.md) runs a case's own code: its launches are recorded, not
// run; the stand-in runtime computes what they write where every value is known (known global
// memory). Output checks are told from the case's other checks by time: a GoogleTest failure
// reported after the case copied device memory to the host following one of its launches
// (LaunchEmulation::ObserveOutputReadBack) is an output check. While every byte read back was
// computed, it counts as any failure (the output check failed); from the first read-back of bytes
// not computed on, it is reported as not evaluated at its own file:line. Failures before any
// read-back (host set-up, argument checks) and every skip are reported as they were.

#include <string>
#include <vector>

#include "bankcheck/cuda/kernel_registry.h"
#include "core/records/launch_emulation.h"

namespace bankcheck::suites {

// What running a case's code in the emulated program came to.
struct EmulatedCaseRun {
  // Why the case cannot be decided: the first launch left undecided or CUDA call not emulated; "".
  std::string not_emulated;
  // Why the emulator could not run at all (cuobjdump or nvdisasm missing: ErrorKind::kToolMissing); "".
  std::string tool_missing;
  // The output checks that failed, one line per source line ("file:line: first line of the message"),
  // in the order they first failed, and how many failures they were together.
  std::vector<std::string> unevaluated_checks;
  size_t unevaluated_failures = 0;
  // What came of the case's output checks, recorded with its results (CaseResult::output): "passed"
  // or "failed" (they ran on computed outputs), "not computed: <why>", or "no output checks: ..."
  // (OutputStatus).
  std::string output;
};

// The output status of a case (EmulatedCaseRun::output) from what happened: `not_emulated` (the case
// is undecided), `not_computed` (the first read-back's reason, "" when every read-back was
// computed), whether it read back anything after a launch, and how many output checks failed on
// computed outputs. The one place the statuses are written.
std::string OutputStatus(const std::string& not_emulated, const std::string& not_computed, bool read_back,
                         size_t computed_failures);

// Runs `c.run(context)` with every GoogleTest result it reports (on any thread) held back, then
// reports again those that are not output checks. Errors other than the two above propagate, after
// the held-back results are reported.
EmulatedCaseRun RunEmulatedCase(const KernelCase& c, CaseContext& context,
                                internal::LaunchEmulation& emulation);

// BANKCHECK_REQUIRE_EMULATION=1: a missing cuobjdump or nvdisasm fails the emulated cases instead of
// skipping them (a CPU runner whose gate must run, as BANKCHECK_REQUIRE_GPU=1 on a GPU runner).
bool EmulationRequired();

// `<suite program> --bankcheck_no_emulated_program=<why>`, the CTest test that stands in for the
// emulated tests of a suite that has no emulated program (bankcheck_add_kernel_suite): prints `why`
// and returns gtest::kAllSkippedExitCode, or 1 under BANKCHECK_REQUIRE_EMULATION=1.
int SayNoEmulatedProgram(const std::string& why);

// The note a case prints for its unevaluated output checks (at most `shown` of their lines); "" when none.
std::string UnevaluatedChecksNote(const EmulatedCaseRun& run, size_t shown = 5);

}  // namespace bankcheck::suites
