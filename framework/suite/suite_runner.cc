#include "suite/internal/suite_runner.h"

#include <fnmatch.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/case_selection.h"
#include "bankcheck/core/error.h"
#include "bankcheck/testing/testing.h"
#include "core/platform/environment.h"
#include "core/platform/file_io.h"
#include "suite/internal/record_command.h"

namespace bankcheck::suites {

namespace {

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

bool MatchesAny(const std::string& name, const std::string& patterns) {
  for (const std::string& pattern : Split(patterns, ':'))
    if (!pattern.empty() && fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

}  // namespace

bool MatchesGtestFilter(const std::string& name, const std::string& filter) {
  const size_t dash = filter.find('-');
  const std::string positive = filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  return (positive.empty() || MatchesAny(name, positive)) && !MatchesAny(name, negative);
}

CasePatterns CasePatternsFromEnvironment() {
  const char* value = std::getenv("BANKCHECK_CASES");
  const std::string patterns = value == nullptr ? "" : value;
  const std::string file = AbsolutePathFromEnvironment("BANKCHECK_CASES_FILE");
  if (!file.empty()) {
    if (!patterns.empty()) {
      throw Error(ErrorKind::kBadInput,
                  "BANKCHECK_CASES and BANKCHECK_CASES_FILE are both set: give the selection in one of them");
    }
    return {ReadCaseSelectionFile(file, "BANKCHECK_CASES_FILE"), "BANKCHECK_CASES_FILE=" + file};
  }
  CheckCaseSelection(patterns, "BANKCHECK_CASES");
  return {patterns, patterns.empty() ? "" : "BANKCHECK_CASES='" + patterns + "'"};
}

std::vector<const KernelCase*> SelectCases(const std::vector<const KernelCase*>& cases,
                                           const std::string& patterns) {
  const CaseSelection selection(patterns);
  std::vector<const KernelCase*> selected;
  for (const KernelCase* c : cases)
    if (selection.Selects(c->name)) selected.push_back(c);
  return selected;
}

bool SelectsACaseOfTheBuild(const std::vector<const KernelCase*>& cases, const std::string& patterns,
                            const std::string& build_dir) {
  if (!SelectCases(cases, patterns).empty()) return true;
  if (build_dir.empty()) return false;
  const CaseSelection selection(patterns);
  std::error_code error;
  std::filesystem::directory_iterator entry(std::filesystem::path(build_dir) / "bankcheck-suites", error);
  for (; !error && entry != std::filesystem::directory_iterator(); entry.increment(error)) {
    if (entry->path().extension() != ".cases") continue;
    for (const std::string& name : Split(ReadTextFile(entry->path(), "build the suite again"), '\n'))
      if (!name.empty() && selection.Selects(name)) return true;
  }
  return false;
}

void CheckSelectionSelectsACase(const std::vector<const KernelCase*>& cases, const CasePatterns& selection,
                                const std::string& build_dir) {
  if (selection.source.empty() || SelectsACaseOfTheBuild(cases, selection.patterns, build_dir)) return;
  throw Error(ErrorKind::kBadInput,
              selection.source +
                  " selects no case of any kernel suite of this build: every test would skip and pass, "
                  "having checked nothing. Check its spelling; `<suite program> --bankcheck_list_cases` "
                  "without it lists a suite's cases");
}

std::string Shard::Describe() const {
  return "shard " + std::to_string(index + 1) + " of " + std::to_string(total) +
         " (GTEST_SHARD_INDEX=" + std::to_string(index) + ", GTEST_TOTAL_SHARDS=" + std::to_string(total) +
         ")";
}

Shard ShardFromEnvironment() {
  const auto number = [](const char* variable) -> std::optional<long> {
    const char* value = std::getenv(variable);
    if (value == nullptr) return std::nullopt;
    const std::string text = value;
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
      throw Error(ErrorKind::kBadInput, std::string(variable) + "='" + text +
                                            "' is not a whole number: give GTEST_SHARD_INDEX from 0 to "
                                            "GTEST_TOTAL_SHARDS - 1 (GoogleTest's sharding)");
    return std::stol(text);
  };
  const std::optional<long> total = number("GTEST_TOTAL_SHARDS");
  const std::optional<long> index = number("GTEST_SHARD_INDEX");
  Shard shard;
  if (total && index) {
    if (*total < 1 || *index >= *total)
      throw Error(ErrorKind::kBadInput,
                  "GTEST_SHARD_INDEX=" + std::to_string(*index) +
                      " with GTEST_TOTAL_SHARDS=" + std::to_string(*total) +
                      ": give a total of at least 1 and an index from 0 to the total - 1");
    shard = {static_cast<int>(*index), static_cast<int>(*total)};
  }
  const std::string status = AbsolutePathFromEnvironment("GTEST_SHARD_STATUS_FILE");
  if (!status.empty()) AppendToFile(status, "");
  for (const char* variable : {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "GTEST_SHARD_STATUS_FILE"})
    ::unsetenv(variable);
  return shard;
}

std::vector<const KernelCase*> SelectShardCases(const std::vector<const KernelCase*>& cases,
                                                const std::string& test_prefix, const std::string& topic,
                                                const std::string& patterns, const std::string& filter,
                                                const Shard& shard) {
  std::vector<const KernelCase*> chosen;
  int position = 0;
  for (const KernelCase* c : SelectCases(cases, patterns)) {
    if (!MatchesGtestFilter(GtestNameForCase(test_prefix, c->name).Full(), filter)) continue;
    const bool in_shard = position++ % shard.total == shard.index;
    if (in_shard && (topic.empty() || c->topic() == topic)) chosen.push_back(c);
  }
  return chosen;
}

std::vector<std::string> SelectCaseTests(const std::vector<const KernelCase*>& cases,
                                         const std::string& test_prefix, const std::string& topic,
                                         const std::string& patterns, const std::string& filter,
                                         const Shard& shard) {
  std::vector<std::string> tests;
  for (const KernelCase* c : SelectShardCases(cases, test_prefix, topic, patterns, filter, shard))
    tests.push_back(GtestNameForCase(test_prefix, c->name).Full());
  return tests;
}

std::string CaseTestNameClash(const std::vector<const KernelCase*>& cases, const std::string& test_prefix) {
  std::map<std::string, std::string> case_of_test;
  for (const KernelCase* c : cases) {
    const std::string test = GtestNameForCase(test_prefix, c->name).Full();
    const auto [it, added] = case_of_test.emplace(test, c->name);
    if (!added) {
      return "the cases \"" + it->second + "\" and \"" + c->name + "\" would both be the test " + test +
             ": rename one (GoogleTest names keep A-Z a-z 0-9 _ / of a case name, and make '_' of the rest)";
    }
  }
  return "";
}

std::vector<std::string> Topics(const std::vector<const KernelCase*>& cases) {
  std::set<std::string> topics;
  for (const KernelCase* c : cases) topics.insert(c->topic());
  return {topics.begin(), topics.end()};
}

std::vector<FinishedCase> ParseProgress(const std::string& text) {
  std::vector<FinishedCase> finished;
  for (const std::string& line : Split(text, '\n')) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) finished.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return finished;
}

}  // namespace bankcheck::suites
