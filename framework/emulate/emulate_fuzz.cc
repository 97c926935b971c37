// libFuzzer's entry point (BANKCHECK_FUZZ, ci/jobs/fuzz.sh): an input is an nvdisasm listing and a
// cuobjdump -elf listing, split at the first NUL byte, read by Module::FromListings; every kernel
// it finds is emulated (Emulate) and run by the output pass (ComputeOutputs) with small limits.
// bankcheck::Error is how bad input is refused; anything else that escapes (another exception, a
// sanitizer report, a crash) is a bug, and so is an answer that breaks the functions' contracts.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "bankcheck/core/error.h"
#include "bankcheck/emulate/emulator.h"

namespace {

using bankcheck::emulate::KnownMemory;

// The output pass's device memory: one allocation of kBytes at kBase (never dereferenced), known
// bytes taken from the input, over and over. Argument words point into it.
constexpr uint64_t kBase = uint64_t{0x7f00} << 32, kBytes = 1 << 16;

bool InWindow(uint64_t address, uint64_t size) {
  return address >= kBase && address - kBase <= kBytes && size <= kBytes - (address - kBase);
}

class FuzzMemory final : public KnownMemory {
 public:
  FuzzMemory(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool Read(uint64_t address, uint32_t size, void* out) const override {
    if (size == 0 || size_ == 0 || !InWindow(address, size)) return false;
    for (uint32_t i = 0; i < size; ++i) static_cast<uint8_t*>(out)[i] = data_[(address - kBase + i) % size_];
    return true;
  }
  bool Allocated(uint64_t address, uint64_t size) const override {
    return size != 0 && InWindow(address, size);
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bankcheck::emulate;  // NOLINT(build/namespaces): the harness's one subject
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string listing = input.substr(0, split);
  const std::string elf = split == std::string::npos ? std::string() : input.substr(split + 1);
  try {
    const Module module = Module::FromListings(listing, elf);
    // Small limits: an input is one of millions, and the limits themselves are under test.
    EmulationLimits limits;
    limits.max_warp_instructions = 20000;
    limits.max_group_checks = 20000;
    const auto memory = std::make_shared<FuzzMemory>(data, size);
    for (const std::string& kernel : module.Kernels()) {
      LaunchToEmulate launch;
      launch.mangled = kernel;
      launch.grid = {3, 2, 1};
      launch.block = {48, 1, 1};
      // Argument bytes from the input's first bytes: known values for what the kernel reads.
      launch.param_bytes.assign(data, data + std::min<size_t>(size, 64));
      const Emulation emulation = Emulate(module, launch, limits);
      if (emulation.record.has_value() == emulation.undecided.has_value()) __builtin_trap();
      // The output pass, with each argument word a pointer into the window (its low 16 bits from the
      // input), so that loads and stores reach memory.
      for (size_t at = 0; at + 8 <= launch.param_bytes.size(); at += 8) {
        uint64_t word = 0;
        std::memcpy(&word, launch.param_bytes.data() + at, 8);
        word = kBase + (word & (kBytes - 1));
        std::memcpy(launch.param_bytes.data() + at, &word, 8);
      }
      launch.memory = memory;
      const ComputedOutputs outputs = ComputeOutputs(module, launch, limits);
      if (outputs.record.has_value() == outputs.not_computed.has_value()) __builtin_trap();
      for (const auto& [address, bytes] : outputs.written)
        if (outputs.not_computed || !InWindow(address, bytes.size())) __builtin_trap();
    }
  } catch (const bankcheck::Error&) {
    // Refused with a reason: what bad input gets.
  }
  return 0;
}
