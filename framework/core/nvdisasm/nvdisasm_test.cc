#include "core/nvdisasm/nvdisasm.h"

#include <gmock/gmock.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/platform/source_paths.h"

namespace bankcheck::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

// The shape of `nvdisasm -c` output for an sm_90 cubin (CUDA 13.0).
constexpr char kListing[] = R"listing(
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"

//--------------------- .text._Z9TransposePKfPfi --------------------------
	.section	.text._Z9TransposePKfPfi,"ax",@progbits
	.sectionflags	@"SHI_REGISTERS=12"
	.align	128
        .global         _Z9TransposePKfPfi
        .type           _Z9TransposePKfPfi,@function
.text._Z9TransposePKfPfi:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0210*/                   STS [R7], R2 ;
        /*0220*/              @!P0 LDS.128 R4, [R9+UR4] ;
        /*0230*/                   LDSM.16.M88.4 R8, [R3] ;
.L_x_0:
        /*0240*/               @UP0 ATOMS.POPC.INC.32 RZ, [R2+UR5], RZ ;
        /*0248*/                   HGMMA.64x64x16.F32 R24, gdesc[UR4], R24 ;
        /*0250*/                   EXIT ;
.text._Z5OtherPi:
        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
)listing";

// Function -> offset -> opcode, from a parsed listing.
std::map<std::string, std::map<uint32_t, std::string>> Opcodes(const Disassembly& disassembly) {
  std::map<std::string, std::map<uint32_t, std::string>> opcodes;
  for (const auto& [function, instructions] : disassembly)
    for (const auto& [pc, instruction] : instructions) opcodes[function][pc] = instruction.opcode;
  return opcodes;
}

// Folders with a stand-in tool each: the current folder (as an empty PATH entry names it), one on
// PATH, a wheel's layout and a toolkit's bin folder.
class ResolveCudaToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "bankcheck-tool-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    for (const char* folder :
         {"cwd", "onpath", "site-packages/nvidia/cu13/bin", "site-packages/bankcheck/bin",
          "site-packages/bankcheck-1.0.0.dist-info", "toolkit/bin"})
      std::filesystem::create_directories(root_ / folder);
    for (const char* folder : {"cwd", "onpath", "site-packages/nvidia/cu13/bin", "toolkit/bin"})
      Executable(root_ / folder / "nvdisasm");
    // The installed bankcheck wheel: its program, listed in its RECORD as pip writes it.
    Executable(root_ / "site-packages/bankcheck/bin/bankcheck");
    std::ofstream(root_ / "site-packages/bankcheck-1.0.0.dist-info/RECORD")
        << "bankcheck/__init__.py,sha256=AAAA,10\nbankcheck/bin/bankcheck,sha256=BBBB,20\n"
           "bankcheck-1.0.0.dist-info/RECORD,,\n";
    ASSERT_EQ(::getcwd(previous_, sizeof previous_), previous_);
    ASSERT_EQ(::chdir((root_ / "cwd").c_str()), 0);
    ::unsetenv("BANKCHECK_TEST_NVDISASM");
  }
  void TearDown() override {
    ASSERT_EQ(::chdir(previous_), 0);
    ::unsetenv("BANKCHECK_TEST_NVDISASM");
    std::filesystem::remove_all(root_);
  }
  CudaTool Resolve(const std::string& path, const std::string& program = "",
                   const std::string& toolkit = "") const {
    return ResolveCudaTool("nvdisasm", "BANKCHECK_TEST_NVDISASM", path, program, toolkit);
  }
  std::string In(const char* folder) const { return (root_ / folder).string(); }
  // The installed wheel's program, site-packages/bankcheck/bin/bankcheck.
  std::string WheelProgram() const { return In("site-packages/bankcheck/bin") + "/bankcheck"; }
  static void Executable(const std::filesystem::path& file) {
    std::ofstream(file) << "#!/bin/sh\n";
    ::chmod(file.c_str(), 0755);
  }

  std::filesystem::path root_;
  char previous_[4096] = {};
};

// An empty or relative PATH entry names the current folder: never searched, whatever it holds.
TEST_F(ResolveCudaToolTest, EmptyAndRelativePathEntriesAreSkipped) {
  const CudaTool none = Resolve(":.:cwd::");
  EXPECT_EQ(none.path, "");
  EXPECT_THAT(none.Describe("nvdisasm"),
              ::testing::HasSubstr("no nvdisasm found (searched BANKCHECK_TEST_NVDISASM"));
  const CudaTool on_path = Resolve("::.:" + In("onpath") + ":");
  EXPECT_EQ(on_path.path, In("onpath") + "/nvdisasm");
  EXPECT_EQ(on_path.Describe("nvdisasm"), "nvdisasm " + In("onpath") + "/nvdisasm (found by PATH)");
}

