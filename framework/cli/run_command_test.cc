// `bankcheck run` without a GPU: a stand-in injection library (run_command_test_injection.cc) says
// whether a GPU is usable, and the programs run are shell scripts that write what an injected
// process would (process-<pid>.json in BANKCHECK_RUN_DIR). What is checked is the command's part:
// usage, the program's environment, output and exit status passing through, combining processes,
// baselines checked and recorded, the results file. The injected side is checked on a GPU
// (docs/run.md has the H100 runs).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankcheck/core/results.h"
#include "core/platform/test_support.h"
#include "core/records/record_json.h"
#include "core/records/run_cases.h"

#ifndef BANKCHECK_FAKE_INJECTION_PATH
#error "BANKCHECK_FAKE_INJECTION_PATH must name the stand-in injection library"
#endif
#ifndef BANKCHECK_FAKE_INJECTION_WITHOUT_CUDA_PATH
#error "BANKCHECK_FAKE_INJECTION_WITHOUT_CUDA_PATH must name the stand-in whose dependency is absent"
#endif

namespace bankcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::CliRun;
using testing_support::Quoted;
using testing_support::ReadFile;
using testing_support::WriteFile;

class RunCommandTest : public testing_support::TempDirTest {
 protected:
  // `bankcheck run` with the stand-in library, `environment` ("NAME=value ...") before it.
  CliRun Run(const std::string& arguments, const std::string& environment = "",
             const std::string& library = BANKCHECK_FAKE_INJECTION_PATH) {
    const std::string command =
        "cd " + Quoted(dir_) +
        " && env -u CUDA_INJECTION64_PATH -u LD_LIBRARY_PATH BANKCHECK_INJECTION_LIBRARY=" + Quoted(library) +
        " " + environment + " " + Quoted(BANKCHECK_CLI_PATH) + " run " + arguments;
    const std::filesystem::path script = dir_ / "scratch" / "command.sh";
    WriteFile(script, command + "\n");
    return testing_support::RunCli("/bin/sh", Quoted(script), dir_ / "scratch");
  }

  void SetUp() override {
    TempDirTest::SetUp();
    std::filesystem::create_directories(dir_ / "scratch");
  }

  // A program that writes `results` as its process's file, prints "program ran" and exits with
  // `status`.
  std::filesystem::path Program(const std::vector<LaunchRecord>& launches, int status = 0,
                                const std::string& name = "program.sh") {
    RunResults results;
    results.metadata = testing_support::MakeMetadata();
    results.cases = internal::RunCases(launches);
    const std::filesystem::path json = dir_ / (name + ".json");
    WriteFile(json, SerializeResults(results));
    const std::filesystem::path script = dir_ / name;
    WriteFile(script, "#!/bin/sh\ncp " + Quoted(json) + " \"$BANKCHECK_RUN_DIR/process-$$.json\"\n" +
                          "echo program ran\nexit " + std::to_string(status) + "\n");
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    return script;
  }

  static LaunchRecord Launch(uint64_t load_wavefronts, const std::string& range, uint64_t index) {
    LaunchRecord record = testing_support::MakeRecord(load_wavefronts, 64, "transpose");
    record.counted_by = CountedBy::kSassMetrics;
    record.hardware = {};
    record.nvtx_range = range;
    record.process_launch = index;
    return record;
  }

  nlohmann::json Results(const std::string& name = "run.json") {
    return nlohmann::json::parse(ReadFile(dir_ / name));
  }
};

TEST_F(RunCommandTest, WithoutACommandPrintsUsage) {
  const CliRun run = Run("-o x.json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("give the program to measure after --"));
}

TEST_F(RunCommandTest, RefusesBadOptionsBeforeRunningTheProgram) {
  const std::filesystem::path program = Program({Launch(64, "", 0)});
  CliRun run = Run("--update-baselines -- " + Quoted(program));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--update-baselines needs --baselines DIR"));
  run = Run("--kernel 'transpose[' -- " + Quoted(program));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--kernel 'transpose[' is not a valid regular expression"));
  EXPECT_THAT(run.out, Not(HasSubstr("program ran")));
}

TEST_F(RunCommandTest, RefusesToRunUnderAnotherInjectingTool) {
  const CliRun run = Run("-- " + Quoted(Program({})), "CUDA_INJECTION64_PATH=/opt/ncu/libInjection.so");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("another tool injects into CUDA programs here"));
  EXPECT_THAT(run.out, Not(HasSubstr("program ran")));
}

