#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/verdict.h"
#include "core/platform/test_support.h"

// Comparing launches with their baselines (baseline_compare.cc).
namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using testing_support::MakeLine;
using testing_support::MakeRecord;
using testing_support::MySuiteAdvice;

TEST(BaselineVerdictTest, NamesRoundTrip) {
  for (const BaselineVerdict verdict :
       {BaselineVerdict::kMatch, BaselineVerdict::kRegression, BaselineVerdict::kImprovement,
        BaselineVerdict::kChanged, BaselineVerdict::kMissing}) {
    EXPECT_EQ(ParseBaselineVerdict(BaselineVerdictName(verdict)), verdict);
  }
  EXPECT_EQ(ParseBaselineVerdict("worse"), std::nullopt);
}

// --- comparing ----------------------------------------------------------------------------------

BaselineSet SetWith(const std::string& name, std::vector<LaunchRecord> launches) {
  return BaselineSet::FromEntries("baselines/sm_90", "sm_90", {{name, {"d", std::move(launches)}}},
                                  MySuiteAdvice());
}

TEST(CompareWithBaselineTest, EqualLaunchesMatch) {
  const BaselineComparison comparison = CompareWithBaseline(SetWith("transpose/naive", {MakeRecord(2048)}),
                                                            "transpose/naive", {MakeRecord(2048)});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_THAT(comparison.differences, IsEmpty());
  EXPECT_THAT(comparison.message, HasSubstr("matches its baseline in baselines/sm_90/transpose.json"));
}

TEST(CompareWithBaselineTest, MangledNamesMayDifferBetweenBuilds) {
  // nvcc mangles anonymous namespaces with a per-build hash; the demangled name is what matters.
  LaunchRecord measured = MakeRecord(2048);
  measured.mangled_kernel = "_ZN12_GLOBAL__N__1234abcd9transposeEPf";
  EXPECT_EQ(CompareWithBaseline(SetWith("transpose/naive", {MakeRecord(2048)}), "transpose/naive", {measured})
                .verdict,
            BaselineVerdict::kMatch);
}

TEST(CompareWithBaselineTest, InternalNamesInTemplateArgumentsMayDifferBetweenBuilds) {
  // A function of an anonymous namespace as a template argument (FlashInfer's act_and_mul_kernel
  // of a Gelu): cudafe names it _INTERNAL_<hash>_<length>_<file>_<hash>_<process id>, the hashes and
  // the id new in every compile (measured: nvcc 13.0, one file compiled twice).
  LaunchRecord recorded = MakeRecord(2048);
  recorded.kernel =
      "void k<float, &_INTERNAL_16bbe780_24_flashinfer_activation_cu_c2c2a62a_24054::Gelu>(float*)";
  LaunchRecord measured = recorded;
  measured.kernel =
      "void k<float, &_INTERNAL_5a5a0000_24_flashinfer_activation_cu_ed84ad9f_19918::Gelu>(float*)";
  const BaselineComparison same =
      CompareWithBaseline(SetWith("act/gelu", {recorded}), "act/gelu", {measured});
  EXPECT_EQ(same.verdict, BaselineVerdict::kMatch) << same.message;
  // Another file or another function is another kernel.
  LaunchRecord other_file = recorded;
  other_file.kernel = "void k<float, &_INTERNAL_16bbe780_18_flashinfer_norm_cu_c2c2a62a_24054::Gelu>(float*)";
  EXPECT_EQ(CompareWithBaseline(SetWith("act/gelu", {recorded}), "act/gelu", {other_file}).verdict,
            BaselineVerdict::kChanged);
  LaunchRecord other_function = measured;
  other_function.kernel =
      "void k<float, &_INTERNAL_5a5a0000_24_flashinfer_activation_cu_ed84ad9f_19918::Silu>(float*)";
  EXPECT_EQ(CompareWithBaseline(SetWith("act/gelu", {recorded}), "act/gelu", {other_function}).verdict,
            BaselineVerdict::kChanged);
}