TEST_F(ResolveCudaToolTest, TheVariableThenTheToolkitThenTheWheelThenPath) {
  const std::string path = In("onpath");
  EXPECT_EQ(Resolve(path, WheelProgram()).path, In("site-packages/nvidia/cu13/bin") + "/nvdisasm");
  EXPECT_EQ(Resolve(path, WheelProgram()).found_by, "the nvidia-cuda-nvdisasm wheel beside this program");
  EXPECT_EQ(Resolve(path, WheelProgram(), In("toolkit/bin")).path, In("toolkit/bin") + "/nvdisasm");
  ::setenv("BANKCHECK_TEST_NVDISASM", (In("onpath") + "/nvdisasm").c_str(), 1);
  const CudaTool set = Resolve("", WheelProgram(), In("toolkit/bin"));
  EXPECT_EQ(set.path, In("onpath") + "/nvdisasm");
  EXPECT_EQ(set.found_by, "BANKCHECK_TEST_NVDISASM");
  // A relative path in the variable is refused, not looked up.
  ::setenv("BANKCHECK_TEST_NVDISASM", "nvdisasm", 1);
  EXPECT_ANY_THROW(Resolve(path));
}

// A build folder in a folder that everyone may write to (/tmp/x/build): the wheel's place two
// folders up (/tmp/nvidia/cu13/bin) is anybody's, so a tool planted there is never run; the
// search goes on to PATH. As root, the planted folders are another user's (nobody), as they would be.
TEST_F(ResolveCudaToolTest, AToolPlantedBesideABuildFolderInASharedFolderIsNotRun) {
  const std::filesystem::path shared = root_ / "tmp";  // as /tmp: world-writable, sticky
  std::filesystem::create_directories(shared / "x" / "build");
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  Executable(shared / "x" / "build" / "kernels_emulated");
  std::filesystem::create_directories(shared / "nvidia" / "cu13" / "bin");
  Executable(shared / "nvidia" / "cu13" / "bin" / "nvdisasm");
  if (::geteuid() == 0) {
    for (const char* planted : {"nvidia", "nvidia/cu13", "nvidia/cu13/bin", "nvidia/cu13/bin/nvdisasm"})
      ASSERT_EQ(::lchown((shared / planted).c_str(), 65534, 65534), 0) << planted;
  }
  const CudaTool tool = Resolve(In("onpath"), (shared / "x" / "build" / "kernels_emulated").string());
  EXPECT_EQ(tool.path, In("onpath") + "/nvdisasm");
  EXPECT_EQ(tool.found_by, "PATH");
  const CudaTool none = Resolve("", (shared / "x" / "build" / "kernels_emulated").string());
  EXPECT_EQ(none.path, "");
}

