#include "suite/internal/emulated_case.h"

#include <gtest/gtest.h>

#include <atomic>
#include <exception>
#include <iostream>
#include <limits>
#include <map>

#include "bankcheck/core/error.h"
#include "bankcheck/core/results.h"
#include "bankcheck/testing/testing.h"
#include "core/platform/environment.h"
#include "testing/internal/held_results.h"

namespace bankcheck::suites {

namespace {
// A failure's message on one line: its lines joined, white space folded, at most 200 characters.
std::string OneLine(const std::string& text) {
  std::string line;
  for (const char c : text) {
    const bool space = c == '\n' || c == ' ' || c == '\t' || c == '\r';
    if (space && (line.empty() || line.back() == ' ')) continue;
    line += space ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line.size() > 200 ? line.substr(0, 197) + "..." : line;
}

std::string Where(const ::testing::TestPartResult& result) {
  if (result.file_name() == nullptr) return "unknown file";
  return std::string(result.file_name()) +
         (result.line_number() >= 0 ? ":" + std::to_string(result.line_number()) : "");
}
}  // namespace

EmulatedCaseRun RunEmulatedCase(const KernelCase& c, CaseContext& context,
                                internal::LaunchEmulation& emulation) {
  EmulatedCaseRun run;
  std::vector<::testing::TestPartResult> results;
  // Where the results stood at the first read-back, and at the first of bytes not computed.
  std::atomic<size_t> read_back_at{std::numeric_limits<size_t>::max()};
  std::atomic<size_t> not_computed_at{std::numeric_limits<size_t>::max()};
  std::exception_ptr error;
  emulation.BeginCase();
  {
    gtest::HeldResults held(gtest::HeldResults::Threads::kAll);
    emulation.ObserveOutputReadBack([&](const std::string& not_computed) {
      if (read_back_at == std::numeric_limits<size_t>::max()) read_back_at = held.size();
      if (!not_computed.empty() && not_computed_at == std::numeric_limits<size_t>::max())
        not_computed_at = held.size();
    });
    try {
      c.run(context);
    } catch (const Error& e) {
      run.not_emulated = emulation.TakeNotEmulated();
      if (e.kind() == ErrorKind::kToolMissing)
        run.tool_missing = e.what();
      else if (run.not_emulated.empty())
        error = std::current_exception();
    } catch (...) {
      error = std::current_exception();
    }
    emulation.ObserveOutputReadBack(nullptr);
    results = held.Release();
  }
  if (run.not_emulated.empty()) run.not_emulated = emulation.TakeNotEmulated();

  size_t computed_failures = 0;  // output checks that failed on computed outputs
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < results.size(); ++i) {
    const ::testing::TestPartResult& result = results[i];
    if (result.failed() && i >= read_back_at && i < not_computed_at) ++computed_failures;
    if (result.failed() && i >= not_computed_at) {
      ++run.unevaluated_failures;
      const std::string where = Where(result);
      if (seen.emplace(where, run.unevaluated_checks.size()).second)
        run.unevaluated_checks.push_back(where + ": " + OneLine(result.summary()));
      continue;
    }
    gtest::ReportAgain(result);
  }
  run.output = OutputStatus(run.not_emulated.empty() ? run.tool_missing : run.not_emulated,
                            emulation.OutputNotComputed(), read_back_at != std::numeric_limits<size_t>::max(),
                            computed_failures);
  if (error) std::rethrow_exception(error);
  return run;
}

std::string OutputStatus(const std::string& not_emulated, const std::string& not_computed, bool read_back,
                         size_t computed_failures) {
  if (!not_emulated.empty()) return std::string(kOutputNotComputed) + "the case was not decided";
  if (!not_computed.empty()) return kOutputNotComputed + not_computed;
  if (!read_back) return "no output checks: the case reads no device memory back after its launches";
  return computed_failures == 0 ? "passed" : "failed";
}

bool EmulationRequired() { return FlagFromEnvironment("BANKCHECK_REQUIRE_EMULATION"); }

int SayNoEmulatedProgram(const std::string& why) {
  if (EmulationRequired()) {
    std::cout << "bankcheck: BANKCHECK_REQUIRE_EMULATION=1 is set, but this suite has no emulated program: "
              << why << " (docs/emulate.md)\n";
    return 1;
  }
  std::cout << "bankcheck: skipped: this suite has no emulated program: " << why
            << " (docs/emulate.md; BANKCHECK_REQUIRE_EMULATION=1 fails instead)\n";
  return gtest::kAllSkippedExitCode;
}

std::string UnevaluatedChecksNote(const EmulatedCaseRun& run, size_t shown) {
  if (run.unevaluated_failures == 0) return "";
  std::string note = "  note: " + std::string(internal::kOutputNotChecked) + ": " +
                     std::to_string(run.unevaluated_failures) + " output check failure" +
                     (run.unevaluated_failures == 1 ? "" : "s") + " at " +
                     std::to_string(run.unevaluated_checks.size()) + " line" +
                     (run.unevaluated_checks.size() == 1 ? "" : "s") +
                     " not evaluated (they compare memory the kernels would have written):\n";
  for (size_t i = 0; i < run.unevaluated_checks.size() && i < shown; ++i)
    note += "    " + run.unevaluated_checks[i] + "\n";
  if (run.unevaluated_checks.size() > shown)
    note += "    ... and " + std::to_string(run.unevaluated_checks.size() - shown) + " more lines\n";
  return note;
}

}  // namespace bankcheck::suites
