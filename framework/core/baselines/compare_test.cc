#include "bankcheck/core/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_support::MakeLine;
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
  CompareOptions options;
  options.all = true;  // t/gone, only in the old file, is listed as removed
  const CompareOutcome outcome = CompareMeasurementSets(before, after, options);
  EXPECT_TRUE(outcome.regressed());
  EXPECT_EQ(outcome.regressions, 1u);
  EXPECT_EQ(outcome.improvements, 1u);
  EXPECT_EQ(outcome.unchanged, 1u);
  EXPECT_THAT(outcome.added, ElementsAre("t/added"));
  EXPECT_THAT(outcome.removed, ElementsAre("t/gone"));
  const std::string& text = outcome.output;
  EXPECT_THAT(
      text,
      AllOf(
          HasSubstr("**1 regressed**, 1 improved, 0 changed, 1 unchanged; 1 new, 1 removed"),
          HasSubstr("| <code>t/worse</code> | **regression** | ld 0 → 1984 · st 0 | ld 64 → 2048 · st 64 |"),
          HasSubstr("| <code>t/better</code> | improvement | ld 1984 → 0 · st 0 | ld 2048 → 64 · st 64 |"),
          HasSubstr("New cases (only in the new file):\n\n- <code>t/added</code>"),
          HasSubstr("Removed cases (only in the old file):\n\n- <code>t/gone</code>")));
  EXPECT_LT(text.find("<code>t/worse</code> |"), text.find("<code>t/better</code> |"));
  EXPECT_THAT(text, Not(HasSubstr("| <code>t/same</code>")));
}

TEST_F(CompareTest, ASubsetComparesOnlyTheCasesTheNewSideHolds) {
  const MeasurementSet before =
      ReadMeasurementSet(WriteBaseline({{"t/same", 64}, {"other/a", 64}, {"other/b", 64}}));
  const MeasurementSet after = ReadMeasurementSet(WriteRun("new.json", {{"t/same", 64}}));
  const CompareOutcome outcome = CompareMeasurementSets(before, after);
  EXPECT_THAT(outcome.removed, IsEmpty());
  EXPECT_EQ(outcome.left_out, 2u);
  EXPECT_THAT(outcome.output,
              AllOf(HasSubstr("1 unchanged; 0 new, 0 removed"), Not(HasSubstr("Removed cases")),
                    HasSubstr("2 cases of the old side that the new one does not hold")));
  CompareOptions all;
  all.all = true;
  EXPECT_THAT(CompareMeasurementSets(before, after, all).removed, ElementsAre("other/a", "other/b"));
}

// The JSON and the text are rendered from the outcome the Markdown is: their counts agree.
TEST_F(CompareTest, JsonAndTextAgreeWithTheMarkdown) {
  const MeasurementSet before = ReadMeasurementSet(
      WriteBaseline({{"t/worse", 64}, {"t/better", 2048}, {"t/same", 64}, {"t/gone", 64}}));
  const MeasurementSet after = ReadMeasurementSet(
      WriteRun("new.json", {{"t/worse", 2048}, {"t/better", 64}, {"t/same", 64}, {"t/added", 64}}));
  for (const bool all : {false, true}) {
    CompareOptions options;
    options.all = all;
    const std::string markdown = CompareMeasurementSets(before, after, options).output;
    options.format = OutputFormat::kJson;
    const nlohmann::json json = nlohmann::json::parse(CompareMeasurementSets(before, after, options).output);
    EXPECT_EQ(json["format"], "bankcheck-compare");
    EXPECT_EQ(json["version"], 1);
    const nlohmann::json& totals = json["totals"];
    const auto count = [&](const char* key) { return std::to_string(totals[key].get<size_t>()); };
    EXPECT_THAT(markdown,
                HasSubstr("**" + count("regressions") + " regressed**, " + count("improvements") +
                          " improved, " + count("changed") + " changed, " + count("unchanged") +
                          " unchanged; " + count("added") + " new, " + count("removed") + " removed"));
    EXPECT_EQ(json["regressions"].size(), totals["regressions"].get<size_t>());
    EXPECT_EQ(json["improvements"].size(), totals["improvements"].get<size_t>());
    EXPECT_EQ(json["removed"].size(), totals["removed"].get<size_t>());
    EXPECT_EQ(json["cases"].size(), 3u);
    EXPECT_EQ(json["regressions"][0]["name"], "t/worse");
    EXPECT_THAT(json["regressions"][0]["differences"][0].get<std::string>(),
                HasSubstr("wavefronts 64 -> 2048"));
    EXPECT_EQ(json["missing"][0]["name"], "t/added");
    EXPECT_EQ(json["missing"][0]["verdict"], "missing");
    EXPECT_EQ(totals["left_out"], all ? 0 : 1);
    options.format = OutputFormat::kText;
    const std::string text = CompareMeasurementSets(before, after, options).output;
    EXPECT_THAT(text, AllOf(HasSubstr("1 regressed, 1 improved, 0 changed, 1 unchanged; 1 new"),
                            HasSubstr("t/worse   regression   ld 0 -> 1984"), Not(HasSubstr("**")),
                            Not(HasSubstr("<code>"))));
  }
}

