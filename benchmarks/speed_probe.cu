// bankcheck_speed_probe: the same suite-like launches measured three ways, for ncu_speed.sh (the
// goal: an in-process counter session must be much cheaper than Nsight Compute).
//
// One round is 7 launches: the strided store/load demo at stride 1, 2 and 32 (4,096 one-warp
// blocks), a 1024x1024 float transpose through an unpadded and a padded tile (32x8 blocks), and the
// puzzle pair (8K elements, 32 blocks of 256). --rounds=6 (the default) gives 42 launches.
//
//   --mode=bankcheck     warms up (untimed), then measures all launches in one CounterSession (by
//                        default through the SASS Metrics API; --counters=range-profiler: a counter
//                        session of bankcheck::CoreMetrics()); prints the host wall time from before
//                        the session to after Finish() (session_ms; --sessions=N repeats it, the first
//                        pays CUPTI's setup and instrumentation) and how many times each launch ran
//                        (passes); --launches-per-session=N measures them in consecutive sessions of N
//                        launches instead (the suite: one case each)
//   --mode=plain         just the launches, nothing else, for `ncu --metrics ...` to profile
//   --mode=kernels-only  times each launch with CUDA events, no profiler (kernel_ms: the sum, median
//                        of 5 runs), to subtract the kernels' own time from session_ms
//   --extra-mib=N        also allocates N MiB of device memory that no kernel touches (does kernel
//                        replay's save and restore of device memory set the cost per launch?)
//   --atomic-ideal       also reads the shared-atomic hardware pair (SessionOptions::hardware_ideal,
//                        so a range-profiler session): one replay pass more than the core metrics,
//                        to price a pass
//   --replay=user        a range-profiler session with SessionOptions::Replay::kUser
//   --no-prepare         does not call PrepareCounterSession(): the first session does all of CUPTI's
//                        set-up, loading its profiler library included
//   --print-metrics      prints CoreMetrics() comma-joined (for ncu --metrics) and exits
//   --print-kinds        prints the kind table (memory_kind.h) as tab-separated lines, metric names
//                        ("-" for none) with every hardware pair, and exits (for ncu_crosscheck.sh);
//                        the traffic column is ncu's launch metric of it (NcuTrafficMetric)
//
// Output: key=value lines on stdout. Exit status: 0 ok, 1 failure (or no GPU), 2 bad arguments.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/gpu_probe.h"
#include "bankcheck/cuda/metrics.h"
#include "demo_kernels.cuh"

