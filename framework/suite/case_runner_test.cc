// The suite's case runner on the CPU: its line globs and the emulated program's folders.
#include "suite/internal/case_runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/internal/launch_emulation.h"
#include "core/internal/test_support.h"

namespace bankcheck::suites {
namespace {

class LineGlobsOfThisRun : public testing_support::TempDirTest {};

TEST_F(LineGlobsOfThisRun, AGlobIsReportedOnlyWhenNoCaseThatRanOrMightHaveRunTheLineMatchesIt) {
  const std::string file = (dir_ / "k.cu").string();
  testing_support::WriteFile(file, "x;  // bankcheck: 2-way in t/a | t/typo | t/other, conflict-free\n");
  LineCounts line;
  line.file = file;
  line.line = 1;
  line.wavefronts = 64;
  line.ideal_wavefronts = 32;
  RecordCaseLines("t/a", {line});
  KernelCase a, other;
  a.name = "t/a";
  other.name = "t/other";  // registered, not run here: its glob might be right
  const std::vector<LineFailure> failures = NeverMatchingGlobsOfThisRun({&a, &other});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].file, file);
  EXPECT_EQ(failures[0].line, 1u);
  EXPECT_NE(
      failures[0].message.find("case glob 't/typo' of '2-way in t/a | t/typo | t/other' selects none of "
                               "the cases that ran line 1 (t/a)"),
      std::string::npos)
      << failures[0].message;
}

// Stands in for the emulated program's runtime: only its presence matters here.
class PresentEmulation final : public internal::LaunchEmulation {
 public:
  void Start() override {}
  std::vector<LaunchRecord> Finish() override { return {}; }
  void Abandon() override {}
  std::string TakeNotEmulated() override { return ""; }
  void BeginCase() override {}
  void ObserveOutputReadBack(std::function<void()>) override {}
  void SetProjectSources(const std::string&, const std::string&) override {}
};

TEST(CaseRunnerTest, TheEmulatedProgramsResultsGoBesideTheMeasuredOnesNeverIntoThem) {
  ::setenv("BANKCHECK_RESULTS_DIR", "/tmp/bankcheck-results", 1);
  const std::filesystem::path measured = ResultsDir();
  PresentEmulation emulation;
  internal::InstallLaunchEmulation(&emulation);
  const std::filesystem::path emulated = ResultsDir();
  internal::InstallLaunchEmulation(nullptr);
  ::unsetenv("BANKCHECK_RESULTS_DIR");
  EXPECT_EQ(measured, "/tmp/bankcheck-results");
  EXPECT_EQ(emulated, "/tmp/bankcheck-results-emulated");
}

}  // namespace
}  // namespace bankcheck::suites