TEST_F(CompareTest, OnlyImprovementsIsNotARegression) {
  const CompareOutcome outcome =
      CompareMeasurementSets(ReadMeasurementSet(WriteRun("old.json", {{"t/a", 2048}})),
                             ReadMeasurementSet(WriteRun("new.json", {{"t/a", 64}})));
  EXPECT_FALSE(outcome.regressed());
  EXPECT_EQ(outcome.improvements, 1u);
  // Not a regression, but a difference from OLD: it fails, as in the suite (verdict.h).
  EXPECT_TRUE(outcome.fails());
  EXPECT_THAT(outcome.output, HasSubstr("**1 case fails: 1 improvement.**"));
}

// OLD is NEW's baseline: NEW's cases OLD did not measure (new, or skipped there) are missing and
// fail unless allowed; a case NEW skipped passes; OLD's cases NEW lacks are not judged.
TEST_F(CompareTest, WhatTheOldSideDidNotMeasureIsMissing) {
  const MeasurementSet old_run =
      ReadMeasurementSet(WriteRun("old.json", {{"t/a", 64}, {"t/gone", 64}}, {"t/b"}));
  const MeasurementSet new_run =
      ReadMeasurementSet(WriteRun("new.json", {{"t/a", 64}, {"t/b", 64}, {"t/c", 64}}));
  CompareOptions options;
  options.format = OutputFormat::kJson;
  CompareOutcome outcome = CompareMeasurementSets(old_run, new_run, options);
  EXPECT_TRUE(outcome.fails());
  EXPECT_EQ(outcome.verdicts.failing, 2u);
  EXPECT_EQ(outcome.verdicts.Line(), "2 cases fail: 2 missing.");
  const nlohmann::json json = nlohmann::json::parse(outcome.output);
  EXPECT_EQ(json["gate"]["fails"], true);
  EXPECT_EQ(json["gate"]["failing"], 2);
  EXPECT_EQ(json["gate"]["allow_missing"], false);
  options.policy.allow_missing = true;
  outcome = CompareMeasurementSets(old_run, new_run, options);
  EXPECT_FALSE(outcome.fails());
  EXPECT_EQ(nlohmann::json::parse(outcome.output)["gate"]["summary"], "No case fails.");

  // Skipped in NEW: passes, whatever OLD measured.
  EXPECT_FALSE(
      CompareMeasurementSets(old_run, ReadMeasurementSet(WriteRun("skipped.json", {}, {"t/a"}))).fails());
}

TEST_F(CompareTest, SkippedCasesAreNeitherNewNorRemoved) {
  const CompareOutcome outcome =
      CompareMeasurementSets(ReadMeasurementSet(WriteRun("old.json", {{"t/a", 64}})),
                             ReadMeasurementSet(WriteRun("new.json", {}, {"t/a"})));
  EXPECT_THAT(outcome.removed, IsEmpty());
  EXPECT_THAT(outcome.output, HasSubstr("Not compared (skipped in one of the runs):\n\n- <code>t/a</code>"));
}

TEST_F(CompareTest, DifferentArchitecturesAreWarnedAbout) {
  const MeasurementSet before = ReadMeasurementSet(WriteBaseline({{"t/a", 64}}));
  MeasurementSet after = before;
  after.arch = "sm_80";
  EXPECT_THAT(CompareMeasurementSets(before, after).output,
              HasSubstr("different architectures (sm_90 and sm_80)"));
}

// Issue 26: the files compared can come from a pull request; nothing in them may forge the summary.

