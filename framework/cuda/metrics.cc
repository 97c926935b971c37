#include "bankcheck/cuda/metrics.h"

#include <cupti_profiler_host.h>

#include <algorithm>
#include <map>
#include <set>

#include "bankcheck/core/error.h"
#include "cuda/internal/cupti_config.h"
#include "cuda/internal/cupti_errors.h"

namespace bankcheck {

std::vector<std::string> KindMetrics(const std::vector<MemoryKind>& hardware_ideal) {
  std::vector<std::string> names;
  const auto add = [&names](const char* name) {
    if (name != nullptr && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const MemoryKindInfo& info : MemoryKinds()) {
    add(info.instructions_metric);
    add(info.wavefronts_metric);
    add(info.conflicts_metric);
    const bool hardware =
        info.ideal == IdealSource::kHardwarePair ||
        (info.ideal == IdealSource::kHardwarePairOnRequest &&
         std::find(hardware_ideal.begin(), hardware_ideal.end(), info.kind) != hardware_ideal.end());
    if (hardware) {
      add(info.hardware_wavefronts_metric);
      add(info.hardware_conflicts_metric);
    }
  }
  return names;
}

const std::vector<std::string>& CoreMetrics() {
  static const std::vector<std::string> kMetrics = KindMetrics();
  return kMetrics;
}

bool IsKindMetric(const std::string& name) {
  for (const MemoryKindInfo& info : MemoryKinds()) {
    for (const char* metric : {info.instructions_metric, info.wavefronts_metric, info.conflicts_metric,
                               info.hardware_wavefronts_metric, info.hardware_conflicts_metric})
      if (metric != nullptr && name == metric) return true;
  }
  return false;
}

struct MetricCatalog::HostObject {
  CUpti_Profiler_Host_Object* object = nullptr;
  // Base name -> metric type (counter, ratio, throughput): sub-metrics are asked per type.
  std::map<std::string, CUpti_MetricType> types;
};

namespace {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string BaseName(const std::string& name) { return name.substr(0, name.find('.')); }
std::string Rollup(const std::string& name) {
  const size_t dot = name.find('.');
  return dot == std::string::npos ? std::string() : name.substr(dot);
}

}  // namespace

std::vector<std::string> SupportedChips() {
  BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_GetSupportedChips_Params, params);
  BANKCHECK_CUPTI_CHECK(cuptiProfilerHostGetSupportedChips(&params));
  return std::vector<std::string>(params.ppChipNames, params.ppChipNames + params.numChips);
}

MetricCatalog::MetricCatalog(const std::string& chip_name) : chip_(chip_name), host_(new HostObject) {
  const std::vector<std::string> chips = SupportedChips();
  if (std::find(chips.begin(), chips.end(), chip_name) == chips.end()) {
    delete host_;
    std::string list;
    for (const std::string& chip : chips) list += (list.empty() ? "" : ", ") + chip;
    throw Error(ErrorKind::kUnsupportedDevice, "CUPTI cannot profile chip '" + chip_name +
                                                   "'. Supported chips: " + list +
                                                   ". Use a supported GPU or a newer CUDA toolkit.");
  }
  try {
    host_->object = internal::NewHostObject(chip_name);
    for (int type = 0; type < CUPTI_METRIC_TYPE__COUNT; ++type) {
      BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params, params);
      params.pHostObject = host_->object;
      params.metricType = static_cast<CUpti_MetricType>(type);
      BANKCHECK_CUPTI_CHECK(cuptiProfilerHostGetBaseMetrics(&params));
      for (size_t i = 0; i < params.numMetrics; ++i) {
        host_->types.emplace(params.ppMetricNames[i], params.metricType);
      }
    }
  } catch (...) {
    internal::DeleteHostObject(host_->object);
    delete host_;
    throw;
  }
  base_metrics_.reserve(host_->types.size());
  for (const auto& entry : host_->types) base_metrics_.push_back(entry.first);
}

MetricCatalog::~MetricCatalog() {
  internal::DeleteHostObject(host_->object);
  delete host_;
}

bool MetricCatalog::IsValid(const std::string& name) const {
  const auto found = host_->types.find(BaseName(name));
  if (found == host_->types.end()) return false;
  const std::string rollup = Rollup(name);
  if (rollup.empty()) return false;  // the range profiler needs a rollup (".sum", ".avg", ...)
  BANKCHECK_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params, params);
  params.pHostObject = host_->object;
  params.metricType = found->second;
  params.pMetricName = found->first.c_str();
  if (cuptiProfilerHostGetSubMetrics(&params) != CUPTI_SUCCESS) return false;
  for (size_t i = 0; i < params.numOfSubmetrics; ++i) {
    if (rollup == params.ppSubMetrics[i]) return true;
  }
  return false;
}

void MetricCatalog::Validate(const std::vector<std::string>& names) const {
  std::string problems;
  for (const std::string& name : names) {
    if (IsValid(name)) continue;
    std::string rollup = Rollup(name);
    if (rollup.empty()) rollup = ".sum";
    std::string suggestions;
    for (const std::string& close : ClosestNames(BaseName(name), base_metrics_)) {
      suggestions += "\n    " + close + rollup;
    }
    problems += "\n  '" + name + "'" +
                (host_->types.count(BaseName(name)) ? " (base metric exists; the rollup '" + Rollup(name) +
                                                          "' does not: use .sum, .avg, .min or .max)"
                                                    : "; closest valid names:" + suggestions);
  }
  if (!problems.empty()) {
    throw Error(ErrorKind::kUnknownMetric, "unknown metric name(s) for chip " + chip_ + ":" + problems +
                                               "\nList all with `ncu --query-metrics --chip " + chip_ + "`.");
  }
}

size_t MetricCatalog::PassesFor(const std::vector<std::string>& names) const {
  Validate(names);
  // A fresh configuration: a host object accumulates metrics and cannot drop them.
  return internal::HostConfig(chip_, names).Passes();
}

std::vector<std::string> ClosestNames(const std::string& name, const std::vector<std::string>& candidates,
                                      size_t limit) {
  std::vector<std::pair<size_t, const std::string*>> scored;
  scored.reserve(candidates.size());
  for (const std::string& candidate : candidates) {
    size_t score = EditDistance(name, candidate);
    // A candidate that contains the name (or the reverse) is a strong hint despite its length.
    if (!name.empty() &&
        (candidate.find(name) != std::string::npos || name.find(candidate) != std::string::npos))
      score =
          std::min(score, std::max(candidate.size(), name.size()) - std::min(candidate.size(), name.size()));
    scored.emplace_back(score, &candidate);
  }
  const size_t count = std::min(limit, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(count), scored.end(),
                    [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first < b.first : *a.second < *b.second;
                    });
  std::vector<std::string> result;
  for (size_t i = 0; i < count; ++i) result.push_back(*scored[i].second);
  return result;
}

}  // namespace bankcheck
