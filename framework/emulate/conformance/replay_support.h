#pragma once
// What the conformance replay's tests share (replay_test.cc, replay_mma_test.cc): a form's launch
// through the stand-in runtime, the forms' SASS as the emulator reads it.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "emulate/internal/sass.h"

namespace bankcheck::conformance {

std::string Hex(uint32_t word);
// The outputs of form `index` computed by the emulator on `in` (a launch of in.size() / kInputs
// threads); false with `why` when not computed.
bool Replay(size_t index, const std::vector<uint32_t>& in, std::vector<uint32_t>* out, std::string* why);
// The SASS of forms.cu's kernels, as the emulator reads it; nullptr, with `problem` saying why, where
// cuobjdump or nvdisasm cannot be run.
const emulate::Module* FormsModule(std::string* problem);
// Whether the kernel of form `name` has an instruction of form `form` ("FFMA.FTZ", FormOf's text).
bool HasForm(const std::string& name, const std::string& form);
// The index of the form whose kernel is `name` (a test failure when none).
size_t FormIndex(const std::string& name);

}  // namespace bankcheck::conformance

// Skips (fails with BANKCHECK_REQUIRE_EMULATION=1) where the forms' SASS cannot be read.
#define BANKCHECK_NEED_SASS()                                                     \
  do {                                                                            \
    std::string problem;                                                          \
    if (FormsModule(&problem) == nullptr) {                                       \
      const char* required = std::getenv("BANKCHECK_REQUIRE_EMULATION");          \
      if (required != nullptr && std::string(required) == "1") FAIL() << problem; \
      GTEST_SKIP() << "cannot read the forms' SASS: " << problem;                 \
    }                                                                             \
  } while (false)
