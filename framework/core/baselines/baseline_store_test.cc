#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/error.h"
#include "core/platform/test_support.h"

// Baseline folders: loading, locked updates, stale entries (baseline_store.cc).
namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing_support::MakeBaselineFile;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::MySuiteAdvice;
using testing_support::ReadFile;
using testing_support::TemporaryFilesUnder;
using testing_support::WriteFile;

// --- loading a folder ---------------------------------------------------------------------------

class BaselineSetTest : public testing_support::TempDirTest {};

TEST_F(BaselineSetTest, AbsentFolderIsItsOwnStateWithAReason) {
  const BaselineSet set = BaselineSet::Load(dir_, "sm_90", MySuiteAdvice());
  EXPECT_EQ(set.state(), BaselineSet::State::kNoFolder);
  EXPECT_FALSE(set.has_folder());
  EXPECT_THAT(set.no_folder_reason(), AllOf(HasSubstr((dir_ / "sm_90").string() + " does not exist"),
                                            HasSubstr("Record them with: RECORD ALL")));
  EXPECT_EQ(set.Find("transpose/naive"), nullptr);
}

TEST_F(BaselineSetTest, LoadsEveryTopicFileAndIgnoresLockAndTemporaryFiles) {
  WriteFile(dir_ / "sm_90" / "transpose.json", SerializeBaselineFile(MakeBaselineFile()));
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

TEST_F(BaselineSetTest, EachCaseKnowsWhatRecordedItsFile) {
  BaselineFile transpose = MakeBaselineFile();
  transpose.recorded_with.driver = "570.86.10";
  WriteFile(dir_ / "sm_90" / "transpose.json", SerializeBaselineFile(transpose));
  const BaselineSet set = BaselineSet::Load(dir_, "sm_90");
  ASSERT_NE(set.RecordedWith("transpose/naive/4096"), nullptr);
  EXPECT_EQ(set.RecordedWith("transpose/naive/4096")->driver, "570.86.10");
  EXPECT_EQ(set.RecordedWith("reduce/warp"), nullptr) << "no file for that topic";
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
  BaselineFile file = MakeBaselineFile();
  WriteFile(dir_ / "sm_90" / "reduce.json", SerializeBaselineFile(file));
  EXPECT_THAT(load_error(), HasSubstr("case \"transpose/naive\" belongs in " +
                                      (dir_ / "sm_90" / "transpose.json").string()));
  std::filesystem::remove(dir_ / "sm_90" / "reduce.json");
  file.arch = "sm_80";
  WriteFile(dir_ / "sm_90" / "transpose.json", SerializeBaselineFile(file));
  EXPECT_THAT(load_error(), HasSubstr("arch is \"sm_80\", but the file is in the sm_90 folder"));
}

TEST_F(BaselineSetTest, EmptyArchIsRejected) { EXPECT_THROW(BaselineSet::Load(dir_, ""), Error); }

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

TEST_F(UpdateBaselinesTest, EmulatedCountsAreNeverRecorded) {
  LaunchRecord emulated = MakeRecord(2048);
  emulated.counted_by = CountedBy::kEmulated;
  EXPECT_FALSE(WhyNotRecordable({MakeRecord(2048)}));
  ASSERT_TRUE(WhyNotRecordable({MakeRecord(64), emulated}));
  EXPECT_THAT(*WhyNotRecordable({emulated}), HasSubstr("derived by the emulator"));
  try {
    UpdateBaselines(
        dir_, "sm_90", MakeMetadata(),
        {{"transpose/naive", "naive", {MakeRecord(2048)}}, {"transpose/tiled", "tiled", {emulated}}});
    FAIL() << "an emulated case must not be recorded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_THAT(e.what(), HasSubstr("not recording case \"transpose/tiled\""));
  }
  EXPECT_FALSE(std::filesystem::exists(File())) << "nothing is written, not even the measured case";
}

