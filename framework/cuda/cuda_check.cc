#include "bankcheck/cuda/cuda_check.h"

#include <string>

namespace bankcheck {

void ThrowCudaError(cudaError_t status, const char* call, const char* file, int line) {
  throw Error(ErrorKind::kCuda, std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

}  // namespace bankcheck
