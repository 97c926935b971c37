#pragma once
// The CPU checks of a kernel suite's annotations program (annotation_checks.cc), registered at run
// time so that their names come from the suite and the case (record_command.h).

#include <string>
#include <vector>

#include "bankcheck/cuda/kernel_registry.h"
#include "suite/internal/suite_runner.h"

namespace bankcheck::suites {

// Registers, for each of `cases` (those with a declared access pattern), its model check
// "<ModelCheckPrefix(test_prefix)>/<topic>.<rest>", which skips, saying why, when the suite's
// case selection `selection` (CasePatternsFromEnvironment) does not select it; and the suite's
// baseline files check (GtestNameForBaselineFilesCheck). Every case is registered whatever
// `selection` says: CTest's tests are listed from this program (gtest_discover_tests) and must not
// depend on the environment of the build. Throws Error(kBadInput) when two cases would get the
// same name.
void RegisterAnnotationChecks(const std::vector<const KernelCase*>& cases, const std::string& test_prefix,
                              const CasePatterns& selection);

}  // namespace bankcheck::suites
