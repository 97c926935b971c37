#pragma once
// A CUPTI host object configured for one set of metrics, with its config image: what both the
// counter session and MetricCatalog::PassesFor need. Host-side only: works without a GPU.

#include <cupti_profiler_host.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::internal {

// A range-profiler host object for `chip`; Error on failure. Pair with DeleteHostObject.
CUpti_Profiler_Host_Object* NewHostObject(const std::string& chip);
void DeleteHostObject(CUpti_Profiler_Host_Object* object);

class HostConfig {
 public:
  // Throws the mapped CUPTI error when a metric cannot be added (validate names first for a
  // better message).
  HostConfig(const std::string& chip, std::vector<std::string> metrics);
  ~HostConfig();
  HostConfig(const HostConfig&) = delete;
  HostConfig& operator=(const HostConfig&) = delete;

  CUpti_Profiler_Host_Object* host() const { return host_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  // The metric names as CUPTI takes them (pointing into metrics()).
  const std::vector<const char*>& metric_names() const { return metric_names_; }
  const std::vector<uint8_t>& image() const { return image_; }
  // Replay passes the configuration needs.
  size_t Passes() const;

 private:
  std::vector<std::string> metrics_;
  std::vector<const char*> metric_names_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  std::vector<uint8_t> image_;
};

}  // namespace bankcheck::internal
