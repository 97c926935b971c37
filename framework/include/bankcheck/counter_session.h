#pragma once
// CounterSession: records every kernel launched while it is active, in launch order, with exact
// shared-memory counts. Uses the CUPTI Range Profiler (automatic ranges, kernel replay), so each
// launch is replayed once per pass with device memory saved and restored: a kernel's side
// effects happen once. Launches inside a session are serialized: don't time them.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/launch_record.h"

namespace bankcheck {

struct SessionOptions {
  // Extra Perfworks metrics by name (with rollup, e.g. "smsp__inst_executed.sum"), validated
  // against the running chip before anything runs.
  std::vector<std::string> extra_metrics;
  // How many launches the counter image holds. More launches than this is an error. With
  // Replay::kUser every pass reads back room for this many, so keep it close to the launches.
  size_t max_launches = 64;

  // How CUPTI collects the metrics' passes (the core metrics need 2):
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
  std::vector<SharedKind> hardware_ideal;

  // Measure() runs `launches` once more under CUPTI's SASS Metrics API and fills each record's
  // per-instruction counts (LaunchRecord::instructions): only for launches that give the same
  // result when repeated, as with Replay::kUser. Costs nothing when false.
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

// Starts CUPTI's process-wide set-up (about 0.1 s on the H100) on a background thread, so that it
// overlaps the caller's own CUDA set-up; the first session waits for it and reports its errors.
// Optional: without it the first session does the set-up itself. Does nothing without a usable
// GPU. BANKCHECK_SKIP_WITHOUT_GPU() calls it.
void PrepareCounterSession();

// Whether a kernel fault while measured has left this process's CUDA context unusable (later
// sessions would fail at once; CUDA needs a new process).
bool CudaContextLost();

// BANKCHECK_COUNTERS=off: run the launches without measuring them, so that another profiler (ncu)
// can measure the same launches (benchmarks/ncu_crosscheck.sh). CaseContext::Measure then only
// runs its launches, PrepareCounterSession does nothing, and the kernel suite skips each case
// after its run, saying so.
bool CountersDisabled();

// Frees the process-wide CUPTI state (it is kept between sessions so that later sessions are
// cheap). Called automatically at exit; call it before cudaDeviceReset().
void ShutdownProfiler();

}  // namespace bankcheck
