#include "cuda/internal/sass_metrics.h"

#include <cuda_runtime_api.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>

#include "bankcheck/core/error.h"
#include "core/nvdisasm/nvdisasm.h"
#include "core/platform/environment.h"
#include "cuda/internal/cupti_errors.h"
#include "cuda/internal/disassembly.h"
#include "cuda/internal/sass_config.h"
#include "cuda/internal/thread_annotations.h"

namespace bankcheck::internal {
namespace {

// The cubins CUDA has loaded, by the 32-bit CRC that SASS records carry, and their instructions'
// opcodes and source lines once disassembled. A module is only copied as it loads; its CRC is computed when
// attribution first looks for a cubin, so that a run that attributes nothing pays for the copy alone.
struct CubinStore {
  Mutex mutex;
  // Copied as they loaded, CRC not computed yet.
  std::vector<std::shared_ptr<const std::vector<char>>> loaded BANKCHECK_GUARDED_BY(mutex);
  std::map<uint32_t, std::shared_ptr<const std::vector<char>>> cubins BANKCHECK_GUARDED_BY(mutex);
  std::map<uint32_t, Disassembly> disassembled BANKCHECK_GUARDED_BY(mutex);
  // Where the project's sources are (SetProjectSources): inlined code is attributed to its innermost line
  // there.
  std::string project_root BANKCHECK_GUARDED_BY(mutex);
  std::string build_root BANKCHECK_GUARDED_BY(mutex);
  // The kernels of modules that launch kernels from the device (MayLaunchFromDevice).
  std::set<std::string> device_launchers BANKCHECK_GUARDED_BY(mutex);
  // PrefetchProjectDisassembly: the project's modules are disassembled as they load.
  bool prefetch BANKCHECK_GUARDED_BY(mutex) = false;
};
CubinStore g_cubins;

// The listings of the project's modules, begun as they load (PrefetchProjectDisassembly), on every
// core but one (the process's own work). Never destroyed: the process may exit while it works.
ListingPrefetcher& ThePrefetcher() {
  static ListingPrefetcher* prefetcher =
      new ListingPrefetcher(std::max(2u, std::thread::hardware_concurrency()) - 1);
  return *prefetcher;
}

// The disassembly cache of the project whose build folder is `build_root` (DisassemblyCacheFolder).
std::string CacheFolderOf(const std::string& build_root) {
  // The suites' default cache is in their build folder: theirs, rebuilt with them.
  return DisassemblyCacheFolder(build_root.empty() ? "" : build_root + "/bankcheck-cache/nvdisasm");
}

// The cubin's CRC as SASS records carry it; nullopt when CUPTI cannot compute it.
std::optional<uint32_t> CubinCrc(const std::vector<char>& cubin) {
  CUpti_GetCubinCrcParams params{};
  params.size = CUpti_GetCubinCrcParamsSize;
  params.cubin = cubin.data();
  params.cubinSize = cubin.size();
  if (cuptiGetCubinCrc(&params) != CUPTI_SUCCESS) return std::nullopt;
  return static_cast<uint32_t>(params.cubinCrc);
}

// The functions of `cubin` (its ".text.<mangled name>" sections) when it links the device runtime's
// launch; none otherwise. A byte search, not an ELF parse: the names only need to be found.
std::vector<std::string> FunctionsIfLaunchingFromDevice(const char* cubin, size_t size) {
  const std::string_view bytes(cubin, size);
  if (bytes.find("cudaCDP2LaunchDevice") == std::string_view::npos &&
      bytes.find("cudaLaunchDeviceV2") == std::string_view::npos)
    return {};
  std::vector<std::string> functions;
  constexpr std::string_view kText = ".text.";
  for (size_t at = bytes.find(kText); at != std::string_view::npos; at = bytes.find(kText, at + 1)) {
    const size_t start = at + kText.size();
    const size_t end = bytes.find('\0', start);
    if (end == std::string_view::npos) break;
    functions.emplace_back(bytes.substr(start, end - start));
  }
  return functions;
}

std::shared_ptr<const std::vector<char>> FindCubin(uint32_t crc) {
  MutexLock lock(g_cubins.mutex);
  for (std::shared_ptr<const std::vector<char>>& cubin : g_cubins.loaded)
    if (const std::optional<uint32_t> its_crc = CubinCrc(*cubin))
      g_cubins.cubins[*its_crc] = std::move(cubin);
  g_cubins.loaded.clear();
  const auto found = g_cubins.cubins.find(crc);
  return found == g_cubins.cubins.end() ? nullptr : found->second;
}

// The disassembled instruction at `pc` of `function` in the cubin with `crc`; empty when unknown.
DisassembledInstruction DisassembledAt(uint32_t crc, const std::string& function, uint32_t pc) {
  const std::shared_ptr<const std::vector<char>> cubin = FindCubin(crc);
  if (!cubin) return {};
  const auto at = [&](const Disassembly& disassembly) {
    const auto in_function = disassembly.find(function);
    if (in_function == disassembly.end()) return DisassembledInstruction{};
    const auto instruction = in_function->second.find(pc);
    return instruction == in_function->second.end() ? DisassembledInstruction{} : instruction->second;
  };
  std::string build_root;
  {
    MutexLock lock(g_cubins.mutex);
    if (const auto found = g_cubins.disassembled.find(crc); found != g_cubins.disassembled.end())
      return at(found->second);
    build_root = g_cubins.build_root;
  }
  // Not under the lock: a listing can take a second to make, and another thread may be making one.
  const auto waited = std::chrono::steady_clock::now();
  std::optional<std::string> listing = ThePrefetcher().Take(crc);
  const bool prefetched = listing.has_value();
  if (!prefetched) listing = NvdisasmListing(*cubin, crc, CacheFolderOf(build_root));
  const auto start = std::chrono::steady_clock::now();
  Disassembly parsed = ParseNvdisasm(*listing);
  if (FlagFromEnvironment("BANKCHECK_TRACE_SESSION")) {
    if (prefetched)
      std::fprintf(stderr, "bankcheck trace: prefetched listing of cubin %08x waited for: %.3f ms\n", crc,
                   std::chrono::duration<double, std::milli>(start - waited).count());
    std::fprintf(stderr, "bankcheck trace: listing of cubin %08x parsed (%zu functions): %.3f ms\n", crc,
                 parsed.size(),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  MutexLock lock(g_cubins.mutex);
  return at(g_cubins.disassembled.emplace(crc, std::move(parsed)).first->second);
}

// The source line of `pc` from the cubin's line info (-lineinfo), through CUPTI, for when nvdisasm
// could not be run; empty without line info.
SourceFrame SourceOf(uint32_t crc, const std::string& function, uint32_t pc) {
  const std::shared_ptr<const std::vector<char>> cubin = FindCubin(crc);
  if (!cubin) return {};
  CUpti_GetSassToSourceCorrelationParams params{};
  params.size = CUpti_GetSassToSourceCorrelationParamsSize;
  params.cubin = cubin->data();
  params.cubinSize = cubin->size();
  params.functionName = function.c_str();
  params.pcOffset = pc;
  if (cuptiGetSassToSourceCorrelation(&params) != CUPTI_SUCCESS) return {};
  SourceFrame source;
  const std::string file = params.fileName != nullptr ? params.fileName : "";
  const std::string dir = params.dirName != nullptr ? params.dirName : "";
  std::free(params.fileName);
  std::free(params.dirName);
  if (file.empty()) return {};
  source.file = file.front() == '/' || dir.empty() ? file : dir + "/" + file;
  source.line = params.lineNumber;
  return source;
}

std::optional<uint64_t> MetricId(const std::string& chip, const std::string& name) {
  BANKCHECK_CUPTI_PARAMS(CUpti_SassMetrics_GetProperties_Params, params);
  params.pChipName = chip.c_str();
  params.pMetricName = name.c_str();
  if (cuptiSassMetricsGetProperties(&params) != CUPTI_SUCCESS) return std::nullopt;
  return params.metric.metricId;
}

// BANKCHECK_SASS_CONFIG, read once: the configuration is set once per process.
const SassConfig& TheSassConfig() {
  static const SassConfig config = SassConfigFromEnvironment();
  return config;
}

// The SASS metrics configuration can be set once per process and device: CUPTI 13.0 answered a
// second cuptiSassMetricsSetConfig, after UnsetConfig, with CUPTI_ERROR_OUT_OF_MEMORY on the H100.
// So it is set on first use and kept.
const SassMetricIds& ConfigureOnce(int device, const std::string& chip) {
  static std::mutex mutex;
  static std::map<int, SassMetricIds> configured;
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = configured.find(device); found != configured.end()) return found->second;
  const SassConfig& config = TheSassConfig();
  if (!config.IsDefault())
    std::fprintf(stderr,
                 "bankcheck: SASS metrics configured by BANKCHECK_SASS_CONFIG (%s): an experiment; "
                 "counts are checked only with the default\n",
                 Describe(config).c_str());
  std::vector<CUpti_SassMetrics_Config> configs;
  SassMetricIds ids = MetricIdsFor(config, [&](const std::string& name, bool patched) {
    const std::optional<uint64_t> id = MetricId(chip, name);
    if (id && patched) configs.push_back({*id, static_cast<uint8_t>(config.granularity)});
    return id;
  });
  if (!ids.traffic[MemoryKind::kSharedLoad] || !ids.ideal[MemoryKind::kSharedLoad])
    throw Error(ErrorKind::kUnsupportedDevice, "this GPU (" + chip +
                                                   ") has no per-instruction shared-memory "
                                                   "wavefront metrics in CUPTI's SASS Metrics API");
  BANKCHECK_CUPTI_PARAMS(CUpti_SassMetricsSetConfig_Params, set);
  set.pConfigs = configs.data();
  set.numOfMetricConfig = configs.size();
  set.deviceIndex = static_cast<uint32_t>(device);
  BANKCHECK_CUPTI_CHECK(cuptiSassMetricsSetConfig(&set));
  return configured.emplace(device, std::move(ids)).first->second;
}

// What one patched instruction reported: metric id -> value.
using Key = std::tuple<uint32_t, std::string, uint32_t>;  // cubin CRC, function, offset
using Reported = std::map<Key, std::map<uint64_t, uint64_t>>;

Reported Flush(CUcontext context) {
  BANKCHECK_CUPTI_PARAMS(CUpti_SassMetricsGetDataProperties_Params, properties);
  properties.ctx = context;
  BANKCHECK_CUPTI_CHECK(cuptiSassMetricsGetDataProperties(&properties));
  Reported reported;
  if (properties.numOfPatchedInstructionRecords == 0 || properties.numOfInstances == 0) return reported;
  std::vector<CUpti_SassMetrics_Data> data(properties.numOfPatchedInstructionRecords);
  std::vector<CUpti_SassMetrics_InstanceValue> values(data.size() * properties.numOfInstances);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = &values[i * properties.numOfInstances];
  }
  BANKCHECK_CUPTI_PARAMS(CUpti_SassMetricsFlushData_Params, flush);
  flush.ctx = context;
  flush.numOfPatchedInstructionRecords = data.size();
  flush.numOfInstances = properties.numOfInstances;
  flush.pMetricsData = data.data();
  BANKCHECK_CUPTI_CHECK(cuptiSassMetricsFlushData(&flush));
  for (const CUpti_SassMetrics_Data& record : data) {
    // One record per instruction and metric; CUPTI allocates the name, the reader frees it.
    auto& sums = reported[Key{record.cubinCrc, record.functionName, record.pcOffset}];
    std::free(const_cast<char*>(record.functionName));
    for (size_t k = 0; k < properties.numOfInstances; ++k)
      sums[record.pInstanceValues[k].metricId] += record.pInstanceValues[k].value;
  }
  return reported;
}

// The memory instructions of `reported`, by kernel.
KernelSass ByKernel(const Reported& reported, const SassMetricIds& ids) {
  KernelSass by_kernel;
  for (const auto& [key, values] : reported)
    for (SassInstruction& instruction : SassInstructionsOf(std::get<0>(key), std::get<2>(key), values, ids))
      by_kernel[std::get<1>(key)].push_back(instruction);
  return by_kernel;
}

// SASS patching on `context` for as long as it lives.
class SassPatching {
 public:
  explicit SassPatching(CUcontext context) : context_(context) {
    BANKCHECK_CUPTI_PARAMS(CUpti_SassMetricsEnable_Params, enable);
    enable.ctx = context;
    // By default patch what runs, at its first launch: not every kernel loaded.
    enable.enableLazyPatching = TheSassConfig().lazy_patching ? 1 : 0;
    BANKCHECK_CUPTI_CHECK(cuptiSassMetricsEnable(&enable));
  }
  ~SassPatching() {
    BANKCHECK_CUPTI_PARAMS(CUpti_SassMetricsDisable_Params, disable);
    disable.ctx = context_;
    cuptiSassMetricsDisable(&disable);
  }
  SassPatching(const SassPatching&) = delete;
  SassPatching& operator=(const SassPatching&) = delete;