// Beside the installed wheel, the tool is used only where nobody but root and the caller can change
// it or a folder on the way to it: the rule of every folder bankcheck writes into (output_folder.h).
TEST_F(ResolveCudaToolTest, TheWheelsToolIsUsedOnlyWhereNobodyElseCanChangeIt) {
  const std::string wheel_tool = In("site-packages/nvidia/cu13/bin") + "/nvdisasm";
  ASSERT_EQ(Resolve(In("onpath"), WheelProgram()).path, wheel_tool);
  const auto refused = [&](const std::string& why) {
    SCOPED_TRACE(why);
    const CudaTool tool = Resolve(In("onpath"), WheelProgram());
    EXPECT_EQ(tool.path, In("onpath") + "/nvdisasm");
    const CudaTool none = Resolve("", WheelProgram());
    EXPECT_EQ(none.path, "");
    EXPECT_THAT(none.Describe("nvdisasm"), ::testing::HasSubstr(why));
  };
  // site-packages writable by everyone, not sticky: anyone could have put nvidia/ there.
  const std::string site_packages = In("site-packages");
  ASSERT_EQ(::chmod(site_packages.c_str(), 0777), 0);
  refused(site_packages + ": others may write to it (mode 0777, not sticky)");
  // Sticky, as /tmp: others may add folders but not replace ours, so ours is used...
  ASSERT_EQ(::chmod(site_packages.c_str(), 01777), 0);
  EXPECT_EQ(Resolve(In("onpath"), WheelProgram()).path, wheel_tool);
  // ...but not a tool that others may write to,
  ASSERT_EQ(::chmod(wheel_tool.c_str(), 0757), 0);
  refused(wheel_tool + ": others may write to it (mode 0757)");
  ASSERT_EQ(::chmod(wheel_tool.c_str(), 0755), 0);
  // nor a link in its place.
  std::filesystem::rename(wheel_tool, In("onpath") + "/real-nvdisasm");
  std::filesystem::create_symlink(In("onpath") + "/real-nvdisasm", wheel_tool);
  refused(wheel_tool + ": it is a symbolic link");
  std::filesystem::remove(wheel_tool);
  std::filesystem::rename(In("onpath") + "/real-nvdisasm", wheel_tool);
  ASSERT_EQ(Resolve(In("onpath"), WheelProgram()).path, wheel_tool);
  // What another user put there (their nvidia/ in the sticky site-packages, their tool in a
  // sticky bin folder of ours) needs root to set up.
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  ASSERT_EQ(::chmod((In("site-packages/nvidia/cu13/bin")).c_str(), 01777), 0);
  ASSERT_EQ(::lchown(wheel_tool.c_str(), 65534, 65534), 0);
  refused(wheel_tool + ": it belongs to another user (uid 65534)");
  ASSERT_EQ(::lchown(wheel_tool.c_str(), 0, 0), 0);
  ASSERT_EQ(::lchown(In("site-packages/nvidia").c_str(), 65534, 65534), 0);
  refused(In("site-packages/nvidia") + ": it belongs to another user (uid 65534)");
}

// Only the installed bankcheck wheel's program looks beside itself: site-packages/bankcheck/bin/
// <program>, which the wheel's RECORD lists. A copy of that layout elsewhere, a build folder or an
// install prefix does not.
TEST_F(ResolveCudaToolTest, OnlyTheInstalledWheelsProgramLooksBesideItself) {
  const auto not_used = [&](const std::string& program) {
    SCOPED_TRACE(program);
    EXPECT_EQ(Resolve(In("onpath"), program).path, In("onpath") + "/nvdisasm");
  };
  // Another program of the same folder, which the RECORD does not list.
  Executable(root_ / "site-packages/bankcheck/bin/other");
  not_used(In("site-packages/bankcheck/bin") + "/other");
  // The same layout under another name than site-packages (an install prefix's lib/bankcheck/bin).
  std::filesystem::create_directories(root_ / "prefix/lib/bankcheck/bin");
  std::filesystem::create_directories(root_ / "prefix/lib/nvidia/cu13/bin");
  Executable(root_ / "prefix/lib/bankcheck/bin/bankcheck");
  Executable(root_ / "prefix/lib/nvidia/cu13/bin/nvdisasm");
  not_used(In("prefix/lib/bankcheck/bin") + "/bankcheck");
  // No RECORD: not an installed wheel.
  std::filesystem::remove_all(root_ / "site-packages/bankcheck-1.0.0.dist-info");
  not_used(WheelProgram());
  // dist-packages (Debian's system Python) is the same place as site-packages.
  std::filesystem::rename(root_ / "site-packages", root_ / "dist-packages");
  std::filesystem::create_directories(root_ / "dist-packages/bankcheck-2.0.dist-info");
  std::ofstream(root_ / "dist-packages/bankcheck-2.0.dist-info/RECORD")
      << "bankcheck/bin/bankcheck,sha256=B,2\n";
  EXPECT_EQ(Resolve(In("onpath"), In("dist-packages/bankcheck/bin") + "/bankcheck").path,
            In("dist-packages/nvidia/cu13/bin") + "/nvdisasm");
}

// What FindCudaTool gives is always an absolute path or nothing: never a name to look up.
TEST_F(ResolveCudaToolTest, FindCudaToolGivesAnAbsolutePathOrNone) {
  const char* saved = std::getenv("PATH");
  const std::string previous = saved != nullptr ? saved : "";
  ::setenv("PATH", ":.", 1);
  const CudaTool tool = FindCudaTool("bankcheck-no-such-tool", "BANKCHECK_TEST_NVDISASM");
  ::setenv("PATH", previous.c_str(), 1);
  EXPECT_EQ(tool.path, "");
  ::setenv("PATH", (":" + In("onpath")).c_str(), 1);
  const CudaTool found = FindCudaTool("nvdisasm", "BANKCHECK_TEST_NVDISASM");
  ::setenv("PATH", previous.c_str(), 1);
  ASSERT_FALSE(found.path.empty());
  EXPECT_EQ(found.path[0], '/');
  EXPECT_NE(found.path, In("cwd") + "/nvdisasm");
}

