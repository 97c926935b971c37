// NVTX's own header-only implementation (nvtx3) drives the ranges here as it drives them in a
// measured program: its first call looks for an injection and, finding this test's static one
// (InitializeInjectionNvtx2_fnptr, what NVTX_INJECTION64_PATH's library gives a dynamic load),
// hands it NVTX's function table. No CUDA is initialized in this process: ranges are followed from
// NVTX's first call on, whatever CUDA does later.
#include <cstdint>

// NVTX's static injection (nvtxInit.h): declared before NVTX's header, which then leaves out its weak
// definition, and defined below.
extern "C" int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(uint32_t));
#define NVTX_STATIC_INJECTION_IMPL

#include <gtest/gtest.h>

#include <thread>

#include "cuda/internal/nvtx_ranges.h"

int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(uint32_t)) = &bankcheck::internal::FollowNvtxRanges;

namespace bankcheck::internal {
namespace {

TEST(NvtxRangesTest, FollowsRangesFromNvtxsFirstCall) {
  // The first NVTX call of the process initializes NVTX, which initializes the injection, and is
  // itself followed.
  EXPECT_EQ(nvtxRangePushA("first"), 0);
  EXPECT_EQ(CurrentNvtxRange(), "first");
  EXPECT_EQ(nvtxRangePop(), 0);
  EXPECT_EQ(CurrentNvtxRange(), "");
}

TEST(NvtxRangesTest, FollowsPushesAndPopsOfThisThread) {
  EXPECT_EQ(CurrentNvtxRange(), "");
  nvtxRangePushA("gemm");
  EXPECT_EQ(nvtxRangePushA("128"), 1) << "the nesting level, as NVTX documents";
  EXPECT_EQ(CurrentNvtxRange(), "gemm/128");
  std::string elsewhere = "unset";
  std::thread([&] { elsewhere = CurrentNvtxRange(); }).join();
  EXPECT_EQ(elsewhere, "") << "ranges are per thread";
  nvtxRangePop();
  EXPECT_EQ(CurrentNvtxRange(), "gemm");
  nvtxRangePop();
  EXPECT_LT(nvtxRangePop(), 0) << "one pop too many is ignored";
  EXPECT_EQ(CurrentNvtxRange(), "");
}

TEST(NvtxRangesTest, NamesDomainRangesByAsciiOrRegisteredMessages) {
  const nvtxDomainHandle_t domain = nvtxDomainCreateA("bankcheck-test");
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "transpose";
  nvtxDomainRangePushEx(domain, &attributes);

  // nvtx.annotate registers its message and pushes the handle.
  const nvtxStringHandle_t handle = nvtxDomainRegisterStringA(domain, "64");
  ASSERT_NE(handle, nullptr);
  nvtxEventAttributes_t by_handle = attributes;
  by_handle.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  by_handle.message.registered = handle;
  nvtxDomainRangePushEx(domain, &by_handle);
  EXPECT_EQ(CurrentNvtxRange(), "transpose/64");

  int other = 0;
  by_handle.message.registered = reinterpret_cast<nvtxStringHandle_t>(&other);
  nvtxRangePushEx(&by_handle);
  EXPECT_EQ(CurrentNvtxRange(), "transpose/64/<registered string>");
  nvtxRangePop();
  for (int i = 0; i < 2; ++i) nvtxDomainRangePop(domain);
  EXPECT_EQ(CurrentNvtxRange(), "");
}

TEST(NvtxRangesTest, RefusesAnExportTableItDoesNotKnow) {
  EXPECT_EQ(FollowNvtxRanges(nullptr), 0);
  EXPECT_EQ(FollowNvtxRanges([](uint32_t) -> const void* { return nullptr; }), 0);
}

TEST(NvtxRangesTest, JoinsNamesLeavingEmptyOnesOut) {
  EXPECT_EQ(JoinRanges({}), "");
  EXPECT_EQ(JoinRanges({"a", "", "b/c"}), "a/b/c");
}

}  // namespace
}  // namespace bankcheck::internal
