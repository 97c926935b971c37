// `bankcheck annotate RESULTS...` on a temporary source tree: the dry run's table and status, --apply
// (appended, kept, overwritten, inserted above), cases that disagree (by case globs), files outside the
// source root left alone, and its exit statuses.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"

#ifndef BANKCHECK_CLI_PATH
#error "BANKCHECK_CLI_PATH must name the bankcheck binary"
#endif

namespace bankcheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::CliRun;
using testing_support::MakeInstruction;
using testing_support::MakeMetadata;
using testing_support::MakeRecord;
using testing_support::Quoted;
using testing_support::ReadFile;
using testing_support::WriteFile;

// A kernel whose lines 2 to 5 access shared memory: 2 not annotated, 3 annotated 2-way, 4 ends with
// another comment, 5 annotated conflict-free.
constexpr char kKernel[] =
    "__global__ void k(float* out) {\n"
    "  a = t[i];\n"
    "  b = t[j];  // bankcheck: 2-way; padded\n"
    "  t[k] = c;  // the column\n"
    "  d = t[l];  // bankcheck: conflict-free\n"
    "}\n";

class AnnotateCommandTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    ::unsetenv("BANKCHECK_SOURCE_ROOT");
    root_ = dir_ / "src";
    kernel_ = root_ / "kernels" / "k.cu";
    WriteFile(kernel_, kKernel);
  }
  void TearDown() override {
    ::unsetenv("BANKCHECK_SOURCE_ROOT");
    TempDirTest::TearDown();
  }

  CliRun Bankcheck(const std::string& arguments) {
    return testing_support::RunCli(BANKCHECK_CLI_PATH, arguments, dir_);
  }

  // A results file of cases, each one launch whose instructions are given.
  std::filesystem::path Results(const std::string& name,
                                const std::map<std::string, std::vector<InstructionCounts>>& cases) {
    RunResults results;
    results.metadata = MakeMetadata();
    for (const auto& [case_name, instructions] : cases) {
      CaseResult result;
      result.name = case_name;
      result.expected_by = ExpectedBy::kBaselineOnly;  // no c.expect: its lines are to be annotated
      LaunchRecord launch = MakeRecord(64);
      launch.instructions = instructions;
      launch.attributed_launches = 1;
      result.launches = {launch};
      results.cases[case_name] = result;
    }
    const std::filesystem::path path = dir_ / name;
    WriteResults(path, results);
    return path;
  }

  // What the kernel's case measures: line 2 4-way, 3 4-way, 4 2-way stores, 5 conflict-free.
  std::vector<InstructionCounts> KernelCounts(uint64_t line2_wavefronts = 128) const {
    const std::string file = kernel_.string();
    return {MakeInstruction(0x10, "LDS", MemoryKind::kSharedLoad, 2, 32, line2_wavefronts, 32, file),
            MakeInstruction(0x20, "LDS.128", MemoryKind::kSharedLoad, 3, 32, 128, 32, file),
            MakeInstruction(0x30, "STS", MemoryKind::kSharedStore, 4, 32, 64, 32, file),
            MakeInstruction(0x40, "LDS", MemoryKind::kSharedLoad, 5, 32, 32, 32, file)};
  }

  std::string Root() const { return " --source-root " + Quoted(root_); }

  std::filesystem::path root_;
  std::filesystem::path kernel_;
};

// A run without a GPU measured nothing: annotate says so, not that the cases state c.expect.
TEST_F(AnnotateCommandTest, ARunWhoseCasesAllSkippedSaysSo) {
  RunResults results;
  results.metadata = MakeMetadata();
  for (const char* name : {"t/a", "t/b"}) {
    CaseResult& result = results.cases[name];
    result.name = name;
    result.status = CaseStatus::kSkipped;
    result.expected_by = ExpectedBy::kCase;
  }
  WriteResults(dir_ / "skipped.json", results);
  const CliRun run = Bankcheck("annotate " + Quoted(dir_ / "skipped.json") + Root());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("every case of the results (2) was skipped, so nothing was measured"));
  EXPECT_THAT(run.err, Not(HasSubstr("c.expect")));
}

