#pragma once
// CounterSession: records every kernel launched while it is active, in launch order, with exact
// shared-memory counts. By default each launch runs once, in code CUPTI's SASS Metrics API has
// patched, and is synchronized as it returns; a range-profiler session instead replays each launch
// once per pass with device memory saved and restored (SessionOptions::counters). Either way a
// kernel's side effects happen once, and launches inside a session are serialized: don't time them.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"

namespace bankcheck {

struct SessionOptions {
  // Which CUPTI interface counts the launches (docs/counters.md, "Two ways to count"):
  //   kSassMetrics    CUPTI's SASS Metrics API: each launch is synchronized as it returns and its
  //                   instructions' instrumented counters are read and summed by kind. Exact, nothing
  //                   replayed, about 0.15 ms per launch on the H100, and test processes sharing a
  //                   GPU do not wait for each other. No hardware readings. The default.
  //   kRangeProfiler  a counter session (CUPTI's Range Profiler, replayed as `replay` says): also
  //                   reads hardware counters (the readings beside the exact counts, `hardware_ideal`)
  //                   and `extra_metrics`, so sessions that ask for those use it whatever this says.
  //                   Several milliseconds per launch, and one process per GPU at a time.
  //   kEmulated       no GPU: the launches are recorded, not run, and their counts derived from the
  //                   kernels' sm_90 SASS (docs/emulate.md). Only in a kernel suite's emulated program
  //                   (<target>_emulated), which counts every session so whatever this says.
  // BANKCHECK_COUNTERS=range-profiler makes every session of the process use kRangeProfiler.
  enum class Counters { kSassMetrics, kRangeProfiler, kEmulated };
  Counters counters = Counters::kSassMetrics;

  // Extra Perfworks metrics by name (with rollup, e.g. "smsp__inst_executed.sum"), validated
  // against the running chip before anything runs.
  std::vector<std::string> extra_metrics;
  // kRangeProfiler: how many launches the counter image holds. More launches than this is an error.
  // With Replay::kUser every pass reads back room for this many, so keep it close to the launches.
  size_t max_launches = 64;

  // kRangeProfiler: how CUPTI collects the metrics' passes (the core metrics need 2):
  //   kKernel  CUPTI replays each launch, saving and restoring device memory around it, so side
  //            effects happen once. Works with CounterSession and Measure(). The default.
  //   kUser    Measure() runs `launches` once per pass, and nothing is saved or restored: much
  //            cheaper when the process has a lot of device memory allocated, but only for
  //            launches that give the same result when repeated (no accumulating into their own
  //            inputs or outputs). Measure() only.
  enum class Replay { kKernel, kUser };
  Replay replay = Replay::kKernel;

  // Kinds whose ideal wavefronts only hardware counters give (IdealSource::kHardwarePairOnRequest:
  // shared atomics, wgmma) to read anyway, marked Provenance::kHardware. Each costs a replay pass.
  std::vector<MemoryKind> hardware_ideal;

  // Each record gets its per-instruction counts (LaunchRecord::instructions, with opcodes and
  // source lines: docs/attribution.md). Counted through SASS metrics (the default), they come from
  // the same launches: the opcodes and lines cost one nvdisasm run per loaded module (about 0.5 s
  // on the H100). With the range profiler, Measure() runs `launches` once more under CUPTI's SASS
  // Metrics API: only for launches that give the same result when repeated, as with
  // Replay::kUser. Costs nothing when false.
  bool attribute_instructions = false;
};

class CounterSession {
 public:
  // Starts recording on the current device. Throws bankcheck::Error when counters cannot be read
  // (no GPU, not permitted, another profiler attached, a session already active, ...).
  explicit CounterSession(SessionOptions options = {});
  // Stops recording if Finish() was not called; the records are dropped.
  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  // Stops recording, synchronizes, and returns one record per launch, in launch order.
  // Throws Error(kKernelFault) naming the kernel when a launch failed.
  std::vector<LaunchRecord> Finish();

  // Whether a session is active in this process.
  static bool Active();

