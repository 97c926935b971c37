#include "cuda/internal/nvtx_ranges.h"

#include <cupti_nvtx_cbid.h>
#include <generated_nvtx_meta.h>

#include <map>
#include <mutex>

namespace bankcheck::internal {
namespace {

// Registered strings (nvtxDomainRegisterStringA: Python's nvtx.annotate registers its messages),
// by handle, for every thread.
std::mutex registered_mutex;
std::map<nvtxStringHandle_t, std::string>& RegisteredStrings() {
  static auto* strings =
      new std::map<nvtxStringHandle_t, std::string>;  // never destroyed: callbacks may outlive statics
  return *strings;
}

thread_local std::vector<std::string> thread_ranges;

std::string MessageOf(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return "";
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return attributes->message.ascii != nullptr ? attributes->message.ascii : "";
    case NVTX_MESSAGE_TYPE_REGISTERED: {
      std::lock_guard<std::mutex> lock(registered_mutex);
      const auto found = RegisteredStrings().find(attributes->message.registered);
      return found != RegisteredStrings().end() ? found->second : "<registered string>";
    }
    default:
      return "<unicode range name>";  // wide strings are not converted
  }
}

}  // namespace

void OnNvtxCall(CUpti_CallbackId id, const void* data) {
  const auto* call = static_cast<const CUpti_NvtxData*>(data);
  switch (id) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const char* message = static_cast<const nvtxRangePushA_params*>(call->functionParams)->message;
      thread_ranges.emplace_back(message != nullptr ? message : "");
      return;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      thread_ranges.emplace_back("<unicode range name>");
      return;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      thread_ranges.push_back(
          MessageOf(static_cast<const nvtxRangePushEx_params*>(call->functionParams)->eventAttrib));
      return;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      thread_ranges.push_back(MessageOf(
          static_cast<const nvtxDomainRangePushEx_params*>(call->functionParams)->core.eventAttrib));
      return;
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      if (!thread_ranges.empty()) thread_ranges.pop_back();
      return;
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA: {
      const auto* params = static_cast<const nvtxDomainRegisterStringA_params*>(call->functionParams);
      const auto* handle = static_cast<const nvtxStringHandle_t*>(call->functionReturnValue);
      if (params->string == nullptr || handle == nullptr || *handle == nullptr) return;
      std::lock_guard<std::mutex> lock(registered_mutex);
      RegisteredStrings()[*handle] = params->string;
      return;
    }
    default:
      return;
  }
}

std::string JoinRanges(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    if (name.empty()) continue;
    joined += (joined.empty() ? "" : "/") + name;
  }
  return joined;
}

std::string CurrentNvtxRange() { return JoinRanges(thread_ranges); }

}  // namespace bankcheck::internal
