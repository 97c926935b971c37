#include "emulated_runtime/internal/launch_capture.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#include "bankcheck/core/error.h"
#include "core/platform/environment.h"
#include "core/records/demangle.h"
#include "emulate/internal/cluster.h"
#include "emulate/internal/limits.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::runtime {
namespace {

// The evaluator of bankcheck/emulate/emulator.h, one Module per fatbin (reading one runs cuobjdump and
// nvdisasm: once per fatbin and process, at its first recorded launch).
class SassFatbinEmulator final : public FatbinEmulator {
 public:
  const KernelInfo* Describe(const void* fatbin, const std::string& mangled) override {
    return ModuleOf(fatbin).Find(mangled);
  }
  Emulation Emulate(const void* fatbin, const LaunchToEmulate& launch) override {
    EmulationLimits limits;
    // For checking the grouping of blocks (docs/emulate.md): every block evaluated.
    limits.group_blocks = !FlagFromEnvironment("BANKCHECK_EMULATE_EVERY_BLOCK");
    limits.budget = &budget_;
    return emulate::Emulate(ModuleOf(fatbin), launch, limits);
  }
  bool MayWriteGlobal(const void* fatbin, const std::string& mangled) override {
    return MayWriteGlobalMemory(ModuleOf(fatbin), mangled);
  }
  ComputedOutputs ComputeOutputs(const void* fatbin, const LaunchToEmulate& launch) override {
    EmulationLimits limits;
    limits.max_warp_instructions = output_limit_;
    limits.budget = &output_budget_;
    if (!output_limit_problem_.empty() || output_limit_ == 0) {
      ComputedOutputs outputs;
      outputs.not_computed = Undecided{};
      outputs.not_computed->reason =
          output_limit_ == 0 ? std::string(internal::kOutputLimitVariable) + "=0 turns the output pass off"
                             : output_limit_problem_;
      return outputs;
    }
    return emulate::ComputeOutputs(ModuleOf(fatbin), launch, limits);
  }
  void AddImage(const void* key, std::string image) override { images_[key] = std::move(image); }

 private:
  const Module& ModuleOf(const void* fatbin) {
    auto found = modules_.find(fatbin);
    if (found != modules_.end()) return found->second;
    const auto image = images_.find(fatbin);
    if (image == images_.end()) return modules_.emplace(fatbin, Module::FromFatbin(fatbin)).first->second;
    // A module loaded at run time (cuModuleLoadData): its image as the program handed it.
    return modules_.emplace(fatbin, Module::FromImage(image->second)).first->second;
  }
  std::map<const void*, Module> modules_;
  std::map<const void*, std::string> images_;  // modules loaded at run time, not read yet
  // The program's launches together: five launches' worth of the default limits (about a
  // minute and a half of evaluation at most), so that a program of many long launches ends.
  EmulationBudget budget_{5 * EmulationLimits{}.max_warp_instructions,
                          5 * EmulationLimits{}.max_group_checks};
  // A launch's output pass may run this many warp instructions, the program's together as many
  // launches' worth (limits.h).
  std::string output_limit_problem_;  // why BANKCHECK_EMULATE_OUTPUT_LIMIT could not be read
  const uint64_t output_limit_ =
      OutputLimit(std::getenv(internal::kOutputLimitVariable), &output_limit_problem_);
  EmulationBudget output_budget_{internal::kOutputBudgetLaunches * output_limit_, 0};
};

// Whether the GPU refuses `dynamic` bytes of dynamic shared memory for a kernel of `static_bytes`
// (0 where its module has not been read yet) and `registered`'s attribute.
bool SharedMemoryRefused(size_t dynamic, uint64_t static_bytes, const RegisteredKernel& registered) {
  using internal::kDefaultDynamicShared;
  const uint64_t allowed = registered.max_dynamic_shared >= 0
                               ? static_cast<uint64_t>(registered.max_dynamic_shared)
                               : kDefaultDynamicShared - std::min(static_bytes, kDefaultDynamicShared);
  return dynamic > allowed || static_bytes + dynamic > internal::kMaxSharedOptIn;
}

// The GPU's answer to a launch's clusters (InvalidCluster, limits.h).
bool ClusterRefused(const LaunchRequest& request, const RegisteredKernel& kernel) {
  const uint32_t max_blocks = kernel.non_portable_cluster ? internal::sm90::kMaxClusterBlocks
                                                          : internal::sm90::kMaxPortableClusterBlocks;
  return internal::InvalidCluster(request.grid, request.cluster, max_blocks).has_value();
}

}  // namespace