TEST(CompareWithBaselineTest, MoreConflictsIsARegressionWithTheTableAndTheCommand) {
  const BaselineComparison comparison = CompareWithBaseline(SetWith("transpose/padded", {MakeRecord(64)}),
                                                            "transpose/padded", {MakeRecord(2048)});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kRegression);
  EXPECT_TRUE(comparison.regressed());
  EXPECT_THAT(
      comparison.differences,
      ElementsAre(
          "launch 0 (transpose(float*, float const*)) ld: wavefronts 64 -> 2048, conflicts 0 -> 1984"));
  EXPECT_THAT(comparison.message,
              AllOf(HasSubstr("REGRESSION: case \"transpose/padded\" has more bank conflicts"),
                    HasSubstr("baselines/sm_90/transpose.json"),
                    HasSubstr("record the new values with:\n  RECORD transpose/padded\n")));
  // The table shows before -> after only where values differ.
  EXPECT_THAT(comparison.table, HasSubstr("64 -> 2048"));
  EXPECT_THAT(comparison.table, HasSubstr("0 -> 1984"));
  EXPECT_THAT(comparison.table, HasSubstr("instructions"));
  EXPECT_THAT(comparison.table, Not(HasSubstr("64 -> 64")));
}

TEST(CompareWithBaselineTest, MoreWavefrontsWithoutMoreConflictsIsARegression) {
  // Twice the ideal wavefronts (e.g. twice the accesses), conflict-free both times.
  EXPECT_EQ(CompareLaunches({MakeRecord(64, 64)}, {MakeRecord(128, 128)}).verdict,
            BaselineVerdict::kRegression);
}

TEST(CompareWithBaselineTest, MoreStoreConflictsIsARegression) {
  LaunchRecord worse = MakeRecord(64);
  worse.stores().wavefronts = 128;
  EXPECT_EQ(CompareLaunches({MakeRecord(64)}, {worse}).verdict, BaselineVerdict::kRegression);
}

TEST(CompareWithBaselineTest, EveryKindCountsAndHardwareSourcedIdealsAreNotCompared) {
  LaunchRecord recorded = MakeRecord(64);
  // As a baseline holds it:
  recorded.kinds[MemoryKind::kSharedAtomic] = {256, 806, 0, Provenance::kNotMeasured};
  recorded.kinds[MemoryKind::kSharedLdmatrix] = {16, 64, 64};
  LaunchRecord measured = recorded;
  // Varies from run to run:
  measured.kinds[MemoryKind::kSharedAtomic] = {256, 806, 250, Provenance::kHardware};
  EXPECT_EQ(CompareWithBaseline(SetWith("a/b", {recorded}), "a/b", {measured}).verdict,
            BaselineVerdict::kMatch);

  measured.kinds[MemoryKind::kSharedLdmatrix] = {16, 512, 64};  // the swizzle lost: 8-way
  const BaselineComparison worse = CompareWithBaseline(SetWith("a/b", {recorded}), "a/b", {measured});
  EXPECT_EQ(worse.verdict, BaselineVerdict::kRegression);
  EXPECT_THAT(worse.differences, Contains(HasSubstr("ldsm: wavefronts 64 -> 512, conflicts 0 -> 448")));
  EXPECT_THAT(worse.table, HasSubstr("ldsm"));
  EXPECT_THAT(worse.table, HasSubstr("atom"));
}

TEST(CompareWithBaselineTest, AnIdealMeasuredOnOneSideOnlyIsAChangeNotFewerConflicts) {
  // A baseline recorded through SASS metrics (exact atomic ideal), measured again by a
  // range-profiler session, which has no atomic ideal: the conflicts cannot be compared.
  LaunchRecord recorded = MakeRecord(64);
  recorded.kinds[MemoryKind::kSharedAtomic] = {16, 32, 16};
  LaunchRecord measured = recorded;
  measured.kinds[MemoryKind::kSharedAtomic] = {16, 32, 0, Provenance::kNotMeasured};
  const BaselineComparison comparison = CompareLaunches({recorded}, {measured});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kChanged);
  EXPECT_THAT(comparison.differences,
              ElementsAre(HasSubstr("atom: ideal 16 -> not measured (conflicts not compared)")));
  EXPECT_EQ(CompareLaunches({measured}, {recorded}).verdict, BaselineVerdict::kChanged);

  // More wavefronts is still a regression, whatever is known of the ideal.
  measured.kinds[MemoryKind::kSharedAtomic].wavefronts = 64;
  EXPECT_EQ(CompareLaunches({recorded}, {measured}).verdict, BaselineVerdict::kRegression);
}

