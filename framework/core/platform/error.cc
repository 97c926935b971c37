#include "bankcheck/core/error.h"

namespace bankcheck {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNoGpu:
      return "no GPU";
    case ErrorKind::kCountersNotPermitted:
      return "counters not permitted";
    case ErrorKind::kProfilerBusy:
      return "profiler busy";
    case ErrorKind::kUnsupportedDevice:
      return "unsupported device";
    case ErrorKind::kTooManyLaunches:
      return "too many launches";
    case ErrorKind::kNestedSession:
      return "nested session";
    case ErrorKind::kKernelFault:
      return "kernel fault";
    case ErrorKind::kUnmeasurable:
      return "unmeasurable launch";
    case ErrorKind::kUnknownMetric:
      return "unknown metric";
    case ErrorKind::kBadInput:
      return "bad input";
    case ErrorKind::kCupti:
      return "CUPTI error";
    case ErrorKind::kCuda:
      return "CUDA error";
    case ErrorKind::kNotEmulated:
      return "not emulated";
    case ErrorKind::kToolMissing:
      return "tool missing";
  }
  return "error";
}

}  // namespace bankcheck
