#include "cuda/internal/cupti_errors.h"

#include <cupti.h>

#include "bankcheck/cuda/gpu_probe.h"

namespace bankcheck::internal {

ErrorKind CuptiErrorKind(CUptiResult code) {
  switch (code) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return ErrorKind::kCountersNotPermitted;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return ErrorKind::kProfilerBusy;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return ErrorKind::kUnsupportedDevice;
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return ErrorKind::kUnknownMetric;
    default:
      return ErrorKind::kCupti;
  }
}

namespace {
std::string Advice(CUptiResult code, ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kCountersNotPermitted:
      return CounterPermissionAdvice();
    case ErrorKind::kProfilerBusy:
      return "Another profiler holds the GPU counters (Nsight Compute `ncu`, Nsight Systems, "
             "compute-sanitizer, another CUPTI client in this process, or a process that measures "
             "without bankcheck's GPU lock, such as another user's with a different "
             "BANKCHECK_LOCK_DIR). Run the tests without it: bankcheck reads the counters itself.";
    case ErrorKind::kUnsupportedDevice:
      if (code == CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED)
        return "CUPTI cannot profile a MIG instance; run on a whole GPU.";
      return "CUPTI's range profiler does not support this GPU or setup (it needs Volta or newer, "
             "not virtualized, not under WSL). Run the GPU tests on a supported GPU.";
    case ErrorKind::kUnknownMetric:
      return "Check the metric name against `ncu --query-metrics`.";
    default:
      return "This is unexpected; please report it with the full message.";
  }
}
}  // namespace

Error CuptiFailure(CUptiResult code, const std::string& call) {
  const char* name = nullptr;
  // cuptiGetResultString only formats the code; it is safe without a driver.
  if (cuptiGetResultString(code, &name) != CUPTI_SUCCESS || name == nullptr) name = "unknown CUPTI result";
  const ErrorKind kind = CuptiErrorKind(code);
  return Error(kind, call + " failed with " + name + " (" + std::to_string(static_cast<int>(code)) + "). " +
                         Advice(code, kind));
}

}  // namespace bankcheck::internal