TEST(ParseNvdisasmTest, OpcodesByFunctionAndOffsetWithoutPredicatesOrOperands) {
  const auto opcodes = Opcodes(ParseNvdisasm(kListing));
  ASSERT_EQ(opcodes.size(), 2u);
  EXPECT_THAT(opcodes.at("_Z9TransposePKfPfi"),
              ElementsAre(Pair(0x0000u, "LDC"), Pair(0x0210u, "STS"), Pair(0x0220u, "LDS.128"),
                          Pair(0x0230u, "LDSM.16.M88.4"), Pair(0x0240u, "ATOMS.POPC.INC.32"),
                          Pair(0x0248u, "HGMMA.64x64x16.F32"), Pair(0x0250u, "EXIT")));
  EXPECT_THAT(opcodes.at("_Z5OtherPi"), ElementsAre(Pair(0x0000u, "BAR.SYNC.DEFER_BLOCKING")));
  // Without -gi's line info, no source lines.
  EXPECT_TRUE(ParseNvdisasm(kListing).at("_Z5OtherPi").at(0).inline_chain.empty());
}

TEST(ParseNvdisasmTest, GuardsOperandsAndLabelsAsWritten) {
  const Disassembly parsed = ParseNvdisasm(kListing);
  const auto& transpose = parsed.at("_Z9TransposePKfPfi");
  EXPECT_EQ(transpose.at(0x0220).guard, "@!P0");
  EXPECT_EQ(transpose.at(0x0220).operands, "R4, [R9+UR4]");
  EXPECT_EQ(transpose.at(0x0240).guard, "@UP0");
  EXPECT_EQ(transpose.at(0x0240).operands, "RZ, [R2+UR5], RZ");
  EXPECT_THAT(transpose.at(0x0240).labels, ElementsAre(".L_x_0"));
  EXPECT_TRUE(transpose.at(0x0230).labels.empty());
  EXPECT_EQ(transpose.at(0x0250).operands, "");
}

TEST(ParseNvdisasmTest, NoListingGivesNoOpcodes) { EXPECT_TRUE(ParseNvdisasm("").empty()); }

// The shape of `nvdisasm -gi -c` output (CUDA 13.0, sm_90a, a CuTe cp.async inlined into a loader
// function inlined into the kernel; lines copied from the H100 machine's listing, paths shortened).
constexpr char kLineInfoListing[] = R"listing(
.text._Z6LoaderPKfPf:
	//## File "/p/kernels/gemm.cu", line 54
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/p/build/cute/arch/copy_sm80.hpp", line 64 inlined at "/p/kernels/gemm.cu", line 137
	//## File "/p/kernels/gemm.cu", line 137 inlined at "/p/kernels/gemm.cu", line 152
	//## File "/p/kernels/gemm.cu", line 152
        /*0440*/                   LDGSTS.E.LTC128B.64 [R25], desc[UR10][R8.64] ;
        /*0480*/                   LDGSTS.E.LTC128B.64 [R27], desc[UR10][R10.64] ;
	//## File "/p/kernels/ldmatrix_support.cuh", line 110 inlined at "/p/kernels/gemm.cu", line 76
	//## File "/p/kernels/gemm.cu", line 76
        /*04b0*/                   LDSM.16.M88.4 R4, [R4+UR4] ;
.text._Z5OtherPi:
        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
)listing";

