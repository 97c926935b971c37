#pragma once
// The GoogleTest test of each kernel case (case_checks.cc), registered at run time so that
// its name comes from the suite and the case (GtestNameForCase, record_command.h).

#include <string>
#include <vector>

#include "bankcheck/cuda/kernel_registry.h"

namespace bankcheck::suites {

// Registers one test per case, "<test_prefix>/<topic>.<rest>", reported at the line that
// registered the case. Throws Error(kBadInput) when two cases would get the same name.
void RegisterCaseTests(const std::vector<const KernelCase*>& cases, const std::string& test_prefix);

// Checks, after the last case of this process, that every case glob of the line annotations of the
// lines that ran selects a case that ran the line or one of `registered` (every case of the suite)
// that did not run here (NeverMatchingGlobsOfThisRun, case_runner.h).
void InstallLineGlobCheck(const std::vector<const KernelCase*>& registered);

}  // namespace bankcheck::suites
