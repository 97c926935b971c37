// `bankcheck annotations FILE...` run as a pre-commit hook or CPU-only CI job runs it: the JSON it
// prints, `file:line: what is wrong` on stderr and exit 2 for a malformed annotation, unreadable files.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/platform/test_support.h"

#ifndef BANKCHECK_CLI_PATH
#error "BANKCHECK_CLI_PATH must name the bankcheck binary"
#endif

namespace {

using bankcheck::testing_support::CliRun;
using bankcheck::testing_support::Quoted;
using bankcheck::testing_support::WriteFile;
using ::testing::HasSubstr;

class AnnotationsCommandTest : public bankcheck::testing_support::TempDirTest {
 protected:
  CliRun Bankcheck(const std::string& arguments) {
    return bankcheck::testing_support::RunCli(BANKCHECK_CLI_PATH, arguments, dir_);
  }

  std::filesystem::path Source(const std::string& name, const std::string& text) {
    const std::filesystem::path path = dir_ / name;
    WriteFile(path, text);
    return path;
  }
};

TEST_F(AnnotationsCommandTest, PrintsEveryFilesAnnotationsAsJson) {
  const auto transpose = Source("transpose.cu",
                                "__global__ void k(float* out) {\n"
                                "  // bankcheck: 32-way; columns of an unpadded tile\n"
                                "  float v = tile[threadIdx.x][threadIdx.y];\n"
                                "  out[i] = v;  // not shared memory\n"
                                "}\n");
  const auto mma = Source("mma.cu", "x = 1;\nldmatrix(a, t); // bankcheck: ldsm 8-way, st conflict-free\n");
  const auto empty = Source("plain.cu", "int main() { return 0; }\n");
  const CliRun run = Bankcheck("annotations " + Quoted(transpose) + " " + Quoted(empty) + " " + Quoted(mma));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json, nlohmann::json::parse(R"([
    {"file": ")" + transpose.string() + R"(", "line": 3, "comment_line": 2, "kind": null, "ways": 32,
     "cases": null},
    {"file": ")" + mma.string() + R"(", "line": 2, "comment_line": 2, "kind": "shared_ldsm", "ways": 8,
     "cases": null},
    {"file": ")" + mma.string() + R"(", "line": 2, "comment_line": 2, "kind": "shared_st", "ways": 1,
     "cases": null}
  ])"))
      << run.out;

  // No annotations at all: an empty array.
  const CliRun none = Bankcheck("annotations " + Quoted(empty));
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(nlohmann::json::parse(none.out), nlohmann::json::array());
}

TEST_F(AnnotationsCommandTest, TermsThatSelectCasesGiveTheirGlobs) {
  const auto file = Source("sgemm.cu",
                           "// bankcheck: ld 2-way in sgemm_tiled/vectorized/*, ld conflict-free in "
                           "sgemm_tiled/padded/* | sgemm_tiled/swizzled/*, ld 4-way, st conflict-free\n"
                           "acc += a[k];\n");
  const CliRun run = Bankcheck("annotations " + Quoted(file));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The exact text: the field order and the form of each value are the linter's output format.
  const std::string f = "\"" + file.string() + "\"";
  EXPECT_EQ(run.out,
            "[\n"
            "  {\n"
            "    \"file\": " +
                f +
                ",\n"
                "    \"line\": 2,\n"
                "    \"comment_line\": 1,\n"
                "    \"kind\": \"shared_ld\",\n"
                "    \"ways\": 2.0,\n"
                "    \"cases\": [\n"
                "      \"sgemm_tiled/vectorized/*\"\n"
                "    ]\n"
                "  },\n"
                "  {\n"
                "    \"file\": " +
                f +
                ",\n"
                "    \"line\": 2,\n"
                "    \"comment_line\": 1,\n"
                "    \"kind\": \"shared_ld\",\n"
                "    \"ways\": 1.0,\n"
                "    \"cases\": [\n"
                "      \"sgemm_tiled/padded/*\",\n"
                "      \"sgemm_tiled/swizzled/*\"\n"
                "    ]\n"
                "  },\n"
                "  {\n"
                "    \"file\": " +
                f +
                ",\n"
                "    \"line\": 2,\n"
                "    \"comment_line\": 1,\n"
                "    \"kind\": \"shared_ld\",\n"
                "    \"ways\": 4.0,\n"
                "    \"cases\": null\n"
                "  },\n"
                "  {\n"
                "    \"file\": " +
                f +
                ",\n"
                "    \"line\": 2,\n"
                "    \"comment_line\": 1,\n"
                "    \"kind\": \"shared_st\",\n"
                "    \"ways\": 1.0,\n"
                "    \"cases\": null\n"
                "  }\n"
                "]\n");
  // A malformed glob is an error at the comment's line, as every malformed annotation.
  const auto bad = Source("bad.cu", "x = t[i];  // bankcheck: 2-way in a* |\n");
  const CliRun malformed = Bankcheck("annotations " + Quoted(bad));
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_EQ(malformed.out, "");
  EXPECT_THAT(malformed.err, HasSubstr(bad.string() + ":1: an empty case glob in '2-way in a* |'"));
}

