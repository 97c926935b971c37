#include "inject/internal/recorder.h"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <utility>

#include "bankcheck/core/results.h"
#include "core/platform/file_io.h"

namespace bankcheck::internal {

Recorder::Recorder(RunSettings settings, std::unique_ptr<Measurer> measurer)
    : settings_(std::move(settings)),
      filter_(settings_.kernel_pattern, settings_.range_pattern),
      measurer_(std::move(measurer)) {}

void Recorder::OnLaunch(const ObservedLaunch& launch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_) return;
  if (!launch.unmeasurable.empty()) {
    // No CUDA call now: nothing is started or finished. A measurement running is refused by its session
    // when it finishes, for the same reason.
    if (Matches(launch.mangled, launch.nvtx_range))
      Fail("launch " + std::to_string(launch.process_launch) + " of the process ('" +
           (launch.mangled != nullptr ? KernelNameOf(launch.mangled) : std::string("graph")) +
           "') ran unmeasured: " + launch.unmeasurable);
    return;
  }
  if (settings_.max_launches != 0 && matched_ >= settings_.max_launches) {
    // The limit's last launch has been counted: the rest of the program runs unpatched.
    Finish();
    done_ = true;
    return;
  }
  if (settings_.measure_once && !launch.configuration.empty()) {
    const auto first = first_launch_of_.find(launch.configuration);
    if (first != first_launch_of_.end()) {
      ++repeats_of_[first->second];
      unwritten_ = true;
      // Unpatched: finishing synchronizes and stops patching. Written with the next write, so that
      // a program alternating repeats and new launches does not rewrite its file at each switch.
      if (measurement_) Finish(/*write=*/false);
      return;
    }
    if (first_launch_of_.size() < kMaxConfigurations)
      first_launch_of_.emplace(launch.configuration, launch.process_launch);
  }
  if (Matches(launch.mangled, launch.nvtx_range)) ++matched_;
  if (!measurement_) Start(launch.context);
}

void Recorder::OnContextDestroy(CUcontext context) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (measurement_ && context == measured_context_) Finish();
  // What a repeat left unwritten is written now, as at every context's end.
  else if (unwritten_)
    Write();
}

void Recorder::AtExit() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (measurement_)
      Finish();
    else if (!written_ || unwritten_)
      Write();
    done_ = true;
  }
  // Outside the lock: shutting CUPTI down may call back (a context's teardown).
  measurer_->Shutdown();
}

bool Recorder::Matches(const char* mangled, const std::string& nvtx_range) {
  if (mangled == nullptr) return filter_.Matches("graph", nvtx_range);
  auto found = kernel_names_.find(mangled);
  if (found == kernel_names_.end()) found = kernel_names_.emplace(mangled, KernelNameOf(mangled)).first;
  return filter_.Matches(found->second, nvtx_range);
}

void Recorder::Start(CUcontext context) {
  try {
    measurement_ = measurer_->Start(settings_.attribute);
    measured_context_ = context;
    // Now, while CUDA is alive: at exit the GPU probe's static may already be destroyed.
    if (metadata_.arch.empty()) metadata_ = measurer_->Describe();
  } catch (const std::exception& e) {
    Fail(e.what());
  }
}

void Recorder::Finish(bool write) {
  if (!measurement_) return;
  Measured measured = measurement_->Finish();
  measurement_.reset();
  measured_context_ = nullptr;
  for (LaunchRecord& record : measured.records) records_.push_back(std::move(record));
  if (!measured.error.empty())
    Fail(measured.error);  // writes what was counted before it
  else if (write)
    Write();
  else
    unwritten_ = true;
}

// Measures no more, and says why: in the process's file for `bankcheck run`, and on stderr.
void Recorder::Fail(const std::string& why) {
  done_ = true;
  error_ = why;
  std::fprintf(stderr, "bankcheck: error: %s\n", why.c_str());
  Write();
}

void Recorder::Write() {
  const std::filesystem::path folder = settings_.output_dir;
  const std::string stem = "process-" + std::to_string(::getpid());
  try {
    RunResults results;
    results.metadata = metadata_;
    std::vector<LaunchRecord> reported;
    for (const LaunchRecord& record : records_) {
      if (!filter_.Matches(record.graph_kernels.empty() ? record.kernel : "graph", record.nvtx_range))
        continue;
      reported.push_back(record);
      if (const auto repeats = repeats_of_.find(record.process_launch); repeats != repeats_of_.end())
        reported.back().notes.push_back(RepeatsNote(repeats->second));
    }
    results.cases = RunCases(reported);
    unwritten_ = false;
    WriteResults(folder / (stem + ".json"), results);
    written_ = true;
    if (!error_.empty()) WriteFileAtomically(folder / (stem + ".error"), error_ + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bankcheck: error: could not write the results of process %d: %s\n", ::getpid(),
                 e.what());
  }
}

}  // namespace bankcheck::internal
