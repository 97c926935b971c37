#include "bankcheck/core/instruction_counts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "bankcheck/core/error.h"
#include "bankcheck/core/limits.h"
#include "core/platform/test_support.h"
#include "core/reports/text_table.h"

namespace bankcheck {
namespace {

InstructionCounts Instruction(uint32_t pc_offset, const std::string& opcode, uint64_t executions,
                              uint64_t wavefronts, uint64_t ideal, uint32_t line = 31,
                              MemoryKind kind = MemoryKind::kSharedLoad) {
  return testing_support::MakeInstruction(pc_offset, opcode, kind, line, executions, wavefronts, ideal,
                                          "/work/main/kernels/transpose.cu");
}

std::vector<uint32_t> Offsets(const std::vector<InstructionCounts>& instructions) {
  std::vector<uint32_t> offsets;
  for (const InstructionCounts& instruction : instructions) offsets.push_back(instruction.pc_offset);
  return offsets;
}

TEST(InstructionCountsTest, ExcessIsWavefrontsBeyondTheIdealAndNeverNegative) {
  EXPECT_EQ(Instruction(0, "LDS", 1, 32, 1).excess(), 31u);
  EXPECT_EQ(Instruction(0, "LDS", 1, 1, 1).excess(), 0u);
  EXPECT_EQ(Instruction(0, "LDS", 1, 1, 4).excess(), 0u);
}

TEST(InstructionCountsTest, SortPutsMostExcessFirstThenMostExecutionsThenLowestOffset) {
  std::vector<InstructionCounts> instructions = {
      Instruction(0x10, "STS", 8, 8, 8),     // no excess, 8 executions
      Instruction(0x40, "LDS", 4, 12, 4),    // excess 8, 4 executions
      Instruction(0x30, "LDS", 2, 10, 2),    // excess 8, 2 executions
      Instruction(0x20, "STS", 8, 8, 8),     // no excess, 8 executions, lower offset
      Instruction(0x50, "LDS", 1, 101, 1),   // excess 100
      Instruction(0x00, "LDS", 16, 16, 16),  // no excess, most executions
  };
  SortByExcess(instructions);
  EXPECT_EQ(Offsets(instructions), (std::vector<uint32_t>{0x50, 0x40, 0x30, 0x00, 0x10, 0x20}));
}

TEST(InstructionCountsTest, TableAlignsColumnsAndGroupsDigits) {
  const std::vector<InstructionCounts> instructions = {
      Instruction(0x220, "LDS", 65536, 16777216, 524288, 31),
      Instruction(0x1a0, "STS", 65536, 524288, 524288, 40, MemoryKind::kSharedStore),
  };
  EXPECT_EQ(
      FormatInstructionTable(instructions, 10, "/work/main"),
      "kernels/transpose.cu:31  +0x0220  LDS  65,536 exec  16,777,216 wf  524,288 ideal  +16,252,928\n"
      "kernels/transpose.cu:40  +0x01a0  STS  65,536 exec     524,288 wf  524,288 ideal           +0\n");
}

TEST(InstructionCountsTest, TablePadsShortOpcodesAndLocationsAndWidensLongOffsets) {
  InstructionCounts no_lines =
      Instruction(0x12340, "LDSM.16.M88.4", 1000, 999, 999, 0, MemoryKind::kSharedLdmatrix);
  const std::vector<InstructionCounts> instructions = {Instruction(0x8, "LDS", 1, 2, 1, 7), no_lines};
  EXPECT_EQ(
      FormatInstructionTable(instructions, 0),
      "/work/main/kernels/transpose.cu:7  +0x0008   LDS                1 exec    2 wf    1 ideal  +1\n"
      "<no line info>                     +0x12340  LDSM.16.M88.4  1,000 exec  999 wf  999 ideal  +0\n");
}

TEST(InstructionCountsTest, LimitLeavesOutTheRestAndSaysHowMany) {
  std::vector<InstructionCounts> instructions;
  for (uint32_t i = 0; i < 5; ++i) instructions.push_back(Instruction(i * 16, "LDS", 1, 1, 1));
  const std::string table = FormatInstructionTable(instructions, 2);
  EXPECT_EQ(table.substr(table.find("+0x0010")),
            "+0x0010  LDS  1 exec  1 wf  1 ideal  +0\n... 3 more instructions\n");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
  const std::string all_but_one = FormatInstructionTable(instructions, 4);
  EXPECT_EQ(all_but_one.substr(all_but_one.rfind("...")), "... 1 more instruction\n");
  // 0 and a limit at or above the count show them all, with no last line.
  EXPECT_EQ(FormatInstructionTable(instructions, 0), FormatInstructionTable(instructions, 5));
  EXPECT_EQ(FormatInstructionTable(instructions, 0).find("more"), std::string::npos);
  EXPECT_EQ(FormatInstructionTable({}, 10), "");
}

TEST(InstructionCountsTest, SourceRootIsCutOnlyAtAPathComponentBoundary) {
  const InstructionCounts instruction = Instruction(0, "LDS", 1, 1, 1, 31);
  EXPECT_EQ(SourceLocation(instruction), "/work/main/kernels/transpose.cu:31");
  EXPECT_EQ(SourceLocation(instruction, "/work/main"), "kernels/transpose.cu:31");
  EXPECT_EQ(SourceLocation(instruction, "/work/main/"), "kernels/transpose.cu:31");
  EXPECT_EQ(SourceLocation(instruction, "/work/main//"), "kernels/transpose.cu:31");
  EXPECT_EQ(SourceLocation(instruction, "/work/main/kernels"), "transpose.cu:31");
  EXPECT_EQ(SourceLocation(instruction, "/"), "work/main/kernels/transpose.cu:31");
  // Not prefixes at a boundary, or not prefixes at all: the path stays whole.
  EXPECT_EQ(SourceLocation(instruction, "/work/ma"), "/work/main/kernels/transpose.cu:31");
  EXPECT_EQ(SourceLocation(instruction, "/work/main/kernels/transpose.cu"),
            "/work/main/kernels/transpose.cu:31");
  EXPECT_EQ(SourceLocation(instruction, "/elsewhere"), "/work/main/kernels/transpose.cu:31");
  EXPECT_EQ(SourceLocation(instruction, "work/main"), "/work/main/kernels/transpose.cu:31");
}

TEST(InstructionCountsTest, NoFileOrNoLineIsSaid) {
  InstructionCounts instruction = Instruction(0, "LDS", 1, 1, 1, 0);
  EXPECT_EQ(SourceLocation(instruction, "/work/main"), "<no line info>");
  instruction.line = 12;
  instruction.file.clear();
  EXPECT_EQ(SourceLocation(instruction), "<no line info>");
}

TEST(InstructionCountsTest, TotalsAddUpEachKindApart) {
  const std::vector<InstructionCounts> instructions = {
      Instruction(0x00, "LDS", 10, 40, 10, 1, MemoryKind::kSharedLoad),
      Instruction(0x10, "LDS.128", 5, 20, 20, 2, MemoryKind::kSharedLoad),
      Instruction(0x20, "STS", 7, 7, 7, 3, MemoryKind::kSharedStore),
  };
  const PerKind<InstructionTotals> totals = TotalsByKind(instructions);
  EXPECT_EQ(totals[MemoryKind::kSharedLoad], (InstructionTotals{15, 60, 30}));
  EXPECT_EQ(totals[MemoryKind::kSharedStore], (InstructionTotals{7, 7, 7}));
  EXPECT_EQ(totals[MemoryKind::kSharedLdmatrix], InstructionTotals{});
}

TEST(InstructionCountsTest, TotalsThatWouldWrapAreAnError) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  constexpr uint64_t kOne = 1;
  for (const auto& [executions, wavefronts, ideal] :
       {std::tuple{kMax, kOne, kOne}, std::tuple{kOne, kMax, kOne}, std::tuple{kOne, kOne, kMax}}) {
    const std::vector<InstructionCounts> instructions = {
        Instruction(0x00, "LDS", executions, wavefronts, ideal, 1, MemoryKind::kSharedLoad),
        Instruction(0x10, "LDS", 1, 1, 1, 2, MemoryKind::kSharedLoad),
    };
    EXPECT_THROW(TotalsByKind(instructions), Error);
  }
}

TEST(InstructionCountsTest, SourceRootComesFromTheEnvironment) {
  const char* saved = std::getenv("BANKCHECK_SOURCE_ROOT");
  const std::string before = saved != nullptr ? saved : "";
  ::setenv("BANKCHECK_SOURCE_ROOT", "/work/main", 1);
  EXPECT_EQ(SourceRootFromEnvironment(), "/work/main");
  ::unsetenv("BANKCHECK_SOURCE_ROOT");
  EXPECT_EQ(SourceRootFromEnvironment(), "");
  if (saved != nullptr) ::setenv("BANKCHECK_SOURCE_ROOT", before.c_str(), 1);
}

TEST(InstructionCountsTest, InlinedCodeIsAttributedToItsInnermostLineInTheProject) {
  // A CuTe copy atom (in the build folder) inlined into the project's helper at 137, called at 152
  // of a library's kernel.
  const std::vector<SourceFrame> chain = {{"/p/build/cute/arch/copy_sm80.hpp", 64},
                                          {"/p/kernels/gemm.cu", 137},
                                          {"/p/kernels/gemm.cu", 152},
                                          {"/lib/cutlass/device_kernel.h", 20}};
  // The innermost frame under the project root and not in its build folder: the helper's line.
  EXPECT_EQ(AttributedFrame(chain, "/p", "/p/build"), (SourceFrame{"/p/kernels/gemm.cu", 137}));
  // Only frames under the root count.
  EXPECT_EQ(AttributedFrame(chain, "/p/build", ""), (SourceFrame{"/p/build/cute/arch/copy_sm80.hpp", 64}));
  // No frame in the project, or no root: the outermost frame.
  EXPECT_EQ(AttributedFrame(chain, "/elsewhere", ""), chain.back());
  EXPECT_EQ(AttributedFrame(chain, "", ""), chain.back());
  // Everything in the build folder: the outermost frame, not a library's line.
  EXPECT_EQ(AttributedFrame({chain[0], {"/p/build/cute/algorithm/copy.hpp", 200}}, "/p", "/p/build"),
            (SourceFrame{"/p/build/cute/algorithm/copy.hpp", 200}));
}

TEST(InstructionCountsTest, AnInlinedHelpersStoresKeepTheirOwnLines) {
  // SGEMM_CUDA's kernel 10: loadFromGmem's As stores (lines 26-29) and its Bs float4 store (line
  // 32), all called from line 150 of the kernel.
  const std::string helper_file = "/p/src/kernels/10_kernel_warptiling.cuh";
  const std::vector<SourceFrame> as_store = {{helper_file, 27}, {helper_file, 150}};
  const std::vector<SourceFrame> bs_store = {{helper_file, 32}, {helper_file, 150}};
  EXPECT_EQ(AttributedFrame(as_store, "/p", "/p/build"), (SourceFrame{helper_file, 27}));
  EXPECT_EQ(AttributedFrame(bs_store, "/p", "/p/build"), (SourceFrame{helper_file, 32}));
  // A library's helper (outside the project) between the project's helper and its access: the
  // project's helper.
  const std::vector<SourceFrame> through_library = {
      {"/usr/local/cuda/include/cuda/std/__memory/construct_at.h", 40},
      {helper_file, 32},
      {helper_file, 150}};
  EXPECT_EQ(AttributedFrame(through_library, "/p", "/p/build"), (SourceFrame{helper_file, 32}));
  // A root that is only a prefix of a name ("/p" of "/pkg") is not its folder.
  EXPECT_EQ(AttributedFrame({{"/pkg/helper.cuh", 5}, {helper_file, 150}}, "/p", "/p/build"),
            (SourceFrame{helper_file, 150}));
}

TEST(InstructionCountsTest, AttributingKeepsTheChainOfInlinedCodeOnly) {
  InstructionCounts instruction;
  const std::vector<SourceFrame> chain = {{"/p/build/cute/arch/copy_sm80.hpp", 64},
                                          {"/p/kernels/gemm.cu", 152}};
  AttributeToChain(instruction, chain, "/p", "/p/build");
  EXPECT_EQ((SourceFrame{instruction.file, instruction.line}), chain[1]);
  EXPECT_EQ(instruction.inline_chain, chain);
  // One frame: not inlined, no chain.
  AttributeToChain(instruction, {{"/p/kernels/gemm.cu", 31}}, "/p", "/p/build");
  EXPECT_EQ((SourceFrame{instruction.file, instruction.line}), (SourceFrame{"/p/kernels/gemm.cu", 31}));
  EXPECT_TRUE(instruction.inline_chain.empty());
}

TEST(InstructionCountsTest, AChainLongerThanTheLimitKeepsItsInnermostFrames) {
  std::vector<SourceFrame> chain;
  for (uint32_t depth = 0; depth <= kMaxInlineFrames; ++depth) chain.push_back({"/lib/deep.h", depth + 1});
  chain.push_back({"/p/kernels/gemm.cu", 152});  // the kernel's line, the only one in the project
  InstructionCounts instruction;
  AttributeToChain(instruction, chain, "/p", "");
  EXPECT_EQ(instruction.line, 152u);  // attributed before the chain is cut
  ASSERT_EQ(instruction.inline_chain.size(), kMaxInlineFrames);
  EXPECT_EQ(instruction.inline_chain.front(), chain.front());
  EXPECT_EQ(instruction.inline_chain.back(), chain[kMaxInlineFrames - 1]);
}

TEST(InstructionCountsTest, AnInlinedInstructionShowsTheLineItCameFrom) {
  const std::vector<SourceFrame> chain = {
      {"/p/build/cute/arch/copy_sm80.hpp", 64}, {"/p/kernels/gemm.cu", 137}, {"/p/kernels/gemm.cu", 152}};
  InstructionCounts instruction = Instruction(0x440, "LDGSTS", 8, 8, 8, 152, MemoryKind::kSharedCpAsync);
  instruction.file = "/p/kernels/gemm.cu";
  EXPECT_EQ(InlinedFrom(instruction), nullptr);
  instruction.inline_chain = {chain[0], chain[1], chain[2]};
  ASSERT_NE(InlinedFrom(instruction), nullptr);
  EXPECT_EQ(*InlinedFrom(instruction), chain[0]);
  EXPECT_EQ(SourceLocation(instruction, "/p"), "kernels/gemm.cu:152 (build/cute/arch/copy_sm80.hpp:64)");
  // Attributed to its innermost frame (the project's own helper): nothing beside it.
  instruction.line = 137;
  instruction.inline_chain = {chain[1], chain[2]};
  EXPECT_EQ(InlinedFrom(instruction), nullptr);
  EXPECT_EQ(SourceLocation(instruction, "/p"), "kernels/gemm.cu:137");
}

TEST(InstructionCountsTest, ThousandsAreGroupedByThree) {
  EXPECT_EQ(WithThousands(0), "0");
  EXPECT_EQ(WithThousands(999), "999");
  EXPECT_EQ(WithThousands(1000), "1,000");
  EXPECT_EQ(WithThousands(123456), "123,456");
  EXPECT_EQ(WithThousands(16777216), "16,777,216");
  EXPECT_EQ(WithThousands(UINT64_MAX), "18,446,744,073,709,551,615");
}

}  // namespace
}  // namespace bankcheck
