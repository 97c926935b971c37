// libFuzzer's entry point (BANKCHECK_FUZZ, ci/fuzz.sh): an input is an nvdisasm listing and a
// cuobjdump -elf listing, split at the first NUL byte, read by Module::FromListings; every kernel
// it finds is emulated with small limits. bankcheck::Error is how bad input is refused; anything
// else that escapes (another exception, a sanitizer report, a crash) is a bug.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "bankcheck/emulator.h"
#include "bankcheck/error.h"

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
    for (const std::string& kernel : module.Kernels()) {
      LaunchToEmulate launch;
      launch.mangled = kernel;
      launch.grid = {3, 2, 1};
      launch.block = {48, 1, 1};
      // Argument bytes from the input's first bytes: known values for what the kernel reads.
      launch.param_bytes.assign(data, data + std::min<size_t>(size, 64));
      const Emulation emulation = Emulate(module, launch, limits);
      if (emulation.record.has_value() == emulation.undecided.has_value()) __builtin_trap();
    }
  } catch (const bankcheck::Error&) {
    // Refused with a reason: what bad input gets.
  }
  return 0;
}
