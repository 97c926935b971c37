#include "bankcheck/baseline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "bankcheck/error.h"
#include "core/internal/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::ReadFile;
using testing_support::TemporaryFilesUnder;
using testing_support::WriteFile;

// A consumer's suite, as bankcheck_add_kernel_suite(my_suite ...) in /src/app describes it.
const RecordCommand kMySuite{"ctest --test-dir /src/app/build", "my_suite", ""};

TEST(CaseNamesTest, TestNamesAndTheRecordCommandComeFromTheCaseName) {
  EXPECT_EQ(GtestNameForCase("transpose/padded-33/4096"), "transpose_padded_33_4096");
  EXPECT_EQ(GtestTestNameForCase("demo/stride2"), "KernelSuite/CaseTest.Run/demo_stride2");
  EXPECT_EQ(kMySuite.CtestNameForCase("demo/stride2"), "my_suite/demo");
  EXPECT_EQ((RecordCommand{"ctest", "my.suite", ""}.CtestRegexForCase("my.demo/stride2")),
            "^my\\.suite/my\\.demo$");
  EXPECT_EQ(TopicOfCase("transpose/naive/4096"), "transpose");
  EXPECT_EQ(TopicOfCase("single"), "single");
}

TEST(RecordCommandTest, NamesTheSuitesOwnTestAndCommand) {
  EXPECT_EQ(
      kMySuite.ForCase("demo/stride2"),
      "BANKCHECK_UPDATE_BASELINES=1 GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ctest --test-dir "
      "/src/app/build -R '^my_suite/demo$'");
  EXPECT_EQ(kMySuite.ForAll(),
            "BANKCHECK_UPDATE_BASELINES=1 ctest --test-dir /src/app/build -R '^my_suite/'");
  // bankcheck's own suite runs its tests through its script.
  const RecordCommand own{"ci/test.sh", "KernelSuite", ""};
  EXPECT_EQ(own.ForCase("demo/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ci/test.sh -R "
            "'^KernelSuite/demo$'");
}

TEST(RecordCommandTest, AFolderFromTheEnvironmentIsSetAgainQuoted) {
  RecordCommand record = kMySuite;
  record.baselines_dir = "/tmp/it's here";
  EXPECT_EQ(record.ForCase("demo/stride2"),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR='/tmp/it'\\''s here' "
            "GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ctest --test-dir /src/app/build -R "
            "'^my_suite/demo$'");
  EXPECT_EQ(record.ForAll(),
            "BANKCHECK_UPDATE_BASELINES=1 BANKCHECK_BASELINES_DIR='/tmp/it'\\''s here' ctest --test-dir "
            "/src/app/build -R '^my_suite/'");
}

TEST(RecordCommandTest, WithoutASuiteItIsAPlainCtestOfTheTopic) {
  // What the CLI knows: no suite, so any suite's test of that topic, run from the build folder.
  const RecordCommand unknown;
  EXPECT_EQ(unknown.CtestNameForCase("demo/stride2"), "");
  EXPECT_EQ(
      unknown.ForCase("demo/stride2"),
      "BANKCHECK_UPDATE_BASELINES=1 GTEST_FILTER='KernelSuite/CaseTest.Run/demo_stride2' ctest -R '/demo$'");
  EXPECT_EQ(unknown.ForAll(), "BANKCHECK_UPDATE_BASELINES=1 ctest");
}

TEST(BaselineVerdictTest, NamesRoundTrip) {
  for (const BaselineVerdict verdict :
       {BaselineVerdict::kMatch, BaselineVerdict::kRegression, BaselineVerdict::kImprovement,
        BaselineVerdict::kChanged, BaselineVerdict::kMissing}) {
    EXPECT_EQ(ParseBaselineVerdict(BaselineVerdictName(verdict)), verdict);
  }
  EXPECT_EQ(ParseBaselineVerdict("worse"), std::nullopt);
}

// --- files ------------------------------------------------------------------------------------

BaselineFile MakeFile() {
  BaselineFile file;
  file.arch = "sm_90";
  file.recorded_with = MakeMetadata();
  file.recorded_with.arch.clear();
  file.cases["transpose/naive"] = {"unpadded tile", {MakeRecord(2048)}};
  file.cases["transpose/padded"] = {"padded tile", {MakeRecord(64)}};
  return file;
}

TEST(BaselineFileTest, SerializedFileIsSortedIndentedAndEndsWithANewline) {
  const std::string text = SerializeBaselineFile(MakeFile());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"arch\": \"sm_90\",\n  \"cases\": {\n    \"transpose/naive\": {\n", 0), 0u)
      << text;
  EXPECT_LT(text.find("\"transpose/naive\""), text.find("\"transpose/padded\""));
  EXPECT_LT(text.find("\"format\": \"bankcheck-baseline\""), text.find("\"recorded_with\""));
  EXPECT_THAT(text, HasSubstr("\"version\": 1\n}\n"));
  EXPECT_THAT(text, Not(HasSubstr("hardware")));
}