TEST(CompareWithBaselineTest, MoreGlobalSectorsIsARegressionInSectors) {
  LaunchRecord recorded = MakeRecord(64);
  recorded.kinds[MemoryKind::kGlobalLoad] = {512, 2048, 2048};  // coalesced: 4 sectors per warp
  LaunchRecord measured = recorded;
  measured.kinds[MemoryKind::kGlobalLoad] = {512, 4096, 2048};  // stride 2: 8
  const BaselineComparison comparison = CompareLaunches({recorded}, {measured});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kRegression);
  EXPECT_THAT(comparison.differences, ElementsAre(HasSubstr("ldg: sectors 2048 -> 4096, excess 0 -> 2048")));
  // Spills are more local traffic, without an ideal.
  LaunchRecord spilled = recorded;
  spilled.kinds[MemoryKind::kLocalStore] = {16, 64, 0, Provenance::kNotMeasured};
  EXPECT_EQ(CompareLaunches({recorded}, {spilled}).verdict, BaselineVerdict::kRegression);
  EXPECT_EQ(CompareLaunches({spilled}, {recorded}).verdict, BaselineVerdict::kImprovement);
}

TEST(CompareWithBaselineTest, AKindOneSideDidNotCountIsNotCompared) {
  // A baseline recorded before global memory was counted (version 2), or an emulated launch (the
  // emulator does not count it): its global kinds are not counted, and not compared.
  LaunchRecord old = MakeRecord(64);
  MarkKindsNewerThan(2, old);
  EXPECT_TRUE(old.not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_FALSE(old.not_counted[MemoryKind::kSharedLoad]);
  LaunchRecord measured = MakeRecord(64);
  measured.kinds[MemoryKind::kGlobalLoad] = {512, 16384, 2048};
  measured.lines = std::vector<LineRecord>{
      {"k.cu", "out[i] = in[32 * i];", 0, 3, MemoryKind::kGlobalLoad, 512, 16384, 2048, {"LDG.E"}}};
  old.lines = std::vector<LineRecord>{};
  EXPECT_EQ(CompareLaunches({old}, {measured}).verdict, BaselineVerdict::kMatch);
  EXPECT_EQ(CompareLaunches({measured}, {old}).verdict, BaselineVerdict::kMatch);
  EXPECT_FALSE(IsCompared(&old, &measured, MemoryKind::kGlobalLoad));
  EXPECT_TRUE(IsCompared(&old, &measured, MemoryKind::kSharedLoad));
  // Shared memory still compares.
  measured.kinds[MemoryKind::kSharedLoad].wavefronts += 64;
  EXPECT_EQ(CompareLaunches({old}, {measured}).verdict, BaselineVerdict::kRegression);

  LaunchRecord emulated = MakeRecord(64);  // whose global and local addresses were not known
  for (const MemoryKindInfo& info : MemoryKinds())
    if (info.space != MemorySpace::kShared) emulated.not_counted[info.kind] = true;
  EXPECT_TRUE(emulated.not_counted[MemoryKind::kLocalStore]);
  EXPECT_FALSE(emulated.not_counted[MemoryKind::kSharedWgmma]);
  EXPECT_FALSE(IsShown(emulated, MemoryKind::kGlobalLoad));
}

TEST(CompareWithBaselineTest, ABaselineRecordedBeforeCpAsyncGlobalReadsWereCountedStillMatches) {
  // Recorded as version 3 (before global_ldgsts): a launch whose cp.async now counts global
  // sectors, emulated or measured, matches it; its other global kinds still compare.
  LaunchRecord old = MakeRecord(64);
  old.kinds[MemoryKind::kSharedCpAsync] = {8, 32, 32};
  old.kinds[MemoryKind::kGlobalLoad] = {8, 32, 32};
  MarkKindsNewerThan(3, old);
  EXPECT_TRUE(old.not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_FALSE(old.not_counted[MemoryKind::kGlobalLoad]);
  LaunchRecord now = old;
  now.not_counted = {};
  now.kinds[MemoryKind::kGlobalCpAsync] = {8, 128, 64};
  now.lines = std::vector<LineRecord>{{"k.cu",
                                       "cp_async16(dst, src);",
                                       0,
                                       9,
                                       MemoryKind::kGlobalCpAsync,
                                       8,
                                       128,
                                       64,
                                       {"LDGSTS.E.BYPASS.128"}}};
  old.lines = std::vector<LineRecord>{};
  EXPECT_EQ(CompareLaunches({old}, {now}).verdict, BaselineVerdict::kMatch);
  EXPECT_FALSE(IsShown(old, MemoryKind::kGlobalCpAsync));
  now.kinds[MemoryKind::kGlobalLoad].wavefronts += 32;
  EXPECT_EQ(CompareLaunches({old}, {now}).verdict, BaselineVerdict::kRegression);
}

TEST(CompareWithBaselineTest, EmulatedTmaSectorsCompareOnlyWithABaselineThatCountedThem) {
  // An emulated launch counts TMA's global reads as launch totals (docs/emulate.md).
  LaunchRecord emulated = MakeRecord(64);
  emulated.counted_by = CountedBy::kEmulated;
  emulated.kinds[MemoryKind::kGlobalTmaLoad] = {16, 1024, 0, Provenance::kNotMeasured};
  // A baseline counted through SASS metrics (every committed one) did not count them, whatever its
  // version: not compared, so neither a regression nor a match of them; the other kinds still are.
  LaunchRecord sass = MakeRecord(64);
  sass.not_counted[MemoryKind::kGlobalTmaLoad] = sass.not_counted[MemoryKind::kGlobalTmaStore] = true;
  LaunchRecord version_four = MakeRecord(64);
  MarkKindsNewerThan(4, version_four);
  for (const LaunchRecord& baseline : {sass, version_four}) {
    EXPECT_FALSE(IsCompared(&baseline, &emulated, MemoryKind::kGlobalTmaLoad));
    const BaselineComparison comparison = CompareLaunches({baseline}, {emulated});
    EXPECT_EQ(comparison.verdict, BaselineVerdict::kMatch);
    EXPECT_THAT(comparison.table, Not(HasSubstr("tma_ld")));
    LaunchRecord worse = emulated;
    worse.loads().wavefronts += 64;
    EXPECT_EQ(CompareLaunches({baseline}, {worse}).verdict, BaselineVerdict::kRegression);
  }
  // A range-profiler baseline counted them: compared, in sectors.
  LaunchRecord range = MakeRecord(64);
  range.counted_by = CountedBy::kRangeProfiler;
  range.kinds[MemoryKind::kGlobalTmaLoad] = {16, 512, 0, Provenance::kNotMeasured};
  const BaselineComparison comparison = CompareLaunches({range}, {emulated});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kRegression);
  EXPECT_THAT(comparison.differences, ElementsAre(HasSubstr("tma_ld: sectors 512 -> 1024")));
}

TEST(CompareWithBaselineTest, FewerConflictsIsAnImprovement) {
  const BaselineComparison comparison = CompareWithBaseline(SetWith("transpose/naive", {MakeRecord(2048)}),
                                                            "transpose/naive", {MakeRecord(64)});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kImprovement);
  EXPECT_THAT(comparison.message, AllOf(HasSubstr("IMPROVEMENT"), HasSubstr("Record the improvement"),
                                        HasSubstr("RECORD transpose/naive")));
}

