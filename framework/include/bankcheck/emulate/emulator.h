#pragma once
// The GPU-less gate's evaluator (docs/design/emulate.md, docs/emulate.md): a kernel launch's
// shared-memory counts derived from its sm_90 SASS instead of measured. Each thread's address
// arithmetic is evaluated from threadIdx/blockIdx, the launch's argument bytes and loop counters,
// and every executed shared-memory instruction is costed by the core's bank model
// (bank_model.h) for its kind. Exact or silent: a launch whose shared addresses, active masks or
// branches depend on anything unknown (a load from memory, an atomic's result, a clock, an
// instruction the evaluator does not understand) is undecided, with the reason, never guessed.
//
// Host-only: no CUDA runtime, no CUPTI. Reading a fatbin or cubin runs the CUDA toolkit's
// cuobjdump and nvdisasm (BANKCHECK_CUOBJDUMP / BANKCHECK_NVDISASM, else the toolkit bankcheck was
// built with, else PATH; on machines without the toolkit the nvidia-cuda-cuobjdump and
// nvidia-cuda-nvdisasm wheels provide them).

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/core/launch_record.h"

namespace bankcheck::emulate {

// One kernel parameter, as the cubin's EIATTR_KPARAM_INFO describes it: its position in the
// kernel's signature, and where its bytes sit in the parameter buffer (from KernelInfo::param_base
// in constant bank 0).
struct ParamSlot {
  uint32_t ordinal = 0;
  uint32_t offset = 0;  // bytes from the start of the parameter buffer
  uint32_t size = 0;    // bytes
  friend bool operator==(const ParamSlot& a, const ParamSlot& b) {
    return a.ordinal == b.ordinal && a.offset == b.offset && a.size == b.size;
  }
};

// What a launch needs to know of a kernel before it is emulated.
struct KernelInfo {
  std::string mangled;
  std::vector<ParamSlot> params;     // by ordinal
  uint32_t param_base = 0x210;       // the parameter buffer's offset in c[0x0] (sm_90)
  uint32_t static_shared_bytes = 0;  // the kernel's __shared__ variables (.nv.shared.<kernel>)
  // __cluster_dims__ (EIATTR_CTA_PER_CLUSTER): the clusters of every launch; 1x1x1 without.
  Dim3 compiled_cluster;
  // EIATTR_EXPLICIT_CLUSTER: the kernel runs in clusters (those of __cluster_dims__ or the launch's).
  bool explicit_cluster = false;
  // What cudaFuncGetAttributes answers from (docs/emulate.md, "The stand-in CUDA runtime").
  // EIATTR_REGCOUNT: registers per thread; -1 when the metadata has none (then it is not answered).
  int32_t registers = -1;
  uint32_t frame_bytes = 0;  // EIATTR_FRAME_SIZE: local memory per thread
  // EIATTR_MAX_THREADS or EIATTR_REQNTID (__launch_bounds__, __maxntid__, __reqntid__): the most
  // threads a block may have, x * y * z; 0 without.
  uint32_t max_threads = 0;
  uint32_t virtual_arch = 0;      // the cubin's "CUDA Virtual SM: sm_90": 90; 0 when not listed
  uint32_t module_constants = 0;  // the module's __constant__ bytes (.nv.constant3)

  // The parameter buffer's size: where its last parameter ends (0 without parameters).
  uint64_t ParamBytes() const {
    uint64_t size = 0;
    for (const ParamSlot& slot : params) size = std::max(size, uint64_t{slot.offset} + slot.size);
    return size;
  }
};

// The sm_90 SASS of one fatbin or cubin: per kernel its instructions with operands, line info
// (nvdisasm -gi) and metadata. Built once per module, read by any number of Emulate calls
// (const, so safe to share between threads).
class Module {
 public:
  // The fatbin nvcc's host code registers (__cudaRegisterFatBinary's argument is a wrapper
  // struct; `fatbin` is the wrapper's data pointer: the fatbin header, magic 0xBA55ED50).
  // Error(kBadInput) for data that is no fatbin, or one without sm_90 SASS (only PTX, or other
  // architectures: rebuild with sm_90 in CUDA_ARCHITECTURES); Error(kBadInput) too when
  // cuobjdump/nvdisasm cannot be run, naming what to install.
  static Module FromFatbin(const void* fatbin);
  // A cubin (ELF) or fatbin file on disk, as nvcc -cubin / -fatbin / cuobjdump -xelf write them.
  static Module FromCubinFile(const std::string& path);
  // An image in memory, as the driver's cuModuleLoadData takes it: a cubin (ELF) or a fatbin
  // (NVRTC's output, say), read as the file of those bytes would be.
  static Module FromImage(std::string_view image);
  // From nvdisasm -gi -c's listing of a cubin and the cubin's metadata, as text
  // (cuobjdump -elf's ".nv.info.<kernel>" sections with EIATTR_KPARAM_INFO, EIATTR_PARAM_CBANK,
  // and the section headers' .nv.shared.<kernel> sizes). For tests: hand-written listings.
  // `elf_listing` may be empty: then kernels have no parameters, param_base 0x210 and no static
  // shared memory.
  static Module FromListings(const std::string& nvdisasm_listing, const std::string& elf_listing);

  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;
  ~Module();