TEST(BaselineFileTest, RoundTrips) {
  const BaselineFile file = MakeFile();
  const BaselineFile back = ParseBaselineFile(SerializeBaselineFile(file), "x.json");
  EXPECT_EQ(back.arch, "sm_90");
  EXPECT_EQ(back.recorded_with, file.recorded_with);
  ASSERT_THAT(back.cases, SizeIs(2));
  EXPECT_EQ(back.cases.at("transpose/naive").description, "unpadded tile");
  EXPECT_EQ(back.cases.at("transpose/naive").launches.at(0).loads(), MakeRecord(2048).loads());
  EXPECT_EQ(SerializeBaselineFile(back), SerializeBaselineFile(file));
}

std::string BadFileError(const std::string& text) {
  try {
    ParseBaselineFile(text, "baselines/sm_90/demo.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << text;
  return "";
}

TEST(BaselineFileTest, SyntaxErrorGivesFileLineAndColumnAndWhatToDo) {
  const std::string text = "{\n  \"format\": \"bankcheck-baseline\",\n  \"version\": 1,,\n}\n";
  EXPECT_THAT(BadFileError(text),
              AllOf(HasSubstr("baselines/sm_90/demo.json:3:16: invalid JSON (syntax error"),
                    HasSubstr("git checkout -- baselines/sm_90/demo.json"),
                    HasSubstr("record it again with BANKCHECK_UPDATE_BASELINES=1 ctest")));
}

TEST(BaselineFileTest, TruncatedFileGivesThePositionOfItsEnd) {
  const std::string text = SerializeBaselineFile(MakeFile());
  const std::string truncated = text.substr(0, text.find("\"transpose/padded\""));
  const size_t lines = static_cast<size_t>(std::count(truncated.begin(), truncated.end(), '\n'));
  EXPECT_THAT(BadFileError(truncated),
              HasSubstr("demo.json:" + std::to_string(lines + 1) + ":5: invalid JSON"));
}

TEST(BaselineFileTest, WrongFormatAndVersionAreExplained) {
  nlohmann::json document = nlohmann::json::parse(SerializeBaselineFile(MakeFile()));
  document["format"] = "bankcheck-results";
  EXPECT_THAT(BadFileError(document.dump()),
              HasSubstr("demo.json: format: is \"bankcheck-results\", but a baseline file's format is "
                        "\"bankcheck-baseline\""));
  document["format"] = "bankcheck-baseline";
  document["version"] = 2;
  EXPECT_THAT(BadFileError(document.dump()),
              HasSubstr("version: is 2, but this bankcheck reads version 1 only"));
  document["version"] = "1";
  EXPECT_THAT(BadFileError(document.dump()), HasSubstr("version must be a non-negative integer"));
}

TEST(BaselineFileTest, WrongFieldTypeNamesTheFileTheCaseAndTheField) {
  nlohmann::json document = nlohmann::json::parse(SerializeBaselineFile(MakeFile()));
  document["cases"]["transpose/padded"]["launches"][0]["shared_st"]["ideal"] = true;
  EXPECT_THAT(
      BadFileError(document.dump()),
      HasSubstr("baselines/sm_90/demo.json: case \"transpose/padded\": launches[0].shared_st.ideal must be "
                "a non-negative integer, but is true"));
  document = nlohmann::json::parse(SerializeBaselineFile(MakeFile()));
  document["cases"]["transpose/naive"]["description"] = 3;
  EXPECT_THAT(BadFileError(document.dump()),
              HasSubstr("case \"transpose/naive\": description must be a string, but is 3"));
  document = nlohmann::json::parse(SerializeBaselineFile(MakeFile()));
  document["recorded_with"].erase("driver");
  EXPECT_THAT(BadFileError(document.dump()), HasSubstr("demo.json: recorded_with.driver is missing"));
}

// --- loading a folder ---------------------------------------------------------------------------

class BaselineSetTest : public testing_support::TempDirTest {};

TEST_F(BaselineSetTest, AbsentFolderIsItsOwnStateWithAReason) {
  const BaselineSet set = BaselineSet::Load(dir_, "sm_90", kMySuite);
  EXPECT_EQ(set.state(), BaselineSet::State::kNoFolder);
  EXPECT_FALSE(set.has_folder());
  EXPECT_THAT(
      set.no_folder_reason(),
      AllOf(HasSubstr((dir_ / "sm_90").string() + " does not exist"),
            HasSubstr("Record them with: BANKCHECK_UPDATE_BASELINES=1 ctest --test-dir /src/app/build "
                      "-R '^my_suite/'")));
  EXPECT_EQ(set.Find("transpose/naive"), nullptr);
}

TEST_F(BaselineSetTest, LoadsEveryTopicFileAndIgnoresLockAndTemporaryFiles) {
  WriteFile(dir_ / "sm_90" / "transpose.json", SerializeBaselineFile(MakeFile()));
  BaselineFile reduce;
  reduce.arch = "sm_90";
  reduce.cases["reduce/warp"] = {"warp shuffle", {MakeRecord(64)}};
  WriteFile(dir_ / "sm_90" / "reduce.json", SerializeBaselineFile(reduce));
  WriteFile(dir_ / "sm_90" / ".lock", "");
  WriteFile(dir_ / "sm_90" / "reduce.json.tmp.123", "{ half a fi");
  WriteFile(dir_ / "sm_80" / "reduce.json", "not even json");  // another arch: not read
  const BaselineSet set = BaselineSet::Load(dir_, "sm_90");
  EXPECT_EQ(set.state(), BaselineSet::State::kLoaded);
  EXPECT_THAT(set.entries(), SizeIs(3));
  ASSERT_NE(set.Find("reduce/warp"), nullptr);
  EXPECT_EQ(set.Find("reduce/warp")->description, "warp shuffle");
  EXPECT_EQ(set.FileForCase("transpose/naive"), dir_ / "sm_90" / "transpose.json");
}

TEST_F(BaselineSetTest, EmptyFolderIsLoadedWithNoEntries) {
  std::filesystem::create_directories(dir_ / "sm_90");
  const BaselineSet set = BaselineSet::Load(dir_, "sm_90");
  EXPECT_TRUE(set.has_folder());
  EXPECT_THAT(set.entries(), IsEmpty());
}

TEST_F(BaselineSetTest, MalformedFileIsAnErrorNamingIt) {
  WriteFile(dir_ / "sm_90" / "transpose.json", "{\"format\": \"bankcheck-baseline\", ]");
  try {
    BaselineSet::Load(dir_, "sm_90");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr((dir_ / "sm_90" / "transpose.json").string() + ":1:34: invalid JSON"));
  }
}

TEST_F(BaselineSetTest, CaseInAnotherTopicsFileOrArchIsAnError) {
  const auto load_error = [this] {
    try {
      BaselineSet::Load(dir_, "sm_90");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  BaselineFile file = MakeFile();
  WriteFile(dir_ / "sm_90" / "reduce.json", SerializeBaselineFile(file));
  EXPECT_THAT(load_error(), HasSubstr("case \"transpose/naive\" belongs in " +
                                      (dir_ / "sm_90" / "transpose.json").string()));
  std::filesystem::remove(dir_ / "sm_90" / "reduce.json");
  file.arch = "sm_80";
  WriteFile(dir_ / "sm_90" / "transpose.json", SerializeBaselineFile(file));
  EXPECT_THAT(load_error(), HasSubstr("arch is \"sm_80\", but the file is in the sm_90 folder"));
}

TEST_F(BaselineSetTest, EmptyArchIsRejected) { EXPECT_THROW(BaselineSet::Load(dir_, ""), Error); }

// --- comparing ----------------------------------------------------------------------------------

BaselineSet SetWith(const std::string& name, std::vector<LaunchRecord> launches) {
  return BaselineSet::FromEntries("baselines/sm_90", "sm_90", {{name, {"d", std::move(launches)}}}, kMySuite);
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

TEST(CompareWithBaselineTest, MoreConflictsIsARegressionWithTheTableAndTheCommand) {
  const BaselineComparison comparison = CompareWithBaseline(SetWith("transpose/padded", {MakeRecord(64)}),
                                                            "transpose/padded", {MakeRecord(2048)});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kRegression);
  EXPECT_TRUE(comparison.regressed());
  EXPECT_THAT(
      comparison.differences,
      ElementsAre(
          "launch 0 (transpose(float*, float const*)) ld: wavefronts 64 -> 2048, conflicts 0 -> 1984"));
  EXPECT_THAT(
      comparison.message,
      AllOf(HasSubstr("REGRESSION: case \"transpose/padded\" has more shared-memory bank conflicts"),
            HasSubstr("baselines/sm_90/transpose.json"),
            HasSubstr("BANKCHECK_UPDATE_BASELINES=1 GTEST_FILTER='KernelSuite/CaseTest.Run/"
                      "transpose_padded' ctest --test-dir /src/app/build -R '^my_suite/transpose$'")));
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
  recorded.shared[SharedKind::kAtomic] = {256, 806, 0, Provenance::kNotMeasured};  // as a baseline holds it
  recorded.shared[SharedKind::kLdmatrix] = {16, 64, 64};
  LaunchRecord measured = recorded;
  measured.shared[SharedKind::kAtomic] = {256, 806, 250, Provenance::kHardware};  // varies from run to run
  EXPECT_EQ(CompareWithBaseline(SetWith("a/b", {recorded}), "a/b", {measured}).verdict,
            BaselineVerdict::kMatch);

  measured.shared[SharedKind::kLdmatrix] = {16, 512, 64};  // the swizzle lost: 8-way
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
  recorded.shared[SharedKind::kAtomic] = {16, 32, 16};
  LaunchRecord measured = recorded;
  measured.shared[SharedKind::kAtomic] = {16, 32, 0, Provenance::kNotMeasured};
  const BaselineComparison comparison = CompareLaunches({recorded}, {measured});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kChanged);
  EXPECT_THAT(comparison.differences,
              ElementsAre(HasSubstr("atom: ideal 16 -> not measured (conflicts not compared)")));
  EXPECT_EQ(CompareLaunches({measured}, {recorded}).verdict, BaselineVerdict::kChanged);

  // More wavefronts is still a regression, whatever is known of the ideal.
  measured.shared[SharedKind::kAtomic].wavefronts = 64;
  EXPECT_EQ(CompareLaunches({recorded}, {measured}).verdict, BaselineVerdict::kRegression);
}

TEST(CompareWithBaselineTest, FewerConflictsIsAnImprovement) {
  const BaselineComparison comparison = CompareWithBaseline(SetWith("transpose/naive", {MakeRecord(2048)}),
                                                            "transpose/naive", {MakeRecord(64)});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kImprovement);
  EXPECT_THAT(comparison.message,
              AllOf(HasSubstr("IMPROVEMENT"), HasSubstr("Record the improvement"),
                    HasSubstr("GTEST_FILTER='KernelSuite/CaseTest.Run/transpose_naive' "
                              "ctest --test-dir /src/app/build -R '^my_suite/transpose$'")));
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
      AllOf(HasSubstr("CHANGED"), HasSubstr("GTEST_FILTER='KernelSuite/CaseTest.Run/a_b' ctest --test-dir "
                                            "/src/app/build -R '^my_suite/a$'")));
}

