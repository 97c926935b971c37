#pragma once
// Per-instruction shared-memory counts through CUPTI's SASS Metrics API (cupti_sass_metrics.h):
// instrumented, so exact, and per SASS instruction of each kernel. docs/attribution.md has what
// was measured on the H100 and the rules that follow from it.

#include <cuda.h>
#include <cupti_callbacks.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/launch_record.h"
#include "core/nvdisasm/nvdisasm.h"
#include "cuda/internal/sass_config.h"

namespace bankcheck::internal {

// Keeps a copy of every module's cubin as CUDA loads it (CUPTI_CBID_RESOURCE_MODULE_LOADED), so
// that instructions can be mapped to source lines and opcodes later. `data` is the callback's.
void OnModuleLoaded(const void* data);

// Whether the kernel `mangled` is in a loaded module that launches kernels from the device
// (dynamic parallelism: the module links CUDA's device runtime launch, __cudaCDP2LaunchDeviceV2).
// The SASS Metrics API counts no device-launched kernel (H100, CUDA 13.0: docs/counters.md), so a
// record of such a launch would miss them.
bool MayLaunchFromDevice(const std::string& mangled);
// The functions of a cubin that links the device runtime's launch (its ".text.<name>" sections);
// none for other cubins. Exposed for its test.
std::vector<std::string> DeviceLaunchingFunctions(const char* cubin, size_t size);

// Runs `launches` once with SASS patching enabled on `context` and returns, per mangled kernel
// name, its shared-memory instructions (most excess first) summed over its launches in
// `launches`. The range profiler of this process must already be enabled (without it the H100
// recorded only the first kernel). Throws bankcheck::Error when CUPTI refuses, or
// Error(kKernelFault) when a launch faults.
std::map<std::string, std::vector<InstructionCounts>> AttributeInstructions(
    CUcontext context, int device, const std::string& chip, const std::function<void()>& launches);

// Per-kind sums of what a kernel's patched instructions counted: executions (in `instructions`),
// wavefronts and ideal wavefronts of each kind's instructions.
using KindSums = PerKind<KindCounts>;

// What one patched shared-memory instruction counted, as read: its source line and opcode are
// looked up later (ResolveInstructions), not in the launch callback that reads it.
struct SassInstruction {
  uint32_t cubin_crc = 0;
  uint32_t pc_offset = 0;
  MemoryKind kind = MemoryKind::kSharedLoad;
  uint64_t executions = 0;
  uint64_t wavefronts = 0;
  uint64_t ideal_wavefronts = 0;
};

// The counters a patched instruction reports, by CUPTI's metric id: each kind's instruction counter
// (which kinds an instruction is: an LDGSTS's counter is shared_ldgsts's and global_ldgsts's), and
// the kinds' traffic and ideal counters (the kind table's sass_*_metric).
struct SassMetricIds {
  std::map<uint64_t, std::vector<MemoryKind>> kinds_of;  // instruction counter id -> its kinds
  PerKind<std::optional<uint64_t>> traffic;              // per kind: its traffic counter's id
  PerKind<std::optional<uint64_t>> ideal;                // per kind: its ideal counter's id; none: no ideal
  PerKind<bool> unsupported;                             // kinds without an instruction counter on this chip
  PerKind<bool> not_counted;  // kinds BANKCHECK_SASS_CONFIG leaves out (metrics=shared)
};

// The ids of the kind table's SASS counters under `config`. `id_of(name, patched)`: the chip's id of
// the counter `name` (nullopt: the chip has none), patched (configured to count) where `patched`;
// asked once per name, however many kinds share the counter.
SassMetricIds MetricIdsFor(const SassConfig& config,
                           const std::function<std::optional<uint64_t>(const std::string&, bool)>& id_of);

// What one patched instruction (`values`: metric id -> value) counted: one entry per kind of the
// instruction counter it incremented (two for an LDGSTS: its shared-memory wavefronts and its
// global sectors), each with that kind's traffic and ideal counters; none for an instruction of no
// kind or that did not run.
std::vector<SassInstruction> SassInstructionsOf(uint32_t cubin_crc, uint32_t pc_offset,
                                                const std::map<uint64_t, uint64_t>& values,
                                                const SassMetricIds& ids);

// SetProjectSources (counter_session.h): where inlined instructions' attributed lines are looked for.
void SetProjectSources(const std::string& project_root, const std::string& build_root);

// PrefetchProjectDisassembly (counter_session.h).
void PrefetchProjectDisassembly();

// What each kernel's patched shared-memory instructions counted in one read, by mangled kernel name.
using KernelSass = std::map<std::string, std::vector<SassInstruction>>;

// Per-kind sums of `instructions`.
KindSums SumByKind(const std::vector<SassInstruction>& instructions);

// The instructions of `function` with their opcodes (nvdisasm) and source lines (nvdisasm -gi, else
// CUPTI's correlation), inlined code attributed to its innermost line in the project's sources
// (AttributedFrame with SetProjectSources' roots; BANKCHECK_SOURCE_ROOT overrides the project
// root), most excess first.
std::vector<InstructionCounts> ResolveInstructions(const std::string& function,
                                                   const std::vector<SassInstruction>& instructions);

// SASS patching enabled on a context for as long as this lives, read launch by launch: a counter
// session's SessionOptions::Counters::kSassMetrics. The range profiler of this process must already
// be enabled (as for AttributeInstructions).
class SassCounting {
 public:
  SassCounting(CUcontext context, int device, const std::string& chip);
  ~SassCounting();
  SassCounting(const SassCounting&) = delete;
  SassCounting& operator=(const SassCounting&) = delete;

  // What the instructions counted since the last call (or since patching began), by mangled kernel
  // name, in every context patched; the work counted must have finished (synchronize first). Throws
  // bankcheck::Error when CUPTI refuses.
  KernelSass Take();
  // Patches `context` too (a kernel launched in a context other than the session's: a library's
  // own context, cuCtxCreate), until Forget(context) or the end; nothing when it is patched
  // already. Throws bankcheck::Error when CUPTI refuses.
  void Watch(CUcontext context);
  // Stops patching `context` (it is being destroyed); what it counted must have been taken.
  void Forget(CUcontext context);
  // The kinds this device has no instruction counter for.
  const PerKind<bool>& unsupported() const;
  // The kinds the SASS configuration leaves out (BANKCHECK_SASS_CONFIG=metrics=shared).
  const PerKind<bool>& not_counted() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace bankcheck::internal
