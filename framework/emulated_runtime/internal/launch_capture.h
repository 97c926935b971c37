#pragma once
// The stand-in CUDA runtime's state (docs/emulate.md): the kernels nvcc's host code registered
// (host stub -> fatbin and mangled name), the launches recorded while a session counts, and the
// first CUDA call the runtime does not emulate. The entry points (cuda_runtime.cc) are thin; the
// decisions are here. What counts a recorded launch is a FatbinEmulator: the SASS evaluator
// (bankcheck/emulate/emulator.h) unless a test installs a double.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "core/records/launch_emulation.h"
#include "emulate/internal/global_memory.h"
#include "emulated_runtime/internal/graphs.h"

namespace bankcheck::emulate::runtime {

class FatbinEmulator {
 public:
  virtual ~FatbinEmulator();
  // The layout of kernel `mangled` of the fatbin nvcc registered at `fatbin`; nullptr when it has
  // no such kernel. Throws bankcheck::Error when the fatbin cannot be read.
  virtual const KernelInfo* Describe(const void* fatbin, const std::string& mangled) = 0;
  virtual Emulation Emulate(const void* fatbin, const LaunchToEmulate& launch) = 0;
  // Whether the kernel may write global memory (MayWriteGlobalMemory, bankcheck/emulate/emulator.h): after
  // a launch of it no device memory is known. Only asked of kernels Describe found. true unless
  // an evaluator knows better.
  virtual bool MayWriteGlobal(const void* fatbin, const std::string& mangled);
  // The outputs of `launch` computed (bankcheck/emulate/emulator.h's ComputeOutputs), within the output
  // pass's limits (limits.h). Not computed unless an evaluator computes them.
  virtual ComputedOutputs ComputeOutputs(const void* fatbin, const LaunchToEmulate& launch);
  // A module the program loaded at run time (cuModuleLoadData's cubin or fatbin, its bytes), known
  // from now on by `key` as nvcc's fatbins are by theirs; read at its first Describe. Ignored
  // unless an evaluator reads modules.
  virtual void AddImage(const void* key, std::string image);
};

// The evaluator of bankcheck/emulate/emulator.h: a Module per fatbin, read at its first recorded launch.
std::unique_ptr<FatbinEmulator> MakeSassFatbinEmulator();

// The output pass's limit of warp instructions per launch that BANKCHECK_EMULATE_OUTPUT_LIMIT's value
// `setting` gives (0: no output pass); the default when unset, and when it is no such number (then
// `problem` says why: every launch's outputs are not computed, for that reason, and Start throws it).
uint64_t OutputLimit(const char* setting, std::string* problem);

// A kernel as nvcc's host code registered it (__cudaRegisterFunction).
struct RegisteredKernel {
  const void* fatbin = nullptr;  // the fatbin its module was registered with
  std::string mangled;
  int64_t max_dynamic_shared = -1;    // cudaFuncAttributeMaxDynamicSharedMemorySize; -1 when not set
  bool non_portable_cluster = false;  // cudaFuncAttributeNonPortableClusterSizeAllowed
  int preferred_carveout = -1;        // cudaFuncAttributePreferredSharedMemoryCarveout; -1: none
};

// One launch as a program made it.
struct LaunchRequest {
  const void* function = nullptr;  // the host stub (or the handle __cudaGetKernel gave for it)
  Dim3 grid, block;
  Dim3 cluster;  // cudaLaunchAttributeClusterDimension; 1x1x1 without
  size_t dynamic_shared_bytes = 0;
  void** args = nullptr;   // one pointer per parameter, as the host stubs pass them
  void* stream = nullptr;  // cudaStream_t: a stream being captured takes the launch as a node
};

// The parameter buffer of a launch: each parameter's bytes (from args[ordinal]) at its offset.
// Error(kBadInput) when a slot's ordinal has no argument (args is null).
std::vector<uint8_t> PackParameters(const KernelInfo& kernel, void* const* args);

class Capture final : public bankcheck::internal::LaunchEmulation {
 public:
  // Registration, from nvcc's start-up code. A fatbin handle is what __cudaRegisterFatBinary
  // returns: a pointer to its fatbin pointer.
  void** RegisterFatbin(const void* fatbin);
  void RegisterFunction(void** handle, const void* host_function, const char* mangled);
  // The kernel of a host stub; nullptr when none was registered.
  const RegisteredKernel* Find(const void* host_function) const;

