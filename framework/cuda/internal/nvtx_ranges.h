#pragma once
// The NVTX ranges each host thread is in, from CUPTI's NVTX callbacks (CUPTI_CB_DOMAIN_NVTX). CUPTI
// receives NVTX calls only when it is NVTX's injection (NVTX_INJECTION64_PATH names it, or a
// library that hands NVTX to it: `bankcheck run` does so), so without that every thread is outside
// any range. Push/pop ranges only (nvtxRangePush*, nvtxDomainRangePushEx and their pops, which
// Python's torch.cuda.nvtx.range and nvtx.annotate use); start/end ranges are not per thread and
// are not followed.

#include <cupti_callbacks.h>

#include <string>
#include <vector>

namespace bankcheck::internal {

// Follows one NVTX call (a CUPTI callback of domain CUPTI_CB_DOMAIN_NVTX; `data` is its
// CUpti_NvtxData).
void OnNvtxCall(CUpti_CallbackId id, const void* data);

// The calling thread's ranges, outermost first, joined by '/' (empty names left out); "" outside any.
std::string CurrentNvtxRange();

// Joins range names as CurrentNvtxRange does. Exposed for its test.
std::string JoinRanges(const std::vector<std::string>& names);

}  // namespace bankcheck::internal