uint64_t OutputLimit(const char* setting, std::string* problem) {
  if (setting == nullptr || *setting == '\0') return internal::kOutputWarpInstructions;
  const std::string text = setting;
  if (text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) {
    *problem = std::string(internal::kOutputLimitVariable) + "='" + text.substr(0, 40) +
               "' is not a number of warp instructions (0 to 999999999999): give how many a launch's output "
               "pass may run, or unset it for " +
               std::to_string(internal::kOutputWarpInstructions);
    return internal::kOutputWarpInstructions;
  }
  return std::stoull(text);
}

FatbinEmulator::~FatbinEmulator() = default;
bool FatbinEmulator::MayWriteGlobal(const void* /*fatbin*/, const std::string& /*mangled*/) { return true; }
ComputedOutputs FatbinEmulator::ComputeOutputs(const void* /*fatbin*/, const LaunchToEmulate& /*launch*/) {
  ComputedOutputs outputs;
  outputs.not_computed = Undecided{};
  return outputs;  // no reason: Capture says the stores were not computed
}
void FatbinEmulator::AddImage(const void* /*key*/, std::string /*image*/) {}

std::unique_ptr<FatbinEmulator> MakeSassFatbinEmulator() { return std::make_unique<SassFatbinEmulator>(); }

std::vector<uint8_t> PackParameters(const KernelInfo& kernel, void* const* args) {
  const size_t size = kernel.ParamBytes();
  std::vector<uint8_t> bytes(size);
  if (size == 0) return bytes;
  if (args == nullptr) {
    throw Error(ErrorKind::kBadInput, "a launch of " + bankcheck::internal::Demangle(kernel.mangled) +
                                          " passed no arguments, but it has " +
                                          std::to_string(kernel.params.size()) + " parameters");
  }
  for (const ParamSlot& slot : kernel.params) {
    if (args[slot.ordinal] == nullptr) {
      throw Error(ErrorKind::kBadInput, "a launch of " + bankcheck::internal::Demangle(kernel.mangled) +
                                            " passed no argument " + std::to_string(slot.ordinal));
    }
    std::memcpy(bytes.data() + slot.offset, args[slot.ordinal], slot.size);
  }
  return bytes;
}

void** Capture::RegisterFatbin(const void* fatbin) {
  std::lock_guard<std::mutex> lock(mutex_);
  fatbin_handles_.push_back(std::make_unique<const void*>(fatbin));
  // The handle nvcc's code passes back is a void**; what it points to is read only here.
  return const_cast<void**>(fatbin_handles_.back().get());
}

void Capture::RegisterFunction(void** handle, const void* host_function, const char* mangled) {
  std::lock_guard<std::mutex> lock(mutex_);
  kernels_[host_function] =
      RegisteredKernel{handle != nullptr ? *handle : nullptr, mangled != nullptr ? mangled : ""};
}

const RegisteredKernel* Capture::Find(const void* host_function) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = kernels_.find(host_function);
  return found == kernels_.end() ? nullptr : &found->second;
}

cudaError_t Capture::SetMaxDynamicShared(const void* host_function, int bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = kernels_.find(host_function);
  if (found == kernels_.end()) return cudaErrorInvalidDeviceFunction;
  if (bytes < 0 || static_cast<uint64_t>(bytes) > internal::kMaxSharedOptIn) return cudaErrorInvalidValue;
  found->second.max_dynamic_shared = bytes;
  return cudaSuccess;
}

cudaError_t Capture::SetNonPortableClusterSize(const void* host_function, bool allowed) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = kernels_.find(host_function);
  if (found == kernels_.end()) return cudaErrorInvalidDeviceFunction;
  found->second.non_portable_cluster = allowed;
  return cudaSuccess;
}

