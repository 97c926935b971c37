// CUDA graphs and stream capture in the stand-in runtime (graphs.h): the graph entry points a
// program links, and the rules they follow.

#include "emulated_runtime/internal/graphs.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "emulated_runtime/internal/launch_capture.h"

namespace bankcheck::emulate::runtime {

bool SameTopology(const GraphNodes& a, const GraphNodes& b) {
  if (a.nodes.size() != b.nodes.size()) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const GraphNode &x = a.nodes[i], &y = b.nodes[i];
    if (x.type != y.type || x.dependencies != y.dependencies) return false;
    if (x.type == GraphNode::Type::kChild && !SameTopology(*x.child, *y.child)) return false;
  }
  return true;
}

size_t MemsetExtent(const cudaMemsetParams& set) {
  size_t row = 0, rows = 0, extent = 0;
  if (set.width == 0) return 0;
  if (__builtin_mul_overflow(set.width, set.elementSize, &row) ||
      __builtin_mul_overflow(std::max<size_t>(set.height, 1) - 1, set.pitch, &rows) ||
      __builtin_add_overflow(rows, row, &extent))
    return SIZE_MAX;
  return extent;
}

bool RunsInOrder(const GraphNodes& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    if (i > 0 &&
        std::find(node.dependencies.begin(), node.dependencies.end(), i - 1) == node.dependencies.end())
      return false;
    if (node.type == GraphNode::Type::kChild && !RunsInOrder(*node.child)) return false;
  }
  return true;
}

cudaError_t Graph::Add(GraphNode node, const cudaGraphNode_t* dependencies, size_t count,
                       cudaGraphNode_t* handle) {
  if (handle == nullptr || (count != 0 && dependencies == nullptr)) return cudaErrorInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    const auto* dependency = reinterpret_cast<const NodeHandle*>(dependencies[i]);
    if (dependency == nullptr || dependency->graph != this) return cudaErrorInvalidValue;
    node.dependencies.push_back(dependency->index);
  }
  std::sort(node.dependencies.begin(), node.dependencies.end());
  content.nodes.push_back(std::move(node));
  handles.push_back({this, content.nodes.size() - 1});
  *handle = reinterpret_cast<cudaGraphNode_t>(&handles.back());
  return cudaSuccess;
}

std::vector<LaunchRecord> GraphLaunchRecords(std::vector<LaunchRecord> nodes) {
  std::vector<std::string> node_kernels;
  for (const LaunchRecord& node : nodes) node_kernels.push_back(node.mangled_kernel);
  if (nodes.empty() || RecordsGraphByNode(node_kernels)) return nodes;
  std::map<std::string, std::vector<const LaunchRecord*>> by_kernel;  // as the GPU's counts come
  for (const LaunchRecord& node : nodes) by_kernel[node.mangled_kernel].push_back(&node);
  LaunchRecord graph;
  for (const LaunchRecord& node : nodes) {
    graph.graph_kernels.push_back(node.kernel);
    graph.mangled_kernel += (graph.mangled_kernel.empty() ? "" : ",") + node.mangled_kernel;
  }
  graph.kernel = GraphLaunchName(graph.graph_kernels);
  graph.grid = nodes.front().grid;
  graph.block = nodes.front().block;
  graph.dynamic_shared_bytes = nodes.front().dynamic_shared_bytes;
  PerKind<KindCounts> sums;
  for (const LaunchRecord& node : nodes)
    for (const MemoryKindInfo& info : MemoryKinds()) {
      // A kind one node could not count is not counted for the graph: a partial sum would be a guess.
      if (node.not_counted[info.kind]) graph.not_counted[info.kind] = true;
      // Launch totals, on no instruction's row (TMA's global traffic): summed from the nodes'.
      if (!SassMetricsCount(info)) sums[info.kind] += node.kinds[info.kind];
    }
  for (const LaunchRecord& node : nodes)
    for (const std::string& note : node.notes)
      if (std::find(graph.notes.begin(), graph.notes.end(), note) == graph.notes.end())
        graph.notes.push_back(note);
  for (const auto& [mangled, launches] : by_kernel) {
    std::map<uint32_t, InstructionCounts> rows;  // by pc: the kernel's instructions over its nodes
    for (const LaunchRecord* launch : launches)
      for (const InstructionCounts& row : launch->instructions) {
        auto [at, added] = rows.emplace(row.pc_offset, row);
        if (added) continue;
        at->second.executions += row.executions;
        at->second.wavefronts += row.wavefronts;
        at->second.ideal_wavefronts += row.ideal_wavefronts;
      }
    for (auto& [pc, row] : rows) {
      sums[row.kind] += KindCounts{row.executions, row.wavefronts, row.ideal_wavefronts, Provenance::kExact};
      graph.instructions.push_back(std::move(row));
    }
  }
  SortByExcess(graph.instructions);
  graph.attributed_launches = 1;
  SetEmulatedCounts(sums, graph);
  return {graph};
}

bool Capture::Capturing(void* stream) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return captures_.count(stream) != 0;
}

}  // namespace bankcheck::emulate::runtime

