// generated_cuda_meta.h (the driver functions' parameter structs) names the legacy _v1 types,
// which cuda.h declares only for its own internal build: defined before anything includes cuda.h.
#define __CUDA_API_VERSION_INTERNAL 1
#include "cuda/internal/launch_callbacks.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "core/records/run_cases.h"
#include "cuda/internal/cupti_errors.h"
#include "cuda/internal/launch_log.h"
#include "cuda/internal/launch_observer.h"
#include "cuda/internal/nvtx_ranges.h"
#include "cuda/internal/process_state.h"
#include "cuda/internal/sass_metrics.h"
#include "cuda/internal/stream_capture.h"

namespace bankcheck::internal {
namespace {

LaunchObserver* launch_observer = nullptr;
// The index of the next launch (LaunchRecord::process_launch).
std::atomic<uint64_t> next_launch{0};

// The functions that launch work the session records.
constexpr CUpti_CallbackId kLaunchFunctions[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};
// The functions that make and destroy the executable graphs it names.
constexpr CUpti_CallbackId kGraphFunctions[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy,
};

// The functions that begin and end a stream capture (stream_capture.h).
constexpr CUpti_CallbackId kCaptureFunctions[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
};

// The stream a call names, as the driver takes it: a per-thread-default-stream function (_ptsz)
// given the null stream means this thread's default stream, not the legacy one.
CUstream StreamAsCalled(CUpti_CallbackId id, CUstream stream) {
  const bool per_thread = id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                          id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
                          id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
                          id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz ||
                          id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz ||
                          id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz ||
                          id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz ||
                          id == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz;
  return per_thread && stream == nullptr ? CU_STREAM_PER_THREAD : stream;
}

// Follows the capture sequences (stream_capture.h): a begin counts from its entry, an end at its exit.
// Every capture function's parameters start with the stream.
void OnCaptureCall(CUpti_CallbackId id, const CUpti_CallbackData& info) {
  StreamCaptures& captures = TheStreamCaptures();
  const CUstream stream = StreamAsCalled(id, *static_cast<const CUstream*>(info.functionParams));
  const bool end = id == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture ||
                   id == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz;
  // Whether the end call in progress on this thread ends a capture (from its entry to its exit).
  thread_local bool ending = false;
  if (info.callbackSite == CUPTI_API_ENTER) {
    if (end)
      ending = captures.EndEntered(stream);
    else
      captures.BeginEntered();
    return;
  }
  const CUresult result = *static_cast<const CUresult*>(info.functionReturnValue);
  if (end)
    captures.EndExited(stream, ending, result);
  else
    captures.BeginExited(result);
}

bool IsCaptureFunction(CUpti_CallbackId id) {
  return std::find(std::begin(kCaptureFunctions), std::end(kCaptureFunctions), id) !=
         std::end(kCaptureFunctions);
}

bool IsGraphLaunch(CUpti_CallbackId id) {
  return id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

bool IsLaunchFunction(CUpti_CallbackId id) {
  return std::find(std::begin(kLaunchFunctions), std::end(kLaunchFunctions), id) !=
         std::end(kLaunchFunctions);
}

// At the exit of a graph instantiation: the new executable graph and the graph it was made from.
std::optional<std::pair<CUgraphExec, CUgraph>> Instantiated(CUpti_CallbackId id, const void* params) {
  const auto made = [](auto* p) -> std::optional<std::pair<CUgraphExec, CUgraph>> {
    if (p->phGraphExec == nullptr) return std::nullopt;
    return std::make_pair(*p->phGraphExec, p->hGraph);
  };
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate:
      return made(static_cast<const cuGraphInstantiate_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2:
      return made(static_cast<const cuGraphInstantiate_v2_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags:
      return made(static_cast<const cuGraphInstantiateWithFlags_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams:
      return made(static_cast<const cuGraphInstantiateWithParams_params*>(params));
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz:
      return made(static_cast<const cuGraphInstantiateWithParams_ptsz_params*>(params));
    default:
      return std::nullopt;
  }
}

// At the exit of cuGraphExecUpdate: the executable graph and the graph it now runs.
std::optional<std::pair<CUgraphExec, CUgraph>> Updated(CUpti_CallbackId id, const void* params) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate: {
      const auto* p = static_cast<const cuGraphExecUpdate_params*>(params);
      return std::make_pair(p->hGraphExec, p->hGraph);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2: {
      const auto* p = static_cast<const cuGraphExecUpdate_v2_params*>(params);
      return std::make_pair(p->hGraphExec, p->hGraph);
    }
    default:
      return std::nullopt;
  }
}

bool MakesGraphExec(CUpti_CallbackId id) {
  return id != CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy &&
         std::find(std::begin(kGraphFunctions), std::end(kGraphFunctions), id) != std::end(kGraphFunctions);
}

// Graph instantiation, update, destruction and launch: what the log keeps of graphs.
void OnGraphCall(CUpti_CallbackId id, const CUpti_CallbackData& info, const LaunchInfo& origin) {
  LaunchLog& log = TheLaunchLog();
  // The instrumentation around an instantiation or update outside a session (this thread's).
  thread_local std::unique_ptr<SassCounting> instrumented;
  thread_local bool measurable = false;
  // Whether this thread's instantiation or update holds a span (stream_capture.h): outside a session,
  // the instrumentation is made only where no capture is in progress.
  thread_local bool in_span = false;
  if (MakesGraphExec(id)) {
    if (info.callbackSite == CUPTI_API_ENTER) {
      const bool recording = log.recording();
      in_span = !recording && TheStreamCaptures().EnterSpan();
      instrumented = in_span ? TheProcessState().ProfilableInstantiation(info.context) : nullptr;
      measurable = recording || instrumented != nullptr;
      return;
    }
    instrumented.reset();
    if (in_span) TheStreamCaptures().LeaveSpan();
    in_span = false;
    if (*static_cast<const CUresult*>(info.functionReturnValue) != CUDA_SUCCESS) return;
    // Read the graph's nodes (driver calls) before the log takes its lock.
    if (const auto made = Instantiated(id, info.functionParams); made && made->first != nullptr) {
      log.AddGraph(made->first, GraphExec{KernelNodesOf(made->second), measurable});
    } else if (const auto updated = Updated(id, info.functionParams)) {
      log.UpdateGraph(updated->first, KernelNodesOf(updated->second), measurable);
    }
    return;
  }
  if (info.callbackSite == CUPTI_API_EXIT) return;
  if (id == CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy) {
    log.ForgetGraph(static_cast<const cuGraphExecDestroy_params*>(info.functionParams)->hGraphExec);
    return;
  }
  if (!IsGraphLaunch(id)) return;
  // Both launch functions' parameters start with the executable graph.
  log.RecordGraphLaunch(static_cast<const cuGraphLaunch_params*>(info.functionParams)->hGraph, info.context,
                        origin);
}

// The shape of a kernel launch from a launch function's parameters; nullopt for other functions.
std::optional<LaunchInfo> LaunchShape(CUpti_CallbackId id, const void* params) {
  LaunchInfo launch;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchKernel_params*>(params);
      launch.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      launch.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      launch.dynamic_shared_bytes = p->sharedMemBytes;
      launch.stream = p->hStream;
      return launch;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* c = static_cast<const cuLaunchKernelEx_params*>(params)->config;
      launch.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
      launch.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
      launch.dynamic_shared_bytes = c->sharedMemBytes;
      launch.stream = c->hStream;
      return launch;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
      launch.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      launch.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      launch.dynamic_shared_bytes = p->sharedMemBytes;
      launch.stream = p->hStream;
      return launch;
    }
    default:
      return std::nullopt;
  }
}

// The stream a kernel or graph launch goes into, as the driver takes it.
CUstream LaunchStream(CUpti_CallbackId id, const void* params) {
  if (IsGraphLaunch(id)) return StreamAsCalled(id, static_cast<const cuGraphLaunch_params*>(params)->hStream);
  const std::optional<LaunchInfo> shape = LaunchShape(id, params);
  return StreamAsCalled(id, shape ? shape->stream : nullptr);
}

// The bytes of a launch's arguments, as the kernel will see them: each parameter's bytes (sizes from
// cuFuncGetParamInfo) from `params`, or the packed buffer of `extra`; nullopt when they cannot be
// read, so that such a launch is never taken for a repeat.
using ParamInfoFn = CUresult (*)(void*, size_t, size_t*, size_t*);

// cuFuncGetParamInfo and cuKernelGetParamInfo (CUDA 12.4), looked up through the runtime once, as
// every driver function bankcheck calls is: the library is not linked with the driver. Null when
// the driver lacks it. Both are needed: the runtime launches through a CUkernel (context-independent
// loading) as often as through a CUfunction, and the launch callback's handle is either.
ParamInfoFn ParamInfo(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult query{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12040, cudaEnableDefault, &query) != cudaSuccess ||
      query != cudaDriverEntryPointSuccess)
    fn = nullptr;
  return reinterpret_cast<ParamInfoFn>(fn);
}

std::optional<std::string> ArgumentBytes(CUfunction function, void** params, void** extra) {
  std::string bytes;
  if (params != nullptr) {
    static const ParamInfoFn function_info = ParamInfo("cuFuncGetParamInfo");
    static const ParamInfoFn kernel_info = ParamInfo("cuKernelGetParamInfo");
    // The query that knows this handle: the one that answers for its first parameter. A kernel
    // without parameters gets no answer from either and is measured every time, as is any launch
    // whose handle neither query knows (never taken for a repeat on a guess).
    ParamInfoFn param_info = nullptr;
    size_t offset = 0, size = 0;
    for (const ParamInfoFn candidate : {function_info, kernel_info}) {
      if (candidate != nullptr && candidate(function, 0, &offset, &size) == CUDA_SUCCESS) {
        param_info = candidate;
        break;
      }
    }
    if (param_info == nullptr) return std::nullopt;
    constexpr size_t kMaxParameters = 4096;  // 32 KiB of parameters at most, 8 bytes or more each
    for (size_t i = 0; i < kMaxParameters; ++i) {
      const CUresult status = param_info(function, i, &offset, &size);
      if (status == CUDA_ERROR_INVALID_VALUE) return bytes;  // past the last parameter
      if (status != CUDA_SUCCESS || params[i] == nullptr) return std::nullopt;
      bytes.append(reinterpret_cast<const char*>(&size), sizeof size);
      bytes.append(static_cast<const char*>(params[i]), size);
    }
    return std::nullopt;
  }
  if (extra != nullptr) {
    const void* buffer = nullptr;
    const size_t* size = nullptr;
    for (size_t i = 0; i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        buffer = extra[i + 1];
      else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
        size = static_cast<const size_t*>(extra[i + 1]);
      else
        return std::nullopt;
    }
    if (buffer == nullptr || size == nullptr) return std::nullopt;
    return std::string(static_cast<const char*>(buffer), *size);
  }
  return bytes;  // a kernel without parameters
}

// LaunchConfigurationKey of a kernel launch; "" when its arguments cannot be read.
std::string ConfigurationOf(CUpti_CallbackId id, const void* params, const ObservedLaunch& observed) {
  std::optional<LaunchInfo> shape = LaunchShape(id, params);
  if (!shape) return "";
  CUfunction function = nullptr;
  void** arguments = nullptr;
  void** extra = nullptr;
  std::string attributes;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchKernel_params*>(params);
      std::tie(function, arguments, extra) = std::make_tuple(p->f, p->kernelParams, p->extra);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
      std::tie(function, arguments, extra) = std::make_tuple(p->f, p->kernelParams, p->extra);
      // Launch attributes (a cluster's shape, a priority) are part of the configuration: compared as
      // their bytes (padding that differs only makes another measurement).
      if (p->config->numAttrs != 0 && p->config->attrs == nullptr) return "";
      attributes.assign(reinterpret_cast<const char*>(p->config->attrs),
                        sizeof(CUlaunchAttribute) * p->config->numAttrs);
      break;
    }
    default:  // cooperative launches: measured every time
      return "";
  }
  const std::optional<std::string> bytes = ArgumentBytes(function, arguments, extra);
  if (!bytes) return "";
  return LaunchConfigurationKey(observed.nvtx_range, observed.mangled, shape->grid, shape->block,
                                shape->dynamic_shared_bytes,
                                std::to_string(attributes.size()) + ":" + attributes + *bytes);
}

