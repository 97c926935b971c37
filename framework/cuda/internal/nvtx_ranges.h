#pragma once
// The NVTX ranges each host thread is in, followed as NVTX's injection: NVTX calls the injection's
// InitializeInjectionNvtx2 at the program's first NVTX call (NVTX_INJECTION64_PATH names the
// library: `bankcheck run` sets it), which may come before the program initializes CUDA (a PyTorch
// script opens its first range before its first CUDA call), so ranges are followed from there, with
// NVTX's own function table, not through CUPTI (whose callbacks exist only once CUDA initializes).
// Without an injection every thread is outside any range. Push/pop ranges only (nvtxRangePush*,
// nvtxDomainRangePushEx and their pops, which Python's torch.cuda.nvtx.range and nvtx.annotate
// use); start/end ranges are not per thread and are not followed.

#include <nvtx3/nvToolsExt.h>

#include <string>
#include <vector>

namespace bankcheck::internal {

// NVTX's injection entry point (InitializeInjectionNvtx2's work): fills NVTX's function table with
// the range handlers below. Returns 1, or 0 (NVTX then makes every call a no-op) when NVTX offers no
// function table this code knows.
int FollowNvtxRanges(NvtxGetExportTableFunc_t get_export_table);

// The calling thread's ranges, outermost first, joined by '/' (empty names left out); "" outside any.
std::string CurrentNvtxRange();

// Joins range names as CurrentNvtxRange does. Exposed for its test.
std::string JoinRanges(const std::vector<std::string>& names);

}  // namespace bankcheck::internal
