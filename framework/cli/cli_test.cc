// Runs the built `bankcheck` binary the way scripts do and checks what they rely on: exit codes,
// the JSON fields of `predict --json`, messages on bad input, and the files `explain --svg` writes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "core/platform/test_support.h"

#ifndef BANKCHECK_CLI_PATH
#error "BANKCHECK_CLI_PATH must name the bankcheck binary"
#endif
#ifndef BANKCHECK_README_PATH
#error "BANKCHECK_README_PATH must name the source tree's README.md"
#endif

namespace {

using bankcheck::testing_support::CliRun;
using bankcheck::testing_support::ReadFile;
using ::testing::HasSubstr;
using ::testing::Not;

class CliTest : public bankcheck::testing_support::TempDirTest {
 protected:
  CliRun Bankcheck(const std::string& arguments) {
    return bankcheck::testing_support::RunCli(BANKCHECK_CLI_PATH, arguments, dir_);
  }

  nlohmann::json PredictJson(const std::string& arguments) {
    const CliRun run = Bankcheck("predict --json " + arguments);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out.find('\n'), run.out.size() - 1) << "one line expected: " << run.out;
    return nlohmann::json::parse(run.out);
  }
};

void ExpectCost(const nlohmann::json& json, int wavefronts, int ideal, int conflicts, double ways) {
  ASSERT_TRUE(json.is_object()) << json.dump();
  ASSERT_TRUE(json.at("wavefronts").is_number_integer()) << json.dump();
  ASSERT_TRUE(json.at("ideal").is_number_integer()) << json.dump();
  ASSERT_TRUE(json.at("conflicts").is_number_integer()) << json.dump();
  ASSERT_TRUE(json.at("ways").is_number()) << json.dump();
  EXPECT_EQ(json.at("wavefronts").get<int>(), wavefronts) << json.dump();
  EXPECT_EQ(json.at("ideal").get<int>(), ideal) << json.dump();
  EXPECT_EQ(json.at("conflicts").get<int>(), conflicts) << json.dump();
  EXPECT_DOUBLE_EQ(json.at("ways").get<double>(), ways) << json.dump();
}

TEST_F(CliTest, VersionIsTheProjectVersion) {
  const CliRun run = Bankcheck("--version");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, std::string("bankcheck ") + BANKCHECK_VERSION + "\n");
}

TEST_F(CliTest, PredictJsonForStrides) {
  ExpectCost(PredictJson("--bytes 4 --stride 1"), 1, 1, 0, 1.0);
  ExpectCost(PredictJson("--bytes 4 --stride 2"), 2, 1, 1, 2.0);
  ExpectCost(PredictJson("--bytes 4 --stride 32"), 32, 1, 31, 32.0);
  ExpectCost(PredictJson("--bytes 4 --stride 0"), 1, 1, 0, 1.0);
  ExpectCost(PredictJson("--bytes 4 --stride 33"), 1, 1, 0, 1.0);
  ExpectCost(PredictJson("--bytes 8 --stride 2"), 4, 2, 2, 2.0);
  ExpectCost(PredictJson("--bytes 16 --stride 1"), 4, 4, 0, 1.0);
  ExpectCost(PredictJson("--bytes 4 --stride 32 --active 16"), 16, 1, 15, 16.0);
  ExpectCost(PredictJson("--bytes 4 --stride 32 --active 16 --offset 0x40"), 16, 1, 15, 16.0);
  ExpectCost(PredictJson("--bytes=4 --stride=-1 --offset=124"), 1, 1, 0, 1.0);
}

TEST_F(CliTest, PredictJsonForAddresses) {
  // Lanes 0 and 2 in bank 0 (different words), lane 1 inactive, lane 3 shares lane 0's word.
  ExpectCost(PredictJson("--bytes 4 --addresses 0,-,128,0x0"), 2, 1, 1, 2.0);
  ExpectCost(PredictJson("--bytes 4 --addresses '0, 4, 8'"), 1, 1, 0, 1.0);
  ExpectCost(PredictJson("--bytes 1 --addresses 0,1,2,3,129"), 2, 1, 1, 2.0);
}