TEST_F(AnnotateCommandTest, ADryRunShowsEachLineAndWritesNothing) {
  const auto results = Results("results.json", {{"k/naive", KernelCounts()}});
  const CliRun run = Bankcheck("annotate " + Quoted(results) + Root());
  EXPECT_EQ(run.exit_code, 1) << run.err;  // lines to write
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(
      run.out,
      "kernels/k.cu:2  LDS      4-way          // bankcheck: 4-way          not annotated\n"
      "kernels/k.cu:3  LDS.128  4-way          // bankcheck: 4-way          annotated differently: 2-way "
      "(kept without --overwrite)\n"
      "kernels/k.cu:4  STS      2-way          // bankcheck: 2-way          not annotated\n"
      "kernels/k.cu:5  LDS      conflict-free  // bankcheck: conflict-free  matches\n"
      "\n"
      "Dry run, nothing written: 2 lines not annotated, 1 line annotated differently. --apply writes them "
      "(--overwrite to replace annotations that differ).\n");
  EXPECT_EQ(ReadFile(kernel_), kKernel);
}

TEST_F(AnnotateCommandTest, ApplyAppendsInsertsAboveAndKeepsADifferentAnnotation) {
  const auto results = Results("results.json", {{"k/naive", KernelCounts()}});
  const CliRun run = Bankcheck("annotate --apply " + Quoted(results) + Root());
  EXPECT_EQ(run.exit_code, 1) << run.err;  // line 3's annotation was kept
  EXPECT_EQ(ReadFile(kernel_),
            "__global__ void k(float* out) {\n"
            "  a = t[i];  // bankcheck: 4-way\n"
            "  b = t[j];  // bankcheck: 2-way; padded\n"
            "  // bankcheck: 2-way\n"
            "  t[k] = c;  // the column\n"
            "  d = t[l];  // bankcheck: conflict-free\n"
            "}\n");
  EXPECT_THAT(run.out,
              HasSubstr("kernels/k.cu:2  LDS      4-way          // bankcheck: 4-way          written\n"));
  EXPECT_THAT(run.out, HasSubstr("kept: annotated differently: 2-way (--overwrite replaces it)\n"));
  EXPECT_THAT(run.out, HasSubstr("written on a new line above it (the lines below moved)\n"));
  EXPECT_THAT(run.out, HasSubstr("Wrote 2 annotations.\n"));
  EXPECT_THAT(run.out,
              HasSubstr("Lines moved in kernels/k.cu: rebuild the kernels before the next measured run"));
  EXPECT_THAT(testing_support::TemporaryFilesUnder(dir_), ::testing::IsEmpty());
}

TEST_F(AnnotateCommandTest, OverwriteReplacesTheTermsAndKeepsTheNote) {
  const auto results = Results("results.json", {{"k/naive", KernelCounts()}});
  const CliRun run = Bankcheck("annotate --apply --overwrite " + Quoted(results) + Root());
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(ReadFile(kernel_), HasSubstr("  b = t[j];  // bankcheck: 4-way; padded\n"));
  EXPECT_THAT(run.out, HasSubstr("overwritten (was 2-way)"));
  EXPECT_THAT(run.out, HasSubstr("Wrote 3 annotations.\n"));
}

TEST_F(AnnotateCommandTest, AfterApplyingEveryLineMatches) {
  // No line ends with another comment here, so no line moves and the same results apply again.
  WriteFile(
      kernel_,
      "__global__ void k() {\n  a = t[i];\n  b = t[j];  // bankcheck: 2-way\n  t[k] = c;\n  d = t[l];\n}\n");
  const auto results = Results("results.json", {{"k/naive", KernelCounts()}});
  const CliRun apply = Bankcheck("annotate --apply --overwrite " + Quoted(results) + Root());
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_THAT(apply.out, Not(HasSubstr("Lines moved")));
  const CliRun again = Bankcheck("annotate " + Quoted(results) + Root());
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_THAT(again.out, Not(HasSubstr("not annotated")));
  EXPECT_THAT(again.out,
              HasSubstr("kernels/k.cu:4  STS      2-way          // bankcheck: 2-way          matches\n"));
}

