// Emulate: one launch's shared-memory counts (and global and local sectors) from its kernel's sm_90 SASS
// (docs/design/emulate.md, docs/emulate.md). The evaluator (internal/evaluator.h) gives per-instruction rows;
// they become the launch's record here, as a measured launch's would.

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/core/error.h"
#include "bankcheck/emulate/emulator.h"
#include "core/platform/environment.h"
#include "emulate/internal/cluster.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/limits.h"
#include "emulate/internal/sass.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate {
namespace {

using namespace internal;  // NOLINT(build/namespaces): the evaluator's own types

std::string Demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : mangled;
}

}  // namespace

namespace internal {
const Kernel& KernelToEmulate(const Module& module, const LaunchToEmulate& launch) {
  const auto found = module.data().kernels.find(launch.mangled);
  if (found == module.data().kernels.end())
    throw Error(ErrorKind::kBadInput,
                "the module has no kernel " + launch.mangled +
                    ": emulate a launch with the module its kernel was registered from");
  const Kernel& kernel = found->second;
  if (const std::optional<std::string> invalid = InvalidConfiguration(launch.grid, launch.block))
    throw Error(ErrorKind::kBadInput, *invalid + ": the GPU refuses such a launch, nothing to emulate");
  if (kernel.code.empty())
    throw Error(ErrorKind::kBadInput, "the kernel " + launch.mangled + " has no instructions in the module");
  return kernel;
}

LaunchRecord CountedRecord(const Kernel& kernel, const LaunchToEmulate& launch, const Rows& rows,
                           const LaunchEvaluator& evaluator) {
  LaunchRecord record;
  record.kernel = Demangle(launch.mangled);
  record.mangled_kernel = launch.mangled;
  record.grid = launch.grid;
  record.block = launch.block;
  record.dynamic_shared_bytes = launch.dynamic_shared_bytes;
  std::string project_root = AbsolutePathFromEnvironment("BANKCHECK_SOURCE_ROOT"), build_root;
  std::string set_root;
  ProjectRoots(&set_root, &build_root);
  if (project_root.empty()) project_root = set_root;
  PerKind<KindCounts> sums;
  const PerKind<bool>& not_counted = evaluator.sectors_not_counted();
  for (const auto& [key, row] : rows) {
    const Instruction& instruction = kernel.code[key.first];
    InstructionCounts counts;
    counts.pc_offset = instruction.pc;
    counts.opcode = instruction.opcode;
    counts.kind = key.second;
    if (not_counted[counts.kind]) continue;  // a partial count would be a guess
    counts.executions = row.executions;
    counts.wavefronts = row.wavefronts;
    counts.ideal_wavefronts = row.ideal;
    KindCounts& sum = sums[counts.kind];
    sum += KindCounts{row.executions, row.wavefronts, row.ideal, Provenance::kExact};
    // TMA's global traffic is a launch total on the GPU (no per-instruction counter sees it, docs/
    // counters.md): on no instruction's row, so on no line.
    if (!SassMetricsCount(InfoOf(counts.kind))) continue;
    if (!instruction.inline_chain.empty())
      AttributeToChain(counts, instruction.inline_chain, project_root, build_root);
    record.instructions.push_back(std::move(counts));
  }
  SortByExcess(record.instructions);
  record.attributed_launches = 1;
  SetEmulatedCounts(sums, record);
  for (const MemoryKindInfo& info : MemoryKinds())
    if (not_counted[info.kind]) record.not_counted[info.kind] = true;
  for (const std::string& note : evaluator.sector_notes()) record.notes.push_back(note);
  return record;
}
}  // namespace internal

Emulation Emulate(const Module& module, const LaunchToEmulate& launch, const EmulationLimits& limits) {
  const Kernel& kernel = KernelToEmulate(module, launch);
  Emulation emulation;
  // The evaluator reads the clusters from the launch: the kernel's __cluster_dims__ when the
  // launch gives none.
  LaunchToEmulate clustered;
  const LaunchToEmulate* run = &launch;
  Dim3 cluster;
  if (const std::optional<std::string> why = EffectiveCluster(kernel.info, launch.cluster, &cluster)) {
    emulation.undecided = Undecided{};
    emulation.undecided->reason = *why;
    return emulation;
  }
  if (const std::optional<std::string> invalid =
          InvalidCluster(launch.grid, cluster, sm90::kMaxClusterBlocks))
    throw Error(ErrorKind::kBadInput, *invalid + ": the GPU refuses such a launch, nothing to emulate");
  if (cluster != launch.cluster) {
    clustered = launch;
    clustered.cluster = cluster;
    run = &clustered;
  }
  Rows rows;
  CountingMemory counting;
  LaunchEvaluator evaluator(kernel, *run, limits, counting);
  try {
    rows = evaluator.Run();
    emulation.evaluated_blocks = evaluator.evaluated_blocks();
  } catch (const Undecidable& undecidable) {
    emulation.undecided = undecidable.undecided;
    emulation.evaluated_blocks = evaluator.evaluated_blocks();
    return emulation;
  }

  emulation.record = CountedRecord(kernel, launch, rows, evaluator);
  return emulation;
}

}  // namespace bankcheck::emulate