 private:
  CUcontext context_;
};

}  // namespace

SassMetricIds MetricIdsFor(const SassConfig& config,
                           const std::function<std::optional<uint64_t>(const std::string&, bool)>& id_of) {
  SassMetricIds ids;
  const bool with_ideal = config.metrics != SassConfig::Metrics::kNoIdeal;
  // One config per counter, however many kinds share it (LDGSTS's instruction counter is two kinds').
  std::map<std::string, std::optional<uint64_t>> added;
  const auto add_once = [&](const char* name, bool patched) -> std::optional<uint64_t> {
    if (name == nullptr) return std::nullopt;
    if (const auto found = added.find(name); found != added.end()) return found->second;
    return added[name] = id_of(name, patched);
  };
  for (const MemoryKindInfo& info : MemoryKinds()) {
    if (config.metrics == SassConfig::Metrics::kLdSt && info.kind != MemoryKind::kSharedLoad &&
        info.kind != MemoryKind::kSharedStore)
      continue;
    if (KindsLeftOut(config)[info.kind] || !SassMetricsCount(info)) {
      ids.not_counted[info.kind] = true;
      continue;
    }
    const std::string range_name = info.instructions_metric;  // "...op_shared_ld.sum"
    const std::optional<uint64_t> id = add_once(range_name.substr(0, range_name.rfind(".sum")).c_str(), true);
    if (!id) {
      ids.unsupported[info.kind] = true;
      continue;
    }
    ids.kinds_of[*id].push_back(info.kind);
    ids.traffic[info.kind] = add_once(info.sass_traffic_metric, true);
    ids.ideal[info.kind] = add_once(info.sass_ideal_metric, with_ideal);
  }
  return ids;
}

std::vector<SassInstruction> SassInstructionsOf(uint32_t cubin_crc, uint32_t pc_offset,
                                                const std::map<uint64_t, uint64_t>& values,
                                                const SassMetricIds& ids) {
  const auto value_of = [&values](const std::optional<uint64_t>& id) -> uint64_t {
    if (!id) return 0;
    const auto found = values.find(*id);
    return found == values.end() ? 0 : found->second;
  };
  std::vector<SassInstruction> instructions;
  for (const auto& [id, executions] : values) {
    const auto kinds = ids.kinds_of.find(id);
    if (kinds == ids.kinds_of.end() || executions == 0) continue;
    for (const MemoryKind kind : kinds->second) {
      SassInstruction instruction;
      instruction.cubin_crc = cubin_crc;
      instruction.pc_offset = pc_offset;
      instruction.kind = kind;
      instruction.executions = executions;
      instruction.wavefronts = value_of(ids.traffic[kind]);
      instruction.ideal_wavefronts = value_of(ids.ideal[kind]);
      instructions.push_back(instruction);
    }
    // An instruction increments one instruction counter.
    break;
  }
  return instructions;
}

struct SassCounting::State {
  State(CUcontext on, const SassMetricIds& configured) : context(on), ids(configured), patching(on) {}
  CUcontext context;
  const SassMetricIds& ids;
  SassPatching patching;
  // Other contexts that launched kernels while counting (Watch).
  std::map<CUcontext, std::unique_ptr<SassPatching>> others;
};

SassCounting::SassCounting(CUcontext context, int device, const std::string& chip)
    : state_(std::make_unique<State>(context, ConfigureOnce(device, chip))) {}

SassCounting::~SassCounting() = default;

KernelSass SassCounting::Take() {
  Reported reported = Flush(state_->context);
  // A module loaded in two contexts has the same instructions (keys) in both: add them up.
  for (const auto& [context, patching] : state_->others)
    for (const auto& [key, values] : Flush(context))
      for (const auto& [id, value] : values) reported[key][id] += value;
  // Kept per instruction: the table of each launch comes from its own counts, at no second run.
  return ByKernel(reported, state_->ids);
}

KindSums SumByKind(const std::vector<SassInstruction>& instructions) {
  KindSums sums;
  for (const SassInstruction& instruction : instructions)
    sums[instruction.kind] +=
        KindCounts{instruction.executions, instruction.wavefronts, instruction.ideal_wavefronts};
  return sums;
}

void SassCounting::Watch(CUcontext context) {
  if (context == nullptr || context == state_->context || state_->others.count(context) != 0) return;
  state_->others.emplace(context, std::make_unique<SassPatching>(context));
}

void SassCounting::Forget(CUcontext context) { state_->others.erase(context); }

const PerKind<bool>& SassCounting::unsupported() const { return state_->ids.unsupported; }

const PerKind<bool>& SassCounting::not_counted() const { return state_->ids.not_counted; }

void OnModuleLoaded(const void* data) {
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  if (module == nullptr || module->pCubin == nullptr || module->cubinSize == 0) return;
  auto cubin = std::make_shared<const std::vector<char>>(module->pCubin, module->pCubin + module->cubinSize);
  std::vector<std::string> launchers = FunctionsIfLaunchingFromDevice(module->pCubin, module->cubinSize);
  MutexLock lock(g_cubins.mutex);
  g_cubins.device_launchers.insert(launchers.begin(), launchers.end());
  // A module of the project is one whose line information names its source or build folder (a byte
  // search: the names only need to be found).
  const std::string_view bytes(module->pCubin, module->cubinSize);
  const auto names = [&bytes](const std::string& root) {
    return !root.empty() && bytes.find(root) != std::string_view::npos;
  };
  if (g_cubins.prefetch && (names(g_cubins.project_root) || names(g_cubins.build_root))) {
    if (const std::optional<uint32_t> crc = CubinCrc(*cubin)) {
      try {
        ThePrefetcher().Start(cubin, *crc, CacheFolderOf(g_cubins.build_root));
      } catch (const Error&) {
        // A refused BANKCHECK_DISASSEMBLY_CACHE: attribution reports it when it needs the listing.
      }
      g_cubins.cubins[*crc] = std::move(cubin);
      return;
    }
  }
  g_cubins.loaded.push_back(std::move(cubin));
}

void PrefetchProjectDisassembly() {
  MutexLock lock(g_cubins.mutex);
  g_cubins.prefetch = true;
}

std::vector<std::string> DeviceLaunchingFunctions(const char* cubin, size_t size) {
  return FunctionsIfLaunchingFromDevice(cubin, size);
}

bool MayLaunchFromDevice(const std::string& mangled) {
  MutexLock lock(g_cubins.mutex);
  return g_cubins.device_launchers.count(mangled) != 0;
}

std::map<std::string, std::vector<InstructionCounts>> AttributeInstructions(
    CUcontext context, int device, const std::string& chip, const std::function<void()>& launches) {
  const SassMetricIds& ids = ConfigureOnce(device, chip);
  Reported reported;
  {
    SassPatching patching(context);
    launches();
    if (const cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) {
      throw Error(ErrorKind::kKernelFault, std::string("a kernel failed while its instructions were "
                                                       "attributed: ") +
                                               cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
    }
    reported = Flush(context);
  }
  std::map<std::string, std::vector<InstructionCounts>> tables;
  for (const auto& [kernel, instructions] : ByKernel(reported, ids))
    tables[kernel] = ResolveInstructions(kernel, instructions);
  return tables;
}

void SetProjectSources(const std::string& project_root, const std::string& build_root) {
  MutexLock lock(g_cubins.mutex);
  g_cubins.project_root = project_root;
  g_cubins.build_root = build_root;
}

std::vector<InstructionCounts> ResolveInstructions(const std::string& function,
                                                   const std::vector<SassInstruction>& instructions) {
  std::string project_root = AbsolutePathFromEnvironment("BANKCHECK_SOURCE_ROOT"), build_root;
  {
    MutexLock lock(g_cubins.mutex);
    if (project_root.empty()) project_root = g_cubins.project_root;
    build_root = g_cubins.build_root;
  }
  std::vector<InstructionCounts> resolved;
  for (const SassInstruction& instruction : instructions) {
    InstructionCounts counts;
    counts.pc_offset = instruction.pc_offset;
    counts.kind = instruction.kind;
    counts.executions = instruction.executions;
    counts.wavefronts = instruction.wavefronts;
    counts.ideal_wavefronts = instruction.ideal_wavefronts;
    DisassembledInstruction disassembled =
        DisassembledAt(instruction.cubin_crc, function, instruction.pc_offset);
    counts.opcode = disassembled.opcode.empty() ? InfoOf(counts.kind).sass : disassembled.opcode;
    if (disassembled.inline_chain.empty()) {
      const SourceFrame source = SourceOf(instruction.cubin_crc, function, instruction.pc_offset);
      counts.file = source.file;
      counts.line = source.line;
    } else {
      AttributeToChain(counts, std::move(disassembled.inline_chain), project_root, build_root);
    }
    resolved.push_back(std::move(counts));
  }
  SortByExcess(resolved);
  return resolved;
}

}  // namespace bankcheck::internal
