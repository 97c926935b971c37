#include "bankcheck/testing.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace bankcheck::testing {

int ExitCodeOf(int run_all_tests_result) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (run_all_tests_result == 0 && unit.test_to_run_count() > 0 &&
      unit.skipped_test_count() == unit.test_to_run_count())
    return kAllSkippedExitCode;
  return run_all_tests_result;
}

bool GpuRequired() {
  const char* value = std::getenv("BANKCHECK_REQUIRE_GPU");
  return value != nullptr && (std::strcmp(value, "1") == 0 || std::strcmp(value, "true") == 0 ||
                              std::strcmp(value, "yes") == 0 || std::strcmp(value, "ON") == 0);
}

void CounterSessionEnvironment::SetUp() { PrepareCounterSession(); }

std::string NoGpuMessage(const GpuProbe& probe) {
  if (GpuRequired()) {
    return "BANKCHECK_REQUIRE_GPU=1 is set but there is no usable GPU: " + probe.reason +
           ". A GPU runner must be able to run GPU tests; fix the runner (see ci/README.md) or unset "
           "BANKCHECK_REQUIRE_GPU on machines without a GPU.";
  }
  return "GPU test skipped, no usable GPU: " + probe.reason;
}

void RecordLaunchProperties(const std::vector<LaunchRecord>& records) {
  auto record = [](const std::string& key, uint64_t value) {
    ::testing::Test::RecordProperty(key, std::to_string(value));
  };
  for (size_t i = 0; i < records.size(); ++i) {
    const LaunchRecord& r = records[i];
    const std::string prefix = "launch" + std::to_string(i) + ".";
    ::testing::Test::RecordProperty(prefix + "kernel", r.kernel);
    ::testing::Test::RecordProperty(prefix + "grid", ToString(r.grid));
    ::testing::Test::RecordProperty(prefix + "block", ToString(r.block));
    for (const SharedKind kind : ShownKinds(r)) {
      const SharedCounts& c = r.shared[kind];
      const std::string label = prefix + InfoOf(kind).label;
      record(label + "_instructions", c.instructions);
      record(label + "_wavefronts", c.wavefronts);
      if (c.ideal_known()) {
        record(label + "_ideal", c.ideal_wavefronts);
        record(label + "_conflicts", c.conflicts());
      }
      if (r.counted_by == CountedBy::kRangeProfiler && InfoOf(kind).hardware_wavefronts_metric != nullptr) {
        record(prefix + "hw_" + InfoOf(kind).label + "_wavefronts", r.hardware[kind].wavefronts);
        record(prefix + "hw_" + InfoOf(kind).label + "_bank_conflicts", r.hardware[kind].bank_conflicts);
      }
    }
    for (const auto& [name, value] : r.extra_metrics) {
      std::ostringstream text;
      text << value;
      ::testing::Test::RecordProperty(prefix + name, text.str());
    }
  }
}

std::string VisibleDevicesForCtestAllocation(const char* ctest_gpus, const char* cuda_visible_devices) {
  if (ctest_gpus == nullptr) return {};
  const std::string allocation = ctest_gpus;  // "id:1,slots:1"
  const size_t start = allocation.find("id:");
  if (start == std::string::npos) return {};
  const std::string id = allocation.substr(start + 3, allocation.find(',', start) - start - 3);
  if (cuda_visible_devices == nullptr || *cuda_visible_devices == '\0') return id;
  std::stringstream visible(cuda_visible_devices);
  std::string device;
  for (unsigned long index = std::stoul(id); std::getline(visible, device, ','); --index) {
    if (index == 0) return device;
  }
  return id;
}

void SelectGpuFromCtestAllocation() {
  const std::string devices = VisibleDevicesForCtestAllocation(std::getenv("CTEST_RESOURCE_GROUP_0_GPUS"),
                                                               std::getenv("CUDA_VISIBLE_DEVICES"));
  if (devices.empty()) return;
  setenv("CUDA_VISIBLE_DEVICES", devices.c_str(), 1);
  std::fprintf(stderr, "bankcheck: running on the GPU CTest allocated: CUDA_VISIBLE_DEVICES=%s\n",
               devices.c_str());
}

std::vector<LaunchRecord> MeasureLaunches(const std::function<void()>& launches,
                                          const SessionOptions& options) {
  std::vector<LaunchRecord> records = Measure(launches, options);
  RecordLaunchProperties(records);
  return records;
}

LaunchRecord MeasureLaunch(const std::function<void()>& launch, const SessionOptions& options) {
  std::vector<LaunchRecord> records = MeasureLaunches(launch, options);
  if (records.size() != 1) {
    ADD_FAILURE() << "MeasureLaunch expected exactly one kernel launch, saw " << records.size()
                  << " (use MeasureLaunches for several)";
    return {};
  }
  return records.front();
}

}  // namespace bankcheck::testing