 private:
  friend std::vector<LaunchRecord> Measure(const std::function<void()>&, const SessionOptions&);
  struct State;
  std::unique_ptr<State> state_;
};

// Runs `launches` inside a session and returns its records (with Replay::kUser, once per pass).
std::vector<LaunchRecord> Measure(const std::function<void()>& launches, const SessionOptions& options = {});

// Per mangled kernel name: its shared-memory instructions with their counts, most excess first.
using KernelInstructions = std::map<std::string, std::vector<InstructionCounts>>;

// Runs `launches` once under CUPTI's SASS Metrics API (not a counter session: nothing is
// replayed) and returns the per-instruction counts of every kernel they launched, summed over
// that kernel's launches. Exact (instrumented counters); sources and opcodes need the kernels'
// line info (-lineinfo) and nvdisasm (docs/attribution.md). Throws bankcheck::Error as a session
// does, and Error(kKernelFault) when a launch faults.
KernelInstructions AttributeInstructions(const std::function<void()>& launches);

// Sets each record's `instructions` to its kernel's table in `instructions` (empty when the kernel
// ran no shared-memory instruction) and `attributed_launches` to the number of records of that
// kernel. Graph launches are left alone.
void AttachInstructions(const KernelInstructions& instructions, std::vector<LaunchRecord>& records);

// Where the project's own sources are (`source_root`) and its build folder, which may lie inside
// it and hold fetched libraries (`build_root`): an inlined instruction is attributed to the
// innermost line of its inline chain under `source_root` and not under `build_root` (the access in
// the project's own helper, the call for a library's: AttributedFrame, instruction_counts.h).
// BANKCHECK_SOURCE_ROOT overrides `source_root`. Unset, or no line inside: the outermost line.
// Kernel suites set it to their project's; in an emulated program it applies to the evaluator too.
void SetProjectSources(const std::string& source_root, const std::string& build_root);

// From now on, each module whose line information names SetProjectSources' folders is disassembled
// (nvdisasm -gi, or the disassembly cache) on a background thread as soon as CUDA loads it, so that
// instruction tables find its listing made. nvdisasm's start-up (half a second or more per module)
// is then paid in parallel rather than by each case that first needs a module; with
// CUDA_MODULE_LOADING=EAGER every module loads, and starts, with the context. Kernel suites call it
// when they check lines (not under BANKCHECK_LINES=off). Call it before CUDA loads the modules.
void PrefetchProjectDisassembly();

// With a usable GPU, starts CUPTI's process-wide set-up: subscribes to launches on this thread, and
// loads CUPTI's profiler library on another while the process creates its CUDA context. The first
// session finishes the set-up (on the H100 about 15 ms, against 80-120 ms without this) and reports
// its errors. Optional: without it the first session does all of it. Call it before the process
// creates its CUDA context (instruction attribution needs the module loads).
// BANKCHECK_SKIP_WITHOUT_GPU() calls it.
void PrepareCounterSession();

// Whether a kernel fault while measured has left this process's CUDA context unusable (later
// sessions would fail at once; CUDA needs a new process).
bool CudaContextLost();

// BANKCHECK_COUNTERS=off: run the launches without measuring them, so that another profiler (ncu)
// can measure the same launches (benchmarks/ncu_crosscheck.sh). CaseContext::Measure then only
// runs its launches, between cudaProfilerStart and cudaProfilerStop (for `ncu --profile-from-start
// off`), PrepareCounterSession does nothing, and the kernel suite skips each case
// after its run, saying so. (BANKCHECK_COUNTERS=range-profiler: see CountersFor; sass is the default.)
// Always false in an emulated program, where "off" is refused (CountersFor).
bool CountersDisabled();

// The interface a session with `options` counts with. In a kernel suite's emulated program:
// kEmulated, for every session (BANKCHECK_COUNTERS unset or emulate). Elsewhere: kRangeProfiler when
// it asks for extra metrics or a hardware ideal, or when BANKCHECK_COUNTERS=range-profiler;
// otherwise `options.counters`. Throws Error(kBadInput) for a BANKCHECK_COUNTERS value other than
// off, sass, range-profiler or emulate, for emulate in a program whose kernels run on the GPU (the
// emulated program is the suite's <target>_emulated), for any other value in the emulated
// program, and for options.counters kEmulated outside it.
SessionOptions::Counters CountersFor(const SessionOptions& options);

// Frees the process-wide CUPTI state (it is kept between sessions so that later sessions are
// cheap). Called automatically at exit; call it before cudaDeviceReset().
void ShutdownProfiler();

}  // namespace bankcheck
