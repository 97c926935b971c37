#pragma once
// Thread-block clusters (docs/emulate.md, "Clusters"): a block's rank in its cluster, and the kind
// a generic instruction's row counts. The evaluator's part is cluster.cc.

#include <cstdint>
#include <optional>
#include <string>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/memory_kind.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/opcodes.h"

namespace bankcheck::emulate::internal {

// SR_CgaCtaId (%cluster_ctarank): the linear index of the block's position in its cluster, x
// fastest. 0 without clusters (a 1x1x1 cluster).
constexpr uint32_t ClusterRank(const Dim3& ctaid, const Dim3& cluster) {
  return ctaid.x % cluster.x + (ctaid.y % cluster.y) * cluster.x +
         (ctaid.z % cluster.z) * cluster.x * cluster.y;
}

// The clusters a launch of `kernel` runs in: the launch's (cudaLaunchAttributeClusterDimension), or
// the kernel's __cluster_dims__ when the launch gives none. The reason it is not emulated (nullopt
// when it is): a launch whose cluster differs from __cluster_dims__, or a kernel that must run in
// clusters launched without any (what the GPU does then was not measured).
inline std::optional<std::string> EffectiveCluster(const KernelInfo& kernel, const Dim3& launched,
                                                   Dim3* cluster) {
  *cluster = launched;
  if (kernel.compiled_cluster != Dim3{}) {
    if (launched != Dim3{} && launched != kernel.compiled_cluster)
      return "a launch in clusters of " + ToString(launched) + " of a kernel whose __cluster_dims__ are " +
             ToString(kernel.compiled_cluster) + " (what the GPU does then was not measured)";
    *cluster = kernel.compiled_cluster;
  } else if (kernel.explicit_cluster && launched == Dim3{}) {
    return "a launch without cluster dimensions of a kernel compiled to run in clusters "
           "(EIATTR_EXPLICIT_CLUSTER; what the GPU does then was not measured)";
  }
  return std::nullopt;
}

constexpr uint32_t ClusterBlocks(const Dim3& cluster) { return cluster.x * cluster.y * cluster.z; }

// The kinds an instruction's rows are counted in (block_groups.h's RowKey): a shared instruction's
// is its row's (an LDGSTS's global reads in global_ldgsts besides); a global or local one's its
// sector kind (SectorKindOf). In a launch with clusters a generic load gets a row only when it
// reads another block's shared memory (LaunchEvaluator::GenericAccess): distributed shared memory,
// as the GPU's smsp__sass_inst_executed_op_dshared counts it; there a generic access that reaches
// global memory leaves the launch's global kinds not counted (sector_cost.cc).

}  // namespace bankcheck::emulate::internal
