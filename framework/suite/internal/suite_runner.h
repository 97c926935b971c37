#pragma once
// How the kernel suite program runs its cases: one CTest test per topic (the cases whose names
// begin with "<topic>/"), all its cases in one process, under a supervisor that starts a fresh
// process for the remaining cases when one faults (a kernel fault leaves a CUDA context unusable,
// so the process must go).
//
//   bankcheck_kernel_suite --bankcheck_list_topics      every topic, one per line (CTest discovery)
//   bankcheck_kernel_suite --bankcheck_list_cases       the names of the cases it would run
//   bankcheck_kernel_suite --bankcheck_topic=transpose  that topic's cases
//   bankcheck_kernel_suite [gtest flags]                every case
// BANKCHECK_CASES (glob patterns over case names, record_command.h) selects cases in each of the
// last three; GoogleTest's --gtest_filter (GTEST_FILTER) narrows them further by test name.
//
// The supervisor itself never touches CUDA: it runs this program again (BANKCHECK_SUPERVISED=1)
// with an explicit --gtest_filter, and reads which cases finished from a progress file that the
// child appends to after each case (BANKCHECK_PROGRESS_FILE).

#include <string>
#include <vector>

#include "bankcheck/kernel_registry.h"

namespace bankcheck::suites {

// The exit code of a child that stopped after a case left its CUDA context unusable.
inline constexpr int kContextLostExitCode = 86;

// Whether `name` passes a GoogleTest filter: ':'-separated positive patterns, then optionally
// '-' and ':'-separated negative ones; '*' and '?' wildcards. An empty positive part means "*".
bool MatchesGtestFilter(const std::string& name, const std::string& filter);

// BANKCHECK_CASES, checked: "" when unset; no control characters.
std::string CasePatternsFromEnvironment();

// The cases whose names match `patterns` (MatchesCasePatterns; every case when it is empty), in
// their order.
std::vector<const KernelCase*> SelectCases(const std::vector<const KernelCase*>& cases,
                                           const std::string& patterns);

// The full GoogleTest names (GtestNameForCase(test_prefix, name).Full()) of the cases of `topic`
// (every topic when it is empty; the topic exactly: "transpose" is not "transpose16") that match
// `patterns` and pass the GoogleTest filter `filter`, in registration (name) order.
std::vector<std::string> SelectCaseTests(const std::vector<const KernelCase*>& cases,
                                         const std::string& test_prefix, const std::string& topic,
                                         const std::string& patterns, const std::string& filter);

// Why two of `cases` cannot be told apart by their GoogleTest names (GtestNameForCase, which
// replaces some characters), naming both; "" when every name is its own.
std::string CaseTestNameClash(const std::vector<const KernelCase*>& cases, const std::string& test_prefix);

// The topics of the registered cases, sorted, each once.
std::vector<std::string> Topics(const std::vector<const KernelCase*>& cases);

// One line of the progress file: "<status>\t<full test name>" (status passed|failed|skipped).
struct FinishedCase {
  std::string status;
  std::string test;
};
std::vector<FinishedCase> ParseProgress(const std::string& text);

// Runs `tests` in child processes of `program` (argv[0] and the caller's other gtest flags in
// `args`), starting a fresh child for the cases after one that faults or kills its process. Prints
// what it does on stdout; returns the exit code for the whole run: 0 when every case passed (or
// some skipped), gtest::kAllSkippedExitCode when every case skipped, 1 when any failed.
int SuperviseCases(const std::string& program, const std::vector<std::string>& args,
                   const std::vector<std::string>& tests);

// In a supervised child: records each finished case in the progress file, and ends the process
// with kContextLostExitCode right after a case that lost the CUDA context.
void InstallChildListener();

}  // namespace bankcheck::suites