TEST_F(CliTest, PredictJsonNamesTheOp) {
  EXPECT_EQ(PredictJson("--bytes 4 --stride 1").at("op"), "lds");
  EXPECT_EQ(PredictJson("--op sts --bytes 4 --stride 1").at("op"), "sts");
  EXPECT_EQ(PredictJson("--op ldsm --stride 1").at("op"), "ldsm");
}

TEST_F(CliTest, PredictLdmatrixRows) {
  // Measured on the H100: x4 rows 128 B apart 32 wavefronts / ideal 4; contiguous rows 4 / 4.
  const nlohmann::json apart = PredictJson("--op ldsm --stride 8");
  ExpectCost(apart, 32, 4, 28, 8.0);
  EXPECT_EQ(apart.at("bytes"), 16);
  EXPECT_EQ(apart.at("active_lanes"), 32);
  ExpectCost(PredictJson("--op ldsm --stride 1"), 4, 4, 0, 1.0);
  ExpectCost(PredictJson("--op ldsm --bytes 16 --stride 1"), 4, 4, 0, 1.0);
  ExpectCost(PredictJson("--op stsm --stride 8"), 32, 4, 28, 8.0);
  // .x2 and .x1.
  ExpectCost(PredictJson("--op ldsm --stride 8 --active 16"), 16, 2, 14, 8.0);
  ExpectCost(PredictJson("--op ldsm --stride 8 --active 8"), 8, 1, 7, 8.0);
  ExpectCost(PredictJson("--op ldsm --addresses 0,128,256,384,512,640,768,896"), 8, 1, 7, 8.0);
  ExpectCost(PredictJson("--op ldsm --addresses 0,16,32,48,64,80,96,112"), 1, 1, 0, 1.0);
}

TEST_F(CliTest, PredictCpAsyncAndAtomics) {
  // Measured on the H100: cp.async 4 B at word stride 32: 32 wavefronts, 31 conflicts.
  const nlohmann::json cp_async = PredictJson("--op ldgsts --bytes 4 --stride 32");
  ExpectCost(cp_async, 32, 1, 31, 32.0);
  EXPECT_EQ(cp_async.at("op"), "ldgsts");
  ExpectCost(PredictJson("--op atoms --bytes 4 --stride 2"), 2, 1, 1, 2.0);
  ExpectCost(PredictJson("--op ldgsts --bytes 8 --stride 1"), 2, 2, 0, 1.0);
}

TEST_F(CliTest, SixteenByteCpAsyncComesWithANote) {
  const CliRun run = Bankcheck("predict --json --op ldgsts --bytes 16 --stride 2");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NO_THROW(nlohmann::json::parse(run.out)) << run.out;
  EXPECT_THAT(run.err, HasSubstr("the 16-byte cp.async rule is fitted to the H100's measurements"));
  EXPECT_EQ(Bankcheck("predict --json --op ldgsts --bytes 4 --stride 2").err, "");
}

TEST_F(CliTest, WideLoadsPairAndAPartialPhaseComesWithANote) {
  // One 16-byte vector read by every lane: two phases of 8 lanes paired up, twice.
  ExpectCost(PredictJson("--op lds --bytes 16 --stride 0"), 2, 2, 0, 1.0);
  ExpectCost(PredictJson("--op sts --bytes 16 --stride 0"), 4, 4, 0, 1.0);
  EXPECT_EQ(Bankcheck("predict --json --op lds --bytes 16 --stride 0").err, "");
  const CliRun partial = Bankcheck("predict --json --op lds --bytes 16 --stride 1 --active 12");
  EXPECT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_THAT(partial.err,
              HasSubstr("the GPU may count this access otherwise: a phase of a 16-byte load (lanes 8-15)"));
}

