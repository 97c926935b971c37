#include "bankcheck/testing/testing.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <vector>

#include "bankcheck/core/error.h"
#include "core/platform/environment.h"
#include "core/records/launch_emulation.h"

namespace bankcheck::gtest {

int ExitCodeOf(int run_all_tests_result) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (run_all_tests_result == 0 && unit.test_to_run_count() > 0 &&
      unit.skipped_test_count() == unit.test_to_run_count())
    return kAllSkippedExitCode;
  return run_all_tests_result;
}

bool GpuRequired() { return FlagFromEnvironment("BANKCHECK_REQUIRE_GPU"); }

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
    for (const MemoryKind kind : ShownKinds(r)) {
      const KindCounts& c = r.kinds[kind];
      const std::string label = prefix + InfoOf(kind).label;
      record(label + "_instructions", c.instructions);
      record(label + "_" + TrafficUnit(kind), c.wavefronts);
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

bool SkipOutputCheck(const std::string& what) {
  // Emulated, the check runs where every byte the case read back was computed (docs/emulate.md).
  const internal::LaunchEmulation* emulation = internal::InstalledLaunchEmulation();
  if (emulation == nullptr || emulation->OutputNotComputed().empty()) return false;
  std::cout << "  note: " << internal::kOutputNotChecked << ": " << what << "\n";
  ::testing::Test::RecordProperty("output_not_checked", internal::kOutputNotChecked);
  return true;
}

namespace {
// The value of `key` in CTest's "id:1,slots:1" (its first group when it lists several, split by
// ';'); "" when absent.
std::string AllocationField(const std::string& allocation, const std::string& key) {
  std::stringstream fields(allocation.substr(0, allocation.find(';')));
  for (std::string field; std::getline(fields, field, ',');)
    if (field.compare(0, key.size() + 1, key + ":") == 0) return field.substr(key.size() + 1);
  return "";
}

Error BadAllocation(const std::string& allocation, const std::string& why) {
  return Error(ErrorKind::kBadInput,
               "CTEST_RESOURCE_GROUP_0_GPUS='" + allocation + "' " + why +
                   "; it comes from ctest --resource-spec-file (ci/lib/common.sh writes "
                   "one with ids 0, 1, ... for the visible GPUs): check that file");
}
}  // namespace

std::string VisibleDevicesForCtestAllocation(const char* ctest_gpus, const char* cuda_visible_devices) {
  if (ctest_gpus == nullptr) return {};
  const std::string allocation = ctest_gpus;  // "id:1,slots:1"
  const std::string id = AllocationField(allocation, "id");
  if (id.empty() || id.size() > 6 || id.find_first_not_of("0123456789") != std::string::npos)
    throw BadAllocation(allocation, "has no GPU index (expected \"id:<number>,slots:<number>\")");
  if (cuda_visible_devices == nullptr || *cuda_visible_devices == '\0') return id;
  std::vector<std::string> visible;
  std::stringstream list(cuda_visible_devices);
  for (std::string device; std::getline(list, device, ',');) visible.push_back(device);
  const size_t index = std::stoul(id);
  if (index >= visible.size()) {
    throw BadAllocation(allocation, "names GPU " + id + " but CUDA_VISIBLE_DEVICES='" + cuda_visible_devices +
                                        "' allows " + std::to_string(visible.size()) +
                                        " (ids index that list, from 0)");
  }
  return visible[index];
}

bool SelectGpuFromCtestAllocation() {
  std::string devices;
  try {
    devices = VisibleDevicesForCtestAllocation(std::getenv("CTEST_RESOURCE_GROUP_0_GPUS"),
                                               std::getenv("CUDA_VISIBLE_DEVICES"));
  } catch (const Error& e) {
    std::fprintf(stderr, "bankcheck: error: %s\n", e.what());
    return false;
  }
  if (devices.empty()) return true;
  setenv("CUDA_VISIBLE_DEVICES", devices.c_str(), 1);
  std::fprintf(stderr, "bankcheck: running on the GPU CTest allocated: CUDA_VISIBLE_DEVICES=%s\n",
               devices.c_str());
  return true;
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

}  // namespace bankcheck::gtest
