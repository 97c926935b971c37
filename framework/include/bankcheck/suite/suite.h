#pragma once
// The settings of a kernel suite's programs: where they keep baselines and results, and how their
// messages name the suite's tests. bankcheck_add_kernel_suite() (cmake/BankcheckKernelSuite.cmake)
// compiles a source file into each program that sets them from its arguments; at run time
// BANKCHECK_BASELINES_DIR and BANKCHECK_RESULTS_DIR override the two folders.

#include <string>

namespace bankcheck::suites {

struct SuiteSettings {
  std::string baselines_dir = "baselines";  // BASELINES_DIR: <baselines_dir>/<arch>/<topic>.json
  std::string results_dir = "results";      // RESULTS_DIR: <results_dir>/cases/<case>.json
  // CTest runs the cases of topic T as one test, "<test_prefix>/T" (TEST_PREFIX), and GoogleTest
  // names case T/R "<test_prefix>/T.R"; empty: unknown (GoogleTest: "T.R"). The CPU program names
  // the case's model check "<test_prefix>/model/T.R" and its baseline files check
  // "<test_prefix>.baseline_files".
  std::string test_prefix;
  // Put before the CPU checks' GoogleTest names in their CTest names (ANNOTATION_TEST_PREFIX).
  std::string annotation_test_prefix;
  // Runs the suite's tests and takes ctest's options (TEST_COMMAND): "ctest --test-dir <build>".
  std::string test_command = "ctest";
  // The project's source and build folders: inlined code is attributed to its innermost line in
  // the first and not in the second (SetProjectSources, counter_session.h); tables print paths
  // relative to the first. Empty: unknown.
  std::string source_dir;
  std::string build_dir;
};

// Replaces the program's settings (the defaults above until then); returns true, so that a
// generated file can call it while its static objects are initialized.
bool SetSuiteSettings(SuiteSettings settings);
const SuiteSettings& GetSuiteSettings();

// How the suite's kernels were built, for its results and baselines (RunMetadata::cuda_compiler and
// cuda_architectures). A file of its own, generated when CMake generates the build: only then is the
// kernels' CUDA_ARCHITECTURES final. Empty: unknown.
struct SuiteBuild {
  std::string cuda_compiler;       // "NVIDIA 12.8.93" (CMAKE_CUDA_COMPILER_ID and _VERSION)
  std::string cuda_architectures;  // <target>_kernels' CUDA_ARCHITECTURES: "90;80-virtual"
};
bool SetSuiteBuild(SuiteBuild build);
const SuiteBuild& GetSuiteBuild();

}  // namespace bankcheck::suites
