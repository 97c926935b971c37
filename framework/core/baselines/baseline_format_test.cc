#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "core/platform/test_support.h"

// The baseline file format (baseline_format.cc).
namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using testing_support::MakeBaselineFile;
using testing_support::MakeLine;
using testing_support::MakeRecord;

TEST(CaseNamesTest, TheTopicIsTheNameUpToTheFirstSlash) {
  EXPECT_EQ(TopicOfCase("transpose/naive/4096"), "transpose");
  EXPECT_EQ(TopicOfCase("single"), "single");
}

TEST(CaseNamesTest, EveryNameHasATopicThatCanNameAFile) {
  // `bankcheck run`'s names: repeated launches outside any range, and NVTX ranges of any text.
  EXPECT_EQ(TopicOfCase("distribution_elementwise_grid_stride_kernel#2"),
            "distribution_elementwise_grid_stride_kernel");
  EXPECT_EQ(TopicOfCase("gemm/128/kernel#3"), "gemm");
  EXPECT_EQ(TopicOfCase("my range: step 1/kernel"), "my_range__step_1");
  EXPECT_EQ(TopicOfCase("kernel (process 2)"), "kernel__process_2_");
  EXPECT_EQ(TopicOfCase("../escape/x"), "__");
  EXPECT_EQ(TopicOfCase(".hidden.v2/x"), "_hidden.v2");
  EXPECT_EQ(TopicOfCase("/x"), "_");
  EXPECT_EQ(TopicOfCase("#2"), "_");
  EXPECT_EQ(TopicOfCase("\xc3\xa9t\xc3\xa9/x"), "__t__");
  EXPECT_EQ(TopicOfCase(std::string(300, 'a')), std::string(kMaxTopicLength, 'a'));
}

TEST(RecordAdviceTest, WithoutASuiteItIsAPlainCtest) {
  const RecordAdvice unknown;
  EXPECT_EQ(unknown.ForAll(), "BANKCHECK_UPDATE_BASELINES=1 ctest");
  EXPECT_EQ(unknown.ForCase("demo/stride2"), "BANKCHECK_UPDATE_BASELINES=1 ctest");
  EXPECT_EQ(unknown.TestOfCase("demo/stride2"), "");
}

// --- files ------------------------------------------------------------------------------------

TEST(BaselineFileTest, SerializedFileIsSortedIndentedAndEndsWithANewline) {
  const std::string text = SerializeBaselineFile(MakeBaselineFile());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"arch\": \"sm_90\",\n  \"cases\": {\n    \"transpose/naive\": {\n", 0), 0u)
      << text;
  EXPECT_LT(text.find("\"transpose/naive\""), text.find("\"transpose/padded\""));
  EXPECT_LT(text.find("\"format\": \"bankcheck-baseline\""), text.find("\"recorded_with\""));
  EXPECT_THAT(text, HasSubstr("\"version\": 5\n}\n"));
  EXPECT_THAT(text, Not(HasSubstr("hardware")));
}

TEST(BaselineFileTest, RoundTrips) {
  const BaselineFile file = MakeBaselineFile();
  const BaselineFile back = ParseBaselineFile(SerializeBaselineFile(file), "x.json");
  EXPECT_EQ(back.arch, "sm_90");
  EXPECT_EQ(back.recorded_with, file.recorded_with);
  ASSERT_THAT(back.cases, SizeIs(2));
  EXPECT_EQ(back.cases.at("transpose/naive").description, "unpadded tile");
  EXPECT_EQ(back.cases.at("transpose/naive").launches.at(0).loads(), MakeRecord(2048).loads());
  EXPECT_EQ(SerializeBaselineFile(back), SerializeBaselineFile(file));
}