TEST_F(RunCommandTest, WithoutAGpuSkipsWithTheReasonAndDoesNotRunTheProgram) {
  const std::filesystem::path program = Program({Launch(64, "", 0)});
  CliRun run = Run("-- " + Quoted(program), "BANKCHECK_FAKE_NO_GPU='no NVIDIA driver is loaded'");
  EXPECT_EQ(run.exit_code, 77);
  EXPECT_THAT(run.err,
              HasSubstr("bankcheck: skipped: run: no NVIDIA driver is loaded; the program was not run"));
  EXPECT_THAT(run.out, Not(HasSubstr("program ran")));
  run = Run("-- " + Quoted(program), "BANKCHECK_FAKE_NO_GPU='no NVIDIA driver' BANKCHECK_REQUIRE_GPU=1");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: run: no NVIDIA driver"));
}

// As where CUPTI and the CUDA runtime are not installed (a pip install without the `cuda` extra): the
// injection library cannot be loaded, which skips the run as no GPU does, naming what to install.
TEST_F(RunCommandTest, WithoutTheCudaLibrariesSkipsNamingTheCudaExtra) {
  const std::filesystem::path program = Program({Launch(64, "", 0)});
  CliRun run = Run("-- " + Quoted(program), "", BANKCHECK_FAKE_INJECTION_WITHOUT_CUDA_PATH);
  EXPECT_EQ(run.exit_code, 77) << run.err;
  EXPECT_THAT(run.err,
              AllOf(HasSubstr("bankcheck: skipped: run: the CUDA libraries cannot be loaded: "),
                    HasSubstr("needs libcupti_stand_in.so, not found"),
                    HasSubstr("pip install 'bankcheck[cuda]'"), HasSubstr("the program was not run")));
  EXPECT_THAT(run.out, Not(HasSubstr("program ran")));
  run = Run("-- " + Quoted(program), "BANKCHECK_REQUIRE_GPU=1", BANKCHECK_FAKE_INJECTION_WITHOUT_CUDA_PATH);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, AllOf(HasSubstr("bankcheck: error: run: the CUDA libraries cannot be loaded"),
                             HasSubstr("pip install 'bankcheck[cuda]'")));
  EXPECT_THAT(run.out, Not(HasSubstr("program ran")));
}

TEST_F(RunCommandTest, GivesTheProgramTheInjectionAndTheSettings) {
  const std::filesystem::path script = dir_ / "env.sh";
  WriteFile(script,
            "#!/bin/sh\necho \"inject=$CUDA_INJECTION64_PATH nvtx=$NVTX_INJECTION64_PATH "
            "kernel=$BANKCHECK_RUN_KERNEL range=$BANKCHECK_RUN_RANGE max=$BANKCHECK_RUN_MAX_LAUNCHES "
            "attribute=$BANKCHECK_RUN_ATTRIBUTE once=$BANKCHECK_RUN_MEASURE_ONCE\"; test -d "
            "\"$BANKCHECK_RUN_DIR\"\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const CliRun run =
      Run("--kernel 'gemm|conv' --range '^fwd/' --max-launches 5 --attribute --measure-once -o run.json -- " +
          Quoted(script));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string library = BANKCHECK_FAKE_INJECTION_PATH;
  EXPECT_THAT(run.out, HasSubstr("inject=" + library + " nvtx=" + library +
                                 " kernel=gemm|conv range=^fwd/ max=5 attribute=1 once=1"));
  EXPECT_THAT(run.err, HasSubstr("0 launch(es) measured in 0 process(es) (no process initialized CUDA)"));
  EXPECT_TRUE(Results()["cases"].empty());
}

TEST_F(RunCommandTest, GivesTheProgramItsArgumentsInOrderOptionsIncluded) {
  const std::filesystem::path script = dir_ / "args.sh";
  WriteFile(script, "#!/bin/sh\necho \"args: $*\"\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  CliRun run = Run("-o run.json -- " + Quoted(script) + " -o mine --kernel 7 -- x");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("args: -o mine --kernel 7 -- x"));
  run = Run(Quoted(script) + " --size 4");  // without --: bankcheck's options end at the program
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("args: --size 4"));
  run = Run("--bogus -- " + Quoted(script));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("bankcheck run has no option --bogus"));
}