  // A launch: refused as the GPU refuses it (cudaErrorInvalidValue for its shape, as cudart 13.0 answers,
  // cudaErrorInvalidValue for more dynamic shared memory than the kernel may have,
  // cudaErrorInvalidClusterSize for its clusters: InvalidCluster, limits.h), else run: its outputs
  // computed, and recorded while a session counts (RecordLocked). cudaErrorInvalidDeviceFunction,
  // having noted why (NoteNotEmulated), for a function that was never registered.
  // Into a stream being captured (BeginCapture), it becomes a kernel node of the stream's graph.
  cudaError_t Launch(const LaunchRequest& request, const char* entry_point);
  // A kernel node's launch (cudaGraphAddKernelNode), refused as Launch refuses one; its arguments'
  // bytes are taken now.
  cudaError_t Prepare(const LaunchRequest& request, const char* entry_point, PreparedLaunch* prepared);
  // A launch of an executable graph (graphs.h): its nodes run in order; its kernel nodes are
  // recorded while a session counts, and counted as the GPU counts a graph launch
  // (GraphLaunchRecords).
  cudaError_t LaunchGraph(const GraphNodes& graph, void* stream);

  // Stream capture: from BeginCapture to EndCapture, launches, memsets and copies into `stream`
  // become the nodes of a graph instead of running. cudaErrorIllegalState for a stream already
  // (or not) capturing, cudaErrorStreamCaptureUnsupported for the legacy stream (0).
  cudaError_t BeginCapture(void* stream);
  cudaError_t EndCapture(void* stream, GraphNodes* graph);
  // Adds `node` to the graph `stream` is being captured into, after its last node; false when the
  // stream is not capturing.
  bool AddCaptured(void* stream, GraphNode node);
  // Whether `stream` is being captured (graphs.cc).
  bool Capturing(void* stream) const;

  // The device memory the host wrote (emulate/internal/global_memory.h), read by the emulated
  // launches' loads.
  internal::GlobalMemory& Memory() { return memory_; }
  // A host write of device memory (cudaMemcpy, cudaMemset, a graph's memset or copy): `write`
  // does it, the model follows. `known`: the bytes written are known values.
  void WriteDevice(void* destination, size_t size, bool known, const std::function<void()>& write);
  // Returns once no launch is writing its computed outputs into the device memory.
  void WaitForLaunches() { std::lock_guard<std::mutex> lock(mutex_); }
  // A copy between device allocations, of which it follows what is known.
  void CopyDevice(void* destination, const void* source, size_t size);
  // cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize): what later launches of the
  // kernel may ask for (without it, 48 KiB less its static shared memory). cudaErrorInvalidValue
  // for a size the GPU does not allow, cudaErrorInvalidDeviceFunction for a function never registered.
  cudaError_t SetMaxDynamicShared(const void* host_function, int bytes);
  // cudaFuncAttributeNonPortableClusterSizeAllowed: later launches of the kernel may have clusters of
  // up to 16 blocks, not 8. cudaErrorInvalidDeviceFunction for a function never registered.
  cudaError_t SetNonPortableClusterSize(const void* host_function, bool allowed);

  // A registered kernel and its layout, read from its module (cudaFuncGetAttributes, the occupancy
  // calculator: kernel_attributes.cc). cudaErrorInvalidResourceHandle (the GPU's answer) for a
  // function never registered; cudaErrorNotSupported, having noted why (NoteNotEmulated), when its module
  // cannot be read or has no sm_90 code of it.
  cudaError_t Describe(const void* host_function, RegisteredKernel* kernel, KernelInfo* info);

  // cudaFuncAttributePreferredSharedMemoryCarveout (-1 to 100 percent, else cudaErrorInvalidValue),
  // which cudaFuncGetAttributes answers back. cudaErrorInvalidDeviceFunction for a function never
  // registered.
  cudaError_t SetCarveout(const void* host_function, int percent);

  // A CUDA entry point that is not emulated was called: the first since the last TakeNotEmulated
  // is the case's reason to skip ("not emulated: cudaGraphLaunch").
  void NoteNotEmulated(const std::string& what);

  // A copy of `size` bytes at `source` to the host (cudaMemcpy DeviceToHost or Default; `from_device`:
  // `source` is in a device allocation): after a launch of the running case, the output read-back
  // observer is told whether every byte it read was computed (known), and if not why.
  void NoteCopyToHost(const void* source, size_t size, bool from_device);
  // A module the program loaded at run time (driver_api.cc): its kernels registered with
  // RegisterFunction under a handle that points to `key` are read from `image` (FatbinEmulator::AddImage).
  void AddImage(const void* key, std::string image);

