#pragma once
// How the kernel suite program runs its cases: one CTest test per topic (the cases whose names
// begin with "<topic>/"), its cases in child processes (one at a time on the GPU, several at once
// in the emulated program: CaseJobs), under a supervisor that starts a fresh
// process for the remaining cases when one faults (a kernel fault leaves a CUDA context unusable,
// so the process must go).
//
//   bankcheck_kernel_suite --bankcheck_list_topics      every topic, one per line (CTest discovery)
//   bankcheck_kernel_suite --bankcheck_list_cases       the names of the cases it would run
//   bankcheck_kernel_suite --bankcheck_topic=transpose  that topic's cases
//   bankcheck_kernel_suite [gtest flags]                every case
//   ... --bankcheck_topic=T --bankcheck_list_shard_cases  the names of the cases that topic's test
//                                                       would run in this shard (bankcheck-ci's plan)
// BANKCHECK_CASES or BANKCHECK_CASES_FILE (glob patterns over case names, record_command.h) selects
// cases in each of the last four; GoogleTest's --gtest_filter (GTEST_FILTER) narrows them further by test
// name, and its sharding (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX) keeps one shard of them
// (ShardFromEnvironment).
//
// The supervisor itself never touches CUDA: it runs this program again (BANKCHECK_SUPERVISED=1)
// with an explicit --gtest_filter, and reads which cases finished from a progress file that the
// child appends to after each case (BANKCHECK_PROGRESS_FILE).

#include <string>
#include <vector>

#include "bankcheck/cuda/kernel_registry.h"