TEST_F(RunCommandTest, PassesTheProgramsOutputAndFailureThroughAndKeepsWhatWasMeasured) {
  const CliRun run = Run("-o run.json -- " + Quoted(Program({Launch(128, "fwd", 0)}, 3)));
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.out, HasSubstr("program ran"));
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: run: the program exited with status 3\n"));
  EXPECT_EQ(Results()["cases"]["fwd/transpose"]["launches"][0]["shared_ld"]["wavefronts"], 128);
}

TEST_F(RunCommandTest, CombinesProcessesAndNamesCasesByRangeAndKernel) {
  const std::filesystem::path first =
      Program({Launch(64, "fwd/128", 0), Launch(64, "fwd/128", 1)}, 0, "a.sh");
  const std::filesystem::path second = Program({Launch(64, "", 0)}, 0, "b.sh");
  const std::filesystem::path both = dir_ / "both.sh";
  WriteFile(both, "#!/bin/sh\n" + Quoted(first) + " && " + Quoted(second) + "\n");
  std::filesystem::permissions(both, std::filesystem::perms::owner_all);
  const CliRun run = Run("-o run.json -- " + Quoted(both));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json cases = Results()["cases"];
  EXPECT_EQ(cases.size(), 3u) << cases.dump();
  EXPECT_TRUE(cases.contains("fwd/128/transpose"));
  EXPECT_TRUE(cases.contains("fwd/128/transpose#2"));
  EXPECT_TRUE(cases.contains("transpose"));
  EXPECT_EQ(cases["fwd/128/transpose#2"]["description"],
            "launch 1 of the process: transpose(float*, float const*) in NVTX range 'fwd/128'");
  EXPECT_THAT(run.err, HasSubstr("3 launch(es) measured in 2 process(es)"));
}

TEST_F(RunCommandTest, SaysHowManyLaunchesRanUnmeasuredAsRepeats) {
  LaunchRecord first = Launch(64, "fwd", 0), other = Launch(64, "bwd", 5);
  first.notes.push_back(internal::RepeatsNote(40));
  other.notes.push_back(internal::RepeatsNote(2));
  const CliRun run =
      Run("--measure-once -o run.json -- " + Quoted(Program({first, other, Launch(64, "", 9)})));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err,
              HasSubstr("3 launch(es) measured in 1 process(es); 42 later launch(es) ran unmeasured as "
                        "repeats of 2 case(s) (--measure-once)"));
  EXPECT_THAT(Results()["cases"]["fwd/transpose"]["description"].get<std::string>(),
              HasSubstr("measured once for it and 40 later launch(es) of the same configuration"));
}

TEST_F(RunCommandTest, RecordsBaselinesThenGatesOnThem) {
  const std::string baselines = Quoted(dir_ / "baselines");
  const std::filesystem::path good = Program({Launch(64, "fwd", 0)}, 0, "good.sh");
  // No baseline yet: a failure that says how to record.
  CliRun run = Run("--baselines " + baselines + " -o run.json -- " + Quoted(good));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("--update-baselines"));
  EXPECT_EQ(Results()["cases"]["fwd/transpose"]["baseline"], "missing");

  run = Run("--baselines " + baselines + " --update-baselines -o run.json -- " + Quoted(good));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::filesystem::path file = dir_ / "baselines" / "sm_90" / "fwd.json";
  ASSERT_TRUE(std::filesystem::exists(file)) << run.err;
  EXPECT_THAT(ReadFile(file), HasSubstr("\"fwd/transpose\""));

  run = Run("--baselines " + baselines + " -o run.json -- " + Quoted(good));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Results()["cases"]["fwd/transpose"]["baseline"], "match");

  // More conflicts than recorded: a regression, in the report and the exit status.
  const std::filesystem::path worse = Program({Launch(256, "fwd", 0)}, 0, "worse.sh");
  run = Run("--baselines " + baselines + " --report summary.md -o run.json -- " + Quoted(worse));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("1 regression"));
  EXPECT_EQ(Results()["cases"]["fwd/transpose"]["baseline"], "regression");
  EXPECT_THAT(ReadFile(dir_ / "summary.md"), HasSubstr("**1 regression**"));
}