TEST(BaselineFileTest, KeepsTheCompilerWhenKnown) {
  BaselineFile file = MakeBaselineFile();
  EXPECT_THAT(SerializeBaselineFile(file), Not(HasSubstr("cuda_compiler")))
      << "files from before read as before";
  file.recorded_with.cuda_compiler = "NVIDIA 13.0.88";
  const std::string text = SerializeBaselineFile(file);
  EXPECT_THAT(text, HasSubstr("\"cuda_compiler\": \"NVIDIA 13.0.88\""));
  EXPECT_EQ(ParseBaselineFile(text, "x.json").recorded_with, file.recorded_with);
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

// Version 2 keeps each launch's per-line counts; a version 1 file (launch totals only) still loads,
// its launches without lines.
TEST(BaselineFileTest, LinesRoundTripAndVersionOneFilesStillLoad) {
  BaselineFile file = MakeBaselineFile();
  const LineRecord line = MakeLine("kernels/transpose.cu", 31, "out[i] = tile[x][y];",
                                   MemoryKind::kSharedLoad, 64, 2048, 64, {"LDS"});
  file.cases.at("transpose/naive").launches.at(0).lines = std::vector<LineRecord>{line};
  const std::string text = SerializeBaselineFile(file);
  EXPECT_THAT(text, HasSubstr("\"code\": \"out[i] = tile[x][y];\""));
  const BaselineFile back = ParseBaselineFile(text, "x.json");
  const std::optional<std::vector<LineRecord>>& lines = back.cases.at("transpose/naive").launches.at(0).lines;
  ASSERT_TRUE(lines.has_value());
  ASSERT_THAT(*lines, SizeIs(1));
  EXPECT_EQ(lines->at(0).code, line.code);
  EXPECT_EQ(lines->at(0).wavefronts, 2048u);
  EXPECT_FALSE(back.cases.at("transpose/padded").launches.at(0).lines.has_value());
  EXPECT_EQ(SerializeBaselineFile(back), text);

  nlohmann::json old = nlohmann::json::parse(SerializeBaselineFile(MakeBaselineFile()));
  old["version"] = 1;
  const BaselineFile version_one = ParseBaselineFile(old.dump(), "old.json");
  EXPECT_FALSE(version_one.cases.at("transpose/naive").launches.at(0).lines.has_value());
  EXPECT_FALSE(HasLineData(version_one.cases.at("transpose/naive").launches));
  EXPECT_TRUE(HasLineData(back.cases.at("transpose/naive").launches));
  // Versions 1 and 2 did not count global and local memory: their launches say so, and compare
  // without them; version 3 counted them (zero where absent).
  EXPECT_TRUE(version_one.cases.at("transpose/naive").launches.at(0).not_counted[MemoryKind::kGlobalLoad]);
  old["version"] = 2;
  const BaselineFile version_two = ParseBaselineFile(old.dump(), "old.json");
  EXPECT_TRUE(version_two.cases.at("transpose/naive").launches.at(0).not_counted[MemoryKind::kLocalStore]);
  EXPECT_FALSE(version_two.cases.at("transpose/naive").launches.at(0).not_counted[MemoryKind::kSharedLoad]);
  EXPECT_FALSE(back.cases.at("transpose/naive").launches.at(0).not_counted[MemoryKind::kGlobalLoad]);
  // Version 3 did not count cp.async's global reads (global_ldgsts, version 4), and only them.
  old["version"] = 3;
  const LaunchRecord version_three =
      ParseBaselineFile(old.dump(), "old.json").cases.at("transpose/naive").launches.at(0);
  EXPECT_TRUE(version_three.not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_FALSE(version_three.not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_FALSE(version_three.not_counted[MemoryKind::kSharedCpAsync]);
  EXPECT_FALSE(back.cases.at("transpose/naive").launches.at(0).not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_TRUE(version_three.not_counted[MemoryKind::kGlobalTmaLoad]);
  // Version 4 did not count TMA's global traffic (global_tma_ld, global_tma_st, version 5), and only it.
  old["version"] = 4;
  const LaunchRecord version_four =
      ParseBaselineFile(old.dump(), "old.json").cases.at("transpose/naive").launches.at(0);
  EXPECT_TRUE(version_four.not_counted[MemoryKind::kGlobalTmaLoad]);
  EXPECT_TRUE(version_four.not_counted[MemoryKind::kGlobalTmaStore]);
  EXPECT_FALSE(version_four.not_counted[MemoryKind::kGlobalCpAsync]);
  EXPECT_FALSE(back.cases.at("transpose/naive").launches.at(0).not_counted[MemoryKind::kGlobalTmaLoad]);
  // Lines in a file that says version 1 are a hand edit gone wrong.
  nlohmann::json mixed = nlohmann::json::parse(text);
  mixed["version"] = 1;
  EXPECT_THAT(BadFileError(mixed.dump()),
              HasSubstr("case \"transpose/naive\": launches[0] holds \"lines\", which a version 1 baseline"));
}

TEST(BaselineFileTest, SyntaxErrorGivesFileLineAndColumnAndWhatToDo) {
  const std::string text = "{\n  \"format\": \"bankcheck-baseline\",\n  \"version\": 1,,\n}\n";
  EXPECT_THAT(BadFileError(text),
              AllOf(HasSubstr("baselines/sm_90/demo.json:3:16: invalid JSON (syntax error"),
                    HasSubstr("git checkout -- baselines/sm_90/demo.json"),
                    HasSubstr("record it again with BANKCHECK_UPDATE_BASELINES=1 ctest")));
}

TEST(BaselineFileTest, TruncatedFileGivesThePositionOfItsEnd) {
  const std::string text = SerializeBaselineFile(MakeBaselineFile());
  const std::string truncated = text.substr(0, text.find("\"transpose/padded\""));
  const size_t lines = static_cast<size_t>(std::count(truncated.begin(), truncated.end(), '\n'));
  EXPECT_THAT(BadFileError(truncated),
              HasSubstr("demo.json:" + std::to_string(lines + 1) + ":5: invalid JSON"));
}

TEST(BaselineFileTest, WrongFormatAndVersionAreExplained) {
  nlohmann::json document = nlohmann::json::parse(SerializeBaselineFile(MakeBaselineFile()));
  document["format"] = "bankcheck-results";
  EXPECT_THAT(BadFileError(document.dump()),
              HasSubstr("demo.json: format: is \"bankcheck-results\", but a baseline file's format is "
                        "\"bankcheck-baseline\""));
  document["format"] = "bankcheck-baseline";
  document["version"] = 6;
  EXPECT_THAT(BadFileError(document.dump()),
              HasSubstr("version: is 6, but this bankcheck reads versions 1 to 5 only"));
  document["version"] = 0;
  EXPECT_THAT(BadFileError(document.dump()), HasSubstr("version: is 0"));
  document["version"] = "1";
  EXPECT_THAT(BadFileError(document.dump()), HasSubstr("version must be a non-negative integer"));
}

TEST(BaselineFileTest, WrongFieldTypeNamesTheFileTheCaseAndTheField) {
  nlohmann::json document = nlohmann::json::parse(SerializeBaselineFile(MakeBaselineFile()));
  document["cases"]["transpose/padded"]["launches"][0]["shared_st"]["ideal"] = true;
  EXPECT_THAT(
      BadFileError(document.dump()),
      HasSubstr("baselines/sm_90/demo.json: case \"transpose/padded\": launches[0].shared_st.ideal must be "
                "a non-negative integer, but is true"));
  document = nlohmann::json::parse(SerializeBaselineFile(MakeBaselineFile()));
  document["cases"]["transpose/naive"]["description"] = 3;
  EXPECT_THAT(BadFileError(document.dump()),
              HasSubstr("case \"transpose/naive\": description must be a string, but is 3"));
  document = nlohmann::json::parse(SerializeBaselineFile(MakeBaselineFile()));
  document["recorded_with"].erase("driver");
  EXPECT_THAT(BadFileError(document.dump()), HasSubstr("demo.json: recorded_with.driver is missing"));
}

}  // namespace
}  // namespace bankcheck