TEST_F(CliTest, PredictSixteenByteCpAsyncTakesTheGlobalSource) {
  // Measured on the H100, per instruction: whole rows on both sides 4 wavefronts; lanes 32 B or
  // 512 B apart on either side 32 (ideal 4).
  const nlohmann::json contiguous = PredictJson("--op ldgsts --bytes 16 --stride 1");
  ExpectCost(contiguous, 4, 4, 0, 1.0);
  EXPECT_EQ(contiguous.at("op"), "ldgsts");
  EXPECT_EQ(contiguous.at("bytes"), 16);
  EXPECT_EQ(contiguous.at("active_lanes"), 32);
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --stride 2"), 32, 4, 28, 8.0);
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --stride 32"), 32, 4, 28, 8.0);
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --stride 1 --src-stride 2"), 32, 4, 28, 8.0);
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --stride 1 --src-stride 32"), 32, 4, 28, 8.0);
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --stride 1 --src-stride=1"), 4, 4, 0, 1.0);
  // Not measured: a backwards source is still 128 contiguous bytes per phase; one shared source is not.
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --stride 1 --src-stride -1"), 4, 4, 0, 1.0);
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --stride 1 --src-stride 0"), 32, 4, 28, 8.0);
  // A row written in the order lane ^ 5, from a contiguous source: one row, one wavefront.
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --addresses 80,64,112,96,16,0,48,32"), 1, 1, 0, 1.0);
  ExpectCost(PredictJson("--op ldgsts --bytes 16 --addresses 80,64,112,96,16,0,48,32 --src-stride 2"), 8, 1,
             7, 8.0);
  // 4- and 8-byte copies keep the bank rule, whatever the source.
  ExpectCost(PredictJson("--op ldgsts --bytes 4 --stride 32 --src-stride 7"), 32, 1, 31, 32.0);
  ExpectCost(PredictJson("--op ldgsts --bytes 8 --stride 1 --src-stride 3"), 2, 2, 0, 1.0);
  const CliRun line = Bankcheck("predict --op ldgsts --bytes 16 --stride 1 --src-stride 2");
  EXPECT_EQ(line.exit_code, 0) << line.err;
  EXPECT_EQ(line.out,
            "16-byte cp.async (LDGSTS), 32 active lanes: 32 wavefronts, ideal 4, 28 conflicts (8-way)\n");
}

TEST_F(CliTest, ExplainSixteenByteCpAsyncSaysHowItIsCosted) {
  const CliRun run = Bankcheck("explain --op ldgsts --bytes 16 --stride 1 --src-stride 2");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("16-byte cp.async (LDGSTS), 32 active lanes: phases of 8 lanes"));
  EXPECT_THAT(run.out, HasSubstr("32 wavefronts, ideal 4, 28 conflicts (8-way)"));
  EXPECT_THAT(run.out, HasSubstr("phase 0 (lanes 0-7): 8 wavefronts, worst bank 0 (1 word)"));
  EXPECT_THAT(Bankcheck("explain --op ldgsts --bytes 16 --stride 1").out,
              HasSubstr("phase 3 (lanes 24-31): 1 wavefront, worst bank 0 (1 word)"));
}

TEST_F(CliTest, PredictReadableLineNamesTheInstruction) {
  struct Case {
    const char* arguments;
    const char* line;
  };
  const Case cases[] = {
      {"predict --op ldsm --stride 8", "ldmatrix .x4: 32 wavefronts, ideal 4, 28 conflicts (8-way)\n"},
      {"predict --op stsm --stride 1 --active 8",
       "stmatrix .x1: 1 wavefront, ideal 1, 0 conflicts (1-way)\n"},
      {"predict --op ldgsts --bytes 4 --stride 32",
       "4-byte cp.async (LDGSTS), 32 active lanes: 32 wavefronts, ideal 1, 31 conflicts (32-way)\n"},
      {"predict --op atoms --bytes 4 --stride 2",
       "4-byte shared atomic (ATOMS), 32 active lanes: 2 wavefronts, ideal 1, 1 conflict (2-way)\n"},
      {"predict --op sts --bytes 4 --stride 2",
       "4-byte store (STS), 32 active lanes: 2 wavefronts, ideal 1, 1 conflict (2-way)\n"},
      {"predict --op lds --bytes 4 --stride 2",
       "4-byte access, 32 active lanes: 2 wavefronts, ideal 1, 1 conflict (2-way)\n"},
  };
  for (const Case& c : cases) {
    const CliRun run = Bankcheck(c.arguments);
    EXPECT_EQ(run.exit_code, 0) << c.arguments << "\n" << run.err;
    EXPECT_EQ(run.out, c.line) << c.arguments;
  }
}