namespace bankcheck::suites {

// The exit code of a child that stopped after a case left its CUDA context unusable.
inline constexpr int kContextLostExitCode = 86;

// Whether `name` passes a GoogleTest filter: ':'-separated positive patterns, then optionally
// '-' and ':'-separated negative ones; '*' and '?' wildcards. An empty positive part means "*".
bool MatchesGtestFilter(const std::string& name, const std::string& filter);

// The suite's case selection: `patterns` (MatchesCasePatterns' ','-separated globs; "" selects
// every case) and where they came from, as messages name it (`source`: "BANKCHECK_CASES='...'" or
// "BANKCHECK_CASES_FILE=<path>"; "" when neither is set).
struct CasePatterns {
  std::string patterns;
  std::string source;
};

// BANKCHECK_CASES (one selection, at most kMaxCaseNameBytes, no control characters) or
// BANKCHECK_CASES_FILE (an absolute path: ReadCaseSelectionFile, one selection per line, as many as
// a shard holds); both set is an error.
CasePatterns CasePatternsFromEnvironment();

// The cases whose names match `patterns` (MatchesCasePatterns; every case when it is empty), in
// their order.
std::vector<const KernelCase*> SelectCases(const std::vector<const KernelCase*>& cases,
                                           const std::string& patterns);

// Whether `patterns` select a case of this program (`cases`) or of another kernel suite of the
// build whose folder is `build_dir` (the names each suite's programs list after each build into
// <build_dir>/bankcheck-suites/<target>.cases, BankcheckDiscoverTopics.cmake): a selection that runs
// in every suite of a build (`BANKCHECK_CASES=... ctest`) may select only another suite's cases.
bool SelectsACaseOfTheBuild(const std::vector<const KernelCase*>& cases, const std::string& patterns,
                            const std::string& build_dir);
// Error(kBadInput) naming the selection when one is set and selects no case of the build
// (SelectsACaseOfTheBuild): a misspelled selection would otherwise skip every test, green.
void CheckSelectionSelectsACase(const std::vector<const KernelCase*>& cases, const CasePatterns& selection,
                                const std::string& build_dir);

// One shard of GoogleTest's sharding protocol: GTEST_SHARD_INDEX of GTEST_TOTAL_SHARDS.
struct Shard {
  int index = 0;
  int total = 1;
  bool on() const { return total > 1; }
  // "shard 2 of 3 (GTEST_SHARD_INDEX=1, GTEST_TOTAL_SHARDS=3)"
  std::string Describe() const;
};

// GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX, as GoogleTest reads them: no sharding ({0, 1}) unless
// both are set; Error(kBadInput) for what GoogleTest refuses (not a whole number, a total below 1,
// an index outside [0, total)). Where GTEST_SHARD_STATUS_FILE is set it is created, as GoogleTest
// does to tell the runner that sharding is honoured. Then the three are unset: the supervisor
// shards once, over the whole suite, and gives its children their cases by name.
Shard ShardFromEnvironment();

// The full GoogleTest names (GtestNameForCase(test_prefix, name).Full()) of the cases of `topic`
// (every topic when it is empty; the topic exactly: "transpose" is not "transpose16") that match
// `patterns`, pass the GoogleTest filter `filter` and fall in `shard`, in registration (name) order.
// Shards are GoogleTest's over the whole suite (every topic): the i-th case that matches `patterns`
// and `filter` is in shard i % total, so a topic's CTest test in each shard runs its part of the
// topic, and the shards' cases together are the unsharded run's, each once.
std::vector<std::string> SelectCaseTests(const std::vector<const KernelCase*>& cases,
                                         const std::string& test_prefix, const std::string& topic,
                                         const std::string& patterns, const std::string& filter,
                                         const Shard& shard = {});
// The same cases themselves: what a shard plans to run (`--bankcheck_list_shard_cases`, which
// bankcheck-ci keeps for bankcheck-merge to check that every shard reported its cases).
std::vector<const KernelCase*> SelectShardCases(const std::vector<const KernelCase*>& cases,
                                                const std::string& test_prefix, const std::string& topic,
                                                const std::string& patterns, const std::string& filter,
                                                const Shard& shard);

// Why two of `cases` cannot be told apart by their GoogleTest names (GtestNameForCase, which
// replaces some characters), naming both; "" when every name is its own.
std::string CaseTestNameClash(const std::vector<const KernelCase*>& cases, const std::string& test_prefix);

// The topics of the registered cases, sorted, each once.
std::vector<std::string> Topics(const std::vector<const KernelCase*>& cases);

// One line of the progress file: "<status>\t<full test name>" (status passed|failed|skipped, or
// kNoBaselineStatus: skipped as the emulated program's case has no baseline, which makes the
// topic's test skipped however many others passed).
inline constexpr const char* kNoBaselineStatus = "no_baseline";
struct FinishedCase {
  std::string status;
  std::string test;
};
std::vector<FinishedCase> ParseProgress(const std::string& text);

// How many cases run at once: the GPU program runs one at a time (its counters need the GPU to
// themselves); the emulated program as many as `setting` (BANKCHECK_JOBS) says, 1 to 1024, and when
// it is unset or empty one at a time for `one_topic` (CTest's test of a topic: `ctest -j` runs
// topics at once, and a topic's cases share their modules) and one per hardware thread for the
// whole suite. Error(kBadInput) for any other setting.
int CaseJobs(bool emulated, bool one_topic, const char* setting, unsigned hardware_threads);
// How `tests` cases are cut into groups, one child each, for `jobs` processes at a time: all in one
// for one process, else about three groups per process, in order.
std::vector<size_t> ChunkSizes(size_t tests, int jobs);
// Runs `tests` in child processes of `program` (argv[0] and the caller's other gtest flags in
// `args`), CaseJobs of them at a time (each child's output then printed whole when it ends),
// starting a fresh child for the cases after one that faults or kills its process. Prints what it
// does on stdout; returns the exit code for the whole run: 0 when every case passed (or some
// skipped), gtest::kAllSkippedExitCode when every case skipped, 1 when any failed.
int SuperviseCases(const std::string& program, const std::vector<std::string>& args,
                   const std::vector<std::string>& tests, bool one_topic);

// In a supervised child: records each finished case in the progress file, and ends the process
// with kContextLostExitCode right after a case that lost the CUDA context.
void InstallChildListener();

}  // namespace bankcheck::suites