namespace bankcheck::bench {
namespace {

constexpr size_t kStridedElements = size_t{4096} * kWarp;  // 4,096 one-warp blocks
constexpr int kTransposeSize = 1024;
constexpr size_t kPuzzleElements = size_t{32} * kPuzzleThreads;

struct Options {
  std::string mode;
  int rounds = 6;
  int sessions = 1;
  int launches_per_session = 0;  // 0: all launches in one session
  int extra_mib = 0;             // device memory allocated besides the launches' own buffers
  bool user_replay = false;      // SessionOptions::Replay::kUser instead of kernel replay
  bool range_profiler = false;   // SessionOptions::Counters::kRangeProfiler
  bool atomic_ideal = false;     // also the shared-atomic hardware pair: one more replay pass
  bool print_metrics = false;
  bool print_kinds = false;
  bool prepare = true;  // PrepareCounterSession() before the launches, as a test does
};

// The launches of `rounds` rounds, over buffers that live as long as the returned functions.
std::vector<std::function<void()>> MakeLaunches(int rounds) {
  auto strided_in = std::make_shared<DeviceBuffer<float>>(PatternFloats(kStridedElements, 1));
  auto strided_out = std::make_shared<DeviceBuffer<float>>(kStridedElements);
  const size_t matrix = static_cast<size_t>(kTransposeSize) * kTransposeSize;
  auto matrix_in = std::make_shared<DeviceBuffer<float>>(PatternFloats(matrix, 2));
  auto matrix_out = std::make_shared<DeviceBuffer<float>>(matrix);
  auto puzzle_in = std::make_shared<DeviceBuffer<float>>(PatternFloats(kPuzzleElements, 3));
  auto puzzle_out = std::make_shared<DeviceBuffer<float>>(kPuzzleElements);

  std::vector<std::function<void()>> round;
  for (const int stride : {1, 2, 32}) {
    round.push_back(
        [=] { LaunchStridedStoreLoad(strided_in->get(), strided_out->get(), kStridedElements, stride); });
  }
  round.push_back([=] {
    LaunchTranspose<TileLayout::kUnpadded>(matrix_in->get(), matrix_out->get(), kTransposeSize,
                                           kTransposeSize);
  });
  round.push_back([=] {
    LaunchTranspose<TileLayout::kPadded>(matrix_in->get(), matrix_out->get(), kTransposeSize, kTransposeSize);
  });
  round.push_back([=] { LaunchPuzzle<false>(puzzle_in->get(), puzzle_out->get(), kPuzzleElements); });
  round.push_back([=] { LaunchPuzzle<true>(puzzle_in->get(), puzzle_out->get(), kPuzzleElements); });

  std::vector<std::function<void()>> launches;
  for (int r = 0; r < rounds; ++r) launches.insert(launches.end(), round.begin(), round.end());
  return launches;
}

void RunAll(const std::vector<std::function<void()>>& launches) {
  for (const auto& launch : launches) launch();
  BANKCHECK_CUDA_CHECK(cudaGetLastError());
  BANKCHECK_CUDA_CHECK(cudaDeviceSynchronize());
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Measures `launches` in consecutive counter sessions of `per_session` launches each (0: all in
// one session) and prints the time of all of them. The suite measures one case, usually one
// launch, per session; CUPTI's cost per launch grows with the launches already in a session.
void MeasureWithBankcheck(const std::vector<std::function<void()>>& launches, int sessions,
                          size_t per_session, SessionOptions options) {
  RunAll(launches);  // warm-up, untimed: module loading and first-launch costs are not the session's
  if (per_session == 0) per_session = launches.size();
  options.max_launches = per_session;
  // How many times each launch runs: once counted through SASS metrics; once per replay pass in a
  // range-profiler session (the core metrics mix instrumented and hardware counters: two passes,
  // and one more for each hardware ideal asked for).
  const bool range_profiler = CountersFor(options) == SessionOptions::Counters::kRangeProfiler;
  std::printf("counters=%s\npasses=%zu\n", range_profiler ? "range-profiler" : "sass",
              range_profiler ? 2 + options.hardware_ideal.size() : 1);
  for (int s = 0; s < sessions; ++s) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<LaunchRecord> records;
    for (size_t first = 0; first < launches.size(); first += per_session) {
      const std::vector<LaunchRecord> measured = Measure(
          [&] {
            for (size_t i = first; i < std::min(first + per_session, launches.size()); ++i) launches[i]();
          },
          options);
      records.insert(records.end(), measured.begin(), measured.end());
    }
    const double ms = MsSince(start);
    uint64_t load_conflicts = 0;
    for (const LaunchRecord& record : records) load_conflicts += record.loads().conflicts();
    if (records.size() != launches.size()) {
      throw Error(ErrorKind::kCupti, "the sessions recorded " + std::to_string(records.size()) +
                                         " launches, expected " + std::to_string(launches.size()));
    }
    std::printf("session%d_ms=%.3f\n", s + 1, ms);
    if (s == 0) {
      std::printf("session_ms=%.3f\nrecords=%zu\nlaunches_per_session=%zu\nld_conflicts_total=%llu\n", ms,
                  records.size(), per_session, static_cast<unsigned long long>(load_conflicts));
    }
  }
}

void TimeKernelsOnly(const std::vector<std::function<void()>>& launches) {
  RunAll(launches);  // warm-up
  cudaEvent_t start = nullptr, stop = nullptr;
  BANKCHECK_CUDA_CHECK(cudaEventCreate(&start));
  BANKCHECK_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> totals;
  for (int rep = 0; rep < 5; ++rep) {
    double total = 0;
    for (const auto& launch : launches) {  // one at a time, as a counter session runs them
      BANKCHECK_CUDA_CHECK(cudaEventRecord(start));
      launch();
      BANKCHECK_CUDA_CHECK(cudaEventRecord(stop));
      BANKCHECK_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      BANKCHECK_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      total += ms;
    }
    totals.push_back(total);
  }
  BANKCHECK_CUDA_CHECK(cudaGetLastError());
  BANKCHECK_CUDA_CHECK(cudaEventDestroy(start));
  BANKCHECK_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(totals.begin(), totals.end());
  std::printf("kernel_ms=%.4f\n", totals[totals.size() / 2]);
}

// A whole number from `lowest` to 100,000.
bool ParseInt(const std::string& text, int& value, long lowest = 1) {
  char* end = nullptr;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || parsed < lowest || parsed > 100000) return false;
  value = static_cast<int>(parsed);
  return true;
}

bool ParseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&arg](const char* prefix) { return arg.substr(std::string(prefix).size()); };
    if (arg == "--print-kinds") {
      options.print_kinds = true;
      continue;
    }
    if (arg == "--print-metrics") {
      options.print_metrics = true;
    } else if (arg.rfind("--mode=", 0) == 0) {
      options.mode = value("--mode=");
    } else if (arg.rfind("--rounds=", 0) == 0) {
      if (!ParseInt(value("--rounds="), options.rounds)) return false;
    } else if (arg.rfind("--sessions=", 0) == 0) {
      if (!ParseInt(value("--sessions="), options.sessions)) return false;
    } else if (arg == "--no-prepare") {
      options.prepare = false;
    } else if (arg == "--atomic-ideal") {
      options.atomic_ideal = true;
    } else if (arg == "--replay=user") {
      options.user_replay = true;
    } else if (arg == "--counters=range-profiler") {
      options.range_profiler = true;
    } else if (arg == "--counters=sass") {
      options.range_profiler = false;
    } else if (arg.rfind("--extra-mib=", 0) == 0) {
      if (!ParseInt(value("--extra-mib="), options.extra_mib, 0)) return false;
    } else if (arg.rfind("--launches-per-session=", 0) == 0) {
      if (!ParseInt(value("--launches-per-session="), options.launches_per_session)) return false;
    } else {
      return false;
    }
  }
  return options.print_metrics || options.print_kinds || options.mode == "bankcheck" ||
         options.mode == "plain" || options.mode == "kernels-only";
}

}  // namespace
}  // namespace bankcheck::bench

