#include "cuda/internal/graph_nodes.h"

#include <cuda_runtime_api.h>

namespace bankcheck::internal {

namespace {
using GetNodesFn = CUresult (*)(CUgraph, CUgraphNode*, size_t*);
using NodeGetTypeFn = CUresult (*)(CUgraphNode, CUgraphNodeType*);
using KernelNodeGetParamsFn = CUresult (*)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS_v2*);
using ChildGraphFn = CUresult (*)(CUgraphNode, CUgraph*);
using FuncGetNameFn = CUresult (*)(const char**, CUfunction);
using KernelGetNameFn = CUresult (*)(const char**, CUkernel);

template <typename Fn>
Fn Driver(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult query{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12030, cudaEnableDefault, &query) != cudaSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(fn);
}

struct GraphApi {
  GetNodesFn get_nodes = Driver<GetNodesFn>("cuGraphGetNodes");
  NodeGetTypeFn node_type = Driver<NodeGetTypeFn>("cuGraphNodeGetType");
  KernelNodeGetParamsFn kernel_params = Driver<KernelNodeGetParamsFn>("cuGraphKernelNodeGetParams");
  ChildGraphFn child_graph = Driver<ChildGraphFn>("cuGraphChildGraphNodeGetGraph");
  FuncGetNameFn func_name = Driver<FuncGetNameFn>("cuFuncGetName");
  KernelGetNameFn kernel_name = Driver<KernelGetNameFn>("cuKernelGetName");

  bool complete() const {
    return get_nodes && node_type && kernel_params && child_graph && func_name && kernel_name;
  }
};

std::string NameOf(const GraphApi& api, const CUDA_KERNEL_NODE_PARAMS_v2& params) {
  const char* name = nullptr;
  if (params.func != nullptr && api.func_name(&name, params.func) == CUDA_SUCCESS && name != nullptr)
    return name;
  if (params.kern != nullptr && api.kernel_name(&name, params.kern) == CUDA_SUCCESS && name != nullptr)
    return name;
  return "<unknown kernel>";
}

void AddKernelNodes(const GraphApi& api, CUgraph graph, std::vector<KernelShape>& kernels) {
  size_t count = 0;
  if (api.get_nodes(graph, nullptr, &count) != CUDA_SUCCESS || count == 0) return;
  std::vector<CUgraphNode> nodes(count);
  if (api.get_nodes(graph, nodes.data(), &count) != CUDA_SUCCESS) return;
  for (CUgraphNode node : nodes) {
    CUgraphNodeType type{};
    if (api.node_type(node, &type) != CUDA_SUCCESS) continue;
    if (type == CU_GRAPH_NODE_TYPE_GRAPH) {
      CUgraph child = nullptr;
      if (api.child_graph(node, &child) == CUDA_SUCCESS) AddKernelNodes(api, child, kernels);
      continue;
    }
    if (type != CU_GRAPH_NODE_TYPE_KERNEL) continue;  // memcpy, memset, host, events: no kernel
    CUDA_KERNEL_NODE_PARAMS_v2 params{};
    if (api.kernel_params(node, &params) != CUDA_SUCCESS) continue;
    kernels.push_back({NameOf(api, params),
                       {params.gridDimX, params.gridDimY, params.gridDimZ},
                       {params.blockDimX, params.blockDimY, params.blockDimZ},
                       params.sharedMemBytes});
  }
}
}  // namespace

std::vector<KernelShape> KernelNodesOf(CUgraph graph) {
  const GraphApi api;
  std::vector<KernelShape> kernels;
  if (api.complete()) AddKernelNodes(api, graph, kernels);
  return kernels;
}

}  // namespace bankcheck::internal