// The entry points, as cuda_runtime_api.h declares them.

using bankcheck::emulate::runtime::Fail;
using bankcheck::emulate::runtime::Graph;
using bankcheck::emulate::runtime::GraphExec;
using bankcheck::emulate::runtime::GraphNode;
using bankcheck::emulate::runtime::GraphNodes;
using bankcheck::emulate::runtime::LaunchRequest;
using bankcheck::emulate::runtime::MemsetExtent;
using bankcheck::emulate::runtime::NotEmulated;
using bankcheck::emulate::runtime::TheCapture;

namespace {
cudaError_t Result(cudaError_t error) { return error == cudaSuccess ? cudaSuccess : Fail(error); }
Graph* GraphOf(cudaGraph_t graph) { return reinterpret_cast<Graph*>(graph); }
GraphExec* ExecOf(cudaGraphExec_t exec) { return reinterpret_cast<GraphExec*>(exec); }
}  // namespace

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
  if (graph == nullptr || flags != 0) return Fail(cudaErrorInvalidValue);
  *graph = reinterpret_cast<cudaGraph_t>(new Graph);
  return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const cudaKernelNodeParams* params) {
  if (graph == nullptr || params == nullptr) return Fail(cudaErrorInvalidValue);
  if (params->extra != nullptr) return NotEmulated("cudaGraphAddKernelNode with `extra` arguments");
  LaunchRequest request;
  request.function = params->func;
  request.grid = {params->gridDim.x, params->gridDim.y, params->gridDim.z};
  request.block = {params->blockDim.x, params->blockDim.y, params->blockDim.z};
  request.dynamic_shared_bytes = params->sharedMemBytes;
  request.args = params->kernelParams;
  GraphNode added;
  added.type = GraphNode::Type::kKernel;
  const cudaError_t prepared = TheCapture().Prepare(request, "cudaGraphAddKernelNode", &added.kernel);
  if (prepared != cudaSuccess) return Fail(prepared);
  return Result(GraphOf(graph)->Add(std::move(added), dependencies, count, node));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies, size_t count,
                                   const cudaMemsetParams* params) {
  if (graph == nullptr || params == nullptr || params->dst == nullptr ||
      (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4) ||
      (params->height > 1 && params->pitch < params->width * params->elementSize) ||
      bankcheck::emulate::runtime::CheckSet(params->dst, MemsetExtent(*params)) != cudaSuccess)
    return Fail(cudaErrorInvalidValue);
  GraphNode added;
  added.type = GraphNode::Type::kMemset;
  added.memset = *params;
  return Result(GraphOf(graph)->Add(std::move(added), dependencies, count, node));
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* dependencies, size_t count, cudaGraph_t child) {
  if (graph == nullptr || child == nullptr || child == graph) return Fail(cudaErrorInvalidValue);
  GraphNode added;
  added.type = GraphNode::Type::kChild;
  added.child = std::make_shared<const GraphNodes>(GraphOf(child)->content);  // a copy, as CUDA makes
  return Result(GraphOf(graph)->Add(std::move(added), dependencies, count, node));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
  if (exec == nullptr || graph == nullptr) return Fail(cudaErrorInvalidValue);
  if (flags != 0) return NotEmulated("cudaGraphInstantiate with flags");
  *exec = reinterpret_cast<cudaGraphExec_t>(new GraphExec{GraphOf(graph)->content});
  return cudaSuccess;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo* info) {
  if (exec == nullptr || graph == nullptr) return Fail(cudaErrorInvalidValue);
  if (info != nullptr) *info = cudaGraphExecUpdateResultInfo{};
  if (!SameTopology(ExecOf(exec)->content, GraphOf(graph)->content)) {
    if (info != nullptr) info->result = cudaGraphExecUpdateErrorTopologyChanged;
    return Fail(cudaErrorGraphExecUpdateFailure);
  }
  ExecOf(exec)->content = GraphOf(graph)->content;  // the nodes' parameters, the kernels among them
  if (info != nullptr) info->result = cudaGraphExecUpdateSuccess;
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  if (exec == nullptr) return Fail(cudaErrorInvalidValue);
  return Result(TheCapture().LaunchGraph(ExecOf(exec)->content, stream));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete GraphOf(graph);
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete ExecOf(exec);
  return cudaSuccess;
}

// The capture mode (which other threads' calls CUDA would refuse meanwhile) is not followed: the
// stand-in refuses none of them.
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode /*mode*/) {
  return Result(TheCapture().BeginCapture(stream));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  if (graph == nullptr) return Fail(cudaErrorInvalidValue);
  auto made = std::make_unique<Graph>();
  const cudaError_t ended = TheCapture().EndCapture(stream, &made->content);
  if (ended != cudaSuccess) {
    *graph = nullptr;
    return Fail(ended);
  }
  // A captured graph's nodes have no handles: the program never got any.
  *graph = reinterpret_cast<cudaGraph_t>(made.release());
  return cudaSuccess;
}
