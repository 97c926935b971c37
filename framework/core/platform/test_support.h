#pragma once
// Test-only helpers: records with chosen counts, files, a temporary folder per test, and the
// built `bankcheck` binary run as scripts run it.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/core/baseline.h"
#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/run_metadata.h"

namespace bankcheck::testing_support {

// One launch with `load_wavefronts` over `ideal` ideal wavefronts for loads and conflict-free
// stores of `ideal` wavefronts; `ideal` instructions in each direction.
inline LaunchRecord MakeRecord(uint64_t load_wavefronts, uint64_t ideal = 64,
                               const std::string& kernel = "transpose") {
  LaunchRecord record;
  record.kernel = kernel + "(float*, float const*)";
  record.mangled_kernel = "_Z" + std::to_string(kernel.size()) + kernel + "PfPKf";
  record.grid = {32, 32, 1};
  record.block = {32, 8, 1};
  record.loads() = {ideal, load_wavefronts, ideal};
  record.stores() = {ideal, ideal, ideal};
  record.counted_by = CountedBy::kRangeProfiler;  // with hardware readings
  record.hardware[MemoryKind::kSharedLoad] = {load_wavefronts + 3, load_wavefronts - ideal + 3};
  record.hardware[MemoryKind::kSharedStore] = {ideal, 0};
  return record;
}

// One shared-memory instruction of a kernel, as attribution counts it.
inline InstructionCounts MakeInstruction(uint32_t pc_offset, const std::string& opcode, MemoryKind kind,
                                         uint32_t line, uint64_t executions, uint64_t wavefronts,
                                         uint64_t ideal,
                                         const std::string& file = "/src/bankcheck/kernels/transpose.cu") {
  InstructionCounts instruction;
  instruction.pc_offset = pc_offset;
  instruction.opcode = opcode;
  instruction.kind = kind;
  instruction.file = file;
  instruction.line = line;
  instruction.executions = executions;
  instruction.wavefronts = wavefronts;
  instruction.ideal_wavefronts = ideal;
  return instruction;
}

// One source line of a launch, as a baseline keeps it (line_keys.h), in the key's own terms.
inline LineRecord MakeLine(const std::string& file, uint32_t line, const std::string& code, MemoryKind kind,
                           uint64_t executions, uint64_t wavefronts, uint64_t ideal,
                           std::vector<std::string> opcodes = {}) {
  LineRecord record;
  record.file = file;
  record.line = line;
  record.code = code;
  record.kind = kind;
  record.executions = executions;
  record.wavefronts = wavefronts;
  record.ideal_wavefronts = ideal;
  record.opcodes = std::move(opcodes);
  return record;
}

// `record` as attribution leaves it: its loads as one conflicting LDS at line 31 and its stores as
// one STS at line 40 of /src/bankcheck/kernels/transpose.cu, summed over `launches` launches.
inline LaunchRecord WithInstructions(LaunchRecord record, uint32_t launches = 1) {
  const KindCounts& loads = record.loads();
  const KindCounts& stores = record.stores();
  record.instructions = {MakeInstruction(0x220, "LDS", MemoryKind::kSharedLoad, 31, loads.instructions,
                                         loads.wavefronts, loads.ideal_wavefronts),
                         MakeInstruction(0x1a0, "STS", MemoryKind::kSharedStore, 40, stores.instructions,
                                         stores.wavefronts, stores.ideal_wavefronts)};
  record.attributed_launches = launches;
  return record;
}

inline RunMetadata MakeMetadata(const std::string& date = "2025-11-22T10:00:00Z") {
  RunMetadata metadata;
  metadata.arch = "sm_90";
  metadata.device = "NVIDIA H100 80GB HBM3";
  metadata.driver = "580.65.06";
  metadata.cuda_runtime = "13.0";
  metadata.cuda_driver = "13.0";
  metadata.date = date;
  return metadata;
}

// What a consumer's suite (bankcheck_add_kernel_suite(my_suite ...)) tells a person to run, as the
// core gets it; the suite layer's RecordCommand makes the real one (suite/record_command_test.cc).
inline RecordAdvice MySuiteAdvice() {
  RecordAdvice advice;
  advice.all = "RECORD ALL";
  advice.one = [](const std::string& case_name) { return "RECORD " + case_name; };
  advice.test_of = [](const std::string& case_name) { return "my_suite/" + TopicOfCase(case_name); };
  return advice;
}

// A baseline file of two transpose cases.
inline BaselineFile MakeBaselineFile() {
  BaselineFile file;
  file.arch = "sm_90";
  file.recorded_with = MakeMetadata();
  file.recorded_with.arch.clear();
  file.cases["transpose/naive"] = {"unpadded tile", {MakeRecord(2048)}};
  file.cases["transpose/padded"] = {"padded tile", {MakeRecord(64)}};
  return file;
}

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Every file under `folder` whose name contains ".tmp." (a leftover of an atomic write).
inline std::vector<std::string> TemporaryFilesUnder(const std::filesystem::path& folder) {
  std::vector<std::string> found;
  for (const auto& item : std::filesystem::recursive_directory_iterator(folder)) {
    if (item.path().filename().string().find(".tmp.") != std::string::npos)
      found.push_back(item.path().string());
  }
  return found;
}

// The permission bits of `path` itself (a link's own, not its target's).
inline mode_t ModeOf(const std::filesystem::path& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0 ? status.st_mode & 07777 : 0;
}

// A file that a planted link points at: it stands for a file of root's that no output may touch.
struct Victim {
  std::filesystem::path path;
  std::string content;
  mode_t mode;
};

inline Victim MakeVictim(const std::filesystem::path& path) {
  const Victim victim{path, "root's own file\n", 0600};
  WriteFile(path, victim.content);
  std::filesystem::permissions(path, std::filesystem::perms(victim.mode));
  return victim;
}

// The victim is byte-identical and keeps its mode.
inline void ExpectUntouched(const Victim& victim) {
  EXPECT_EQ(ReadFile(victim.path), victim.content) << victim.path;
  EXPECT_EQ(ModeOf(victim.path), victim.mode) << victim.path;
}

// Sets the process's umask for a scope (children started meanwhile inherit it).
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(old_); }
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;

 private:
  mode_t old_;
};

// A fresh folder per test, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() / ("bankcheck_" + std::string(info->test_suite_name()) +
                                                     "_" + info->name() + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

// What a run of the `bankcheck` binary printed and returned.
struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string Quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// Runs `binary arguments` through the shell (arguments as written), capturing stdout and stderr
// apart in files under `scratch`. stdout is a file, not a terminal, so no colour is expected.
inline CliRun RunCli(const std::string& binary, const std::string& arguments,
                     const std::filesystem::path& scratch) {
  const auto out = scratch / "stdout.txt";
  const auto err = scratch / "stderr.txt";
  const std::string command = Quoted(binary) + " " + arguments + " >" + Quoted(out) + " 2>" + Quoted(err);
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = ReadFile(out);
  run.err = ReadFile(err);
  return run;
}

}  // namespace bankcheck::testing_support
