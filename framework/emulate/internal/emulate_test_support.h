#pragma once
// The evaluator's tests' hand-written listings: a kernel `_Z4testPi` whose body follows the
// prologue nvcc 13 emits for sm_90, and its launches (emulate_test.cc, block_groups_test.cc).

#include <gmock/gmock.h>

#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"

namespace bankcheck::emulate::test_support {

// The shared window's base as nvcc 13 computes it for sm_90 (SR_CgaCtaId << 24 | 0x400).
inline constexpr char kPrologue[] = R"(
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   S2UR UR4, SR_CgaCtaId ;
        /*0020*/                   UMOV UR5, 0x400 ;
        /*0030*/                   ULEA UR4, UR4, UR5, 0x18 ;
)";

inline Module Listing(const std::string& body, const std::string& elf = "") {
  return Module::FromListings(".text._Z4testPi:\n" + std::string(kPrologue) + body, elf);
}

inline LaunchToEmulate Launch(Dim3 grid, Dim3 block, std::vector<uint8_t> params = {}) {
  LaunchToEmulate launch;
  launch.mangled = "_Z4testPi";
  launch.grid = grid;
  launch.block = block;
  launch.param_bytes = std::move(params);
  return launch;
}

inline const InstructionCounts& Row(const LaunchRecord& record, uint32_t pc) {
  for (const InstructionCounts& row : record.instructions)
    if (row.pc_offset == pc) return row;
  throw std::runtime_error("no row at pc " + std::to_string(pc));
}

// The row of the instruction at `pc` in `kind`: an LDGSTS has two (shared_ldgsts, global_ldgsts).
inline const InstructionCounts& Row(const LaunchRecord& record, uint32_t pc, MemoryKind kind) {
  for (const InstructionCounts& row : record.instructions)
    if (row.pc_offset == pc && row.kind == kind) return row;
  throw std::runtime_error("no " + std::string(InfoOf(kind).key) + " row at pc " + std::to_string(pc));
}

// Emulates `launch` twice, grouping blocks and evaluating every one; the two must agree row by row.
inline Emulation EmulateBothWays(const Module& module, const LaunchToEmulate& launch) {
  EmulationLimits every_block;
  every_block.group_blocks = false;
  const Emulation grouped = Emulate(module, launch), evaluated = Emulate(module, launch, every_block);
  EXPECT_TRUE(grouped.record && evaluated.record);
  if (!grouped.record || !evaluated.record) return grouped;
  EXPECT_EQ(evaluated.evaluated_blocks, uint64_t{launch.grid.x} * launch.grid.y * launch.grid.z);
  EXPECT_EQ(grouped.record->instructions.size(), evaluated.record->instructions.size());
  for (const InstructionCounts& row : evaluated.record->instructions) {
    const InstructionCounts& same = Row(*grouped.record, row.pc_offset, row.kind);
    EXPECT_EQ(same.executions, row.executions) << row.pc_offset;
    EXPECT_EQ(same.wavefronts, row.wavefronts) << row.pc_offset;
    EXPECT_EQ(same.ideal_wavefronts, row.ideal_wavefronts) << row.pc_offset;
  }
  return grouped;
}

// One block of `threads` where `producer` (at 0x0040, after S2R R0, SR_TID.X) writes R5 and the LDS
// at 0x0060 reads word R5 * `words`.
inline Emulation EmulateAddressFrom(const std::string& producer, uint32_t threads = 32, uint32_t words = 1) {
  std::ostringstream scale;
  scale << "0x" << std::hex << 4 * words;
  return Emulate(Listing("        /*0040*/                   " + producer + " ;\n" +
                         "        /*0050*/                   IMAD.SHL.U32 R3, R5, " + scale.str() + R"(, RZ ;
        /*0060*/                   LDS R6, [R3+UR4] ;
        /*0070*/                   EXIT ;
)"),
                 Launch(Dim3{1, 1, 1}, Dim3{threads, 1, 1}));
}

// Why one warp's launch is undecided when `producer` writes R5 and R5 gives the address.
inline std::string WhyAddressUndecided(const std::string& producer, uint32_t threads = 32) {
  const Emulation emulation = EmulateAddressFrom(producer, threads);
  if (!emulation.undecided) {
    ADD_FAILURE() << producer << ": decided, where it should be undecided";
    return "";
  }
  return emulation.undecided->reason;
}

inline std::vector<uint8_t> IntParameter(int32_t value) {
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &value, 4);
  return bytes;
}

}  // namespace bankcheck::emulate::test_support