// An emulated program (the pytest plugin's CPU mode) writes process-<pid>.launches.json: no GPU is
// asked for, the cases are named and filtered here, checked as measured ones are, and recorded as
// first baselines, never over a measured baseline.
TEST_F(RunCommandTest, EmulatedProgramsLaunchesAreCheckedAndRecordedAsFirstBaselines) {
  const auto program = [this](uint64_t wavefronts, const std::string& name) {
    LaunchRecord record = Launch(wavefronts, "", 0);
    record.counted_by = CountedBy::kEmulated;
    nlohmann::json launch = {{"nvtx_range", "fwd"},
                             {"process_launch", 1},
                             {"output", "not computed: MUFU"},
                             {"record", LaunchRecordToJson(record, RecordDetail::kFull)}};
    const nlohmann::json other = {{"nvtx_range", "other"},
                                  {"process_launch", 2},
                                  {"output", ""},
                                  {"record", LaunchRecordToJson(record, RecordDetail::kFull)}};
    const std::filesystem::path json = dir_ / (name + ".launches.json");
    WriteFile(json, nlohmann::json{{"launches", {launch, launch, other}}}.dump());
    const std::filesystem::path script = dir_ / name;
    WriteFile(script, "#!/bin/sh\n[ \"$BANKCHECK_RUN_EMULATED\" = 1 ] || exit 3\ncp " + Quoted(json) +
                          " \"$BANKCHECK_RUN_DIR/process-$$.launches.json\"\n");
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    return Quoted(script);
  };
  const std::string baselines = "--baselines " + Quoted(dir_ / "baselines") + " --range fwd -o run.json";
  const std::string no_gpu = "BANKCHECK_FAKE_NO_GPU='no NVIDIA driver is loaded'";
  CliRun run = Run(baselines + " --emulated -- " + program(64, "good.sh"), no_gpu);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(Results()["cases"]["fwd/transpose"]["baseline"], "missing");
  EXPECT_EQ(Results()["cases"]["fwd/transpose#2"]["output"], "not computed: MUFU");
  EXPECT_EQ(Results()["cases"].count("other/transpose"), 0u) << "--range applies";
  EXPECT_EQ(Results()["metadata"]["device"], "bankcheck emulated sm_90");
  EXPECT_THAT(run.err, HasSubstr("bankcheck run: 2 launch(es) emulated in 1 process(es)"));

  run = Run(baselines + " --emulated --update-baselines -- " + program(64, "good.sh"), no_gpu);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::filesystem::path file = dir_ / "baselines" / "sm_90" / "fwd.json";
  EXPECT_EQ(nlohmann::json::parse(ReadFile(file))["recorded_with"]["counters"], "emulated");
  run = Run(baselines + " --emulated -- " + program(256, "worse.sh"), no_gpu);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("2 regression"));

  // Measured baselines stay: an emulated update leaves them alone, saying so.
  run = Run(baselines + " --update-baselines -- " + Quoted(Program({Launch(64, "fwd", 0)}, 0, "gpu.sh")));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  run = Run(baselines + " --emulated --update-baselines -- " + program(256, "worse.sh"), no_gpu);
  EXPECT_THAT(run.err, HasSubstr("left alone: fwd/transpose (its baseline was measured on a GPU"));
  EXPECT_NE(
      nlohmann::json::parse(ReadFile(file))["cases"]["fwd/transpose"]["launches"][0].value("counters", ""),
      "emulated");

  // A file the emulated program got wrong fails the run, naming the file and the field.
  const std::filesystem::path broken = dir_ / "broken.sh";
  WriteFile(broken,
            "#!/bin/sh\necho '{\"launches\": [{\"nvtx_range\": \"fwd\"}]}' > "
            "\"$BANKCHECK_RUN_DIR/process-$$.launches.json\"\n");
  std::filesystem::permissions(broken, std::filesystem::perms::owner_all);
  run = Run(baselines + " --emulated -- " + Quoted(broken));
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.err, AllOf(HasSubstr(".launches.json"), HasSubstr("launches[0]")));

  run = Run(baselines + " --emulated --measure-once -- " + program(64, "good.sh"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--emulated takes no --max-launches, --attribute or --measure-once"));
}

// A tool that runs `bankcheck run` for its user (the pytest plugin) has the user's own command
// printed where a message says how to record, in place of this run.
TEST_F(RunCommandTest, PrintsTheGivenRecordCommand) {
  const std::string baselines = Quoted(dir_ / "baselines");
  const std::filesystem::path good = Program({Launch(64, "fwd", 0)}, 0, "good.sh");
  const std::string own = "pytest tests --bankcheck-baselines bl --bankcheck-update";
  CliRun run = Run("--baselines " + baselines + " --record-command " + Quoted(own) + " -o run.json -- " +
                   Quoted(good));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err,
              AllOf(HasSubstr("Record them with: " + own + "\n"), Not(HasSubstr("--update-baselines"))));
  run = Run("--baselines " + baselines + " --update-baselines -o run.json -- " + Quoted(good));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::filesystem::path worse = Program({Launch(256, "fwd", 0)}, 0, "worse.sh");
  run = Run("--baselines " + baselines + " --record-command " + Quoted(own) + " -o run.json -- " +
            Quoted(worse));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, AllOf(HasSubstr("record the new values with:\n  " + own + "\n"),
                             Not(HasSubstr("bankcheck run --baselines"))));
}

