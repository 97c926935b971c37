#pragma once
// What the GPU benchmark programs share: a main that exits 0 with a message where there is no usable
// GPU, exact shared-memory counters measured once per case before any timing (one counter session
// for all cases, then the profiler is shut down so nothing of CUPTI is attached while timing), and
// CUDA-event timing reported through Google Benchmark's manual time.
//
// Every benchmark reports, besides its time, the counters of one launch:
//   ld_inst / st_inst              shared load / store instructions (warp level)
//   ld_wavefronts / st_wavefronts  passes through the shared-memory data stage
//   ld_conflicts / st_conflicts    wavefronts beyond the ideal
//   ld_ways / st_ways              wavefronts / ideal wavefronts (1 = conflict-free)
// and, for cases that move global memory, GB/s (bytes read + written per second of its own time)
// and pct_of_copy (that bandwidth as a percent of a reference, e.g. the device-to-device copy).

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/launch_record.h"
#include "bankcheck/cuda/counter_session.h"
#include "bankcheck/cuda/cuda_check.h"
#include "bankcheck/cuda/gpu_probe.h"

namespace bankcheck::bench {

// One benchmark: work on the default stream, timed with CUDA events.
struct GpuCase {
  std::string name;                        // the benchmark's name, e.g. "shared_stride/4B/s2"
  std::function<void()> launch;            // exactly one kernel launch (or a copy when !measure_counters)
  bool measure_counters = true;            // false for work that is no kernel launch (cudaMemcpy)
  int launches_per_iteration = 1;          // > 1 for launches too short to time one by one
  double bytes_per_launch = 0;             // global bytes read + written; > 0 adds GB/s
  double reference_gbps = 0;               // > 0 adds pct_of_copy = 100 * GB/s / reference
  std::map<std::string, double> counters;  // constants to report (stride, elem_bytes, ...)
};

// Milliseconds of GPU time that `n` calls of `launch` take, back to back on the default stream.
inline double TimeLaunchesMs(const std::function<void()>& launch, int n) {
  cudaEvent_t start = nullptr, stop = nullptr;
  BANKCHECK_CUDA_CHECK(cudaEventCreate(&start));
  BANKCHECK_CUDA_CHECK(cudaEventCreate(&stop));
  BANKCHECK_CUDA_CHECK(cudaEventRecord(start));
  for (int i = 0; i < n; ++i) launch();
  BANKCHECK_CUDA_CHECK(cudaGetLastError());
  BANKCHECK_CUDA_CHECK(cudaEventRecord(stop));
  BANKCHECK_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  BANKCHECK_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  BANKCHECK_CUDA_CHECK(cudaEventDestroy(start));
  BANKCHECK_CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

// The median of `samples` timings of one call of `launch` (after `warmup` untimed calls), in ms.
inline double MedianLaunchMs(const std::function<void()>& launch, int warmup = 3, int samples = 11) {
  for (int i = 0; i < warmup; ++i) launch();
  BANKCHECK_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < samples; ++i) ms.push_back(TimeLaunchesMs(launch, 1));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The number of streaming multiprocessors of the current device.
inline int SmCount() {
  int device = 0, sms = 0;
  BANKCHECK_CUDA_CHECK(cudaGetDevice(&device));
  BANKCHECK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

namespace internal {

// One launch of every case that has counters, in one session; nullopt for the others.
inline std::vector<std::optional<LaunchRecord>> MeasureCases(const std::vector<GpuCase>& cases) {
  SessionOptions options;
  options.max_launches = std::max<size_t>(cases.size(), 1);
  const std::vector<LaunchRecord> records = Measure(
      [&] {
        for (const GpuCase& c : cases)
          if (c.measure_counters) c.launch();
      },
      options);
  const auto measured =
      std::count_if(cases.begin(), cases.end(), [](const GpuCase& c) { return c.measure_counters; });
  if (records.size() != static_cast<size_t>(measured)) {
    throw Error(ErrorKind::kCupti, "expected one kernel launch per measured case (" +
                                       std::to_string(measured) + "), got " + std::to_string(records.size()) +
                                       " launch records");
  }
  std::vector<std::optional<LaunchRecord>> by_case(cases.size());
  for (size_t i = 0, next = 0; i < cases.size(); ++i)
    if (cases[i].measure_counters) by_case[i] = records[next++];
  // Nothing of CUPTI stays attached while the cases are timed.
  ShutdownProfiler();
  return by_case;
}

inline void ReportRecord(benchmark::State& state, const LaunchRecord& record) {
  const auto report = [&state](const char* prefix, const KindCounts& counts) {
    const std::string p = prefix;
    state.counters[p + "_inst"] = static_cast<double>(counts.instructions);
    state.counters[p + "_wavefronts"] = static_cast<double>(counts.wavefronts);
    state.counters[p + "_conflicts"] = static_cast<double>(counts.conflicts());
    state.counters[p + "_ways"] = counts.ways();
  };
  report("ld", record.loads());
  report("st", record.stores());
}

inline void RunCase(benchmark::State& state, const GpuCase& c, const std::optional<LaunchRecord>& record) {
  if (record) ReportRecord(state, *record);
  for (const auto& [name, value] : c.counters) state.counters[name] = value;
  double total_seconds = 0;
  try {
    // Warm up: clocks up, caches and TLBs in their steady state.
    TimeLaunchesMs(c.launch, std::max(3, c.launches_per_iteration));
    for (auto _ : state) {
      const double seconds =
          TimeLaunchesMs(c.launch, c.launches_per_iteration) / 1e3 / c.launches_per_iteration;
      state.SetIterationTime(seconds);
      total_seconds += seconds;
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  if (c.bytes_per_launch > 0 && total_seconds > 0) {
    const double iterations = static_cast<double>(state.iterations());
    state.SetBytesProcessed(static_cast<int64_t>(c.bytes_per_launch * iterations));
    const double gbps = c.bytes_per_launch * iterations / total_seconds / 1e9;
    state.counters["GB/s"] = gbps;
    if (c.reference_gbps > 0) state.counters["pct_of_copy"] = 100.0 * gbps / c.reference_gbps;
  }
}

}  // namespace internal

// The whole program: parses Google Benchmark's flags, checks for a GPU (exits 0 with a message on
// stderr without one), builds the cases, measures their counters, and times them.
inline int Main(int argc, char** argv, const std::function<std::vector<GpuCase>()>& make_cases) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  const GpuProbe& probe = ProbeGpu();
  if (!probe.usable()) {
    std::cerr << "bankcheck benchmarks need a GPU: " << probe.reason << "\n";
    return 0;
  }
  PrepareCounterSession();  // overlaps CUPTI's set-up with building the cases
  int status = 0;
  try {
    const std::vector<GpuCase> cases = make_cases();
    const std::vector<std::optional<LaunchRecord>> records = internal::MeasureCases(cases);
    for (size_t i = 0; i < cases.size(); ++i) {
      benchmark::RegisterBenchmark(
          cases[i].name.c_str(),
          [c = cases[i], r = records[i]](benchmark::State& state) { internal::RunCase(state, c, r); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& e) {
    std::cerr << "bankcheck benchmark: error: " << e.what() << "\n";
    status = 1;
  }
  // The registered cases hold device buffers: free them while the CUDA runtime is still up.
  benchmark::ClearRegisteredBenchmarks();
  benchmark::Shutdown();
  return status;
}

}  // namespace bankcheck::bench