TEST(CompareWithBaselineTest, BetterInOneLaunchAndWorseInAnotherIsARegression) {
  EXPECT_EQ(CompareLaunches({MakeRecord(2048), MakeRecord(64)}, {MakeRecord(64), MakeRecord(128)}).verdict,
            BaselineVerdict::kRegression);
}

TEST(CompareWithBaselineTest, OtherDifferencesAreChanged) {
  LaunchRecord more_instructions = MakeRecord(64);
  more_instructions.loads().instructions = 65;
  EXPECT_EQ(CompareLaunches({MakeRecord(64)}, {more_instructions}).verdict, BaselineVerdict::kChanged);

  LaunchRecord other_grid = MakeRecord(64);
  other_grid.grid = {64, 16, 1};
  const BaselineComparison grid = CompareLaunches({MakeRecord(64)}, {other_grid});
  EXPECT_EQ(grid.verdict, BaselineVerdict::kChanged);
  EXPECT_THAT(grid.differences, ElementsAre(HasSubstr("grid 32x32x1 -> 64x16x1")));
  EXPECT_THAT(grid.table, HasSubstr("32x32x1 -> 64x16x1"));

  LaunchRecord other_kernel = MakeRecord(64, 64, "copy");
  EXPECT_EQ(CompareLaunches({MakeRecord(64)}, {other_kernel}).verdict, BaselineVerdict::kChanged);

  // A launch without shared-memory traffic added: launch count differs, conflicts do not.
  LaunchRecord no_traffic = MakeRecord(64, 64, "fill");
  no_traffic.loads() = {};
  no_traffic.stores() = {};
  const BaselineComparison added = CompareLaunches({MakeRecord(64)}, {MakeRecord(64), no_traffic});
  EXPECT_EQ(added.verdict, BaselineVerdict::kChanged);
  EXPECT_THAT(added.differences,
              ElementsAre("launch 1 (fill(float*, float const*)): a launch that was not there before (ld 0 "
                          "wavefronts, 0 conflicts; st 0 wavefronts, 0 conflicts)"));
  EXPECT_THAT(
      CompareWithBaseline(SetWith("a/b", {MakeRecord(64)}), "a/b", {MakeRecord(64), no_traffic}).message,
      AllOf(HasSubstr("CHANGED"), HasSubstr("RECORD a/b")));
}

