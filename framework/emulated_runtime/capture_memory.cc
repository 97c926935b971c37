// The stand-in's device memory as the Capture follows it (global_memory.h): what the host and the
// copies wrote there, what made it unknown, and whether a case's read-backs see computed bytes.
#include <cstring>
#include <utility>

#include "bankcheck/core/error.h"
#include "core/records/demangle.h"
#include "emulated_runtime/internal/launch_capture.h"

namespace bankcheck::emulate::runtime {

void Capture::WriteDevice(void* destination, size_t size, bool known, const std::function<void()>& write) {
  const auto address = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(destination));
  memory_.BeforeWrite(address, size);
  write();
  if (known) {
    memory_.WroteKnown(address, size);
  } else {
    memory_.WroteUnknown(address, size);
  }
}

void Capture::CopyDevice(void* destination, const void* source, size_t size) {
  const auto to = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(destination));
  const auto from = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(source));
  memory_.BeforeWrite(to, size);
  std::memmove(destination, source, size);
  memory_.Copied(to, from, size);
}

void Capture::ObserveOutputReadBack(std::function<void(const std::string&)> observer) {
  std::lock_guard<std::mutex> lock(mutex_);
  read_back_observer_ = std::move(observer);
}

std::string Capture::OutputNotComputed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return output_not_computed_;
}

void Capture::ForgetAllLocked(const std::string& why) { memory_.ForgetAll(why); }

std::optional<LaunchRecord> Capture::ComputeOutputsLocked(PreparedLaunch& prepared) {
  ComputedOutputs outputs;
  try {
    outputs = evaluator_->ComputeOutputs(prepared.fatbin, prepared.launch);
  } catch (const Error& error) {
    outputs.not_computed = Undecided{};
    outputs.not_computed->reason = error.what();
  }
  if (outputs.not_computed) {
    const std::string& why = outputs.not_computed->reason;
    ForgetAllLocked(why.empty() ? WritesGlobal(prepared.launch.mangled)
                                : "a launch's outputs were not computed: " + why + " [" +
                                      bankcheck::internal::Demangle(prepared.launch.mangled) + "]");
    return std::nullopt;
  }
  if (outputs.record) prepared.launch.memory.reset();  // counted: Finish needs no snapshot
  for (const auto& [address, bytes] : outputs.written) {
    void* destination = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
    WriteDevice(destination, bytes.size(), true,
                [&] { std::memcpy(destination, bytes.data(), bytes.size()); });
  }
  return std::move(outputs.record);
}

std::string Capture::WritesGlobal(const std::string& mangled) {
  return "a launch may write global memory, and its stores were not computed [" +
         bankcheck::internal::Demangle(mangled) + "]";
}

void Capture::NoteCopyToHost(const void* source, size_t size, bool from_device) {
  std::function<void(const std::string&)> observer;
  std::string not_computed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!launched_in_case_) return;
    // Computed: every byte read is known (global_memory.h), whatever wrote it.
    if (!memory_.Known(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(source)), size)) {
      const std::string unknown_because = memory_.WhyForgotten();
      not_computed = !from_device               ? "the copy reads no device memory the emulator follows"
                     : !unknown_because.empty() ? unknown_because
                                                : "it reads device memory no copy, memset or computed "
                                                  "launch wrote";
      if (output_not_computed_.empty()) output_not_computed_ = not_computed;
    }
    observer = read_back_observer_;
  }
  if (observer) observer(not_computed);  // outside the lock: it may report to GoogleTest
}

}  // namespace bankcheck::emulate::runtime