int main(int argc, char** argv) {
  using namespace bankcheck;
  bench::Options options;
  if (!bench::ParseOptions(argc, argv, options)) {
    std::cerr << "usage: " << argv[0]
              << " --mode=bankcheck|plain|kernels-only [--rounds=N (default 6: 7 launches each)] "
                 "[--sessions=N] [--launches-per-session=N (bankcheck mode; default all)] [--extra-mib=N] "
                 "[--counters=sass|range-profiler] [--replay=user] [--atomic-ideal] [--no-prepare]\n       "
              << argv[0] << " --print-metrics | --print-kinds\n";
    return 2;
  }
  if (options.print_kinds) {
    const auto name = [](const char* metric) { return metric != nullptr ? metric : "-"; };
    for (const MemoryKindInfo& info : MemoryKinds()) {
      std::cout << info.key << "\t" << info.label << "\t" << name(info.instructions_metric) << "\t"
                << name(NcuTrafficMetric(info)) << "\t" << name(info.conflicts_metric) << "\t"
                << name(info.hardware_wavefronts_metric) << "\t" << name(info.hardware_conflicts_metric)
                << "\t" << (info.hardware_also_counts ? InfoOf(*info.hardware_also_counts).key : "-") << "\n";
    }
    return 0;
  }
  if (options.print_metrics) {
    std::string joined;
    for (const std::string& name : CoreMetrics()) joined += (joined.empty() ? "" : ",") + name;
    std::cout << joined << "\n";
    return 0;
  }
  const GpuProbe& probe = ProbeGpu();
  // Plain mode runs under ncu, which holds the counters: only a device is needed.
  if (!probe.usable() &&
      !(options.mode == "plain" && probe.state == GpuProbe::State::kCountersNotPermitted)) {
    std::cerr << "bankcheck_speed_probe needs a GPU: " << probe.reason << "\n";
    return 1;
  }
  // As BANKCHECK_SKIP_WITHOUT_GPU() does in a test: CUPTI's set-up started before the CUDA context.
  if (options.mode == "bankcheck" && options.prepare) PrepareCounterSession();
  try {
    const auto launches = bench::MakeLaunches(options.rounds);
    // Memory the kernels never touch: shows whether replay's cost grows with what is allocated.
    DeviceBuffer<char> extra(static_cast<size_t>(options.extra_mib) << 20);
    std::printf("mode=%s\nlaunches=%zu\n", options.mode.c_str(), launches.size());
    if (options.mode == "bankcheck") {
      SessionOptions session;
      if (options.range_profiler || options.user_replay)
        session.counters = SessionOptions::Counters::kRangeProfiler;
      if (options.user_replay) session.replay = SessionOptions::Replay::kUser;
      if (options.atomic_ideal) session.hardware_ideal = {MemoryKind::kSharedAtomic};
      bench::MeasureWithBankcheck(launches, options.sessions,
                                  static_cast<size_t>(options.launches_per_session), session);
    } else if (options.mode == "plain") {
      bench::RunAll(launches);
    } else {
      bench::TimeKernelsOnly(launches);
    }
  } catch (const std::exception& e) {
    std::cerr << "bankcheck_speed_probe: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