TEST_F(AnnotateCommandTest, CasesThatDisagreeGetTermsThatSelectThem) {
  // Three fragments: line 2 is 4-way in k/naive and k/naive2, 2-way in k/padded.
  const auto naive = Results("naive.json", {{"k/naive", KernelCounts(128)}, {"k/naive2", KernelCounts(128)}});
  const auto padded = Results("padded.json", {{"k/padded", KernelCounts(64)}});
  const CliRun dry = Bankcheck("annotate " + Quoted(naive) + " " + Quoted(padded) + Root());
  EXPECT_EQ(dry.exit_code, 1);
  EXPECT_THAT(dry.out, HasSubstr("kernels/k.cu:2  LDS      by case"));
  EXPECT_THAT(dry.out, HasSubstr("// bankcheck: 4-way, 2-way in k/padded  not annotated\n"));
  const CliRun run = Bankcheck("annotate --apply " + Quoted(naive) + " " + Quoted(padded) + Root());
  EXPECT_EQ(run.exit_code, 1) << run.out;  // line 3's different annotation is kept
  EXPECT_THAT(run.out, Not(HasSubstr("disagree")));
  EXPECT_THAT(ReadFile(kernel_), HasSubstr("\n  a = t[i];  // bankcheck: 4-way, 2-way in k/padded\n"));
  EXPECT_THAT(ReadFile(kernel_), HasSubstr("\n  // bankcheck: 2-way\n  t[k]"));  // the cases agree on line 4
  // Read again, the line matches every case.
  const CliRun again = Bankcheck("annotate " + Quoted(naive) + " " + Quoted(padded) + Root());
  EXPECT_THAT(again.out, HasSubstr("// bankcheck: 4-way, 2-way in k/padded  matches\n"));
}

TEST_F(AnnotateCommandTest, ByCaseTermsThatWouldMakeTheLineLongGoAboveIt) {
  // Line 2 measured differently by cases no short glob selects: each by name.
  std::map<std::string, std::vector<InstructionCounts>> cases;
  for (const std::string name :
       {"sgemm_tiled/vectorized_128x128", "sgemm_tiled/vectorized_256x128", "sgemm_tiled/vectorized_64x64",
        "sgemm_tiled/warptiled_128x64", "sgemm_tiled/warptiled_256x128", "sgemm_tiled/warptiled_64x128"})
    cases[name] = KernelCounts(128);
  for (const std::string name :
       {"sgemm_tiled/vectorized_32x32", "sgemm_tiled/warptiled_32x32", "sgemm_tiled/padded_128x128",
        "sgemm_tiled/padded_64x64", "sgemm_tiled/padded_32x32", "sgemm_tiled/swizzled",
        "sgemm_tiled/swizzled_64"})
    cases[name] = KernelCounts(64);
  const auto results = Results("results.json", cases);
  const CliRun run = Bankcheck("annotate --apply " + Quoted(results) + Root());
  const std::string written =
      "// bankcheck: 2-way, 4-way in sgemm_tiled/vectorized_128x128 | sgemm_tiled/vectorized_256x128 | "
      "sgemm_tiled/vectorized_64x64 | sgemm_tiled/warptiled_128x64 | sgemm_tiled/warptiled_256x128 | "
      "sgemm_tiled/warptiled_64x128";
  EXPECT_THAT(ReadFile(kernel_), HasSubstr("{\n  " + written + "\n  a = t[i];\n")) << run.out;
  EXPECT_THAT(run.out, HasSubstr("written on a new line above it (the lines below moved)"));
}

TEST_F(AnnotateCommandTest, CasesThatNoGlobCanTellApartAreReportedAndNotWritten) {
  // A case name with a blank can be no glob.
  const auto naive = Results("naive.json", {{"k/naive one", KernelCounts(128)}});
  const auto padded = Results("padded.json", {{"k/padded", KernelCounts(64)}});
  const CliRun run = Bankcheck("annotate --apply " + Quoted(naive) + " " + Quoted(padded) + Root());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.out, HasSubstr("kernels/k.cu:2  LDS      by case"));
  EXPECT_THAT(run.out, HasSubstr("cases disagree (k/naive one: 4-way; k/padded: 2-way): not written\n"));
  EXPECT_THAT(run.out, HasSubstr("1 line is measured differently by cases that no case glob can tell apart"));
  EXPECT_THAT(ReadFile(kernel_), HasSubstr("\n  a = t[i];\n"));                  // not written
  EXPECT_THAT(ReadFile(kernel_), HasSubstr("\n  // bankcheck: 2-way\n  t[k]"));  // the cases agree on line 4
}

