#include "cuda/internal/launch_records.h"

#include <algorithm>
#include <string>
#include <vector>

#include "bankcheck/cuda/metrics.h"
#include "core/records/demangle.h"
#include "cuda/internal/sass_metrics.h"

namespace bankcheck::internal {

namespace {

// A kernel node of the graph launch `graph` as a launch of its own.
LaunchInfo NodeLaunch(const KernelShape& node, const LaunchInfo& graph) {
  LaunchInfo info;
  static_cast<KernelShape&>(info) = node;
  info.nvtx_range = graph.nvtx_range;
  info.process_launch = graph.process_launch;
  return info;
}

}  // namespace

LaunchRecord RecordOf(const LaunchInfo& launch) {
  LaunchRecord record;
  record.mangled_kernel = launch.mangled;
  record.kernel = Demangle(launch.mangled.c_str());
  if (launch.graph) {
    // One range for the whole graph launch: its counts are those of all its kernel nodes.
    record.mangled_kernel.clear();
    for (const KernelShape& node : launch.graph_kernels) {
      record.graph_kernels.push_back(Demangle(node.mangled.c_str()));
      record.mangled_kernel += (record.mangled_kernel.empty() ? "" : ",") + node.mangled;
    }
    record.kernel = GraphLaunchName(record.graph_kernels);
  }
  record.grid = launch.grid;
  record.block = launch.block;
  record.dynamic_shared_bytes = launch.dynamic_shared_bytes;
  record.nvtx_range = launch.nvtx_range;
  record.process_launch = launch.process_launch;
  return record;
}

LaunchRecord MakeRecord(const LaunchInfo& launch, const std::vector<const char*>& names,
                        const std::vector<double>& values) {
  LaunchRecord record = RecordOf(launch);
  MetricValues by_name;
  for (size_t i = 0; i < names.size(); ++i) {
    by_name[names[i]] = values[i];
    if (!IsKindMetric(names[i])) record.extra_metrics[names[i]] = values[i];
  }
  SetKindCounts(by_name, record);
  AddConsistencyNotes(record);
  if (!launch.graph && MayLaunchFromDevice(launch.mangled)) record.notes.push_back(kDeviceLaunchesNote);
  return record;
}

std::vector<LaunchInfo> LaunchesForRanges(const std::vector<LaunchInfo>& launches, size_t ranges) {
  if (ranges == launches.size()) return launches;
  std::vector<LaunchInfo> expanded;
  for (const LaunchInfo& launch : launches) {
    if (!launch.graph) {
      expanded.push_back(launch);
      continue;
    }
    for (const KernelShape& node : launch.graph_kernels) expanded.push_back(NodeLaunch(node, launch));
  }
  return expanded;
}

std::vector<LaunchRecord> SassRecords(const LaunchInfo& launch, const PerKind<bool>& unsupported,
                                      const PerKind<bool>& not_counted, bool tables) {
  // A record of the kernels in `parts` (by mangled name), with their instructions: the table of
  // this one launch (attributed_launches 1), read with its totals.
  using Part = KernelSass::value_type;
  const auto record_with = [&](const LaunchInfo& info, const std::vector<const Part*>& parts) {
    LaunchRecord record = RecordOf(info);
    KindSums total;
    for (const Part* part : parts) {
      const KindSums sums = SumByKind(part->second);
      for (const MemoryKindInfo& kind : MemoryKinds()) total[kind.kind] += sums[kind.kind];
      if (!tables) continue;
      for (InstructionCounts& instruction : ResolveInstructions(part->first, part->second))
        record.instructions.push_back(std::move(instruction));
    }
    SortByExcess(record.instructions);
    record.attributed_launches = tables ? 1 : 0;
    SetSassCounts(total, unsupported, record);
    record.not_counted = not_counted;
    AddConsistencyNotes(record);
    return record;
  };
  std::vector<const Part*> all;
  for (const Part& part : launch.sass) all.push_back(&part);
  if (!launch.graph) return {record_with(launch, all)};
  std::vector<std::string> node_kernels;
  for (const KernelShape& node : launch.graph_kernels) node_kernels.push_back(node.mangled);
  bool by_node = RecordsGraphByNode(node_kernels);
  for (const auto& [kernel, sums] : launch.sass)
    by_node = by_node && std::find(node_kernels.begin(), node_kernels.end(), kernel) != node_kernels.end();
  if (!by_node) return {record_with(launch, all)};
  std::vector<LaunchRecord> records;
  for (const KernelShape& node : launch.graph_kernels) {
    const auto found = launch.sass.find(node.mangled);
    std::vector<const Part*> parts;
    if (found != launch.sass.end()) parts.push_back(&*found);
    records.push_back(record_with(NodeLaunch(node, launch), parts));
  }
  return records;
}
}  // namespace bankcheck::internal