TEST(CompareMarkdownTest, CraftedNamesPathsAndMetadataRenderInert) {
  const std::string name = "t/x`</summary></details><a href=y>|";
  MeasurementSet before;
  before.path = "old\n## bankcheck compare: 0 regressed.json";
  before.kind = "baseline";
  before.arch = "sm_90\n\n**0 regressed**";
  before.cases[name] = {MakeRecord(64, 64, "k```\n[click](https://evil.example)\n")};
  before.cases["t/gone`<b>"] = {MakeRecord(64)};
  MeasurementSet after = before;
  after.path = "new.json";
  after.arch = "sm_80";
  after.cases.erase("t/gone`<b>");
  after.cases[name] = {MakeRecord(2048, 64, "k```\n[click](https://evil.example)\n")};
  CompareOptions options;
  options.all = true;  // the removed case's name is listed too
  const CompareOutcome outcome = CompareMeasurementSets(before, after, options);
  const std::string& text = outcome.output;
  const std::string code = "<code>t/x&#96;&lt;/summary&gt;&lt;/details&gt;&lt;a href=y&gt;&#124;</code>";
  EXPECT_EQ(text.substr(0, text.find("\n\n")), "## bankcheck compare");
  EXPECT_THAT(
      text, AllOf(HasSubstr("Old: <code>old &#35;&#35; bankcheck compare: 0 regressed.json</code> (baseline, "
                            "sm_90  &#42;&#42;0 regressed&#42;&#42;)"),
                  HasSubstr("different architectures (sm_90  &#42;&#42;0 regressed&#42;&#42; and sm_80)"),
                  HasSubstr("| " + code + " | **regression** |"),
                  HasSubstr("<details><summary>" + code + ": regression</summary>"),
                  HasSubstr("- <code>t/gone&#96;&lt;b&gt;</code>"), Not(HasSubstr("</summary></details>")),
                  Not(HasSubstr("<a href")), Not(HasSubstr("<b>")), Not(HasSubstr("\n## bankcheck compare:")),
                  Not(HasSubstr("\n**0 regressed**"))));
  // The kernel name in the before -> after table cannot close the table's code block.
  const size_t block = text.find("<details><summary>");
  ASSERT_NE(block, std::string::npos);
  EXPECT_EQ(text.compare(text.find("</summary>\n\n", block) + 12, 5, "````\n"), 0) << text.substr(block);
  EXPECT_LT(text.find("**1 regressed**"), block);
}