TEST_F(AnnotateCommandTest, AMeasurementNoAnnotationCanSayIsNotWritten) {
  // Fewer wavefronts than ideal: 0.5-way, which the grammar does not allow.
  const auto results = Results(
      "results.json",
      {{"k/odd", {MakeInstruction(0x10, "LDS", MemoryKind::kSharedLoad, 2, 32, 16, 32, kernel_.string())}}});
  const CliRun run = Bankcheck("annotate --apply " + Quoted(results) + Root());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr("kernels/k.cu:2  LDS  0.5-way  // bankcheck: 0.5-way  not written: '0.5-way': "
                        "ways are wavefronts per ideal wavefront, at least 1"));
  EXPECT_EQ(ReadFile(kernel_), kKernel);
}

TEST_F(AnnotateCommandTest, FilesOutsideTheSourceRootAreNeverWritten) {
  const std::string header = "template <int N>\nvoid copy(float* s) { s[N] = 1; }\n";
  const auto library = dir_ / "deps" / "cute" / "copy.hpp";
  WriteFile(library, header);
  // A link inside the root to a file outside it is outside too.
  std::filesystem::create_symlink(library, root_ / "linked.hpp");
  const auto results =
      Results("results.json",
              {{"k/naive",
                {MakeInstruction(0x10, "STS", MemoryKind::kSharedStore, 2, 32, 64, 32, library.string()),
                 MakeInstruction(0x20, "STS", MemoryKind::kSharedStore, 1, 32, 64, 32,
                                 (root_ / "linked.hpp").string())}}});
  const CliRun run = Bankcheck("annotate --apply " + Quoted(results) + Root());
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;  // nothing under the root to write
  EXPECT_THAT(run.out,
              HasSubstr(library.string() + ":2  STS  2-way  // bankcheck: 2-way  outside the source root: "
                                           "not written\n"));
  EXPECT_THAT(run.out, HasSubstr("2 lines are outside the source root " +
                                 std::filesystem::canonical(root_).string() + ": not considered.\n"));
  EXPECT_EQ(ReadFile(library), header);
  EXPECT_TRUE(std::filesystem::is_symlink(root_ / "linked.hpp"));
}

// A results file may come from a pull request and name any file under the root: only C, C++ and
// CUDA sources are written, never under a folder whose name starts with '.', never what is not a
// regular file; the others are not even read.
TEST_F(AnnotateCommandTest, OnlyRegularSourceFilesOutsideHiddenFoldersAreWritten) {
  const std::string text = "x = 1;\ny = 2;\n";
  const std::vector<std::string> refused = {".git/config",      "ci/run.sh",     ".github/workflows/ci.yml",
                                            ".hidden/k.cu",     "kernels/.k.cu", "notes.txt",
                                            "kernels/k.cu.orig"};
  std::vector<InstructionCounts> counts;
  uint32_t address = 0x10;
  for (const std::string& name : refused) {
    WriteFile(root_ / name, text);
    counts.push_back(MakeInstruction(address += 0x10, "STS", MemoryKind::kSharedStore, 1, 32, 64, 32,
                                     (root_ / name).string()));
  }
  ASSERT_EQ(::mkfifo((root_ / "pipe.cu").c_str(), 0600), 0);  // never opened: it would block a reader
  counts.push_back(MakeInstruction(address += 0x10, "STS", MemoryKind::kSharedStore, 1, 32, 64, 32,
                                   (root_ / "pipe.cu").string()));
  // Sources, by their extensions: written.
  const std::vector<std::string> sources = {"a.cuh", "b.cpp", "c.h", "d.inl"};
  for (const std::string& name : sources) {
    WriteFile(root_ / "kernels" / name, text);
    counts.push_back(MakeInstruction(address += 0x10, "STS", MemoryKind::kSharedStore, 1, 32, 64, 32,
                                     (root_ / "kernels" / name).string()));
  }
  const auto results = Results("results.json", {{"k/naive", counts}});
  const CliRun run = Bankcheck("annotate --apply " + Quoted(results) + Root());
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;  // nothing left that may be written
  for (const std::string& name : refused) {
    SCOPED_TRACE(name);
    EXPECT_EQ(ReadFile(root_ / name), text);
    EXPECT_THAT(run.out, HasSubstr(name + ":1"));
  }
  EXPECT_THAT(run.out, HasSubstr("a hidden file or folder (.git), not a source: not written"));
  EXPECT_THAT(run.out, HasSubstr("a hidden file or folder (.k.cu), not a source: not written"));
  EXPECT_THAT(run.out,
              HasSubstr("// bankcheck: 2-way  not a C, C++ or CUDA source by its extension: not written"));
  EXPECT_THAT(run.out, HasSubstr("// bankcheck: 2-way  not a regular file: not written"));
  EXPECT_TRUE(std::filesystem::is_fifo(root_ / "pipe.cu"));
  for (const std::string& name : sources) {
    SCOPED_TRACE(name);
    EXPECT_EQ(ReadFile(root_ / "kernels" / name), "x = 1;  // bankcheck: 2-way\ny = 2;\n");
  }
}