cudaError_t Capture::Launch(const LaunchRequest& request, const char* entry_point) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto capture = captures_.find(request.stream);
  if (capture != captures_.end()) {
    // Into a stream being captured: a node of its graph, after the one before; it does not run.
    GraphNode node;
    const cudaError_t prepared = PrepareLocked(request, entry_point, &node.kernel, lock);
    if (prepared != cudaSuccess) return prepared;
    std::vector<GraphNode>& nodes = capture->second.nodes;
    if (!nodes.empty()) node.dependencies.push_back(nodes.size() - 1);
    nodes.push_back(std::move(node));
    return cudaSuccess;
  }
  if (internal::InvalidConfiguration(request.grid, request.block)) return cudaErrorInvalidValue;
  launched_in_case_ = true;
  // Outside a session a launch counts nothing, but its outputs are computed as a recorded one's.
  PreparedLaunch prepared;
  const cudaError_t error = PrepareLocked(request, entry_point, &prepared, lock);
  if (error != cudaSuccess) return error;
  RecordLocked(std::move(prepared), 0);
  return cudaSuccess;
}

cudaError_t Capture::Prepare(const LaunchRequest& request, const char* entry_point,
                             PreparedLaunch* prepared) {
  std::unique_lock<std::mutex> lock(mutex_);
  return PrepareLocked(request, entry_point, prepared, lock);
}

cudaError_t Capture::PrepareLocked(const LaunchRequest& request, const char* entry_point,
                                   PreparedLaunch* prepared, std::unique_lock<std::mutex>& lock) {
  // cudart 13.0 answers every such shape with cudaErrorInvalidValue (measured on an H200, driver
  // 580.159.04: an empty grid or block, grid y or z 65536, grid x 2^31, block x or y 1025, block z 65,
  // 2048 threads), not cudaErrorInvalidConfiguration.
  if (internal::InvalidConfiguration(request.grid, request.block)) return cudaErrorInvalidValue;
  const auto found = kernels_.find(request.function);
  if (found == kernels_.end()) {
    lock.unlock();
    std::ostringstream what;
    what << "not emulated: " << entry_point << " of a function no module registered (" << request.function
         << "; a kernel loaded at run time, or a host function)";
    NoteNotEmulated(what.str());
    lock.lock();
    return cudaErrorInvalidDeviceFunction;
  }
  // The kernel's static shared memory is known only once its module is read.
  if (SharedMemoryRefused(request.dynamic_shared_bytes, 0, found->second)) return cudaErrorInvalidValue;
  if (ClusterRefused(request, found->second)) return cudaErrorInvalidClusterSize;
  if (prepared == nullptr) return cudaSuccess;
  const RegisteredKernel kernel = found->second;
  if (!evaluator_) evaluator_ = MakeSassFatbinEmulator();
  prepared->fatbin = kernel.fatbin;
  prepared->launch.mangled = kernel.mangled;
  prepared->launch.grid = request.grid;
  prepared->launch.block = request.block;
  prepared->launch.cluster = request.cluster;
  prepared->launch.dynamic_shared_bytes = static_cast<uint32_t>(request.dynamic_shared_bytes);
  try {
    // Arguments live only as long as this call: their bytes are taken now, laid out as the kernel's
    // parameters are.
    const KernelInfo* info = evaluator_->Describe(kernel.fatbin, kernel.mangled);
    if (info == nullptr) {
      throw Error(ErrorKind::kBadInput, "the fatbin registered for " +
                                            bankcheck::internal::Demangle(kernel.mangled) +
                                            " has no sm_90 code of it: build the kernels for sm_90 "
                                            "(CUDA_ARCHITECTURES 90) to emulate them");
    }
    if (SharedMemoryRefused(request.dynamic_shared_bytes, info->static_shared_bytes, kernel))
      return cudaErrorInvalidValue;
    // A kernel's __cluster_dims__ are known once its module is read.
    LaunchRequest clustered = request;
    if (!internal::EffectiveCluster(*info, request.cluster, &clustered.cluster) &&
        ClusterRefused(clustered, kernel))
      return cudaErrorInvalidClusterSize;
    prepared->launch.param_bytes = PackParameters(*info, request.args);
    prepared->may_write_global = evaluator_->MayWriteGlobal(kernel.fatbin, kernel.mangled);
  } catch (const Error&) {
    prepared->error = std::current_exception();
  }
  return cudaSuccess;
}

