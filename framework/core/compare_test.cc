#include "bankcheck/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bankcheck/baseline.h"
#include "bankcheck/error.h"
#include "bankcheck/results.h"
#include "core/internal/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::WriteFile;

class CompareTest : public testing_support::TempDirTest {
 protected:
  // A baseline file with `cases` (name -> load wavefronts).
  std::filesystem::path WriteBaseline(const std::map<std::string, uint64_t>& cases) {
    BaselineFile file;
    file.arch = "sm_90";
    for (const auto& [name, wavefronts] : cases) file.cases[name] = {"", {MakeRecord(wavefronts)}};
    const auto path = dir_ / "baseline.json";
    WriteFile(path, SerializeBaselineFile(file));
    return path;
  }
  std::filesystem::path WriteRun(const std::string& file_name, const std::map<std::string, uint64_t>& cases,
                                 const std::vector<std::string>& skipped = {}) {
    RunResults results;
    results.metadata = MakeMetadata();
    for (const auto& [name, wavefronts] : cases) {
      results.cases[name].name = name;
      results.cases[name].launches = {MakeRecord(wavefronts)};
    }
    for (const std::string& name : skipped) {
      results.cases[name].name = name;
      results.cases[name].status = CaseStatus::kSkipped;
    }
    const auto path = dir_ / file_name;
    WriteResults(path, results);
    return path;
  }
};

TEST_F(CompareTest, ReadsBothKindsByTheirFormat) {
  const MeasurementSet baseline = ReadMeasurementSet(WriteBaseline({{"t/a", 64}}));
  EXPECT_EQ(baseline.kind, "baseline");
  EXPECT_EQ(baseline.arch, "sm_90");
  EXPECT_EQ(baseline.cases.at("t/a").at(0).loads().wavefronts, 64u);
  const MeasurementSet run = ReadMeasurementSet(WriteRun("new.json", {{"t/a", 128}}, {"t/skipped"}));
  EXPECT_EQ(run.kind, "results");
  EXPECT_EQ(run.cases.size(), 1u);
  EXPECT_THAT(run.not_measured, ElementsAre("t/skipped"));
}

TEST_F(CompareTest, RegressionsImprovementsNewAndRemovedCases) {
  const MeasurementSet before = ReadMeasurementSet(
      WriteBaseline({{"t/worse", 64}, {"t/better", 2048}, {"t/same", 64}, {"t/gone", 64}}));
  const MeasurementSet after = ReadMeasurementSet(
      WriteRun("new.json", {{"t/worse", 2048}, {"t/better", 64}, {"t/same", 64}, {"t/added", 64}}));
  const CompareOutcome outcome = CompareMeasurementSets(before, after);
  EXPECT_TRUE(outcome.regressed());
  EXPECT_EQ(outcome.regressions, 1u);
  EXPECT_EQ(outcome.improvements, 1u);
  EXPECT_EQ(outcome.unchanged, 1u);
  EXPECT_THAT(outcome.added, ElementsAre("t/added"));
  EXPECT_THAT(outcome.removed, ElementsAre("t/gone"));
  const std::string& text = outcome.markdown;
  EXPECT_THAT(text,
              AllOf(HasSubstr("**1 regressed**, 1 improved, 0 changed, 1 unchanged; 1 new, 1 removed"),
                    HasSubstr("| `t/worse` | **regression** | ld 0 → 1984 · st 0 | ld 64 → 2048 · st 64 |"),
                    HasSubstr("| `t/better` | improvement | ld 1984 → 0 · st 0 | ld 2048 → 64 · st 64 |"),
                    HasSubstr("New cases (only in the new file):\n\n- `t/added`"),
                    HasSubstr("Removed cases (only in the old file):\n\n- `t/gone`")));
  EXPECT_LT(text.find("`t/worse` |"), text.find("`t/better` |"));
  EXPECT_THAT(text, Not(HasSubstr("| `t/same`")));
}

TEST_F(CompareTest, OnlyImprovementsIsNotARegression) {
  const CompareOutcome outcome =
      CompareMeasurementSets(ReadMeasurementSet(WriteRun("old.json", {{"t/a", 2048}})),
                             ReadMeasurementSet(WriteRun("new.json", {{"t/a", 64}})));
  EXPECT_FALSE(outcome.regressed());
  EXPECT_EQ(outcome.improvements, 1u);
}

TEST_F(CompareTest, SkippedCasesAreNeitherNewNorRemoved) {
  const CompareOutcome outcome =
      CompareMeasurementSets(ReadMeasurementSet(WriteRun("old.json", {{"t/a", 64}})),
                             ReadMeasurementSet(WriteRun("new.json", {}, {"t/a"})));
  EXPECT_THAT(outcome.removed, IsEmpty());
  EXPECT_THAT(outcome.markdown, HasSubstr("Not compared (skipped in one of the runs):\n\n- `t/a`"));
}

TEST_F(CompareTest, DifferentArchitecturesAreWarnedAbout) {
  const MeasurementSet before = ReadMeasurementSet(WriteBaseline({{"t/a", 64}}));
  MeasurementSet after = before;
  after.arch = "sm_80";
  EXPECT_THAT(CompareMeasurementSets(before, after).markdown,
              HasSubstr("different architectures (sm_90 and sm_80)"));
}

TEST_F(CompareTest, UnreadableInputNamesTheFileAndPosition) {
  WriteFile(dir_ / "bad.json", "{\"format\": \"bankcheck-results\",\n  \"cases\": {]\n}");
  try {
    ReadMeasurementSet(dir_ / "bad.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr((dir_ / "bad.json").string() + ":2:13: invalid JSON"));
  }
  WriteFile(dir_ / "other.json", "{\"format\": \"something-else\"}");
  EXPECT_THROW(ReadMeasurementSet(dir_ / "other.json"), Error);
  EXPECT_THROW(ReadMeasurementSet(dir_ / "absent.json"), Error);
  EXPECT_THROW(ReadMeasurementSet(dir_), Error);
}

}  // namespace
}  // namespace bankcheck