  // Replaces the evaluator (tests); returns the one it replaces.
  std::unique_ptr<FatbinEmulator> SetEmulator(std::unique_ptr<FatbinEmulator> evaluator);
  // The launches recorded since Start, as the evaluator will get them (tests).
  std::vector<LaunchToEmulate> Recorded() const;

  // bankcheck::internal::LaunchEmulation
  void Start() override;
  std::vector<LaunchRecord> Finish() override;
  void Abandon() override;
  std::string TakeNotEmulated() override;
  void BeginCase() override;
  void ObserveOutputReadBack(std::function<void(const std::string&)> observer) override;
  std::string OutputNotComputed() const override;
  void SetProjectSources(const std::string& source_root, const std::string& build_root) override;

 private:
  struct RecordedLaunch {
    const void* fatbin;
    LaunchToEmulate launch;
    uint64_t graph_launch = 0;  // the graph launch it is a node of (from 1); 0: a kernel launch
    // Its counts from the pass that computed its outputs (every block run), when it did: Finish
    // takes them instead of emulating it again.
    std::optional<LaunchRecord> counted;
  };
  // Prepare with mutex_ held.
  cudaError_t PrepareLocked(const LaunchRequest& request, const char* entry_point, PreparedLaunch* prepared,
                            std::unique_lock<std::mutex>& lock);
  // A launch run: its outputs computed (ComputeOutputsLocked), and recorded while a session counts.
  // After one whose kernel could not be read, nothing is known.
  void RecordLocked(PreparedLaunch prepared, uint64_t graph_launch);
  LaunchRecord EmulateRecorded(const RecordedLaunch& launch);
  // Nothing of the device memory is known any more, because of `why` (a read-back's reason).
  void ForgetAllLocked(const std::string& why);
  static std::string WritesGlobal(const std::string& mangled);
  // A launch that may write global memory: its outputs computed into the device memory (its
  // `launch.memory` is the memory as it found it), else everything forgotten with the reason.
  // Returns the launch's counts from the same run when they were computed; then its snapshot is
  // let go first (Finish takes the counts, and a live snapshot would save every byte written back).
  std::optional<LaunchRecord> ComputeOutputsLocked(PreparedLaunch& prepared);
  internal::GlobalMemory memory_;
  std::map<void*, GraphNodes> captures_;  // by stream
  uint64_t graph_launches_ = 0;
  mutable std::mutex mutex_;
  std::map<const void*, RegisteredKernel> kernels_;  // by host stub
  std::vector<std::unique_ptr<const void*>> fatbin_handles_;
  std::unique_ptr<FatbinEmulator> evaluator_;
  bool recording_ = false;
  std::vector<RecordedLaunch> recorded_;
  std::exception_ptr launch_error_;  // the first error reading a recorded launch's kernel
  std::string not_emulated_;
  bool launched_in_case_ = false;    // since BeginCase
  std::string output_not_computed_;  // since BeginCase: the first read-back's reason, "" when computed
  std::function<void(const std::string&)> read_back_observer_;
};

// The process's capture, installed as its LaunchEmulation before main.
Capture& TheCapture();

// The entry points' errors (cuda_runtime.cc): `error` becomes the calling thread's last error
// (cudaGetLastError), and is returned.
cudaError_t Fail(cudaError_t error);
// The bounds rule of the stand-in's device memory (docs/security.md), which every copy and set
// (cudaMemcpy, cudaMemset, their async forms, a graph's memset and copy nodes, the driver's copies)
// checks before it touches a byte: a range that starts in an allocation of cudaMalloc's ends in it,
// and the end that `kind` (or a set) says is device memory is in one. cudaErrorInvalidValue
// otherwise, as the GPU answers; cudaErrorInvalidMemcpyDirection for no such `kind`. Nothing to
// copy or set (0 bytes) is never refused.
cudaError_t CheckSet(const void* pointer, size_t bytes);
cudaError_t CheckCopy(const void* destination, const void* source, size_t bytes, cudaMemcpyKind kind);
// `what` is not emulated: noted as the running case's reason to skip ("not emulated: <what>");
// cudaErrorNotSupported.
cudaError_t NotEmulated(const std::string& what);

}  // namespace bankcheck::emulate::runtime
