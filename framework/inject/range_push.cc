// libbankcheck_nvtx.so: NVTX's push and pop for programs that have no NVTX binding of their own,
// loaded through ctypes by the pytest plugin (python/bankcheck/pytest_plugin.py) to name each
// test's launches. It is NVTX's own header-only implementation, so a range pushed here reaches
// `bankcheck run`'s injection library exactly as torch.cuda.nvtx's or a C++ program's does
// (NVTX_INJECTION64_PATH, read at the first call); without it NVTX makes both calls no-ops.
// It sits beside libbankcheck_inject.so and needs nothing of CUDA.

#include <nvtx3/nvToolsExt.h>

#define BANKCHECK_EXPORT extern "C" __attribute__((visibility("default")))

// Opens a range named `name` (UTF-8) on the calling thread; NVTX's nesting level, or a negative
// value when no tool follows NVTX.
BANKCHECK_EXPORT int bankcheck_range_push(const char* name) { return nvtxRangePushA(name); }

// Closes the calling thread's innermost range.
BANKCHECK_EXPORT int bankcheck_range_pop() { return nvtxRangePop(); }