TEST(ParseNvdisasmTest, EachInstructionHasItsInlineChainInnermostFirst) {
  const Disassembly parsed = ParseNvdisasm(kLineInfoListing);
  const auto& loader = parsed.at("_Z6LoaderPKfPf");
  EXPECT_THAT(loader.at(0x0000).inline_chain, ElementsAre(SourceFrame{"/p/kernels/gemm.cu", 54}));
  const std::vector<SourceFrame> copy{
      {"/p/build/cute/arch/copy_sm80.hpp", 64}, {"/p/kernels/gemm.cu", 137}, {"/p/kernels/gemm.cu", 152}};
  EXPECT_EQ(loader.at(0x0440).opcode, "LDGSTS.E.LTC128B.64");
  EXPECT_EQ(loader.at(0x0440).inline_chain, copy);
  EXPECT_EQ(loader.at(0x0480).inline_chain, copy);  // a chain holds until the next one
  EXPECT_THAT(loader.at(0x04b0).inline_chain, ElementsAre(SourceFrame{"/p/kernels/ldmatrix_support.cuh", 110},
                                                          SourceFrame{"/p/kernels/gemm.cu", 76}));
  // A new function starts without the last function's line.
  EXPECT_TRUE(parsed.at("_Z5OtherPi").at(0).inline_chain.empty());
  // Attributed to the innermost frame under the root and not in its build folder: the loader's
  // copy() call, and the line of ldmatrix_support.cuh's helper that does the access.
  EXPECT_EQ(AttributedFrame(copy, "/p", "/p/build"), (SourceFrame{"/p/kernels/gemm.cu", 137}));
  EXPECT_EQ(AttributedFrame(loader.at(0x04b0).inline_chain, "/p", "/p/build"),
            (SourceFrame{"/p/kernels/ldmatrix_support.cuh", 110}));
}

// A compiler run in the build folder on a relative source path (ccache's base_dir) names the file
// "<root>/build/../kernels/k.cu": the frame names it as "<root>/kernels/k.cu", under the project's
// root and not under its build folder.
TEST(ParseNvdisasmTest, NormalizesTheFramesPaths) {
  const std::string listing =
      ".text._Z1kPf:\n"
      "\t//## File \"/p/build/../kernels/k.cu\", line 7 inlined at \"/p/build/../kernels/k.cu\", line 9\n"
      "\t//## File \"/p/build/../kernels/./k.cu\", line 9\n"
      "        /*0010*/  LDS R1, [R2] ;\n";
  const Disassembly parsed = ParseNvdisasm(listing);
  const auto& chain = parsed.at("_Z1kPf").at(0x10).inline_chain;
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].file, "/p/kernels/k.cu");
  EXPECT_EQ(chain[0].line, 7u);
  EXPECT_EQ(chain[1].file, "/p/kernels/k.cu");
  EXPECT_EQ(chain[1].line, 9u);
}

// NVRTC names a source "<the folder the process ran in>/<the name the program gave it>": run from
// two folders, the same kernel's lines are the same lines, named as the program named the source.
// A file that exists keeps its path.
TEST(ParseNvdisasmTest, NamesARunTimeCompiledSourceAsTheProgramNamedItFromAnyFolder) {
  const std::filesystem::path base =
      std::filesystem::temp_directory_path() / ("bankcheck-nvrtc-names-" + std::to_string(::getpid()));
  std::filesystem::create_directories(base / "suites");
  std::ofstream(base / "suites" / "real.cu") << "x;\n";
  const std::filesystem::path before = std::filesystem::current_path();
  std::vector<std::string> seen;
  for (const std::filesystem::path& folder : {base, base / "suites"}) {
    std::filesystem::current_path(folder);
    const std::string listing =
        ".text._Z1kPf:\n\t//## File \"" + (folder / "gen/runtime_stride2.cu").string() +
        "\", line 3 inlined at \"" + (base / "suites/real.cu").string() + "\", line 1\n\t//## File \"" +
        (base / "suites/real.cu").string() + "\", line 1\n        /*0010*/  LDS R1, [R2] ;\n";
    const auto chain = ParseNvdisasm(listing).at("_Z1kPf").at(0x10).inline_chain;
    ASSERT_EQ(chain.size(), 2u);
    seen.push_back(chain[0].file);
    EXPECT_EQ(chain[1].file, (base / "suites/real.cu").string());
  }
  std::filesystem::current_path(before);
  std::filesystem::remove_all(base);
  EXPECT_THAT(seen, ElementsAre("gen/runtime_stride2.cu", "gen/runtime_stride2.cu"));
}