  // nullptr when the module has no such kernel.
  const KernelInfo* Find(std::string_view mangled) const;
  // Every kernel's mangled name, sorted.
  std::vector<std::string> Kernels() const;

  struct Data;  // internal (emulate/internal/sass.h)
  const Data& data() const { return *data_; }

 private:
  explicit Module(std::unique_ptr<Data> data);
  std::unique_ptr<Data> data_;
};

// Device memory whose bytes a launch may read as known values (the stand-in runtime's: what the
// host copied or set there, emulate/internal/global_memory.h). Safe to read from any thread.
class KnownMemory {
 public:
  virtual ~KnownMemory();
  // Copies the `size` bytes at device address `address` to `out` when every one is known; false,
  // leaving `out` as it was, when any is not.
  virtual bool Read(uint64_t address, uint32_t size, void* out) const = 0;
  // Whether [address, address + size) lies in a device allocation the program made, known or not: a
  // launch whose outputs are computed (ComputeOutputs) may store there. false here: nowhere.
  virtual bool Allocated(uint64_t address, uint64_t size) const;
};

// One launch as the program made it.
struct LaunchToEmulate {
  std::string mangled;
  Dim3 grid, block;
  // Thread-block cluster dimensions (cudaLaunchAttributeClusterDimension); 1x1x1 without clusters,
  // and then a kernel's __cluster_dims__ (KernelInfo::compiled_cluster) give them. Emulate refuses
  // clusters the GPU refuses (internal InvalidCluster), and counts another block's shared memory
  // read through a generic address as distributed shared memory (docs/emulate.md, "Clusters").
  Dim3 cluster;
  uint32_t dynamic_shared_bytes = 0;
  // The argument bytes, laid out as KernelInfo::params says (what c[0x0][param_base + offset]
  // holds on the GPU). Shorter than the kernel's parameters: the missing bytes are unknown (a read
  // of them feeding an address makes the launch undecided).
  std::vector<uint8_t> param_bytes;
  // The device memory as the launch found it; nullptr: every load from memory is unknown. A load
  // (LDG) reads known bytes as known values where the launch cannot have changed them: a
  // read-only load (LDG.CONSTANT, ld.global.nc), or any load of a kernel that writes no global
  // memory. Such a value depends on the block as its address does: not affinely, when at all.
  std::shared_ptr<const KnownMemory> memory;
};

// Whether kernel `mangled` of `module` has an instruction that may write global memory (a store,
// an atomic or reduction to global or generic memory, a bulk or tensor store, one the emulator
// does not know): a launch of it leaves the device memory unknown. true when there is no such kernel.
bool MayWriteGlobalMemory(const Module& module, std::string_view mangled);

// Why a launch could not be decided, where in the kernel.
struct Undecided {
  // "a load from global memory (LDG.E at pc 0x0090) feeds the address of LDS at pc 0x01a0"
  std::string reason;
  uint64_t pc = 0;     // the instruction that could not be evaluated exactly
  std::string opcode;  // its opcode with modifiers ("LDS.128"); empty when no instruction is to blame
  std::string file;    // its source line (line info), empty/0 without
  uint32_t line = 0;

  // "reason (kernels/x.cu:42)"; the reason alone where it names that line already.
  std::string Describe() const;
  // Describe() with the instruction to blame and the (demangled) kernel, as every caller reports a
  // launch it could not decide: "reason (kernels/x.cu:42) [LDS.128 at pc 0x1a0 of transpose<float>]".
  std::string DescribeIn(const std::string& kernel) const;
};

// What the launches of a process (or any set of launches) may spend together, drawn on by each
// launch given it (EmulationLimits::budget): the total cost of N launches is bounded, not N times a
// launch's. Safe to share between threads: a launch reserves its limit's worth up front and returns
// what it did not use.
class EmulationBudget {
 public:
  EmulationBudget(uint64_t warp_instructions, uint64_t group_checks);
  EmulationBudget(const EmulationBudget&) = delete;
  EmulationBudget& operator=(const EmulationBudget&) = delete;
  ~EmulationBudget();