TEST(CompareMarkdownTest, ManyCasesStayWithinTheBudgetAndShowTheRegressionFirst) {
  MeasurementSet before, after;
  before.path = "old.json";
  after.path = "new.json";
  before.kind = after.kind = "results";
  for (int i = 0; i < 6000; ++i)
    after.cases["a/new_" + std::to_string(i) + std::string(180, 'n')] = {MakeRecord(64)};
  before.cases["zz/regressed"] = {MakeRecord(64)};
  after.cases["zz/regressed"] = {MakeRecord(2048)};
  EXPECT_GT(CompareMeasurementSets(before, after, 0).output.size(), kMaxReportBytes);
  const CompareOutcome outcome = CompareMeasurementSets(before, after);
  const std::string& text = outcome.output;
  EXPECT_LE(text.size(), kMaxReportBytes);
  EXPECT_EQ(outcome.added.size(), 6000u);
  const size_t headline =
      text.find("**1 regressed**, 0 improved, 0 changed, 0 unchanged; 6000 new, 0 removed");
  const size_t note = text.find("> **Not shown:** ");
  const size_t regressed = text.find("| <code>zz/regressed</code> | **regression** |");
  const size_t first_new = text.find("- <code>a/new_");
  ASSERT_NE(headline, std::string::npos);
  ASSERT_NE(note, std::string::npos);
  ASSERT_NE(regressed, std::string::npos);
  ASSERT_NE(first_new, std::string::npos);
  EXPECT_LT(headline, note);
  EXPECT_LT(note, regressed);
  EXPECT_LT(regressed, first_new);
  EXPECT_THAT(text, AllOf(HasSubstr(" more cases, to keep this comparison under 1,000,000 bytes"),
                          HasSubstr("<details><summary><code>zz/regressed</code>: regression</summary>")));
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

// Per-line baselines: a case whose launch totals match but whose lines differ is compared, counted
// and judged by its lines, and its details name each line before -> after.
MeasurementSet LinesSet(const std::string& path, uint64_t first_line_wavefronts) {
  LaunchRecord launch = MakeRecord(2048);
  const LineRecord first = MakeLine("kernels/t.cu", 10, "a = tile[x][y];", MemoryKind::kSharedLoad, 32,
                                    first_line_wavefronts, 32, {"LDS"});
  LineRecord second = first;
  second.line = 12;
  second.code = "b = tile[y][x];";
  second.wavefronts = 2048 - first_line_wavefronts;
  launch.lines = std::vector<LineRecord>{first, second};
  MeasurementSet set;
  set.path = path;
  set.kind = "baseline";
  set.arch = "sm_90";
  set.cases["t/moved"] = {launch};
  return set;
}

TEST(CompareLinesGoldenTest, ConflictsMovedBetweenLinesAreARegressionAtTheLine) {
  CompareOptions options;
  options.format = OutputFormat::kText;
  const CompareOutcome outcome =
      CompareMeasurementSets(LinesSet("old.json", 32), LinesSet("new.json", 1024), options);
  EXPECT_EQ(outcome.regressions, 1u);
  EXPECT_TRUE(outcome.fails());
  ASSERT_EQ(outcome.cases.size(), 1u);
  EXPECT_EQ(outcome.cases[0].comparison.verdict, BaselineVerdict::kMatch);
  EXPECT_EQ(
      outcome.output,
      "bankcheck compare\n"
      "Old: old.json (baseline, sm_90)\n"
      "New: new.json (baseline, sm_90)\n"
      "\n"
      "1 regressed, 0 improved, 0 changed, 0 unchanged; 0 new, 0 removed\n"
      "1 case fails: 1 regression.\n"
      "\n"
      "case     change      conflicts (exact)  wavefronts\n"
      "-------  ----------  -----------------  ---------------\n"
      "t/moved  regression  ld 1984 \xC2\xB7 st 0     ld 2048 \xC2\xB7 st 64\n"
      "\n"
      "Details:\n"
      "\n"
      "-- t/moved: regression\n"
      "Source lines that differ:\n"
      "  launch 0 (transpose(float*, float const*)) kernels/t.cu:10 a = tile[x][y];: ld conflict-free -> "
      "32-way (wavefronts 32 -> 1024)\n"
      "  launch 0 (transpose(float*, float const*)) kernels/t.cu:12 b = tile[y][x];: ld 63-way -> 32-way "
      "(wavefronts 2016 -> 1024)\n"
      "\n"
      "launch  kernel                           grid     block       instructions  wavefronts  ideal  "
      "conflicts\n"
      "------  -------------------------------  -------  ------  --  ------------  ----------  -----  "
      "---------\n"
      "0       transpose(float*, float const*)  32x32x1  32x8x1  ld  64            2048        64     1984\n"
      "                                                          st  64            64          64     0\n");

  options.format = OutputFormat::kJson;
  const nlohmann::json json = nlohmann::json::parse(
      CompareMeasurementSets(LinesSet("old.json", 32), LinesSet("new.json", 1024), options).output);
  EXPECT_EQ(json["cases"][0]["verdict"], "regression");
  EXPECT_EQ(json["cases"][0]["lines"], "regression");
  EXPECT_EQ(json["cases"][0]["differences"].size(), 2u);

  options.format = OutputFormat::kMarkdown;
  EXPECT_THAT(
      CompareMeasurementSets(LinesSet("old.json", 32), LinesSet("new.json", 1024), options).output,
      HasSubstr("Source lines that differ:\n  launch 0 (transpose(float*, float const*)) kernels/t.cu:10 a = "
                "tile[x][y];: ld conflict-free -> 32-way (wavefronts 32 -> 1024)\n"));
}

// The same lines with the same counts in another folder (the third-party sources moved): compare
// calls the case changed, naming both paths once, not a regression of every line.
MeasurementSet MovedSet(const std::string& path, const std::string& folder) {
  MeasurementSet set = LinesSet(path, 32);
  for (LineRecord& line : *set.cases["t/moved"][0].lines) line.file = folder + "/t.cuh";
  return set;
}

TEST(CompareLinesGoldenTest, LinesMovedToAnotherFolderAreAChangeNamingBothPaths) {
  CompareOptions options;
  options.format = OutputFormat::kText;
  const CompareOutcome outcome =
      CompareMeasurementSets(MovedSet("old.json", "third_party"), MovedSet("new.json", "external"), options);
  EXPECT_EQ(outcome.regressions, 0u);
  EXPECT_EQ(outcome.changed, 1u);
  EXPECT_THAT(
      outcome.output,
      AllOf(HasSubstr("0 regressed, 0 improved, 1 changed"),
            HasSubstr("launch 0 (transpose(float*, float const*)) 2 lines moved from third_party/t.cuh "
                      "to external/t.cuh, their counts unchanged\n"),
            Not(HasSubstr("not there before")), Not(HasSubstr("no longer executed"))));
}

}  // namespace
}  // namespace bankcheck