TEST_F(UpdateBaselinesTest, DerivedCountsAreFirstBaselinesOnlyWhenAskedAndNeverOverMeasuredOnes) {
  LaunchRecord emulated = MakeRecord(2048);
  emulated.counted_by = CountedBy::kEmulated;
  EXPECT_FALSE(WhyNotRecordable({emulated}, Recording::kEmulatedFirstBaselines));
  EXPECT_THAT(*WhyNotRecordable({MakeRecord(64)}, Recording::kEmulatedFirstBaselines), HasSubstr("measured"));
  EXPECT_TRUE(IsDerived({MakeRecord(64), emulated}));
  EXPECT_FALSE(IsDerived({MakeRecord(64)}));

  UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/tiled", "tiled", {emulated}}}, {},
                  Recording::kEmulatedFirstBaselines);
  BaselineFile file = ReadBaselineFile(File());
  EXPECT_EQ(file.recorded_with.counters, "emulated");
  EXPECT_EQ(file.cases.at("transpose/tiled").launches.at(0).counted_by, CountedBy::kEmulated);

  // Measured next to it: the file still holds derived counts, and says so.
  UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/naive", "naive", {MakeRecord(2048)}}});
  file = ReadBaselineFile(File());
  EXPECT_EQ(file.recorded_with.counters, "emulated");
  EXPECT_EQ(file.cases.at("transpose/naive").launches.at(0).counted_by, CountedBy::kSassMetrics);
  const std::string before = ReadFile(File());
  EXPECT_THROW(UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/naive", "naive", {emulated}}}, {},
                               Recording::kEmulatedFirstBaselines),
               Error);
  EXPECT_EQ(ReadFile(File()), before) << "a derived count never replaces a measured one";

  // The derived case measured at last: the file is measured throughout.
  UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/tiled", "tiled", {MakeRecord(2048)}}});
  EXPECT_EQ(ReadBaselineFile(File()).recorded_with.counters, "");
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

// A version 1 file (launch totals only) recorded into becomes the current version: the recorded case gets its
// lines, the others keep their totals and are compared by them, and say that they did not count
// global and local memory.
TEST_F(UpdateBaselinesTest, RecordingIntoAVersionOneFileUpgradesIt) {
  UpdateBaselines(dir_, "sm_90", MakeMetadata(),
                  {{"transpose/a", "a", {MakeRecord(64)}}, {"transpose/b", "b", {MakeRecord(64)}}});
  std::string text = ReadFile(File());
  const std::string current = "\"version\": " + std::to_string(kBaselineVersion);
  const size_t version = text.find(current);
  ASSERT_NE(version, std::string::npos);
  text.replace(version, current.size(), "\"version\": 1");
  WriteFile(File(), text);
  ASSERT_FALSE(HasLineData(ReadBaselineFile(File()).cases.at("transpose/a").launches));
  LaunchRecord with_lines = MakeRecord(64);
  with_lines.lines = std::vector<LineRecord>{};
  const auto written = UpdateBaselines(dir_, "sm_90", MakeMetadata(), {{"transpose/a", "a", {with_lines}}});
  EXPECT_THAT(written, ElementsAre(File()));
  const std::string upgraded = ReadFile(File());
  EXPECT_NE(upgraded.find(current), std::string::npos);
  const BaselineFile file = ReadBaselineFile(File());
  EXPECT_TRUE(HasLineData(file.cases.at("transpose/a").launches));
  EXPECT_FALSE(HasLineData(file.cases.at("transpose/b").launches));
  EXPECT_FALSE(file.cases.at("transpose/a").launches.at(0).not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_TRUE(file.cases.at("transpose/b").launches.at(0).not_counted[MemoryKind::kGlobalLoad]);
  EXPECT_NE(CaseBlock(upgraded, "transpose/b").find("\"not_counted\": ["), std::string::npos);
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

TEST_F(UpdateBaselinesTest, RecordsEveryCaseNameInAFileOfItsArchFolder) {
  EXPECT_THROW(UpdateBaselines(dir_, "../sm_90", MakeMetadata(), {{"a/x", "", {}}}), Error);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "sm_90"));
  const std::vector<std::string> names = {"../escape/x", "/x", "my range: 1/k", "kernel", "kernel#2"};
  std::vector<BaselineUpdate> updates;
  for (const std::string& name : names) updates.push_back({name, "", {MakeRecord(64)}});
  UpdateBaselines(dir_, "sm_90", MakeMetadata(), updates);
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_))
    if (entry.is_regular_file() && entry.path().filename() != ".lock")
      files.insert(std::filesystem::relative(entry.path(), dir_).string());
  EXPECT_EQ(files, (std::set<std::string>{"sm_90/__.json", "sm_90/_.json", "sm_90/my_range__1.json",
                                          "sm_90/kernel.json"}));
  const BaselineSet set = BaselineSet::Load(dir_, "sm_90");
  for (const std::string& name : names)
    EXPECT_TRUE(CompareWithBaseline(set, name, {MakeRecord(64)}).verdict == BaselineVerdict::kMatch) << name;
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
