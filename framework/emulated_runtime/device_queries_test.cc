// The stand-in runtime's device queries and events against what the sm_90 GPU answered the probe
// (runtime/data/: sm_90_device.inc, sm_90_answers.inc).

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "emulate/internal/limits.h"
#include "emulated_runtime/internal/device_table.h"
#include "emulated_runtime/internal/launch_capture.h"
#include "emulated_runtime/measured_answers.h"

namespace bankcheck::emulate::runtime {
namespace {

using emutest::MeasuredError;

class DeviceQueriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TheCapture().TakeNotEmulated();
    cudaGetLastError();
  }
};

// Every number field of cudaDeviceProp and every attribute is what the GPU answered.
TEST_F(DeviceQueriesTest, PropertiesAndAttributesAreTheMeasuredOnes) {
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_STREQ(prop.name, "bankcheck emulated sm_90");
  int fields = 0, attributes = 0, refused = 0;
#define BANKCHECK_MEASURED_ON(name, driver_version, runtime_version, kernel_module) \
  EXPECT_STREQ(Measured().device, name);                                            \
  EXPECT_EQ(Measured().driver, driver_version);
#define BANKCHECK_DEVICE_PROPERTY(field, value)                                                            \
  EXPECT_EQ(prop.field, static_cast<std::remove_reference_t<decltype(prop.field)>>(value##ull)) << #field; \
  ++fields;
#define BANKCHECK_DEVICE_PROPERTY_ELEMENT(field, index, value)                                            \
  EXPECT_EQ(prop.field[index], static_cast<std::remove_reference_t<decltype(prop.field[0])>>(value##ull)) \
      << #field << "[" << index << "]";                                                                   \
  ++fields;
#define BANKCHECK_DEVICE_ATTRIBUTE(name, number, value)                        \
  {                                                                            \
    int answer = -1;                                                           \
    EXPECT_EQ(cudaDeviceGetAttribute(&answer, name, 0), cudaSuccess) << #name; \
    EXPECT_EQ(answer, value) << #name;                                         \
    ++attributes;                                                              \
  }
#define BANKCHECK_DEVICE_ATTRIBUTE_REFUSED(name, number, error)                                    \
  {                                                                                                \
    int answer = -1;                                                                               \
    EXPECT_EQ(cudaDeviceGetAttribute(&answer, name, 0), static_cast<cudaError_t>(error)) << #name; \
    ++refused;                                                                                     \
  }
#define BANKCHECK_DEVICE_ATTRIBUTE_UNKNOWN(error)
#define BANKCHECK_DEVICE_OTHER(error)
#include "emulated_runtime/data/sm_90_device.inc"
#undef BANKCHECK_MEASURED_ON
#undef BANKCHECK_DEVICE_PROPERTY
#undef BANKCHECK_DEVICE_PROPERTY_ELEMENT
#undef BANKCHECK_DEVICE_ATTRIBUTE
#undef BANKCHECK_DEVICE_ATTRIBUTE_REFUSED
#undef BANKCHECK_DEVICE_ATTRIBUTE_UNKNOWN
#undef BANKCHECK_DEVICE_OTHER
  // The probe walked CUDA 13.0's every field and attribute.
  EXPECT_GT(fields, 100);
  EXPECT_GT(attributes + refused, 130);
  cudaGetLastError();
}

// The limits launches are checked against (limits.h) are the measured device's.
TEST_F(DeviceQueriesTest, TheLaunchLimitsAreTheMeasuredDevices) {
  const cudaDeviceProp& prop = DeviceProperties();
  EXPECT_EQ(static_cast<uint32_t>(prop.maxThreadsPerBlock), internal::kMaxBlockThreads);
  EXPECT_EQ(static_cast<uint32_t>(prop.maxThreadsDim[0]), internal::kMaxBlockXY);
  EXPECT_EQ(static_cast<uint32_t>(prop.maxThreadsDim[1]), internal::kMaxBlockXY);
  EXPECT_EQ(static_cast<uint32_t>(prop.maxThreadsDim[2]), internal::kMaxBlockZ);
  EXPECT_EQ(static_cast<uint32_t>(prop.maxGridSize[0]), internal::kMaxGridX);
  EXPECT_EQ(static_cast<uint32_t>(prop.maxGridSize[1]), internal::kMaxGridYZ);
  EXPECT_EQ(static_cast<uint32_t>(prop.maxGridSize[2]), internal::kMaxGridYZ);
  EXPECT_EQ(prop.sharedMemPerBlock, internal::kDefaultDynamicShared);
  EXPECT_EQ(prop.sharedMemPerBlockOptin, internal::kMaxSharedOptIn);
}

TEST_F(DeviceQueriesTest, QueriesTheGpuRefusesAreRefusedWithItsErrors) {
  int value = -1;
  EXPECT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 1), MeasuredError("attribute.device_1"));
  EXPECT_EQ(cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(0), 0),
            MeasuredError("attribute.number_0"));
  const int no_attribute = std::stoi("100000");  // a constant past the enumeration does not compile
  EXPECT_EQ(cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(no_attribute), 0),
            MeasuredError("attribute.number_100000"));
  EXPECT_EQ(cudaDeviceGetAttribute(nullptr, cudaDevAttrWarpSize, 0), MeasuredError("attribute.null"));
  EXPECT_EQ(value, -1);
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
}

