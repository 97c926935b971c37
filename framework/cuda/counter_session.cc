// CounterSession and the public functions of counter_session.h. The session checks that it may
// start, and leaves the counting to its back end (counting_backend.h: SASS metrics or the range
// profiler). The parts it stands on, one file each:
//   process_state.h     the process-wide state (profiler, callbacks, whether a session is active)
//   profiler.h          CUPTI's profiler: initialization, chip, config image, range profiler
//   launch_callbacks.h  CUPTI's callbacks on the driver's launch and graph functions
//   launch_log.h        the launches the callbacks saw while a session records
//   launch_records.h    LaunchRecords from those launches
//   launch_checks.h     what both back ends refuse or fail on after the launches ran
// Lock rules are in the declarations (thread_annotations.h), checked by ci/jobs/thread-safety.sh.

#include "bankcheck/cuda/counter_session.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <utility>

#include "bankcheck/core/error.h"
#include "core/records/launch_emulation.h"
#include "cuda/internal/counting_backend.h"
#include "cuda/internal/process_state.h"
#include "cuda/internal/profiler.h"
#include "cuda/internal/sass_config.h"
#include "cuda/internal/sass_metrics.h"
#include "cuda/internal/step_trace.h"

namespace bankcheck {

using internal::MutexLock;
using internal::ProcessState;
using internal::TheProcessState;

struct CounterSession::State {
  SessionOptions options;
  bool recording = false;
  internal::StepTrace trace;
  // Replay::kUser: runs the launches again for each further pass.
  std::function<void()> rerun;
  // Counts the launches (declared after `trace`, which it steps).
  std::unique_ptr<internal::CountingBackend> backend;
};

bool CounterSession::Active() {
  ProcessState& process = TheProcessState();
  MutexLock lock(process.mutex);
  return process.session_active;
}

CounterSession::CounterSession(SessionOptions options) : state_(std::make_unique<State>()) {
  ProcessState& process = TheProcessState();
  MutexLock lock(process.mutex);
  if (process.session_active) {
    throw Error(ErrorKind::kNestedSession,
                "a CounterSession is already active in this process. Sessions cannot be nested or run "
                "concurrently (the GPU has one set of counters): finish the first one before starting "
                "another.");
  }
  if (!process.poisoned_by.empty()) {
    throw Error(ErrorKind::kKernelFault,
                "an earlier kernel fault in this process (" + process.poisoned_by +
                    ") left its CUDA context unusable; CUDA needs a new process. Run "
                    "each test in its own process (ctest does).");
  }
  if (options.max_launches == 0) {
    throw Error(ErrorKind::kBadInput, "SessionOptions::max_launches must be at least 1");
  }
  state_->options = std::move(options);
  state_->backend = internal::MakeCountingBackend(state_->options, state_->trace);
  state_->backend->Start(process);
  state_->recording = true;
  process.session_active = true;
}

CounterSession::~CounterSession() {
  if (!state_ || !state_->recording) return;
  ProcessState& process = TheProcessState();
  MutexLock lock(process.mutex);
  state_->backend->Abandon(process);
  process.session_active = false;
}

std::vector<LaunchRecord> CounterSession::Finish() {
  if (!state_->recording) throw Error(ErrorKind::kBadInput, "CounterSession::Finish() called twice");
  ProcessState& process = TheProcessState();
  MutexLock lock(process.mutex);
  state_->recording = false;
  process.session_active = false;
  return state_->backend->Finish(process, state_->rerun);
}

std::vector<LaunchRecord> Measure(const std::function<void()>& launches, const SessionOptions& options) {
  std::vector<LaunchRecord> records;
  {
    CounterSession session(options);
    if (options.replay == SessionOptions::Replay::kUser) session.state_->rerun = launches;
    launches();
    records = session.Finish();
  }
  // Records counted through SASS metrics, and emulated ones, carry their launch's own table already.
  const bool tables_read = std::all_of(records.begin(), records.end(), [](const LaunchRecord& record) {
    return record.counted_by == CountedBy::kSassMetrics || record.counted_by == CountedBy::kEmulated;
  });
  if (options.attribute_instructions && !tables_read)
    AttachInstructions(AttributeInstructions(launches), records);
  return records;
}

KernelInstructions AttributeInstructions(const std::function<void()>& launches) {
  // Emulated records carry their tables (Measure), so nothing asks for a second run there; CUPTI
  // must not be touched in that program.
  if (internal::EmulatedProgram())
    throw Error(ErrorKind::kNotEmulated,
                "not emulated: AttributeInstructions (emulated launches carry their "
                "per-instruction tables; measure them with Measure)");
  ProcessState& process = TheProcessState();
  CUcontext context = nullptr;
  int device = 0;
  std::string chip;
  {
    MutexLock lock(process.mutex);
    if (process.session_active)
      throw Error(ErrorKind::kNestedSession, "AttributeInstructions called while a CounterSession is active");
    if (!process.poisoned_by.empty())
      throw Error(ErrorKind::kKernelFault, "an earlier kernel fault in this process (" + process.poisoned_by +
                                               ") left its CUDA context unusable");
    internal::Profiler& profiler = process.EnabledProfiler();
    context = profiler.context();
    device = profiler.device();
    chip = profiler.chip();
    process.session_active = true;
  }
  struct Inactive {
    ProcessState& process;
    ~Inactive() {
      MutexLock lock(process.mutex);
      process.session_active = false;
    }
  } inactive{process};
  return internal::AttributeInstructions(context, device, chip, launches);
}

void AttachInstructions(const KernelInstructions& instructions, std::vector<LaunchRecord>& records) {
  // Tables read through SASS metrics lack the kinds BANKCHECK_SASS_CONFIG leaves out: so do the
  // records they are attached to (a range-profiler total has no lines to compare with).
  const PerKind<bool> left_out = internal::KindsLeftOut(internal::SassConfigFromEnvironment());
  std::map<std::string, uint32_t> launches_of;
  for (const LaunchRecord& record : records)
    if (record.graph_kernels.empty()) ++launches_of[record.mangled_kernel];
  for (LaunchRecord& record : records) {
    if (!record.graph_kernels.empty()) continue;  // a graph's nodes are attributed by kernel, not here
    const auto found = instructions.find(record.mangled_kernel);
    record.instructions = found != instructions.end() ? found->second : std::vector<InstructionCounts>{};
    record.attributed_launches = launches_of[record.mangled_kernel];
    for (const MemoryKindInfo& info : MemoryKinds())
      if (left_out[info.kind]) record.not_counted[info.kind] = true;
  }
}

void SetProjectSources(const std::string& source_root, const std::string& build_root) {
  internal::SetProjectSources(source_root, build_root);
  if (internal::LaunchEmulation* emulation = internal::InstalledLaunchEmulation())
    emulation->SetProjectSources(source_root, build_root);
}

void PrefetchProjectDisassembly() { internal::PrefetchProjectDisassembly(); }

bool CudaContextLost() {
  ProcessState& process = TheProcessState();
  MutexLock lock(process.mutex);
  return !process.poisoned_by.empty();
}

bool CountersDisabled() {
  if (internal::EmulatedProgram()) return false;
  const char* value = std::getenv("BANKCHECK_COUNTERS");
  return value != nullptr && std::string(value) == "off";
}

SessionOptions::Counters CountersFor(const SessionOptions& options) {
  using Counters = SessionOptions::Counters;
  const char* value = std::getenv("BANKCHECK_COUNTERS");
  const std::string forced = value != nullptr ? value : "";
  if (internal::EmulatedProgram()) {
    if (!forced.empty() && forced != "emulate") {
      throw Error(ErrorKind::kBadInput,
                  "BANKCHECK_COUNTERS is '" + forced +
                      "', but this is a kernel suite's emulated program, which counts its launches from the "
                      "kernels' SASS and nothing else: leave BANKCHECK_COUNTERS unset or emulate, or run the "
                      "suite's GPU program for '" +
                      forced + "'");
    }
    return Counters::kEmulated;
  }
  if (!forced.empty() && forced != "sass" && forced != "range-profiler" && forced != "off" &&
      forced != "emulate") {
    throw Error(ErrorKind::kBadInput,
                "BANKCHECK_COUNTERS is '" + forced +
                    "'; use sass (the default), range-profiler, off (measure nothing) or emulate (the "
                    "emulated program)");
  }
  if (forced == "emulate" || options.counters == Counters::kEmulated) {
    throw Error(ErrorKind::kBadInput,
                "BANKCHECK_COUNTERS=emulate: this program runs its kernels on the GPU. Emulated counts come "
                "from the suite's emulated program, <target>_emulated (ctest -L emulate; docs/emulate.md)");
  }
  if (forced == "range-profiler" || !options.extra_metrics.empty() || !options.hardware_ideal.empty())
    return Counters::kRangeProfiler;
  return options.counters;
}

void PrepareCounterSession() {
  // An emulated program has no GPU to prepare, and must not load CUPTI.
  if (CountersDisabled() || internal::EmulatedProgram()) return;
  TheProcessState().Prepare();
}

void ShutdownProfiler() { TheProcessState().Shutdown(); }

}  // namespace bankcheck