TEST_F(AnnotateCommandTest, CasesWithAPerLaunchExpectationAndSourcesNotHereAreLeftAlone) {
  std::filesystem::path results = Results(
      "results.json",
      {{"k/naive", KernelCounts()},
       // A kernel compiled at run time (NVRTC): line info names a file that does not exist.
       {"k/runtime",
        {MakeInstruction(0x10, "LDS", MemoryKind::kSharedLoad, 3, 32, 64, 32, (root_ / "rt.cu").string())}}});
  RunResults read = ReadResults(results);
  read.cases.at("k/naive").expected_by = ExpectedBy::kCase;  // states c.expect
  WriteResults(results, read);
  const CliRun run = Bankcheck("annotate --apply " + Quoted(results) + Root());
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("rt.cu:3  LDS  2-way  // bankcheck: 2-way  no such file here"));
  EXPECT_THAT(run.out,
              HasSubstr("1 case states its expectation per launch (c.expect): its lines are not suggested."));
  EXPECT_THAT(run.out, Not(HasSubstr("kernels/k.cu")));
  EXPECT_EQ(ReadFile(kernel_), kKernel);
  EXPECT_FALSE(std::filesystem::exists(root_ / "rt.cu"));
}

TEST_F(AnnotateCommandTest, TheSourceRootFromTheEnvironment) {
  const auto results = Results("results.json", {{"k/naive", KernelCounts()}});
  ::setenv("BANKCHECK_SOURCE_ROOT", (dir_ / "deps").c_str(), 1);
  std::filesystem::create_directories(dir_ / "deps");
  CliRun run = Bankcheck("annotate --apply " + Quoted(results));
  EXPECT_EQ(run.exit_code, 0) << run.err;  // every line outside it
  EXPECT_EQ(ReadFile(kernel_), kKernel);
  ::setenv("BANKCHECK_SOURCE_ROOT", root_.c_str(), 1);
  run = Bankcheck("annotate " + Quoted(results));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, HasSubstr("kernels/k.cu:2  LDS"));
}

TEST_F(AnnotateCommandTest, BadInputWritesNothing) {
  const auto results = Results("results.json", {{"k/naive", KernelCounts()}});
  CliRun run =
      Bankcheck("annotate --apply " + Quoted(results) + " --source-root " + Quoted(dir_ / "nowhere"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: the source root " + (dir_ / "nowhere").string() +
                                 ", from --source-root, is not a folder"));

  run = Bankcheck("annotate --apply " + Quoted(dir_ / "missing.json") + Root());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: "));

  // A malformed annotation in a source: reported as the linter does, and nothing is written.
  const std::string malformed = std::string(kKernel) + "// bankcheck: 2-ways\nx;\n";
  WriteFile(kernel_, malformed);
  run = Bankcheck("annotate --apply " + Quoted(results) + Root());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_THAT(run.err, HasSubstr("kernels/k.cu:7: '2-ways': write '2-way' (singular)\n"));
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: nothing written"));
  EXPECT_EQ(ReadFile(kernel_), malformed);
}

TEST_F(AnnotateCommandTest, ResultsWithoutPerLineCounts) {
  RunResults results;
  results.metadata = MakeMetadata();
  results.cases["k/naive"].name = "k/naive";
  results.cases["k/naive"].launches = {MakeRecord(128)};
  WriteResults(dir_ / "results.json", results);
  const CliRun run = Bankcheck("annotate " + Quoted(dir_ / "results.json") + Root());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("BANKCHECK_ATTRIBUTE=1"));
}

}  // namespace
}  // namespace bankcheck
