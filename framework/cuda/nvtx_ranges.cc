#include "cuda/internal/nvtx_ranges.h"

#include <map>
#include <memory>
#include <mutex>

namespace bankcheck::internal {
namespace {

// Registered strings (nvtxDomainRegisterStringA: Python's nvtx.annotate registers its messages),
// by the handle given out for them, for every thread. Never destroyed: NVTX calls may come during
// exit, after statics are gone.
std::mutex registered_mutex;
std::map<nvtxStringHandle_t, std::string>& RegisteredStrings() {
  static auto* strings = new std::map<nvtxStringHandle_t, std::string>;
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

// NVTX's push returns the new range's nesting level (0 for the outermost), its pop the popped one's
// level, negative when there was none.
int Push(std::string name) {
  thread_ranges.push_back(std::move(name));
  return static_cast<int>(thread_ranges.size()) - 1;
}

int Pop() {
  if (thread_ranges.empty()) return -1;
  thread_ranges.pop_back();
  return static_cast<int>(thread_ranges.size());
}

int NVTX_API RangePushA(const char* message) { return Push(message != nullptr ? message : ""); }
int NVTX_API RangePushW(const wchar_t*) { return Push("<unicode range name>"); }
int NVTX_API RangePushEx(const nvtxEventAttributes_t* attributes) { return Push(MessageOf(attributes)); }
int NVTX_API RangePop() { return Pop(); }
int NVTX_API DomainRangePushEx(nvtxDomainHandle_t, const nvtxEventAttributes_t* attributes) {
  return Push(MessageOf(attributes));
}
int NVTX_API DomainRangePop(nvtxDomainHandle_t) { return Pop(); }

// A handle of its own for each registration (never freed: handles stay valid for the process).
nvtxStringHandle_t NVTX_API DomainRegisterStringA(nvtxDomainHandle_t, const char* string) {
  const auto handle = reinterpret_cast<nvtxStringHandle_t>(new char);
  std::lock_guard<std::mutex> lock(registered_mutex);
  RegisteredStrings()[handle] = string != nullptr ? string : "";
  return handle;
}

template <typename Function>
NvtxFunctionPointer Generic(Function function) {
  return reinterpret_cast<NvtxFunctionPointer>(function);
}

// Sets the slots of one of NVTX's function tables; false when NVTX does not have the module or it
// is shorter than the ids used.
bool Fill(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module,
          const std::vector<std::pair<unsigned int, NvtxFunctionPointer>>& slots) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) return false;
  for (const auto& [id, function] : slots) {
    if (id >= size || table[id] == nullptr) return false;
    *table[id] = function;
  }
  return true;
}

}  // namespace

int FollowNvtxRanges(NvtxGetExportTableFunc_t get_export_table) {
  if (get_export_table == nullptr) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr)
    return 0;
  const bool core = Fill(*callbacks, NVTX_CB_MODULE_CORE,
                         {{NVTX_CBID_CORE_RangePushA, Generic(&RangePushA)},
                          {NVTX_CBID_CORE_RangePushW, Generic(&RangePushW)},
                          {NVTX_CBID_CORE_RangePushEx, Generic(&RangePushEx)},
                          {NVTX_CBID_CORE_RangePop, Generic(&RangePop)}});
  const bool core2 = Fill(*callbacks, NVTX_CB_MODULE_CORE2,
                          {{NVTX_CBID_CORE2_DomainRangePushEx, Generic(&DomainRangePushEx)},
                           {NVTX_CBID_CORE2_DomainRangePop, Generic(&DomainRangePop)},
                           {NVTX_CBID_CORE2_DomainRegisterStringA, Generic(&DomainRegisterStringA)}});
  return core && core2 ? 1 : 0;
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
