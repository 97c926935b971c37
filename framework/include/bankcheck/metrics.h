#pragma once
// The Perfworks metric names bankcheck reads, and validation of user-chosen names against a chip.

#include <string>
#include <vector>

namespace bankcheck {

namespace metric {
// Instrumented (SASS-patching) counters: exact at every scale.
inline constexpr const char kSharedLoadInstructions[] = "smsp__sass_inst_executed_op_shared_ld.sum";
inline constexpr const char kSharedStoreInstructions[] = "smsp__sass_inst_executed_op_shared_st.sum";
inline constexpr const char kSharedLoadWavefronts[] =
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr const char kSharedStoreWavefronts[] =
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
// Hardware counters: exact only when nothing else competes for the L1 data banks.
inline constexpr const char kHardwareLoadWavefronts[] =
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr const char kHardwareStoreWavefronts[] =
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
inline constexpr const char kHardwareLoadConflicts[] =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char kHardwareStoreConflicts[] =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
}  // namespace metric

// The eight metrics every launch record needs, in a fixed order.
const std::vector<std::string>& CoreMetrics();

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