TEST(CompareWithBaselineTest, AddedLaunchWithTrafficIsARegressionAndRemovedOneAnImprovement) {
  const BaselineComparison added = CompareLaunches({MakeRecord(64)}, {MakeRecord(64), MakeRecord(64)});
  EXPECT_EQ(added.verdict, BaselineVerdict::kRegression);
  EXPECT_THAT(added.table, HasSubstr("- -> 64"));
  EXPECT_EQ(CompareLaunches({MakeRecord(64), MakeRecord(64)}, {MakeRecord(64)}).verdict,
            BaselineVerdict::kImprovement);
}

TEST(CompareWithBaselineTest, CaseWithoutEntryIsMissingWithTheExactRecordCommand) {
  const BaselineComparison comparison = CompareWithBaseline(SetWith("transpose/naive", {MakeRecord(64)}),
                                                            "transpose/padded-33", {MakeRecord(64)});
  EXPECT_EQ(comparison.verdict, BaselineVerdict::kMissing);
  EXPECT_EQ(comparison.message,
            "MISSING: case \"transpose/padded-33\" (test my_suite/transpose) has no baseline in "
            "baselines/sm_90/transpose.json. Record it with:\n  BANKCHECK_UPDATE_BASELINES=1 "
            "GTEST_FILTER='KernelSuite/CaseTest.Run/transpose_padded_33' ctest --test-dir /src/app/build -R "
            "'^my_suite/transpose$'\n");
}

