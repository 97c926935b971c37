#pragma once
// The Perfworks metric names bankcheck reads, and validation of user-chosen names against a chip.

#include <string>
#include <vector>

#include "bankcheck/core/memory_kind.h"

namespace bankcheck {

// The metrics that give every kind's counts (the table in memory_kind.h): instrumented
// instructions, wavefronts and conflicts, and the hardware pairs of kHardwarePair kinds and of the
// kHardwarePairOnRequest kinds named in `hardware_ideal`. In table order, without duplicates.
std::vector<std::string> KindMetrics(const std::vector<MemoryKind>& hardware_ideal = {});
// KindMetrics({}): what every launch record needs. On the H100: 2 replay passes (one for the
// instrumented metrics, one for the LDS/STS hardware pairs); each requested pair adds one.
const std::vector<std::string>& CoreMetrics();
// Whether `name` is one of the table's metrics (of any kind).
bool IsKindMetric(const std::string& name);

// Metric names of one chip ("GH100", "GA100", ...), read from CUPTI's host library. Works on a
// machine without a GPU or driver: it needs only libnvperf_host.
class MetricCatalog {
 public:
  // Throws Error(kUnsupportedDevice) when CUPTI does not know the chip.
  explicit MetricCatalog(const std::string& chip_name);
  ~MetricCatalog();
  MetricCatalog(const MetricCatalog&) = delete;
  MetricCatalog& operator=(const MetricCatalog&) = delete;

  const std::string& chip() const { return chip_; }
  // Base metric names (no rollup suffix), sorted.
  const std::vector<std::string>& base_metrics() const { return base_metrics_; }
  // Whether CUPTI accepts `name` (with its rollup, e.g. ".sum") for this chip.
  bool IsValid(const std::string& name) const;
  // Throws Error(kUnknownMetric) naming the closest valid names when any name is not valid.
  void Validate(const std::vector<std::string>& names) const;
  // Number of replay passes the metrics need (instrumented and hardware metrics never share one).
  size_t PassesFor(const std::vector<std::string>& names) const;

 private:
  std::string chip_;
  std::vector<std::string> base_metrics_;
  struct HostObject;
  HostObject* host_ = nullptr;  // owned
};

// Chips this CUPTI can profile.
std::vector<std::string> SupportedChips();

// Up to `limit` names from `candidates` closest to `name` (edit distance on the base name, then
// shared substrings), best first.
std::vector<std::string> ClosestNames(const std::string& name, const std::vector<std::string>& candidates,
                                      size_t limit = 5);

}  // namespace bankcheck