  uint64_t warp_instructions() const;  // the totals it was made with
  uint64_t group_checks() const;

  struct State;  // internal (emulate/limits.cc)
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

struct EmulationLimits {
  // Warp-level instructions evaluated over the whole launch (every block evaluated); more makes
  // the launch undecided ("over the emulation budget"). About 17 s of one core at most.
  uint64_t max_warp_instructions = 200'000'000;
  // Blocks counted with a group instead of being evaluated are not instructions: each block costs
  // 1 + the number of conditions of each group it is checked against. More makes the launch
  // undecided (a grid of 2^31-1 x 65535 x 65535 blocks is legal). A grid whose first block depends
  // on no block index costs nothing here: the whole grid joins it at once. About 12 s at most.
  uint64_t max_group_checks = 500'000'000;
  // Whether a block that provably runs as an already evaluated one (the same outcome of every
  // comparison that depends on the block index, every block-dependent shared address moved by
  // the same multiple of 128 bytes in all lanes) is counted with it instead of being evaluated.
  // false evaluates every block: for checking the grouping.
  bool group_blocks = true;
  // Shared by the launches of a process: a launch may spend only what earlier ones left of it
  // (undecided past that, "over the shared emulation budget"). nullptr: this launch's limits only.
  EmulationBudget* budget = nullptr;
};

// Exactly one of the two is set, and how many blocks were evaluated to get it (the rest of the
// grid was counted with a block that runs as they do).
struct Emulation {
  std::optional<LaunchRecord> record;  // counted_by kEmulated; per-kind counts and per-instruction rows
  std::optional<Undecided> undecided;
  uint64_t evaluated_blocks = 0;
};

// A launch's outputs, computed (docs/emulate.md, "Computed outputs"): every block run with the values its
// threads compute, its warps interleaved at block barriers, shared memory holding values, loads reading
// `launch.memory` and what the launch itself stored, every memory instruction costed as Emulate costs
// it. Exactly one of `written` (non-empty or not, with `record`) and `not_computed` is meaningful.
struct ComputedOutputs {
  // The bytes the launch stored, in runs of consecutive addresses, by start.
  std::map<uint64_t, std::vector<uint8_t>> written;
  // Why not: the instruction whose value, address or guard was unknown, or that the output pass does
  // not compute (an atomic, a tensor copy, an approximate instruction), or the limit it reached.
  std::optional<Undecided> not_computed;
  uint64_t warp_instructions = 0;
  // The launch's counts from the same run of its blocks, as Emulate gives them; set when computed.
  std::optional<LaunchRecord> record;
};

// Computes the outputs of `launch` (whose `memory` the loads read; nullptr: not computed), within
// `limits` (every block is run: max_warp_instructions bounds it; group_blocks is ignored). Stores
// land only where `launch.memory` says Allocated; elsewhere, the launch is not computed (the GPU
// would fault). A load of bytes another block of the launch stored is not computed either: the
// order blocks run in is not followed. Error(kBadInput) as Emulate.
ComputedOutputs ComputeOutputs(const Module& module, const LaunchToEmulate& launch,
                               const EmulationLimits& limits = {});

// Emulates `launch` of a kernel of `module`. The record is what a SASS-metrics record of the same
// launch holds: per-kind KindCounts (instructions, wavefronts, exact ideal) and one
// InstructionCounts row per executed shared-memory instruction (pc, opcode, line, inline chain,
// executions, wavefronts, ideal), most excess first, attributed_launches 1. Lines of inlined code
// are attributed as the SASS backend attributes them (AttributedFrame with
// BANKCHECK_SOURCE_ROOT, else `project_root`/`build_root` of SetProjectSources below).
// Error(kBadInput) when the module has no kernel `launch.mangled`, or for a shape the GPU refuses
// to launch (an empty grid or block, a grid over 2^31-1 x 65535 x 65535, a block over
// 1024 x 1024 x 64 or 1024 threads). Every limit of EmulationLimits, and a count past 64 bits,
// makes the launch undecided with the limit named: an emulation ends in bounded time and memory.
Emulation Emulate(const Module& module, const LaunchToEmulate& launch, const EmulationLimits& limits = {});

// Where inlined instructions' attributed lines are looked for (as SetProjectSources of
// counter_session.h for the SASS backend).
void SetProjectSources(const std::string& project_root, const std::string& build_root);

}  // namespace bankcheck::emulate
