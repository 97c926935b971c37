#pragma once
// The kernel nodes of a CUDA graph, for naming what a graph launch ran. Driver functions are
// reached through the runtime's entry points (linking libcuda would stop the binaries from
// starting on machines without a driver).

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"

namespace bankcheck::internal {

// One kernel launch: its mangled name and shape.
struct KernelShape {
  std::string mangled;
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;
};

// The kernel nodes of `graph` in the graph's node order (the order of capture or creation), child
// graphs included; "<unknown kernel>" where the driver cannot name one. Empty if the driver lacks
// the functions (older than CUDA 12.3).
std::vector<KernelShape> KernelNodesOf(CUgraph graph);

}  // namespace bankcheck::internal
