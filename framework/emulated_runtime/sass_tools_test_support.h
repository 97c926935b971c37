#pragma once
// For test programs compiled with BANKCHECK_TEST_CUOBJDUMP and BANKCHECK_TEST_NVDISASM (the SASS tools
// configure found, "" where none: framework/emulated_runtime/CMakeLists.txt).

#include <cstdlib>

namespace emutest {

// Points BANKCHECK_CUOBJDUMP and BANKCHECK_NVDISASM at the tools configure found, unless the
// environment names others; false when neither names both, and the emulated tests skip.
inline bool UseConfiguredSassTools() {
  if (*BANKCHECK_TEST_CUOBJDUMP != '\0') ::setenv("BANKCHECK_CUOBJDUMP", BANKCHECK_TEST_CUOBJDUMP, 0);
  if (*BANKCHECK_TEST_NVDISASM != '\0') ::setenv("BANKCHECK_NVDISASM", BANKCHECK_TEST_NVDISASM, 0);
  return std::getenv("BANKCHECK_CUOBJDUMP") != nullptr && std::getenv("BANKCHECK_NVDISASM") != nullptr;
}

inline constexpr char kNoSassTools[] =
    "not emulated: configure found no cuobjdump or nvdisasm to read the kernels' SASS with (install "
    "nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm)";

}  // namespace emutest
