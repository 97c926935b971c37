// The device table (device_table.h) and the device queries that answer from it.

#include "emulated_runtime/internal/device_table.h"

#include <cstdio>
#include <map>
#include <type_traits>
#include <utility>

#include "emulated_runtime/internal/launch_capture.h"

namespace bankcheck::emulate::runtime {
namespace {

struct Table {
  MeasuredOn measured{};
  cudaDeviceProp properties{};
  std::map<int, std::pair<cudaError_t, int>> attributes;  // by number: the GPU's error, or its value
  cudaError_t unknown_attribute = cudaErrorInvalidValue;
  cudaError_t other_device = cudaErrorInvalidDevice;
};

const Table& TheTable() {
  static const Table* table = [] {
    auto* made = new Table;
    cudaDeviceProp& prop = made->properties;
#define BANKCHECK_MEASURED_ON(device, driver, runtime, kernel_module) \
  made->measured = MeasuredOn{device, driver, runtime, kernel_module};
#define BANKCHECK_DEVICE_ATTRIBUTE(name, number, value) made->attributes[number] = {cudaSuccess, value};
#define BANKCHECK_DEVICE_ATTRIBUTE_REFUSED(name, number, error) \
  made->attributes[number] = {static_cast<cudaError_t>(error), 0};
#define BANKCHECK_DEVICE_PROPERTY(field, value) prop.field = static_cast<decltype(prop.field)>(value##ull);
#define BANKCHECK_DEVICE_PROPERTY_ELEMENT(field, index, value) \
  prop.field[index] = static_cast<std::remove_reference_t<decltype(prop.field[0])>>(value##ull);
#define BANKCHECK_DEVICE_ATTRIBUTE_UNKNOWN(error) made->unknown_attribute = static_cast<cudaError_t>(error);
#define BANKCHECK_DEVICE_OTHER(error) made->other_device = static_cast<cudaError_t>(error);
#include "emulated_runtime/data/sm_90_device.inc"
#undef BANKCHECK_MEASURED_ON
#undef BANKCHECK_DEVICE_ATTRIBUTE
#undef BANKCHECK_DEVICE_ATTRIBUTE_REFUSED
#undef BANKCHECK_DEVICE_PROPERTY
#undef BANKCHECK_DEVICE_PROPERTY_ELEMENT
#undef BANKCHECK_DEVICE_ATTRIBUTE_UNKNOWN
#undef BANKCHECK_DEVICE_OTHER
    std::snprintf(prop.name, sizeof(prop.name), "bankcheck emulated sm_90");
    return made;
  }();
  return *table;
}

}  // namespace

const MeasuredOn& Measured() { return TheTable().measured; }
const cudaDeviceProp& DeviceProperties() { return TheTable().properties; }
cudaError_t OtherDeviceError() { return TheTable().other_device; }

cudaError_t DeviceAttribute(int attribute, int* value) {
  const auto found = TheTable().attributes.find(attribute);
  if (found == TheTable().attributes.end()) return TheTable().unknown_attribute;
  if (found->second.first == cudaSuccess) *value = found->second.second;
  return found->second.first;
}

}  // namespace bankcheck::emulate::runtime

using bankcheck::emulate::runtime::Fail;

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return Fail(cudaErrorInvalidValue);
  if (device != 0) return Fail(bankcheck::emulate::runtime::OtherDeviceError());
  *prop = bankcheck::emulate::runtime::DeviceProperties();
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attribute, int device) {
  if (value == nullptr) return Fail(cudaErrorInvalidValue);
  if (device != 0) return Fail(bankcheck::emulate::runtime::OtherDeviceError());
  const cudaError_t error = bankcheck::emulate::runtime::DeviceAttribute(attribute, value);
  return error == cudaSuccess ? cudaSuccess : Fail(error);
}