TEST_F(CliTest, ExplainLdmatrixSaysHowItIsCosted) {
  const CliRun run = Bankcheck("explain --op ldsm --stride 8");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("ldmatrix .x4: 4 matrices of 8 rows"));
  EXPECT_THAT(run.out, HasSubstr("32 wavefronts, ideal 4, 28 conflicts (8-way)"));
  EXPECT_THAT(run.out, HasSubstr("<- worst bank"));
}

TEST_F(CliTest, PredictReadableLine) {
  const CliRun run = Bankcheck("predict --bytes 4 --stride 2");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "4-byte access, 32 active lanes: 2 wavefronts, ideal 1, 1 conflict (2-way)\n");
}

TEST_F(CliTest, BadInputExitsTwoAndSaysWhatWasWrong) {
  struct Case {
    const char* arguments;
    const char* message;
  };
  const Case cases[] = {
      {"predict --bytes 3 --stride 1", "1, 2, 4, 8 or 16"},
      {"predict --bytes 32 --stride 1", "1, 2, 4, 8 or 16"},
      {"predict --bytes 4 --addresses 0,6", "lane 1 address 0x6"},
      {"predict --bytes 8 --stride 1 --offset 4", "not aligned to its 8-byte"},
      {"explain --bytes 16 --addresses 8", "not aligned"},
      {"predict --bytes 4 --stride 1 --active 33", "at most 32 lanes"},
      {"predict --bytes 4 --addresses "
       "0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60,64,68,72,76,80,84,88,92,96,100,104,108,112,116,120,124,"
       "128",
       "33 entries"},
      {"predict --bytes four --stride 1", "'four' is not a number"},
      {"predict --bytes 4 --stride 1x", "--stride: '1x' is not a number"},
      {"predict --bytes 4 --addresses 0,zz", "--addresses entry 1: 'zz' is not a number"},
      {"predict --bytes 4 --stride 1 --addresses 0", "excludes"},
      {"predict --bytes 4", "give --stride"},
      {"predict --stride 1", "--bytes is required"},
      {"predict --bytes 4 --stride 1 --bogus", "--bogus"},
      {"predict --op ldsm --bytes 4 --stride 1", "ldmatrix/stmatrix rows are 16 bytes"},
      {"explain --op stsm --bytes 8 --stride 1", "ldmatrix/stmatrix rows are 16 bytes"},
      {"predict --op ldsm --stride 1 --active 12", "8 (.x1), 16 (.x2) or 32 (.x4)"},
      {"predict --op ldsm --stride 1 --active 0", "8 (.x1), 16 (.x2) or 32 (.x4)"},
      {"predict --op ldsm --addresses 0,16,32", "8 (.x1), 16 (.x2) or 32 (.x4)"},
      {"predict --op ldsm --addresses 0,16,32,48,64,80,96,-", "'-' is not allowed"},
      {"predict --op ldsm --stride 1 --offset 8", "not aligned to its 16-byte"},
      {"predict --op nope --bytes 4 --stride 1", "use one of lds, sts, atoms, ldsm, stsm, ldgsts"},
      {"predict --op gmma --bytes 4 --stride 1", "no rule for wgmma operands"},
      {"explain --op dsmem --bytes 4 --stride 1", "use one of lds, sts, atoms, ldsm, stsm, ldgsts"},
      {"predict --op ldgsts --stride 1", "--bytes is required"},
      {"predict --bytes 4 --stride 1 --src-stride 2", "only a cp.async (--op ldgsts) has a global source"},
      {"explain --op ldsm --stride 1 --src-stride 1", "only a cp.async (--op ldgsts) has a global source"},
      {"predict --op ldgsts --bytes 16 --stride 1 --src-stride two", "--src-stride: 'two' is not a number"},
      {"predict --op ldgsts --bytes 16 --stride 1 --src-stride -9223372036854775807", "out of range"},
      {"predict --op ldgsts --bytes 16 --stride 1 --src-stride 9223372036854775807", "falls outside"},
      {"", "subcommand"},
      {"nonsense", "nonsense"},
  };
  for (const Case& c : cases) {
    const CliRun run = Bankcheck(c.arguments);
    EXPECT_EQ(run.exit_code, 2) << c.arguments << "\n" << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr(c.message)) << c.arguments;
  }
}