TEST_F(AnnotationsCommandTest, FractionalWays) {
  const auto file = Source("k.cu", "x = t[i];  // bankcheck: ld 1.5-way\n");
  const CliRun run = Bankcheck("annotations " + Quoted(file));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(run.out).at(0).at("ways").get<double>(), 1.5) << run.out;
}

TEST_F(AnnotationsCommandTest, MalformedAnnotationsExitTwoNamingFileAndLine) {
  const auto good = Source("good.cu", "x; // bankcheck: 2-way\n");
  const auto bad = Source("bad.cu", "\n\nx; // bankcheck: 0-way\ny; // bankcheck: ld 2-way, 4-way\n");
  const auto worse = Source("worse.cu", "// bankcheck: lds 2-way\nx;\n");
  const CliRun run = Bankcheck("annotations " + Quoted(good) + " " + Quoted(bad) + " " + Quoted(worse));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(run.out, "") << "no JSON when an annotation is malformed";
  EXPECT_EQ(run.err,
            bad.string() +
                ":3: '0-way': ways are wavefronts per ideal wavefront, at least 1 (conflict-free is "
                "1-way)\n" +
                bad.string() +
                ":4: '4-way' has no kind but 'ld 2-way' has one; put a kind before every term, or "
                "give one term without a kind\n" +
                worse.string() +
                ":1: 'lds' is an op name; the kind is 'ld' (kinds: ld, st, atom, ldsm, stsm, ldgsts, "
                "gmma, dsmem, ldg, stg, atomg, redg, ldl, stl, ldgsts_g, tma_ld, tma_st)\n");
}

TEST_F(AnnotationsCommandTest, ProblemsShowTheSourcesControlCharactersVisibly) {
  // The message quotes the comment: its escape sequence (ESC) must not reach the terminal.
  const auto file = Source("esc.cu", "x; // bankcheck: 2-way \x1b]0;title\x07\n");
  const CliRun run = Bankcheck("annotations " + Quoted(file));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << run.err;
  EXPECT_THAT(run.err, HasSubstr("'2-way ?]0': '?]0' after '2-way'"));
}

TEST_F(AnnotationsCommandTest, UnreadableFilesExitTwo) {
  const auto good = Source("good.cu", "x; // bankcheck: 2-way\n");
  const CliRun missing = Bankcheck("annotations " + Quoted(good) + " " + Quoted(dir_ / "missing.cu"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_THAT(missing.err,
              HasSubstr("bankcheck: error: " + (dir_ / "missing.cu").string() + ": cannot be read"));

  const CliRun folder = Bankcheck("annotations " + Quoted(dir_));
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_THAT(folder.err, HasSubstr(dir_.string() + ": is a folder, not a file"));

  const CliRun no_file = Bankcheck("annotations");
  EXPECT_EQ(no_file.exit_code, 2);
  EXPECT_THAT(no_file.err, HasSubstr("FILE is required"));
}

}  // namespace