TEST(CompareWithBaselineTest, AddedLaunchWithTrafficIsARegressionAndRemovedOneAnImprovement) {
  const BaselineComparison added = CompareLaunches({MakeRecord(64)}, {MakeRecord(64), MakeRecord(64)});
  EXPECT_EQ(added.verdict, BaselineVerdict::kRegression);
  EXPECT_THAT(added.table, HasSubstr("- -> 64"));
  EXPECT_EQ(CompareLaunches({MakeRecord(64), MakeRecord(64)}, {MakeRecord(64)}).verdict,
            BaselineVerdict::kImprovement);
}

TEST(CompareWithBaselineTest, ADerivedBaselineThatAGpuMeasuresOtherwiseIsAnEmulatorFault) {
  LaunchRecord derived = MakeRecord(64);
  derived.counted_by = CountedBy::kEmulated;
  const BaselineComparison fault =
      CompareWithBaseline(SetWith("transpose/padded", {derived}), "transpose/padded", {MakeRecord(2048)});
  EXPECT_EQ(fault.verdict, BaselineVerdict::kRegression);
  EXPECT_THAT(fault.message,
              AllOf(StartsWith("EMULATOR FAULT: the baseline of case \"transpose/padded\""),
                    HasSubstr("not your kernel"), HasSubstr("What was measured against what was derived")));
  const BaselineComparison same =
      CompareWithBaseline(SetWith("transpose/padded", {derived}), "transpose/padded", {MakeRecord(64)});
  EXPECT_EQ(same.verdict, BaselineVerdict::kMatch);
  EXPECT_THAT(same.message, HasSubstr("measured the same: record it to keep it as measured"));
  // The emulated program against derived baselines: an ordinary comparison.
  EXPECT_THAT(
      CompareWithBaseline(SetWith("transpose/padded", {derived}), "transpose/padded", {derived}).message,
      Not(HasSubstr("derived by the emulator")));
}

// --- lines that moved to another folder ----------------------------------------------------------