TEST_F(RunCommandTest, AProcessThatStoppedMeasuringFailsTheRun) {
  const std::filesystem::path script = dir_ / "fault.sh";
  WriteFile(script,
            "#!/bin/sh\necho 'kernel scale faulted while it was measured' > "
            "\"$BANKCHECK_RUN_DIR/process-$$.error\"\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const CliRun run = Run("-o run.json -- " + Quoted(script));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: run: measuring stopped in process "));
  EXPECT_THAT(run.err, HasSubstr(": kernel scale faulted while it was measured\n"));
  EXPECT_THAT(run.err, HasSubstr("(measuring stopped: above)"));
  EXPECT_THAT(run.err, Not(HasSubstr("no process initialized CUDA")));
}

TEST_F(RunCommandTest, RecordsRepeatedLaunchesOutsideAnyRangeAndRangesOfAnyName) {
  // torch.randn's kernel, launched twice outside any range, and a range with spaces.
  const std::filesystem::path program =
      Program({Launch(64, "", 0), Launch(64, "", 1), Launch(64, "step 1: forward", 2)}, 0, "torch.sh");
  const std::string baselines = Quoted(dir_ / "baselines");
  CliRun run = Run("--baselines " + baselines + " --update-baselines -o run.json -- " + Quoted(program));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(ReadFile(dir_ / "baselines" / "sm_90" / "transpose.json"),
              AllOf(HasSubstr("\"transpose\""), HasSubstr("\"transpose#2\"")));
  EXPECT_THAT(ReadFile(dir_ / "baselines" / "sm_90" / "step_1__forward.json"),
              HasSubstr("\"step 1: forward/transpose\""));
  run = Run("--baselines " + baselines + " -o run.json -- " + Quoted(program));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Results()["cases"]["transpose#2"]["baseline"], "match");
}

TEST_F(RunCommandTest, AppendsTheReportToAJobSummaryAndRefusesALinkThere) {
  WriteFile(dir_ / "summary.md", "## an earlier step\n");
  const std::filesystem::path program = Program({Launch(64, "fwd", 0)});
  CliRun run = Run("--report summary.md -o run.json -- " + Quoted(program));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string summary = ReadFile(dir_ / "summary.md");
  EXPECT_EQ(summary.rfind("## an earlier step\n", 0), 0u) << summary;
  EXPECT_THAT(summary, HasSubstr("\n## bankcheck: sm_90"));
  run = Run("--report new.md -o run.json -- " + Quoted(program));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ReadFile(dir_ / "new.md").rfind("## bankcheck: sm_90", 0), 0u);

  WriteFile(dir_ / "victim", "root's own\n");
  std::filesystem::create_symlink(dir_ / "victim", dir_ / "link.md");
  run = Run("--report link.md -o run.json -- " + Quoted(program));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: refusing to append to link.md: it is a symbolic link"));
  EXPECT_EQ(ReadFile(dir_ / "victim"), "root's own\n");
}