void Capture::RecordLocked(PreparedLaunch prepared, uint64_t graph_launch) {
  if (prepared.error) {
    if (recording_ && !launch_error_) launch_error_ = prepared.error;
    ForgetAllLocked(WritesGlobal(prepared.launch.mangled));
    return;
  }
  prepared.launch.memory = memory_.Snapshot();
  std::optional<LaunchRecord> counted;
  if (prepared.may_write_global) counted = ComputeOutputsLocked(prepared);
  if (recording_)
    recorded_.push_back({prepared.fatbin, std::move(prepared.launch), graph_launch, std::move(counted)});
}

cudaError_t Capture::LaunchGraph(const GraphNodes& graph, void* stream) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (captures_.count(stream) != 0) {
    lock.unlock();
    NoteNotEmulated("not emulated: cudaGraphLaunch into a stream being captured");
    return cudaErrorNotSupported;
  }
  // Nodes that may run in any order: what they write is not known, nor what they read.
  const bool in_order = RunsInOrder(graph);
  if (!in_order) ForgetAllLocked("a graph whose nodes are not one chain ran, in an order not followed");
  const uint64_t graph_launch = ++graph_launches_;
  std::vector<std::pair<const GraphNodes*, size_t>> stack{{&graph, 0}};
  while (!stack.empty()) {
    auto& [nodes, next] = stack.back();
    if (next == nodes->nodes.size()) {
      stack.pop_back();
      continue;
    }
    const GraphNode& node = nodes->nodes[next++];
    switch (node.type) {
      case GraphNode::Type::kChild:
        stack.push_back({node.child.get(), 0});
        break;
      case GraphNode::Type::kKernel:
        launched_in_case_ = true;
        if (!in_order) {
          PreparedLaunch unknown_memory = node.kernel;
          unknown_memory.may_write_global = true;
          RecordLocked(std::move(unknown_memory), graph_launch);
          ForgetAllLocked("a graph whose nodes are not one chain ran, in an order not followed");
        } else {
          RecordLocked(node.kernel, graph_launch);
        }
        break;
      case GraphNode::Type::kMemset: {
        const cudaMemsetParams& set = node.memset;
        // Checked again when it runs: its memory may have been freed since it was added.
        if (CheckSet(set.dst, MemsetExtent(set)) != cudaSuccess) return cudaErrorInvalidValue;
        const size_t row_bytes = set.width * set.elementSize;
        for (size_t row = 0; row < std::max<size_t>(set.height, 1); ++row) {
          auto* bytes = static_cast<unsigned char*>(set.dst) + row * set.pitch;
          WriteDevice(bytes, row_bytes, in_order, [&] {
            for (size_t at = 0; at < row_bytes; at += set.elementSize)
              std::memcpy(bytes + at, &set.value, set.elementSize);  // the low bytes: little-endian
          });
        }
        break;
      }
      case GraphNode::Type::kCopy: {
        lock.unlock();
        const cudaError_t copied =
            cudaMemcpy(node.copy.destination, node.copy.source, node.copy.bytes, node.copy.kind);
        lock.lock();
        if (copied != cudaSuccess) return copied;
        break;
      }
    }
  }
  return cudaSuccess;
}

cudaError_t Capture::BeginCapture(void* stream) {
  if (stream == nullptr) return cudaErrorStreamCaptureUnsupported;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!captures_.emplace(stream, GraphNodes{}).second) return cudaErrorIllegalState;
  return cudaSuccess;
}

cudaError_t Capture::EndCapture(void* stream, GraphNodes* graph) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = captures_.find(stream);
  if (found == captures_.end()) return cudaErrorIllegalState;
  *graph = std::move(found->second);
  captures_.erase(found);
  return cudaSuccess;
}

bool Capture::AddCaptured(void* stream, GraphNode node) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = captures_.find(stream);
  if (found == captures_.end()) return false;
  std::vector<GraphNode>& nodes = found->second.nodes;
  if (!nodes.empty()) node.dependencies.push_back(nodes.size() - 1);
  nodes.push_back(std::move(node));
  return true;
}

void Capture::NoteNotEmulated(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (not_emulated_.empty()) not_emulated_ = what;
}

void Capture::AddImage(const void* key, std::string image) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!evaluator_) evaluator_ = MakeSassFatbinEmulator();
  evaluator_->AddImage(key, std::move(image));
}

std::unique_ptr<FatbinEmulator> Capture::SetEmulator(std::unique_ptr<FatbinEmulator> evaluator) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::swap(evaluator, evaluator_);
  return evaluator;
}

