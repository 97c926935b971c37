#include "cuda/internal/cupti_config.h"

#include "cuda/internal/cupti_errors.h"

namespace bankcheck::internal {

CUpti_Profiler_Host_Object* NewHostObject(const std::string& chip) {
  BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, params);
  params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  params.pChipName = chip.c_str();
  BANKCHECK_CUPTI_CHECK(cuptiProfilerHostInitialize(&params));
  return params.pHostObject;
}

void DeleteHostObject(CUpti_Profiler_Host_Object* object) {
  if (object == nullptr) return;
  BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, params);
  params.pHostObject = object;
  cuptiProfilerHostDeinitialize(&params);
}

HostConfig::HostConfig(const std::string& chip, std::vector<std::string> metrics)
    : metrics_(std::move(metrics)), host_(NewHostObject(chip)) {
  try {
    for (const std::string& name : metrics_) metric_names_.push_back(name.c_str());
    BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
    add.pHostObject = host_;
    add.ppMetricNames = metric_names_.data();
    add.numMetrics = metric_names_.size();
    BANKCHECK_CUPTI_CHECK(cuptiProfilerHostConfigAddMetrics(&add));
    BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, size);
    size.pHostObject = host_;
    BANKCHECK_CUPTI_CHECK(cuptiProfilerHostGetConfigImageSize(&size));
    image_.assign(size.configImageSize, 0);
    BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, get);
    get.pHostObject = host_;
    get.configImageSize = image_.size();
    get.pConfigImage = image_.data();
    BANKCHECK_CUPTI_CHECK(cuptiProfilerHostGetConfigImage(&get));
  } catch (...) {
    DeleteHostObject(host_);
    throw;
  }
}

HostConfig::~HostConfig() { DeleteHostObject(host_); }

size_t HostConfig::Passes() const {
  BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, count);
  count.configImageSize = image_.size();
  count.pConfigImage = const_cast<uint8_t*>(image_.data());
  BANKCHECK_CUPTI_CHECK(cuptiProfilerHostGetNumOfPasses(&count));
  return count.numOfPasses;
}

}  // namespace bankcheck::internal