// Without BANKCHECK_INJECTION_LIBRARY, `run` loads the library beside itself (<prefix>/lib from
// <prefix>/bin/bankcheck), and injects it into the program measured, often as root: only where
// nobody but root and the caller can have put it. A prefix in a folder that everyone may write to
// (/tmp/bin/bankcheck finds /tmp/lib) lets another user plant it: refused, naming it, the program
// not run. As root the planted folder and library are another user's (nobody), as they would be.
TEST_F(RunCommandTest, LoadsTheLibraryBesideItselfOnlyWhereNobodyElseCanHavePutIt) {
  const std::filesystem::path program = Program({Launch(64, "", 0)});
  const auto run_from = [&](const std::filesystem::path& prefix) {
    std::filesystem::create_directories(prefix / "bin");
    std::filesystem::copy_file(BANKCHECK_CLI_PATH, prefix / "bin" / "bankcheck",
                               std::filesystem::copy_options::overwrite_existing);
    const std::string command = "cd " + Quoted(dir_) +
                                " && env -u CUDA_INJECTION64_PATH -u LD_LIBRARY_PATH -u "
                                "BANKCHECK_INJECTION_LIBRARY BANKCHECK_FAKE_NO_GPU='no NVIDIA driver' " +
                                Quoted(prefix / "bin" / "bankcheck") + " run -- " + Quoted(program);
    WriteFile(dir_ / "scratch" / "command.sh", command + "\n");
    return testing_support::RunCli("/bin/sh", Quoted(dir_ / "scratch" / "command.sh"), dir_ / "scratch");
  };
  const auto plant = [&](const std::filesystem::path& lib) {
    std::filesystem::create_directories(lib);
    std::filesystem::copy_file(BANKCHECK_FAKE_INJECTION_PATH, lib / "libbankcheck_inject.so",
                               std::filesystem::copy_options::overwrite_existing);
  };
  // The caller's own prefix: the library there is loaded (the stand-in then says there is no GPU).
  plant(dir_ / "prefix" / "lib");
  CliRun run = run_from(dir_ / "prefix");
  EXPECT_EQ(run.exit_code, 77) << run.err;
  EXPECT_THAT(run.err, HasSubstr("run: no NVIDIA driver; the program was not run"));

  const std::filesystem::path shared = dir_ / "tmp";  // as /tmp: world-writable, sticky
  std::filesystem::create_directories(shared);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  plant(shared / "lib");
  // lib/ writable by everyone (not sticky): anyone could have put the library there.
  ASSERT_EQ(::chmod((shared / "lib").c_str(), 0777), 0);
  const std::string library = (shared / "lib" / "libbankcheck_inject.so").string();
  run = run_from(shared);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, AllOf(HasSubstr("refusing to load " + library),
                             HasSubstr((shared / "lib").string() + ": others may write to it (mode 0777"),
                             HasSubstr("BANKCHECK_INJECTION_LIBRARY")));
  EXPECT_THAT(run.out, Not(HasSubstr("program ran")));
  ASSERT_EQ(::chmod((shared / "lib").c_str(), 0755), 0);
  if (::geteuid() != 0) GTEST_SKIP() << "giving the planted library to another user needs root";
  ASSERT_EQ(::lchown((shared / "lib").c_str(), 65534, 65534), 0);
  ASSERT_EQ(::lchown(library.c_str(), 65534, 65534), 0);
  run = run_from(shared);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err,
              AllOf(HasSubstr("refusing to load " + library),
                    HasSubstr((shared / "lib").string() + ": it belongs to another user (uid 65534)")));
  EXPECT_THAT(run.out, Not(HasSubstr("program ran")));
  // Their library in a folder of ours that is sticky: refused all the same.
  ASSERT_EQ(::lchown((shared / "lib").c_str(), 0, 0), 0);
  ASSERT_EQ(::chmod((shared / "lib").c_str(), 01777), 0);
  run = run_from(shared);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("refusing to load " + library + ": it belongs to another user (uid 65534)"));
}

TEST_F(RunCommandTest, HelpHasOneUsageLineAndErrorsTheSharedForm) {
  const CliRun help = Run("--help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  const size_t usage = help.out.find("Usage: bankcheck run [OPTIONS] -- COMMAND [ARGS...]\n");
  ASSERT_NE(usage, std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("Usage", usage + 1), std::string::npos) << "one usage line:\n" << help.out;
  const CliRun run = Run("-o run.json -- " + Quoted(Program({Launch(64, "", 0)}, 3)));
  EXPECT_THAT(run.err, Not(HasSubstr("bankcheck run: error")));
  EXPECT_THAT(run.err, HasSubstr("bankcheck: error: "));
}

}  // namespace
}  // namespace bankcheck