// --- updating -----------------------------------------------------------------------------------

class UpdateBaselinesTest : public testing_support::TempDirTest {
 protected:
  std::filesystem::path File() const { return dir_ / "sm_90" / "transpose.json"; }
  // The text of one case's block in a file written by bankcheck.
  static std::string CaseBlock(const std::string& text, const std::string& name) {
    const size_t start = text.find("    \"" + name + "\": {");
    const size_t end = text.find("\n    }", start);
    return start == std::string::npos ? "" : text.substr(start, end - start);
  }
};

TEST_F(UpdateBaselinesTest, CreatesTheFolderAndFile) {
  const auto written =
      UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/naive", "naive", {MakeRecord(2048)}}});
  EXPECT_THAT(written, ElementsAre(File()));
  const BaselineFile file = ReadBaselineFile(File());
  EXPECT_EQ(file.arch, "sm_90");
  EXPECT_EQ(file.recorded_with.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(file.cases.at("transpose/naive").launches.at(0).loads().wavefronts, 2048u);
  EXPECT_EQ(ReadFile(File()), SerializeBaselineFile(file));
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(UpdateBaselinesTest, ReplacesOneCaseAndLeavesTheOthersByteIdentical) {
  UpdateBaselines(dir_, "sm_90", MakeMetadata("2025-01-01T00:00:00Z"),
                  {{"transpose/a", "a", {MakeRecord(2048)}},
                   {"transpose/b", "b", {MakeRecord(64)}},
                   {"transpose/c", "c", {MakeRecord(128), MakeRecord(256)}}});
  const std::string before = ReadFile(File());
  UpdateBaselines(dir_, "sm_90", MakeMetadata("2025-02-02T00:00:00Z"),
                  {{"transpose/b", "b v2", {MakeRecord(96)}}});
  const std::string after = ReadFile(File());
  EXPECT_EQ(CaseBlock(after, "transpose/a"), CaseBlock(before, "transpose/a"));
  EXPECT_EQ(CaseBlock(after, "transpose/c"), CaseBlock(before, "transpose/c"));
  EXPECT_FALSE(CaseBlock(after, "transpose/a").empty());
  EXPECT_NE(CaseBlock(after, "transpose/b"), CaseBlock(before, "transpose/b"));
  const BaselineFile file = ReadBaselineFile(File());
  EXPECT_EQ(file.cases.at("transpose/b").description, "b v2");
  EXPECT_EQ(file.cases.at("transpose/b").launches.at(0).loads().wavefronts, 96u);
  EXPECT_EQ(file.recorded_with.date, "2025-02-02T00:00:00Z");
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(UpdateBaselinesTest, RecordingTheSameValuesAgainLeavesTheFileAlone) {
  UpdateBaselines(dir_, "sm_90", MakeMetadata("2025-01-01T00:00:00Z"),
                  {{"transpose/a", "a", {MakeRecord(64)}}});
  const std::string before = ReadFile(File());
  const auto written = UpdateBaselines(dir_, "sm_90", MakeMetadata("2025-03-03T00:00:00Z"),
                                       {{"transpose/a", "a", {MakeRecord(64)}}});
  EXPECT_THAT(written, IsEmpty());
  EXPECT_EQ(ReadFile(File()), before);
}

TEST_F(UpdateBaselinesTest, WritesEachTopicToItsOwnFile) {
  const auto written =
      UpdateBaselines(dir_, "sm_90", MakeMetadata(),
                      {{"transpose/a", "", {MakeRecord(64)}}, {"reduce/a", "", {MakeRecord(64)}}});
  EXPECT_THAT(written, ElementsAre(dir_ / "sm_90" / "reduce.json", dir_ / "sm_90" / "transpose.json"));
  EXPECT_THAT(BaselineSet::Load(dir_, "sm_90").entries(), SizeIs(2));
}

TEST_F(UpdateBaselinesTest, RefusesToOverwriteAMalformedFile) {
  const std::string damaged =
      "{\n  \"format\": \"bankcheck-baseline\",\n  \"cases\": {\n    \"transpose/a\": {\n";
  WriteFile(File(), damaged);
  try {
    UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/b", "", {MakeRecord(64)}}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), AllOf(HasSubstr("not updating " + File().string() + ", which is malformed"),
                                HasSubstr(File().string() + ":5:1: invalid JSON")));
  }
  EXPECT_EQ(ReadFile(File()), damaged);
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(UpdateBaselinesTest, RefusesAFileWithAWrongFieldOrArch) {
  UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/a", "", {MakeRecord(64)}}});
  nlohmann::json document = nlohmann::json::parse(ReadFile(File()));
  document["cases"]["transpose/a"]["launches"] = "none";
  WriteFile(File(), document.dump());
  EXPECT_THROW(UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/b", "", {MakeRecord(64)}}}),
               Error);
  EXPECT_EQ(ReadFile(File()), document.dump());
  document["cases"]["transpose/a"]["launches"] = nlohmann::json::array();
  document["arch"] = "sm_80";
  WriteFile(File(), document.dump());
  EXPECT_THROW(UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/b", "", {MakeRecord(64)}}}),
               Error);
  EXPECT_EQ(ReadFile(File()), document.dump());
}

TEST_F(UpdateBaselinesTest, RejectsCaseNamesThatCannotNameAFile) {
  EXPECT_THROW(UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"../escape/x", "", {}}}), Error);
  EXPECT_THROW(UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"/x", "", {}}}), Error);
  EXPECT_THROW(UpdateBaselines(dir_, "../sm_90", MakeMetadata(), {{"a/x", "", {}}}), Error);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "sm_90"));
}

