// The suite's case runner on the CPU: its line globs and the emulated program's folders.
#include "suite/internal/case_runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bankcheck/suite/suite.h"
#include "core/platform/test_support.h"
#include "core/records/launch_emulation.h"

namespace bankcheck::suites {
namespace {

class LineGlobsOfThisRun : public testing_support::TempDirTest {};

TEST(AttributionSumMismatchesTest, TmaLaunchTotalsAreOnNoRowAndNotSummed) {
  // An emulated (or range-profiler) launch of a TMA kernel: its per-instruction table has the LDS,
  // and no row of TMA's global reads, which no per-instruction counter sees.
  LaunchRecord record;
  record.kernel = "tma()";
  record.mangled_kernel = "_Z3tmav";
  record.attributed_launches = 1;
  InstructionCounts lds;
  lds.pc_offset = 0x40;
  lds.opcode = "LDS";
  lds.kind = MemoryKind::kSharedLoad;
  lds.executions = 4;
  lds.wavefronts = lds.ideal_wavefronts = 4;
  record.instructions = {lds};
  PerKind<KindCounts> sums;
  sums[MemoryKind::kSharedLoad] = {4, 4, 4};
  sums[MemoryKind::kGlobalTmaLoad] = {8, 512, 0};
  SetEmulatedCounts(sums, record);
  EXPECT_TRUE(AttributionSumMismatches({record}).empty());
  // The kinds counted per instruction are still summed.
  record.loads().wavefronts = 8;
  ASSERT_EQ(AttributionSumMismatches({record}).size(), 1u);
  EXPECT_NE(AttributionSumMismatches({record})[0].find("per-instruction sums 4 executions, 4 wavefronts"),
            std::string::npos);
}

// A case's c.expect checks every shared-memory kind (unstated: conflict-free), and a global or
// local kind only where it names it.
TEST(AnnotationMismatchesTest, GlobalAndLocalKindsAreCheckedWhereTheCaseNamesThem) {
  LaunchRecord record = testing_support::MakeRecord(64);
  record.kinds[MemoryKind::kGlobalLoad] = {512, 16384, 2048};  // 8 sectors per ideal one
  record.kinds[MemoryKind::kLocalStore] = {16, 64, 0, Provenance::kNotMeasured};
  Expectation expect;
  expect[MemoryKind::kSharedLoad].ways = 1;
  EXPECT_TRUE(AnnotationMismatches(expect, record).empty());
  expect[MemoryKind::kLocalStore].instructions = 0;  // must not spill
  const std::vector<std::string> spilled = AnnotationMismatches(expect, record);
  ASSERT_EQ(spilled.size(), 1u);
  EXPECT_NE(spilled[0].find("local stores (STL): stl: 16 instructions, 64 sectors"), std::string::npos)
      << spilled[0];
  EXPECT_NE(spilled[0].find("expected 0 instructions"), std::string::npos) << spilled[0];
  // An emulated launch that could not count local memory (an address it did not know): nothing to
  // check.
  record.not_counted[MemoryKind::kLocalStore] = true;
  EXPECT_TRUE(AnnotationMismatches(expect, record).empty());
}

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
  void ObserveOutputReadBack(std::function<void(const std::string&)>) override {}
  std::string OutputNotComputed() const override { return ""; }
  void SetProjectSources(const std::string&, const std::string&) override {}
};

// ResultsDir as the measured program and as the emulated one, with BANKCHECK_RESULTS_DIR set to
// `folder` (nullptr: unset, the suite's RESULTS_DIR).
std::pair<std::filesystem::path, std::filesystem::path> MeasuredAndEmulated(const char* folder) {
  if (folder == nullptr)
    ::unsetenv("BANKCHECK_RESULTS_DIR");
  else
    ::setenv("BANKCHECK_RESULTS_DIR", folder, 1);
  const std::filesystem::path measured = ResultsDir();
  PresentEmulation emulation;
  internal::InstallLaunchEmulation(&emulation);
  const std::filesystem::path emulated = ResultsDir();
  internal::InstallLaunchEmulation(nullptr);
  ::unsetenv("BANKCHECK_RESULTS_DIR");
  return {measured, emulated};
}

TEST(CaseRunnerTest, TheEmulatedProgramsResultsGoBesideTheMeasuredOnesNeverIntoThem) {
  const auto [measured, emulated] = MeasuredAndEmulated("/tmp/bankcheck-results");
  EXPECT_EQ(measured, "/tmp/bankcheck-results");
  EXPECT_EQ(emulated, "/tmp/bankcheck-results-emulated");
  // A folder given with a trailing separator: beside it all the same, not inside.
  EXPECT_EQ(MeasuredAndEmulated("/tmp/bankcheck-results/").second, "/tmp/bankcheck-results-emulated");
  // The suite's own folder (RESULTS_DIR; CMake gives both programs the same one).
  const std::string own = GetSuiteSettings().results_dir;
  const auto [own_measured, own_emulated] = MeasuredAndEmulated(nullptr);
  EXPECT_EQ(own_measured, own);
  EXPECT_EQ(own_emulated, own + "-emulated");
}

}  // namespace
}  // namespace bankcheck::suites