// Events: the GPU's errors; times from the stand-in's clock, one microsecond per record.
TEST_F(DeviceQueriesTest, EventsAnswerAsTheGpuWithADeterministicClock) {
  cudaEvent_t start = nullptr, end = nullptr, untimed = nullptr;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&end), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventQuery(end), MeasuredError("event.query_never_recorded"));
  EXPECT_EQ(cudaEventSynchronize(end), MeasuredError("event.synchronize_never_recorded"));
  ASSERT_EQ(cudaEventRecord(start, nullptr), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, end), MeasuredError("event.elapsed_end_never_recorded"));
  ASSERT_EQ(cudaEventRecord(untimed, nullptr), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, untimed), MeasuredError("event.elapsed_disable_timing"));
  EXPECT_EQ(cudaEventElapsedTime(nullptr, start, start), MeasuredError("event.elapsed_null"));
  ASSERT_EQ(cudaEventRecord(end, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(end), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, end), MeasuredError("event.elapsed"));
  EXPECT_FLOAT_EQ(ms, 0.002f);  // two records later
  float back = 0;
  ASSERT_EQ(cudaEventElapsedTime(&back, end, start), cudaSuccess);
  EXPECT_EQ(back < 0 ? 1 : 0, emutest::Measured("event.elapsed_reversed_negative"));
  EXPECT_EQ(cudaEventDestroy(start), MeasuredError("event.destroy"));
  cudaEventDestroy(end);
  cudaEventDestroy(untimed);
  cudaGetLastError();
  EXPECT_EQ(cudaEventCreateWithFlags(&start, cudaEventInterprocess | cudaEventDisableTiming),
            cudaErrorNotSupported);
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "not emulated: cudaEventCreateWithFlags(cudaEventInterprocess)");
}

// An event in a stream being captured joins other streams to the capture on the GPU, which the
// stand-in's capture does not follow: refused, naming itself; outside the capture, answered.
TEST_F(DeviceQueriesTest, EventsInAStreamBeingCapturedNameThemselves) {
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&event), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(cudaEventRecord(event, stream), cudaErrorNotSupported);
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "not emulated: cudaEventRecord into a stream being captured");
  EXPECT_EQ(cudaStreamWaitEvent(stream, event, 0), cudaErrorNotSupported);
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "not emulated: cudaStreamWaitEvent in a stream being captured");
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  cudaGraphDestroy(graph);
  EXPECT_EQ(cudaEventRecord(event, stream), cudaSuccess);
  EXPECT_EQ(cudaStreamWaitEvent(stream, event, 0), cudaSuccess);
  EXPECT_EQ(TheCapture().TakeNotEmulated(), "");
  cudaEventDestroy(event);
  cudaStreamDestroy(stream);
  cudaGetLastError();
}

}  // namespace
}  // namespace bankcheck::emulate::runtime
