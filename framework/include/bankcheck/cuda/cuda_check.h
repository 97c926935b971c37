#pragma once
// Small CUDA runtime helpers for kernels and suites: checked calls and an owning device buffer.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"

namespace bankcheck {

// Throws Error(kCuda) with the call, the CUDA error name and text.
void ThrowCudaError(cudaError_t status, const char* call, const char* file, int line);

#define BANKCHECK_CUDA_CHECK(call)                                               \
  do {                                                                           \
    const cudaError_t bankcheck_status_ = (call);                                \
    if (bankcheck_status_ != cudaSuccess)                                        \
      ::bankcheck::ThrowCudaError(bankcheck_status_, #call, __FILE__, __LINE__); \
  } while (0)

// Device memory for `size` elements of T, freed on destruction.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t size) : size_(size) {
    BANKCHECK_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { CopyFrom(host); }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return data_; }
  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }

  void CopyFrom(const std::vector<T>& host) {
    BANKCHECK_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  // Fills every byte with `byte` (poison outputs before a run so unwritten elements show).
  void Fill(int byte) { BANKCHECK_CUDA_CHECK(cudaMemset(data_, byte, bytes())); }
  std::vector<T> ToHost() const {
    std::vector<T> host(size_);
    BANKCHECK_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* data_ = nullptr;
  size_t size_;
};

}  // namespace bankcheck
