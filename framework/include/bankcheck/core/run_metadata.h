#pragma once
// Where and when a set of measurements was taken: stored as "recorded_with" in baseline files and
// as "metadata" in results files, so a reader can tell whether two sets are comparable.

#include <string>

namespace bankcheck {

struct RunMetadata {
  std::string arch;          // "sm_90"; empty when no GPU was used
  std::string device;        // "NVIDIA H100 80GB HBM3"
  std::string driver;        // NVIDIA driver version, "580.65.06"
  std::string cuda_runtime;  // "13.0"
  std::string cuda_driver;   // the CUDA version the driver supports, "13.0"
  std::string date;          // UTC, "2025-11-22T10:36:00Z"
  std::string git_commit;    // from BANKCHECK_GIT_COMMIT (LabelFromEnvironment); empty when unset
  // How a kernel suite's kernels were built (bankcheck_add_kernel_suite); empty when unknown, and
  // then left out of files. The compiler as CMake names it: "NVIDIA 12.8.93".
  std::string cuda_compiler;
  // The kernels' CUDA_ARCHITECTURES, ';'-separated: "90;80-virtual". Results files only.
  std::string cuda_architectures;
  // The bankcheck that measured (bankcheck/core/version.h): "0.2.0". Results files only, written when
  // known; empty in those of versions before 0.2.0.
  std::string bankcheck_version;
  // "emulated" where the counts were derived by the emulator (BANKCHECK_COUNTERS=emulate), not
  // measured: a baseline file's "recorded_with" says so when emulated counts were recorded into it as
  // first baselines (docs/emulate.md). Empty for measured counts, and then left out of files.
  std::string counters;

  friend bool operator==(const RunMetadata& a, const RunMetadata& b) {
    return a.arch == b.arch && a.device == b.device && a.driver == b.driver &&
           a.cuda_runtime == b.cuda_runtime && a.cuda_driver == b.cuda_driver && a.date == b.date &&
           a.git_commit == b.git_commit && a.cuda_compiler == b.cuda_compiler &&
           a.cuda_architectures == b.cuda_architectures && a.bankcheck_version == b.bankcheck_version &&
           a.counters == b.counters;
  }
};

// Metadata for a run on this machine now: the GPU facts are passed in (from GpuProbe: device_name,
// arch(), driver_version, runtime_version); the NVIDIA driver version comes from
// /proc/driver/nvidia/version, the date from the clock, the commit from BANKCHECK_GIT_COMMIT, the
// bankcheck version from Version().
RunMetadata DescribeRun(const std::string& device, const std::string& arch, int cuda_driver_version,
                        int cuda_runtime_version);

// What differs between the GPU software that `recorded` baselines and that of `now`, for a person:
// "driver 570.86.10 -> 580.65.06, CUDA runtime 12.8 -> 13.0" (device, driver, CUDA runtime, CUDA
// driver, CUDA compiler; fields either side leaves empty are not compared); "" when nothing differs.
// A new toolkit or driver can change the generated code, and so the counts, without a change in the
// kernel.
std::string SoftwareChange(const RunMetadata& recorded, const RunMetadata& now);

// A warning when code built for `cuda_architectures` (CMake's CUDA_ARCHITECTURES, ';'-separated:
// "90", "90-real", "90a", "80-virtual") runs on a GPU of `arch` ("sm_90") for which it holds no
// native code (SASS), so that the driver JIT-compiles PTX: the JIT's code, and so its counts, can
// differ from what nvcc makes for that GPU. SASS of sm_XY runs natively on sm_XZ for Z >= Y, that of
// sm_XYa on sm_XY only. "" when there is native code, and when either side is unknown or the list
// holds a value that names no architecture ("native", "all": what they built is not known here).
std::string PtxJitWarning(const std::string& cuda_architectures, const std::string& arch);

// 13000 -> "13.0", 12080 -> "12.8"; 0 (unknown) -> "".
std::string CudaVersionString(int version);
// Now, in UTC, ISO 8601 to the second.
std::string CurrentUtcTimestamp();
// Now, in UTC, ISO 8601 to the microsecond, six digits always: "2026-12-07T12:41:09.123456Z" (when
// a run began, FragmentRun in results.h; the shape of CMake's string(TIMESTAMP "%Y-%m-%dT%H:%M:%S.%fZ")).
std::string CurrentUtcTimestampMicroseconds();
// The version in the text of /proc/driver/nvidia/version
// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..."); "" if absent.
std::string ParseNvidiaDriverVersion(const std::string& proc_version_text);

}  // namespace bankcheck
