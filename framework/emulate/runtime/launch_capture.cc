#include "emulate/runtime/internal/launch_capture.h"

#include <cuda_runtime_api.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#include "bankcheck/error.h"
#include "core/internal/environment.h"
#include "emulate/internal/limits.h"

namespace bankcheck::emulate::runtime {
namespace {

std::string Demangled(const std::string& mangled) {
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string name = status == 0 && readable != nullptr ? readable : mangled;
  std::free(readable);
  return name;
}

// The evaluator of bankcheck/emulator.h, one Module per fatbin (reading one runs cuobjdump and
// nvdisasm: once per fatbin and process, at its first recorded launch).
class SassEvaluator final : public Evaluator {
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

 private:
  const Module& ModuleOf(const void* fatbin) {
    auto found = modules_.find(fatbin);
    if (found == modules_.end()) found = modules_.emplace(fatbin, Module::FromFatbin(fatbin)).first;
    return found->second;
  }
  std::map<const void*, Module> modules_;
  // The program's launches together: five launches' worth of the default limits (about a
  // minute and a half of evaluation at most), so that a program of many long launches ends.
  EmulationBudget budget_{5 * EmulationLimits{}.max_warp_instructions,
                          5 * EmulationLimits{}.max_group_checks};
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

}  // namespace

Evaluator::~Evaluator() = default;

std::unique_ptr<Evaluator> MakeSassEvaluator() { return std::make_unique<SassEvaluator>(); }

std::vector<uint8_t> PackParameters(const KernelInfo& kernel, void* const* args) {
  size_t size = 0;
  for (const ParamSlot& slot : kernel.params) size = std::max<size_t>(size, size_t{slot.offset} + slot.size);
  std::vector<uint8_t> bytes(size);
  if (size == 0) return bytes;
  if (args == nullptr) {
    throw Error(ErrorKind::kBadInput, "a launch of " + Demangled(kernel.mangled) +
                                          " passed no arguments, but it has " +
                                          std::to_string(kernel.params.size()) + " parameters");
  }
  for (const ParamSlot& slot : kernel.params) {
    if (args[slot.ordinal] == nullptr) {
      throw Error(ErrorKind::kBadInput, "a launch of " + Demangled(kernel.mangled) + " passed no argument " +
                                            std::to_string(slot.ordinal));
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

cudaError_t Capture::Launch(const LaunchRequest& request, const char* entry_point) {
  // cudart 13.0 answers every such shape with cudaErrorInvalidValue (measured on an H200, driver
  // 580.159.04: an empty grid or block, grid y or z 65536, grid x 2^31, block x or y 1025, block z 65,
  // 2048 threads), not cudaErrorInvalidConfiguration.
  if (internal::InvalidConfiguration(request.grid, request.block)) return cudaErrorInvalidValue;
  std::unique_lock<std::mutex> lock(mutex_);
  launched_in_case_ = true;
  const auto found = kernels_.find(request.function);
  if (found == kernels_.end()) {
    lock.unlock();
    std::ostringstream what;
    what << "not emulated: " << entry_point << " of a function no module registered (" << request.function
         << "; a kernel loaded at run time, or a host function)";
    NoteNotEmulated(what.str());
    return cudaErrorInvalidDeviceFunction;
  }
  // The kernel's static shared memory is known only once its module is read (at a recorded launch).
  if (SharedMemoryRefused(request.dynamic_shared_bytes, 0, found->second)) return cudaErrorInvalidValue;
  if (!recording_)
    return cudaSuccess;  // outside a session a launch counts nothing: its output is not checked
  const RegisteredKernel kernel = found->second;
  if (!evaluator_) evaluator_ = MakeSassEvaluator();
  RecordedLaunch launch{kernel.fatbin, {}};
  launch.launch.mangled = kernel.mangled;
  launch.launch.grid = request.grid;
  launch.launch.block = request.block;
  launch.launch.dynamic_shared_bytes = static_cast<uint32_t>(request.dynamic_shared_bytes);
  try {
    // Arguments live only as long as this call: their bytes are taken now, laid out as the kernel's
    // parameters are.
    const KernelInfo* info = evaluator_->Describe(kernel.fatbin, kernel.mangled);
    if (info == nullptr) {
      throw Error(ErrorKind::kBadInput, "the fatbin registered for " + Demangled(kernel.mangled) +
                                            " has no sm_90 code of it: build the kernels for sm_90 "
                                            "(CUDA_ARCHITECTURES 90) to emulate them");
    }
    if (SharedMemoryRefused(request.dynamic_shared_bytes, info->static_shared_bytes, kernel))
      return cudaErrorInvalidValue;
    launch.launch.param_bytes = PackParameters(*info, request.args);
  } catch (const Error&) {
    if (!launch_error_) launch_error_ = std::current_exception();
    return cudaSuccess;
  }
  recorded_.push_back(std::move(launch));
  return cudaSuccess;
}

void Capture::NoteNotEmulated(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (not_emulated_.empty()) not_emulated_ = what;
}

std::unique_ptr<Evaluator> Capture::SetEvaluator(std::unique_ptr<Evaluator> evaluator) {
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
  for (const RecordedLaunch& launch : launches) {
    // The evaluator is called without the lock: a launch may take it long, and it calls nothing here.
    Evaluator* evaluator = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      evaluator = evaluator_.get();
    }
    Emulation emulation = evaluator->Emulate(launch.fatbin, launch.launch);
    const std::string kernel = Demangled(launch.launch.mangled);
    if (emulation.undecided) {
      const Undecided& undecided = *emulation.undecided;
      std::ostringstream where;  // the instruction to blame, when there is one
      if (!undecided.opcode.empty())
        where << undecided.opcode << " at pc 0x" << std::hex << undecided.pc << " of ";
      const std::string reason = "not decided: " + undecided.Describe() + " [" + where.str() + kernel + "]";
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
    records.push_back(std::move(record));
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
    read_back_in_case_ = false;
  }
  TakeNotEmulated();
  cudaGetLastError();  // the stand-in's (cuda_runtime.cc): resets this thread's last error
}

void Capture::ObserveOutputReadBack(std::function<void()> observer) {
  std::lock_guard<std::mutex> lock(mutex_);
  read_back_observer_ = std::move(observer);
}

void Capture::NoteCopyToHost() {
  std::function<void()> observer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!launched_in_case_ || read_back_in_case_) return;
    read_back_in_case_ = true;
    observer = read_back_observer_;
  }
  if (observer) observer();  // outside the lock: it may report to GoogleTest
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