// Through a linked checkout, a compiler names the folder as $PWD spells it (the link), not as getcwd()
// does: either spelling gives the name the program gave.
TEST(ParseNvdisasmTest, NamesARunTimeCompiledSourceAlsoThroughALinkedFolder) {
  const std::filesystem::path base =
      std::filesystem::temp_directory_path() / ("bankcheck-nvrtc-linked-" + std::to_string(::getpid()));
  std::filesystem::create_directories(base / "real");
  std::filesystem::create_directory_symlink(base / "real", base / "link");
  const std::filesystem::path before = std::filesystem::current_path();
  const char* old_pwd = std::getenv("PWD");
  const std::string saved_pwd = old_pwd == nullptr ? "" : old_pwd;
  std::filesystem::current_path(base / "link");
  ::setenv("PWD", (base / "link").c_str(), 1);
  std::vector<std::string> seen;
  for (const std::filesystem::path& folder : {base / "link", base / "real"}) {
    const std::string listing = ".text._Z1kPf:\n\t//## File \"" + (folder / "runtime_stride2.cu").string() +
                                "\", line 3\n        /*0010*/  LDS R1, [R2] ;\n";
    seen.push_back(ParseNvdisasm(listing).at("_Z1kPf").at(0x10).inline_chain.at(0).file);
  }
  std::filesystem::current_path(before);
  ::setenv("PWD", saved_pwd.c_str(), 1);
  std::filesystem::remove_all(base);
  EXPECT_THAT(seen, ElementsAre("runtime_stride2.cu", "runtime_stride2.cu"));
}

TEST(RunTimeSourceNameTest, OnlyAMissingFileUnderTheWorkingFolderIsRenamed) {
  EXPECT_EQ(RunTimeSourceName("/w/k.cu", "/w", false), "k.cu");
  EXPECT_EQ(RunTimeSourceName("/w/k.cu", "/w", true), "/w/k.cu");
  EXPECT_EQ(RunTimeSourceName("/other/k.cu", "/w", false), "/other/k.cu");
  EXPECT_EQ(RunTimeSourceName("/wk/k.cu", "/w", false), "/wk/k.cu");
  EXPECT_EQ(RunTimeSourceName("/k.cu", "/", false), "/k.cu");
  EXPECT_EQ(RunTimeSourceName("/w/k.cu", "", false), "/w/k.cu");
}

TEST(ParseNvdisasmHostileTest, SkipsLinesItCannotReadWithoutThrowing) {
  const std::string listing =
      ".text._Z1kPf:\n"
      "\t//## File \"/p/k.cu\", line 99999999999999999999\n"  // out of range
      "        /*fffffffffff0*/  LDS R1, [R2] ;\n"            // out of range
      "        /*0020*/  @P LDS R1, [R2] ;\n"                 // no predicate number
      "        /*0030*/ " +
      std::string(200000, 'A') + " ;\n" + ".L_x_7:\n        /*0040*/  @!UPT STS.128 [R1], R4 ;\n" +
      "        /*0050*/  LDS R1, [R2]\n" +  // no ';' ending the operands
      ".L_x_" + std::string(100000, '9') + "\n" + std::string(100000, '/') + "\n.text.:\n.text." +
      std::string(100000, 'x');
  const Disassembly parsed = ParseNvdisasm(listing);
  ASSERT_EQ(parsed.size(), 1u);
  const auto& k = parsed.at("_Z1kPf");
  EXPECT_EQ(k.count(0x20), 0u);
  EXPECT_EQ(k.at(0x30).opcode.size(), 200000u);
  EXPECT_EQ(k.at(0x40).opcode, "STS.128");
  EXPECT_EQ(k.at(0x40).guard, "@!UPT");
  EXPECT_EQ(k.at(0x40).operands, "[R1], R4");
  EXPECT_THAT(k.at(0x40).labels, ElementsAre(".L_x_7"));
  EXPECT_EQ(k.count(0x50), 0u);
  EXPECT_TRUE(k.at(0x40).inline_chain.empty());
}

// A subroutine ptxas places in the kernel's section (the float division's slow path) is a label of
// its first instruction, as CALL.REL.NOINC names it; a `$` line that is not one is not.
TEST(NvdisasmTest, SubroutineLabels) {
  const Disassembly parsed = ParseNvdisasm(
      ".text._Z1kPf:\n"
      "        /*0000*/  CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath) ;\n"
      "        .weak           $__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath\n"
      "$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:\n"
      "        /*0010*/  RET.REL.NODEC R4 `(_Z1kPf) ;\n"
      "$ not a label:\n"
      "        /*0020*/  EXIT ;\n");
  const auto& k = parsed.at("_Z1kPf");
  EXPECT_THAT(k.at(0x10).labels, ElementsAre("$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath"));
  EXPECT_TRUE(k.at(0x20).labels.empty());
}

}  // namespace
}  // namespace bankcheck::internal
