// Thread-block clusters: the launch words of constant bank 0 that describe the cluster, and generic
// accesses, which are classified by their address: another block's shared memory (distributed
// shared memory, counted as the GPU counts it: an instruction, no wavefronts), the block's own
// (not measured: undecided), or elsewhere (as before: global memory).

#include "emulate/internal/cluster.h"

#include <optional>
#include <string>

#include "emulate/internal/evaluator.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {

std::optional<Value> LaunchEvaluator::ClusterConstant(uint64_t offset, uint32_t bytes) const {
  // Without clusters these words stay unknown: what the driver puts there then was not measured.
  if (launch_.cluster == Dim3{} || bytes != 4 || offset % 4 != 0) return std::nullopt;
  const Dim3& cluster = launch_.cluster;
  const Dim3& grid = launch_.grid;
  if (offset == sm90::kExplicitClusterOffset) return Known(1);
  if (offset >= sm90::kClusterDimOffset && offset < sm90::kClusterDimOffset + 12) {
    const uint32_t dims[3] = {cluster.x, cluster.y, cluster.z};
    return Known(dims[(offset - sm90::kClusterDimOffset) / 4]);
  }
  if (offset >= sm90::kClustersInGridOffset && offset < sm90::kClustersInGridOffset + 12) {
    const uint32_t clusters[3] = {grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z};
    return Known(clusters[(offset - sm90::kClustersInGridOffset) / 4]);
  }
  if (offset == sm90::kClusterBlocksOffset) return Known(ClusterBlocks(cluster));
  return std::nullopt;
}

void LaunchEvaluator::GenericAccess(const Instruction& in, size_t index, uint32_t mask) {
  const bool clustered = launch_.cluster != Dim3{};
  // Outside clusters an access whose address is not known is taken to reach global memory, as
  // before clusters were emulated; in a cluster it may reach another block's shared memory, whose
  // counter the launch's record has.
  const auto unknown = [&](const std::string& what) {
    if (clustered)
      Stop(in, "in a launch with thread-block clusters, " + Located(in) +
                   " may access another block's "
                   "shared memory, but " +
                   what);
  };
  // A generic address is 64 bits: a register pair plus an offset (MemoryOp's AddressForm::kWide).
  const MemoryOp& op = in.memory_op;
  if (op.form != AddressForm::kWide) return unknown("its address is a form the emulator does not read");
  const Operand& address = in.operands[static_cast<size_t>(op.address)];
  const uint32_t own = ClusterRank(ctaid_, launch_.cluster);
  const uint32_t blocks = ClusterBlocks(launch_.cluster);
  uint32_t remote = 0, elsewhere = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const Value guard = Guard(in, lane);
    if (guard.known() && !guard.bits) continue;
    if (!guard.known()) return unknown("whether it runs is not known");
    const LaneAddress read = ReadAddress(address, op.form, lane);
    if (!read.value.known()) return unknown("its address is not known");
    if (read.block_dependent) not_affine_ = true;  // whose memory it reaches depends on the block
    const uint64_t bits = read.bits;
    if (static_cast<uint32_t>(bits >> 32) != sm90::kSharedWindowHighWord) {
      ++elsewhere;
      continue;
    }
    const uint32_t rank = static_cast<uint32_t>(bits) >> sm90::kClusterRankShift;
    if (rank >= blocks)
      Stop(in, "the access of " + Located(in) + " faults on the GPU: it names block " + std::to_string(rank) +
                   " of a cluster of " + std::to_string(blocks));
    if (rank == own)
      Stop(in, Located(in) +
                   " accesses the block's own shared memory through a generic address: how the "
                   "GPU counts that (a shared load, or distributed shared memory) was not measured");
    ++remote;
  }
  if (remote == 0) return;
  if (elsewhere != 0)
    Stop(in, Located(in) +
                 " reaches another block's shared memory with some lanes and other memory with "
                 "others: how the GPU counts that was not measured");
  if (in.info->semantics != Semantics::kLoad || in.info->memory != Memory::kGeneric)
    Stop(in, Located(in) +
                 " writes another block's shared memory: the GPU's counts of distributed shared "
                 "stores and atomics were not measured");
  // smsp__sass_inst_executed_op_dshared: one per warp that runs it; no wavefront counter exists.
  Count(index, MemoryKind::kSharedDsmem, 0, 0);
}

}  // namespace bankcheck::emulate::internal
