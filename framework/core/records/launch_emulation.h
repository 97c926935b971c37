#pragma once
// How a program whose kernels are recorded instead of run (a kernel suite's emulated program,
// <target>_emulated: docs/emulate.md) counts its launches. Its stand-in CUDA runtime
// (framework/emulated_runtime) installs a LaunchEmulation before main; the counter session
// (framework/cuda) then counts every session through it, as a third counting back end beside
// CUPTI's two (cuda/internal/counting_backend.h adapts it), and the suite and the testing layer
// ask it whether kernels run. No CUDA and no CUPTI here, so that every layer can use it.

#include <functional>
#include <string>
#include <vector>

#include "bankcheck/core/launch_record.h"

namespace bankcheck::internal {

class LaunchEmulation {
 public:
  virtual ~LaunchEmulation();
  // From now on launches are recorded (a launch outside a session is accepted and not emulated).
  virtual void Start() = 0;
  // Stops recording and emulates the recorded launches: one record per launch, in launch order,
  // each with its per-instruction table (attributed_launches 1). Throws Error(kNotEmulated) naming
  // the first launch the evaluator left undecided (its instruction, pc and source line) or the first
  // CUDA call since Start that is not emulated; rethrows any other error a launch met (a fatbin the
  // evaluator could not read: Error(kBadInput) saying what to install).
  virtual std::vector<LaunchRecord> Finish() = 0;
  // Stops recording, dropping the launches.
  virtual void Abandon() = 0;
  // Why the running case cannot be decided: the first CUDA entry point it called that is not
  // emulated, or the first launch left undecided, since the last call; "" when none. Kept after the
  // case caught the error it caused, so that the suite skips the case all the same.
  virtual std::string TakeNotEmulated() = 0;
  // A case begins: nothing an earlier case of the program left counts against it (its notes of
  // calls not emulated, the calling thread's last CUDA error that a graph case's unsupported
  // call set), as if it ran in a process of its own, as ctest runs it.
  virtual void BeginCase() = 0;
  // `observer` is called at each of the case's copies of device memory to the host after one of its
  // launches (cudaMemcpy to the host), with "" when every byte it read holds what the kernels
  // computed (docs/emulate.md, "Known global memory"), else why not ("a launch of k() may write
  // global memory ..."): from the first such copy on, the case reads what its kernels would have
  // written, and they did not run. The suite tells a case's output checks from its other checks by
  // it (suite/internal/emulated_case.h, RunEmulatedCase). nullptr: none.
  virtual void ObserveOutputReadBack(std::function<void(const std::string& not_computed)> observer) = 0;
  // Why the running case's outputs are not computed: the reason of its first copy to the host that
  // read bytes the kernels did not compute since BeginCase; "" when there was none. Checks of the
  // output (gtest::SkipOutputCheck) are skipped for it.
  virtual std::string OutputNotComputed() const = 0;
  // Where inlined instructions are attributed (bankcheck::SetProjectSources, counter_session.h).
  virtual void SetProjectSources(const std::string& source_root, const std::string& build_root) = 0;
};

// The installed emulation; nullptr in every program whose kernels run.
LaunchEmulation* InstalledLaunchEmulation();
// Whether this is an emulated program (an emulation is installed): the one question every layer
// asks before it touches CUPTI, reads counters, checks a kernel's output or picks a results folder.
bool EmulatedProgram();
// Installs `emulation`, which must live until exit. Called once, before main.
void InstallLaunchEmulation(LaunchEmulation* emulation);

// Said wherever a kernel's output would be checked in an emulated program.
inline constexpr char kOutputNotChecked[] = "emulated: the kernel did not run, its output is not checked";

}  // namespace bankcheck::internal