std::vector<LaunchToEmulate> Capture::Recorded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<LaunchToEmulate> launches;
  for (const auto& recorded : recorded_) launches.push_back(recorded.launch);
  return launches;
}

void Capture::Start() {
  // A setting that is no number fails the session that would use it, naming it (until then each launch's
  // outputs say it).
  std::string problem;
  OutputLimit(std::getenv(internal::kOutputLimitVariable), &problem);
  if (!problem.empty()) throw Error(ErrorKind::kBadInput, problem);
  std::lock_guard<std::mutex> lock(mutex_);
  recording_ = true;
  recorded_.clear();
  launch_error_ = nullptr;
}

void Capture::Abandon() {
  std::lock_guard<std::mutex> lock(mutex_);
  recording_ = false;
  recorded_.clear();
  launch_error_ = nullptr;
}

LaunchRecord Capture::EmulateRecorded(const RecordedLaunch& launch) {
  // The evaluator is called without the lock: a launch may take it long, and it calls nothing here.
  FatbinEmulator* evaluator = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    evaluator = evaluator_.get();
  }
  Emulation emulation;
  if (launch.counted)
    emulation.record = launch.counted;
  else
    emulation = evaluator->Emulate(launch.fatbin, launch.launch);
  const std::string kernel = bankcheck::internal::Demangle(launch.launch.mangled);
  if (emulation.undecided) {
    const std::string reason = "not decided: " + emulation.undecided->DescribeIn(kernel);
    NoteNotEmulated(reason);
    throw Error(ErrorKind::kNotEmulated, reason);
  }
  if (!emulation.record) throw Error(ErrorKind::kBadInput, "the evaluator decided nothing for " + kernel);
  LaunchRecord record = std::move(*emulation.record);
  record.counted_by = CountedBy::kEmulated;
  if (record.kernel.empty()) record.kernel = kernel;
  if (record.mangled_kernel.empty()) record.mangled_kernel = launch.launch.mangled;
  record.grid = launch.launch.grid;
  record.block = launch.launch.block;
  record.dynamic_shared_bytes = launch.launch.dynamic_shared_bytes;
  if (record.attributed_launches == 0) record.attributed_launches = 1;
  return record;
}

std::vector<LaunchRecord> Capture::Finish() {
  std::vector<RecordedLaunch> launches;
  std::exception_ptr launch_error;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    recording_ = false;
    launches.swap(recorded_);
    launch_error = std::exchange(launch_error_, nullptr);
    if (!not_emulated_.empty()) throw Error(ErrorKind::kNotEmulated, not_emulated_);
  }
  if (launch_error) std::rethrow_exception(launch_error);
  std::vector<LaunchRecord> records;
  for (size_t i = 0; i < launches.size();) {
    if (launches[i].graph_launch == 0) {
      records.push_back(EmulateRecorded(launches[i++]));
      continue;
    }
    // The kernel nodes of one graph launch, counted as the GPU counts the graph launch.
    std::vector<LaunchRecord> nodes;
    const uint64_t graph_launch = launches[i].graph_launch;
    for (; i < launches.size() && launches[i].graph_launch == graph_launch; ++i)
      nodes.push_back(EmulateRecorded(launches[i]));
    for (LaunchRecord& record : GraphLaunchRecords(std::move(nodes))) records.push_back(std::move(record));
  }
  return records;
}

std::string Capture::TakeNotEmulated() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(not_emulated_, std::string());
}

void Capture::SetProjectSources(const std::string& source_root, const std::string& build_root) {
  emulate::SetProjectSources(source_root, build_root);
}

void Capture::BeginCase() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    launched_in_case_ = false;
    output_not_computed_.clear();
  }
  TakeNotEmulated();
  cudaGetLastError();  // the stand-in's (cuda_runtime.cc): resets this thread's last error
}

Capture& TheCapture() {
  // Never destroyed: nvcc's exit handlers unregister fatbins after static destructors may have run.
  static Capture* const capture = [] {
    auto* made = new Capture;
    bankcheck::internal::InstallLaunchEmulation(made);
    return made;
  }();
  return *capture;
}

namespace {
// Installed before main whether or not a module registers (a program of no kernels still counts
// through the emulation rather than CUPTI).
[[maybe_unused]] const bool kInstalled = (TheCapture(), true);
}  // namespace

}  // namespace bankcheck::emulate::runtime