TEST_F(UpdateBaselinesTest, ConcurrentThreadsUpdatingDifferentCasesAllLand) {
  constexpr int kThreads = 8;
  constexpr int kCasesEach = 5;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      try {
        for (int i = 0; i < kCasesEach; ++i) {
          const std::string name = "transpose/t" + std::to_string(t) + "_" + std::to_string(i);
          UpdateBaselines(dir_, "sm_90", MakeMetadata(),
                          {{name, name, {MakeRecord(64 + static_cast<uint64_t>(t))}}});
        }
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const BaselineFile file = ReadBaselineFile(File());
  EXPECT_EQ(file.cases.size(), static_cast<size_t>(kThreads * kCasesEach));
  EXPECT_EQ(file.cases.at("transpose/t3_4").launches.at(0).loads().wavefronts, 67u);
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

TEST_F(UpdateBaselinesTest, ConcurrentProcessesUpdatingDifferentCasesAllLand) {
  // As CTest runs the suite: one process per case, all recording into the same topic file.
  constexpr int kProcesses = 6;
  constexpr int kCasesEach = 4;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        for (int i = 0; i < kCasesEach; ++i) {
          const std::string name = "transpose/p" + std::to_string(p) + "_" + std::to_string(i);
          UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{name, name, {MakeRecord(64)}}});
        }
      } catch (...) {
        status = 1;
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const BaselineFile file = ReadBaselineFile(File());
  EXPECT_EQ(file.cases.size(), static_cast<size_t>(kProcesses * kCasesEach));
  EXPECT_EQ(file.cases.count("transpose/p5_3"), 1u);
  EXPECT_THAT(TemporaryFilesUnder(dir_), IsEmpty());
}

