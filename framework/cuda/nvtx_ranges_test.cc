#include "cuda/internal/nvtx_ranges.h"

#include <cupti_nvtx_cbid.h>
#include <generated_nvtx_meta.h>
#include <gtest/gtest.h>

#include <thread>

namespace bankcheck::internal {
namespace {

// The callbacks' data as CUPTI passes it, for one NVTX call.
void Call(CUpti_CallbackId id, const void* params, const void* result = nullptr) {
  CUpti_NvtxData data{"nvtx", params, result};
  OnNvtxCall(id, &data);
}

void PushA(const char* message) {
  const nvtxRangePushA_params params{message};
  Call(CUPTI_CBID_NVTX_nvtxRangePushA, &params);
}

void Pop() { Call(CUPTI_CBID_NVTX_nvtxRangePop, nullptr); }

TEST(NvtxRangesTest, FollowsPushesAndPopsOfThisThread) {
  EXPECT_EQ(CurrentNvtxRange(), "");
  PushA("gemm");
  PushA("128");
  EXPECT_EQ(CurrentNvtxRange(), "gemm/128");
  std::string elsewhere = "unset";
  std::thread([&] { elsewhere = CurrentNvtxRange(); }).join();
  EXPECT_EQ(elsewhere, "") << "ranges are per thread";
  Pop();
  EXPECT_EQ(CurrentNvtxRange(), "gemm");
  Pop();
  Pop();  // one pop too many is ignored
  EXPECT_EQ(CurrentNvtxRange(), "");
}

TEST(NvtxRangesTest, NamesDomainRangesByAsciiOrRegisteredMessages) {
  nvtxEventAttributes_t attributes{};
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "transpose";
  nvtxDomainRangePushEx_params push{};
  push.core.eventAttrib = &attributes;
  Call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &push);

  // nvtx.annotate registers its message and pushes the handle.
  int token = 0;
  const auto handle = reinterpret_cast<nvtxStringHandle_t>(&token);
  const nvtxDomainRegisterStringA_params registered{nullptr, "64"};
  Call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, &registered, &handle);
  nvtxEventAttributes_t by_handle{};
  by_handle.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  by_handle.message.registered = handle;
  push.core.eventAttrib = &by_handle;
  Call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &push);
  EXPECT_EQ(CurrentNvtxRange(), "transpose/64");

  int other = 0;
  by_handle.message.registered = reinterpret_cast<nvtxStringHandle_t>(&other);
  Call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &push);
  EXPECT_EQ(CurrentNvtxRange(), "transpose/64/<registered string>");
  for (int i = 0; i < 3; ++i) Call(CUPTI_CBID_NVTX_nvtxDomainRangePop, nullptr);
  EXPECT_EQ(CurrentNvtxRange(), "");
}

TEST(NvtxRangesTest, JoinsNamesLeavingEmptyOnesOut) {
  EXPECT_EQ(JoinRanges({}), "");
  EXPECT_EQ(JoinRanges({"a", "", "b/c"}), "a/b/c");
}

}  // namespace
}  // namespace bankcheck::internal