// Every error, CLI11's parse errors included, is one `bankcheck: error:` line (then where to look),
// with the nearest command or option when one is within two edits; usage errors exit 2.
TEST_F(CliTest, ParseErrorsHaveTheOneFormAndSuggestTheNearestName) {
  struct Case {
    const char* arguments;
    const char* message;
  };
  const Case cases[] = {
      {"predcit --bytes 4 --stride 1",
       "bankcheck: error: 'predcit' is not a command; did you mean 'predict'?"},
      {"merge-result run", "did you mean 'merge-results'?"},
      {"explian", "did you mean 'explain'?"},
      {"predict --josn --bytes 4 --stride 1",
       "bankcheck: error: bankcheck predict has no option --josn; did you mean '--json'?"},
      {"predict --bytes 4 --stride 1 --src-strid=2", "no option --src-strid; did you mean '--src-stride'?"},
      {"report results.json --fromat text",
       "bankcheck report has no option --fromat; did you mean '--format'?"},
      {"--verison", "bankcheck: error: bankcheck has no option --verison; did you mean '--version'?"},
      {"nonsense", "bankcheck: error: 'nonsense' is not a command (the commands: predict, explain, report"},
      {"predict --bytes 4 --stride 1 --zzzzzz",
       "bankcheck: error: bankcheck predict has no option --zzzzzz\n"},
      {"predict --bytes 4 --stride 1 extra", "bankcheck: error: bankcheck predict takes no argument 'extra'"},
      {"predict --bytes", "bankcheck: error: predict: --bytes"},
      {"compare a.json", "bankcheck: error: compare: NEW is required"},
      {"report results.json --format yaml", "bankcheck: error: report: --format"},
      {"", "bankcheck: error: a subcommand is required (predict, explain"},
  };
  for (const Case& c : cases) {
    const CliRun run = Bankcheck(c.arguments);
    EXPECT_EQ(run.exit_code, 2) << c.arguments;
    EXPECT_EQ(run.out, "") << c.arguments;
    EXPECT_EQ(run.err.rfind("bankcheck: error: ", 0), 0u) << c.arguments << "\n" << run.err;
    EXPECT_THAT(run.err, HasSubstr(c.message)) << c.arguments;
    EXPECT_THAT(run.err, HasSubstr("--help' for more information")) << c.arguments;
  }
  // Too far from any name: no guess.
  EXPECT_THAT(Bankcheck("nonsense").err, Not(HasSubstr("did you mean")));
  EXPECT_THAT(Bankcheck("predict --bytes 4 --stride 1 --zzzzzz").err, Not(HasSubstr("did you mean")));
}

TEST_F(CliTest, HelpOnEverySubcommand) {
  for (const char* arguments : {"--help", "predict --help", "explain --help"}) {
    const CliRun run = Bankcheck(arguments);
    EXPECT_EQ(run.exit_code, 0) << arguments << "\n" << run.err;
    EXPECT_THAT(run.out, HasSubstr("Usage")) << arguments;
  }
  EXPECT_THAT(Bankcheck("predict --help").out, HasSubstr("--addresses"));
  EXPECT_THAT(Bankcheck("predict --help").out, HasSubstr("--op"));
  EXPECT_THAT(Bankcheck("predict --help").out, HasSubstr("lds, sts, atoms, ldsm, stsm, ldgsts"));
  EXPECT_THAT(Bankcheck("predict --help").out, HasSubstr("--src-stride"));
  EXPECT_THAT(Bankcheck("explain --help").out, HasSubstr("ldmatrix"));
  EXPECT_THAT(Bankcheck("explain --help").out, HasSubstr("--svg"));
}

// `plot` draws this repository's benchmarks only: it is benchmarks/plot's bankcheck_benchmark_plot,
// not a command of the installed CLI.
TEST_F(CliTest, PlotIsNotACommand) {
  const CliRun run = Bankcheck("plot results.json -o plot.svg");
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("plot"));
  EXPECT_THAT(Bankcheck("--help").out, Not(HasSubstr("plot")));
}