void CUPTIAPI OnCuptiCallback(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                              const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    OnModuleLoaded(data);  // for instruction attribution: source lines and opcodes
    return;
  }
  LaunchLog& log = TheLaunchLog();
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    const CUcontext context = static_cast<const CUpti_ResourceData*>(data)->context;
    if (launch_observer != nullptr) launch_observer->OnContextDestroy(context);
    log.ForgetContext(context);
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (IsCaptureFunction(id)) {
    OnCaptureCall(id, *info);
    return;
  }
  LaunchInfo origin;
  if (IsLaunchFunction(id)) {
    // Whether this thread's launch in progress holds a span (stream_capture.h): from its entry to the
    // end of its counting at its exit.
    thread_local bool in_span = false;
    if (info->callbackSite == CUPTI_API_EXIT) {
      log.ExitLaunch();
      if (in_span) TheStreamCaptures().LeaveSpan();
      in_span = false;
      return;
    }
    const CaptureVerdict verdict =
        TheStreamCaptures().EnterLaunchSpan(LaunchStream(id, info->functionParams));
    in_span = verdict == CaptureVerdict::kFree;
    if (verdict == CaptureVerdict::kCaptured) {
      // A graph node, not a launch of the process: it runs, and is measured, when its graph is launched.
      log.EnterLaunch();
      return;
    }
    // It runs, unmeasured: no CUDA call is made for it (its observer and session refuse it).
    if (verdict == CaptureVerdict::kCaptureElsewhere) origin.context_unmeasurable = CaptureInProgressReason();
    origin.nvtx_range = CurrentNvtxRange();
    origin.process_launch = next_launch.fetch_add(1);
    if (launch_observer != nullptr) {
      ObservedLaunch observed;
      observed.context = info->context;
      observed.mangled = IsGraphLaunch(id) ? nullptr : info->symbolName;
      observed.nvtx_range = origin.nvtx_range;
      observed.process_launch = origin.process_launch;
      observed.unmeasurable = origin.context_unmeasurable;
      if (observed.mangled != nullptr && in_span && launch_observer->WantsConfigurations())
        observed.configuration = ConfigurationOf(id, info->functionParams, observed);
      launch_observer->OnLaunch(observed);
    }
    log.EnterLaunch();
  }
  std::optional<LaunchInfo> launch =
      info->callbackSite == CUPTI_API_ENTER ? LaunchShape(id, info->functionParams) : std::nullopt;
  if (!launch) {
    OnGraphCall(id, *info, origin);
    return;
  }
  // symbolName is valid only inside the callback: copy it.
  launch->mangled = info->symbolName != nullptr ? info->symbolName : "<unknown kernel>";
  launch->nvtx_range = std::move(origin.nvtx_range);
  launch->process_launch = origin.process_launch;
  launch->context_unmeasurable = std::move(origin.context_unmeasurable);
  log.RecordLaunch(std::move(*launch), info->context);
}

}  // namespace

LaunchCallbacks::LaunchCallbacks() {
  BANKCHECK_CUPTI_CHECK(
      cuptiSubscribe(&subscriber_, reinterpret_cast<CUpti_CallbackFunc>(&OnCuptiCallback), nullptr));
  try {
    // Only the launch, graph and capture functions: every other driver call stays free of the callback.
    for (const CUpti_CallbackId id : kLaunchFunctions)
      BANKCHECK_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id));
    for (const CUpti_CallbackId id : kGraphFunctions)
      BANKCHECK_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id));
    for (const CUpti_CallbackId id : kCaptureFunctions)
      BANKCHECK_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id));
    BANKCHECK_CUPTI_CHECK(
        cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED));
    BANKCHECK_CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE,
                                              CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
  } catch (...) {
    cuptiUnsubscribe(subscriber_);
    throw;
  }
}

void SetLaunchObserver(LaunchObserver* observer) { launch_observer = observer; }

LaunchCallbacks::~LaunchCallbacks() { cuptiUnsubscribe(subscriber_); }

}  // namespace bankcheck::internal