// A launch whose three lines are in `folder`/block_reduce.cuh (the third-party sources' folder):
// two loads, a store; `extra` wavefronts at the first load.
LaunchRecord LaunchWithLinesIn(const std::string& folder, uint64_t extra = 0) {
  LaunchRecord launch = MakeRecord(2048 + extra);
  const std::string file = folder + "/block_reduce.cuh";
  launch.lines = std::vector<LineRecord>{
      MakeLine(file, 10, "a = tile[x][y];", MemoryKind::kSharedLoad, 32, 1024 + extra, 32, {"LDS"}),
      MakeLine(file, 12, "b = tile[y][x];", MemoryKind::kSharedLoad, 32, 1024, 32, {"LDS"}),
      MakeLine(file, 20, "tile[x][y] = v;", MemoryKind::kSharedStore, 64, 64, 64, {"STS"})};
  return launch;
}

// The third-party sources moved from third_party/cub to external/cub, same lines, same counts: a
// stale baseline that names the old paths, not six regressions of lines "not there before" and
// "no longer executed".
TEST(CompareWithBaselineTest, LinesThatOnlyMovedToAnotherFolderAreAStaleBaselineNotARegression) {
  const BaselineComparison comparison =
      CompareWithBaseline(SetWith("reduce/moved", {LaunchWithLinesIn("third_party/cub")}), "reduce/moved",
                          {LaunchWithLinesIn("external/cub")});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_EQ(comparison.lines, BaselineVerdict::kChanged);
  EXPECT_EQ(comparison.headline(), BaselineVerdict::kChanged);
  EXPECT_THAT(comparison.line_differences,
              ElementsAre("launch 0 (transpose(float*, float const*)) 3 lines moved from "
                          "third_party/cub/block_reduce.cuh to external/cub/block_reduce.cuh, "
                          "their counts unchanged"));
  EXPECT_THAT(comparison.message,
              AllOf(StartsWith("STALE BASELINE: case \"reduce/moved\""),
                    HasSubstr("moved from third_party/cub/block_reduce.cuh to external/cub/block_reduce.cuh"),
                    HasSubstr("not a regression"),
                    HasSubstr("record it again with:\n  RECORD reduce/moved\n"), Not(HasSubstr("REGRESSION")),
                    Not(HasSubstr("not there before")), Not(HasSubstr("no longer executed"))));
  const CaseDecision decision = DecideVerdicts(comparison.verdict, comparison.lines, CaseStatus::kPassed);
  EXPECT_TRUE(decision.fails);
  EXPECT_EQ(decision.verdict, CaseVerdict::kChanged);
}

// Moved, and more conflicts at a line, or other launch totals: not only moved, judged line by line.
TEST(CompareWithBaselineTest, MovedLinesWithOtherCountsAreStillComparedLineByLine) {
  const BaselineComparison more =
      CompareWithBaseline(SetWith("reduce/moved", {LaunchWithLinesIn("third_party/cub")}), "reduce/moved",
                          {LaunchWithLinesIn("external/cub", 32)});
  EXPECT_EQ(more.headline(), BaselineVerdict::kRegression);
  EXPECT_EQ(more.line_differences.size(), 6u);
  EXPECT_THAT(more.message, StartsWith("REGRESSION"));
  // The same lines in one more launch: the launches differ, not only the lines' files.
  LaunchRecord other_grid = LaunchWithLinesIn("external/cub");
  other_grid.grid = {64, 32, 1};
  const BaselineComparison grid = CompareWithBaseline(
      SetWith("reduce/moved", {LaunchWithLinesIn("third_party/cub")}), "reduce/moved", {other_grid});
  EXPECT_THAT(grid.message, Not(HasSubstr("STALE BASELINE")));
}

TEST(CompareWithBaselineTest, CaseWithoutEntryIsMissingWithTheExactRecordCommand) {
  const BaselineComparison comparison = CompareWithBaseline(SetWith("transpose/naive", {MakeRecord(64)}),
                                                            "transpose/padded-33", {MakeRecord(64)});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kMissing);
  EXPECT_EQ(comparison.message,
            "MISSING: case \"transpose/padded-33\" (test my_suite/transpose) has no baseline in "
            "baselines/sm_90/transpose.json. Record it with:\n  RECORD transpose/padded-33\n");
}

}  // namespace
}  // namespace bankcheck