// --- stale entries ------------------------------------------------------------------------------

TEST_F(UpdateBaselinesTest, StaleEntriesAreThoseWithoutARegisteredCase) {
  UpdateBaselines(dir_, "sm_90", MakeMetadata(),
                  {{"transpose/a", "", {MakeRecord(64)}},
                   {"transpose/old", "", {MakeRecord(64)}},
                   {"reduce/gone", "", {MakeRecord(64)}}});
  const BaselineSet set = BaselineSet::Load(dir_, "sm_90");
  const std::vector<std::string> stale = StaleBaselineEntries(set, {"transpose/a", "transpose/new"});
  EXPECT_THAT(stale, ElementsAre("reduce/gone", "transpose/old"));
  EXPECT_THAT(StaleBaselineEntries(BaselineSet::Load(dir_, "sm_70"), {"transpose/a"}), IsEmpty());
}

TEST_F(UpdateBaselinesTest, RemovingEntriesKeepsTheRestAndDeletesEmptiedFiles) {
  UpdateBaselines(dir_, "sm_90", MakeMetadata(),
                  {{"transpose/a", "", {MakeRecord(64)}},
                   {"transpose/old", "", {MakeRecord(64)}},
                   {"reduce/gone", "", {MakeRecord(64)}}});
  const std::string block = CaseBlock(ReadFile(File()), "transpose/a");
  const auto changed = RemoveBaselineEntries(dir_, "sm_90", {"transpose/old", "reduce/gone", "nothing/here"});
  EXPECT_THAT(changed, ElementsAre(dir_ / "sm_90" / "reduce.json", File()));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "sm_90" / "reduce.json"));
  EXPECT_EQ(CaseBlock(ReadFile(File()), "transpose/a"), block);
  EXPECT_THAT(BaselineSet::Load(dir_, "sm_90").entries(), SizeIs(1));
}

}  // namespace
}  // namespace bankcheck
