#include "cuda/internal/sass_metrics.h"

#include <gmock/gmock.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bankcheck::internal {
namespace {

using ::testing::ElementsAre;

// A chip whose every counter exists: ids handed out in the order names are first asked for, each
// name's asks counted (MetricIdsFor asks once per counter).
struct FakeChip {
  std::map<std::string, uint64_t> ids;
  std::map<std::string, int> asked;
  std::map<std::string, bool> patched;
  std::optional<uint64_t> operator()(const std::string& name, bool patch) {
    ++asked[name];
    patched[name] = patch;
    return ids.emplace(name, ids.size() + 1).first->second;
  }
  uint64_t Id(const std::string& name) const { return ids.at(name); }
};

SassMetricIds IdsOn(FakeChip& chip, const SassConfig& config = {}) {
  return MetricIdsFor(config, [&chip](const std::string& name, bool patch) { return chip(name, patch); });
}

TEST(SassAttributionTest, AnLdgstsCounterStandsForItsSharedWritesAndItsGlobalReads) {
  FakeChip chip;
  const SassMetricIds ids = IdsOn(chip);
  const uint64_t ldgsts = chip.Id("smsp__sass_inst_executed_op_ldgsts");
  EXPECT_THAT(ids.kinds_of.at(ldgsts), ElementsAre(MemoryKind::kSharedCpAsync, MemoryKind::kGlobalCpAsync));
  EXPECT_EQ(ids.traffic[MemoryKind::kGlobalCpAsync], chip.Id("smsp__sass_sectors_mem_global"));
  EXPECT_EQ(ids.ideal[MemoryKind::kGlobalCpAsync], chip.Id("smsp__sass_sectors_mem_global_ideal"));
  EXPECT_EQ(ids.traffic[MemoryKind::kSharedCpAsync],
            chip.Id("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"));
  for (const auto& [name, asks] : chip.asked) EXPECT_EQ(asks, 1) << name;
  EXPECT_TRUE(chip.patched.at("smsp__sass_inst_executed_op_ldgsts"));
}

TEST(SassAttributionTest, TmaKindsAreNotCountedThroughSassMetrics) {
  // No per-instruction counter sees TMA's global sectors: the kinds are marked not counted, and
  // their instruction counters are not patched (a UTMALDG counts no other kind either).
  FakeChip chip;
  const SassMetricIds ids = IdsOn(chip);
  EXPECT_TRUE(ids.not_counted[MemoryKind::kGlobalTmaLoad]);
  EXPECT_TRUE(ids.not_counted[MemoryKind::kGlobalTmaStore]);
  EXPECT_FALSE(ids.unsupported[MemoryKind::kGlobalTmaLoad]);
  EXPECT_EQ(chip.asked.count("smsp__sass_inst_executed_op_tma_ld"), 0u);
  EXPECT_EQ(chip.asked.count("smsp__sass_inst_executed_op_tma_st"), 0u);
  EXPECT_FALSE(ids.not_counted[MemoryKind::kGlobalCpAsync]);
}

TEST(SassAttributionTest, AnLdgstsCountsSharedWavefrontsAndGlobalSectorsEachInItsKind) {
  FakeChip chip;
  const SassMetricIds ids = IdsOn(chip);
  // Made-up counts of one LDGSTS that 4 warps ran: the chip reports an LDGSTS's
  // smsp__sass_sectors_mem_global (and its ideal) at its pc, beside its shared wavefronts (H100).
  const std::map<uint64_t, uint64_t> values = {
      {chip.Id("smsp__sass_inst_executed_op_ldgsts"), 4},
      {chip.Id("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"), 64},
      {chip.Id("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"), 16},
      {chip.Id("smsp__sass_sectors_mem_global"), 72},
      {chip.Id("smsp__sass_sectors_mem_global_ideal"), 64}};
  const std::vector<SassInstruction> instructions = SassInstructionsOf(7, 0x1a0, values, ids);
  ASSERT_EQ(instructions.size(), 2u);
  EXPECT_EQ(instructions[0].kind, MemoryKind::kSharedCpAsync);
  EXPECT_EQ(instructions[0].executions, 4u);
  EXPECT_EQ(instructions[0].wavefronts, 64u);
  EXPECT_EQ(instructions[0].ideal_wavefronts, 16u);
  EXPECT_EQ(instructions[1].kind, MemoryKind::kGlobalCpAsync);
  EXPECT_EQ(instructions[1].executions, 4u);
  EXPECT_EQ(instructions[1].wavefronts, 72u);
  EXPECT_EQ(instructions[1].ideal_wavefronts, 64u);
  for (const SassInstruction& instruction : instructions) {
    EXPECT_EQ(instruction.cubin_crc, 7u);
    EXPECT_EQ(instruction.pc_offset, 0x1a0u);
  }
  // Summed per kind, a launch's global_ldgsts holds the LDGSTS's sectors, not shared_ldgsts.
  const KindSums sums = SumByKind(instructions);
  EXPECT_EQ(sums[MemoryKind::kGlobalCpAsync].wavefronts, 72u);
  EXPECT_EQ(sums[MemoryKind::kSharedCpAsync].wavefronts, 64u);
  EXPECT_EQ(sums[MemoryKind::kGlobalLoad].wavefronts, 0u);
}

TEST(SassAttributionTest, AnLdgIsOneGlobalLoadAndAnInstructionNotRunIsNone) {
  FakeChip chip;
  const SassMetricIds ids = IdsOn(chip);
  const uint64_t sectors = chip.Id("smsp__sass_sectors_mem_global");
  const std::vector<SassInstruction> ldg =
      SassInstructionsOf(1, 0x90, {{chip.Id("smsp__sass_inst_executed_op_global_ld"), 2}, {sectors, 8}}, ids);
  ASSERT_EQ(ldg.size(), 1u);
  EXPECT_EQ(ldg[0].kind, MemoryKind::kGlobalLoad);
  EXPECT_EQ(ldg[0].wavefronts, 8u);
  EXPECT_TRUE(
      SassInstructionsOf(1, 0xa0, {{chip.Id("smsp__sass_inst_executed_op_ldgsts"), 0}, {sectors, 0}}, ids)
          .empty());
}

TEST(SassAttributionTest, WithSharedMetricsOnlyAnLdgstsIsItsSharedMemoryKindAlone) {
  FakeChip chip;
  SassConfig config;
  config.metrics = SassConfig::Metrics::kShared;
  const SassMetricIds ids = IdsOn(chip, config);
  EXPECT_TRUE(ids.not_counted[MemoryKind::kGlobalCpAsync]);
  const std::vector<SassInstruction> instructions =
      SassInstructionsOf(1, 0x40, {{chip.Id("smsp__sass_inst_executed_op_ldgsts"), 1}}, ids);
  ASSERT_EQ(instructions.size(), 1u);
  EXPECT_EQ(instructions[0].kind, MemoryKind::kSharedCpAsync);
}

// Section names and symbols as an sm_90 cubin of a dynamic-parallelism kernel holds them.
std::string CubinBytes(bool launches_from_device) {
  std::string bytes(
      "\x7f"
      "ELF",
      4);
  for (const char* name : {".text._Z6ParentPf", ".nv.info._Z6ParentPf", ".text._Z5ChildPf", "_Z6ParentPf"})
    bytes += std::string(name) + '\0';
  if (launches_from_device) bytes += std::string("__cudaCDP2LaunchDeviceV2") + '\0';
  return bytes;
}

TEST(DeviceLaunchingFunctionsTest, NamesEveryFunctionOfAModuleThatLaunchesFromTheDevice) {
  const std::string cubin = CubinBytes(true);
  EXPECT_THAT(DeviceLaunchingFunctions(cubin.data(), cubin.size()), ElementsAre("_Z6ParentPf", "_Z5ChildPf"));
}

TEST(DeviceLaunchingFunctionsTest, NamesNoneOfAModuleThatDoesNot) {
  const std::string cubin = CubinBytes(false);
  EXPECT_TRUE(DeviceLaunchingFunctions(cubin.data(), cubin.size()).empty());
}

}  // namespace
}  // namespace bankcheck::internal