TEST_F(CliTest, ExplainPrintsTheWorstBankWithoutColourOffATerminal) {
  const CliRun run = Bankcheck("explain --bytes 4 --stride 32 --offset 20");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("32 wavefronts, ideal 1, 31 conflicts (32-way)"));
  EXPECT_THAT(run.out, HasSubstr("worst bank 5 (32 words)"));
  EXPECT_THAT(run.out, HasSubstr("bank  5  lanes 0-31"));
  EXPECT_THAT(run.out, HasSubstr("<- worst bank"));
  EXPECT_THAT(run.out, Not(HasSubstr("\033[")));
}

TEST_F(CliTest, ExplainWritesSvg) {
  const auto svg_path = dir_ / "map.svg";
  const CliRun run = Bankcheck("explain --bytes 8 --stride 2 --svg '" + svg_path.string() + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("wrote"));
  const std::string svg = ReadFile(svg_path);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_THAT(svg, HasSubstr("</svg>"));
  EXPECT_THAT(svg, HasSubstr("worst bank 0 in phase 0"));
  EXPECT_THAT(bankcheck::testing_support::TemporaryFilesUnder(dir_), ::testing::IsEmpty());
}

TEST_F(CliTest, ExplainSvgIntoAMissingFolderFails) {
  const CliRun run =
      Bankcheck("explain --bytes 4 --stride 1 --svg '" + (dir_ / "no/such/dir/map.svg").string() + "'");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("cannot write"));
}

// README's table of the `bankcheck` command, by command: the row's first cell (its usage).
std::map<std::string, std::string> ReadmeCommandRows() {
  const std::string readme = ReadFile(BANKCHECK_README_PATH);
  const size_t section = readme.find("\n## The `bankcheck` command\n");
  EXPECT_NE(section, std::string::npos) << "README.md has no '## The `bankcheck` command' section";
  const size_t end = readme.find("\n## ", section + 1);
  std::istringstream lines(readme.substr(section, end - section));
  std::map<std::string, std::string> rows;
  const std::regex row(R"(^\| `bankcheck ([a-z-]+)([^|]|\\\|)*`)");
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, match, row)) rows[match[1]] = match[0];
  }
  return rows;
}

// The subcommands `bankcheck --help` lists.
std::set<std::string> HelpCommands(const std::string& help) {
  std::istringstream lines(help.substr(help.find("Subcommands:")));
  std::set<std::string> commands;
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    commands.insert(name);
  }
  return commands;
}

// README's command table names exactly the subcommands --help lists, and each row's options are
// options of that command, so that the two cannot drift apart.
TEST_F(CliTest, ReadmeNamesExactlyTheCommandsAndOptionsOfHelp) {
  const CliRun help = Bankcheck("--help");
  ASSERT_EQ(help.exit_code, 0) << help.err;
  const std::set<std::string> commands = HelpCommands(help.out);
  EXPECT_THAT(commands, ::testing::Contains("predict"));
  const std::map<std::string, std::string> rows = ReadmeCommandRows();
  std::set<std::string> documented;
  for (const auto& [name, usage] : rows) documented.insert(name);
  EXPECT_EQ(documented, commands) << "README.md's table of the bankcheck command against `bankcheck --help`";
  const std::regex option("--[a-z][a-z-]*");
  for (const auto& [name, usage] : rows) {
    if (commands.count(name) == 0) continue;
    const CliRun command_help = Bankcheck(name + " --help");
    ASSERT_EQ(command_help.exit_code, 0) << name << ": " << command_help.err;
    for (auto it = std::sregex_iterator(usage.begin(), usage.end(), option); it != std::sregex_iterator();
         ++it) {
      EXPECT_THAT(command_help.out, HasSubstr(it->str() + " ")) << "README.md: " << usage;
    }
  }
}

// README and `predict --help` name every field `predict --json` prints.
TEST_F(CliTest, ReadmeAndHelpNameEveryFieldOfPredictJson) {
  const std::string readme = ReadFile(BANKCHECK_README_PATH);
  const std::string help = Bankcheck("predict --help").out;
  const nlohmann::json predicted = PredictJson("--op lds --bytes 4 --stride 2");
  ASSERT_TRUE(predicted.is_object());
  for (auto field = predicted.begin(); field != predicted.end(); ++field) {
    EXPECT_THAT(readme, HasSubstr("\"" + field.key() + "\"")) << "README.md: predict --json";
    EXPECT_THAT(help, HasSubstr(field.key())) << "predict --help: --json";
  }
}

}  // namespace
