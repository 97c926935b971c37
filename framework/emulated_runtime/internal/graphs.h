#pragma once
// CUDA graphs in the stand-in runtime (docs/emulate.md): what cudaGraphCreate and stream capture
// build, cudaGraphInstantiate copies and cudaGraphLaunch runs (launch_capture.h, LaunchGraph), and
// the rule by which the records of a graph launch are made as the GPU makes them.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "bankcheck/emulate/emulator.h"

namespace bankcheck::emulate::runtime {

// A kernel launch made ready to be emulated whenever it runs: a recorded launch, or a graph's
// kernel node, which runs at each launch of the graph.
struct PreparedLaunch {
  const void* fatbin = nullptr;
  LaunchToEmulate launch;        // memory: set when it is recorded
  bool may_write_global = true;  // FatbinEmulator::MayWriteGlobal
  std::exception_ptr error;      // reading its kernel failed: rethrown by the session that runs it
};

struct GraphNodes;

struct GraphNode {
  enum class Type { kKernel, kMemset, kCopy, kChild };
  Type type = Type::kKernel;
  PreparedLaunch kernel;
  cudaMemsetParams memset{};  // dst, pitch, value, elementSize (1, 2, 4), width, height
  struct {
    void* destination = nullptr;
    const void* source = nullptr;
    size_t bytes = 0;
    cudaMemcpyKind kind = cudaMemcpyDefault;
  } copy;
  std::shared_ptr<const GraphNodes> child;  // cudaGraphAddChildGraphNode copies the graph
  std::vector<size_t> dependencies;         // earlier nodes of the same graph, by index
};

// The bytes a memset node spans from its destination: the last row's end; SIZE_MAX when that does
// not fit a size_t (CheckSet refuses it).
size_t MemsetExtent(const cudaMemsetParams& set);

// A graph's nodes, each after the nodes it depends on (a node can depend only on nodes that exist).
struct GraphNodes {
  std::vector<GraphNode> nodes;
};

// Whether two graphs have the same nodes' types and dependencies, child graphs alike: what
// cudaGraphExecUpdate requires of the graph that updates an executable graph.
bool SameTopology(const GraphNodes& a, const GraphNodes& b);
// Whether every node depends on the one before it (through child graphs too): then running the
// nodes in order is the only order the GPU may run them in.
bool RunsInOrder(const GraphNodes& graph);

// cudaGraph_t: the graph and its node handles (cudaGraphNode_t points to one).
struct Graph {
  struct NodeHandle {
    Graph* graph;
    size_t index;
  };
  GraphNodes content;
  std::deque<NodeHandle> handles;
  // Adds `node` after `dependencies` (handles of this graph: cudaErrorInvalidValue otherwise).
  cudaError_t Add(GraphNode node, const cudaGraphNode_t* dependencies, size_t count, cudaGraphNode_t* handle);
};

// cudaGraphExec_t.
struct GraphExec {
  GraphNodes content;
};

// The records of one graph launch from the records of its kernel nodes, in node order, as the GPU
// counts a graph launch through SASS metrics (docs/counters.md, "CUDA graphs"; cuda/launch_records.cc,
// SassRecords): one per node when every node runs a different kernel; otherwise one record
// "CUDA graph [k1, k1]" holding them all, each kernel's instructions added up over its nodes
// (graph_kernels naming the nodes, grid and block the first node's).
std::vector<LaunchRecord> GraphLaunchRecords(std::vector<LaunchRecord> nodes);

}  // namespace bankcheck::emulate::runtime
