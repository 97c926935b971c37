#pragma once
// What the sm_90 GPU answered the GPU probe (device_probe/device_probe.cu, "answers"), as the
// runtime's tests compare the stand-in's answers with it: runtime/data/sm_90_answers.inc.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

namespace emutest {

inline const std::map<std::string, long long>& MeasuredAnswers() {
  static const auto* answers = new std::map<std::string, long long>{
#define BANKCHECK_MEASURED_ON(device, driver, runtime, kernel_module)
#define BANKCHECK_GPU_ANSWER(name, value) {name, value},
#include "emulated_runtime/data/sm_90_answers.inc"
#undef BANKCHECK_MEASURED_ON
#undef BANKCHECK_GPU_ANSWER
  };
  return *answers;
}

// The answer named `name`; a test that asks for one the probe did not measure fails.
inline long long Measured(const std::string& name) {
  const auto found = MeasuredAnswers().find(name);
  EXPECT_NE(found, MeasuredAnswers().end()) << "the GPU probe measured no " << name;
  return found == MeasuredAnswers().end() ? -1 : found->second;
}

// An error code the GPU answered.
inline cudaError_t MeasuredError(const std::string& name) { return static_cast<cudaError_t>(Measured(name)); }

}  // namespace emutest
