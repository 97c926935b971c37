#pragma once
// CUPTI's profiler host library (libnvperf_host.so, beside libcupti), loaded ahead of CUPTI. Its
// loading is most of cuptiProfilerInitialize's time (68-88 ms of 70-140 on the H100,
// benchmarks/README.md); loaded while the process creates its CUDA context, it costs nothing there,
// and CUPTI's own dlopen finds it loaded. No CUPTI call: safe beside CUDA work on another thread.

#include <string>

namespace bankcheck::internal {

// The folder of the libcupti this process has loaded; empty when it has none.
std::string LoadedCuptiFolder();

// Loads libnvperf_host.so from LoadedCuptiFolder() and keeps it loaded; returns whether it is now
// loaded. Where it is not, CUPTI loads it, or reports it missing, itself.
bool LoadProfilerHostLibrary();

}  // namespace bankcheck::internal
