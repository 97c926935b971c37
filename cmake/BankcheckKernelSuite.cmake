# bankcheck_add_kernel_suite(): a kernel suite from a project's own kernel files, and
# bankcheck_add_gpu_test(): a program of the project's own GPU TEST()s. Included by
# bankcheck's CMakeLists.txt and by bankcheckConfig.cmake, so that the build tree, FetchContent and
# an installed package offer the same function.
include_guard(GLOBAL)
set(_BANKCHECK_KERNEL_SUITE_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")
include("${CMAKE_CURRENT_LIST_DIR}/BankcheckSassToolWheels.cmake")

# bankcheck_add_kernel_suite(<target>
#   SOURCES <file>...                kernel files (.cu) that register cases (BANKCHECK_REGISTER_CASES)
#   [BASELINES_DIR <dir>]            default: <current source dir>/baselines
#   [RESULTS_DIR <dir>]              default: <current binary dir>/<target>-results
#   [TEST_PREFIX <prefix>]           CTest runs the cases of topic T (the cases named "T/...") as
#                                    "<prefix>/T", and GoogleTest names case T/R "<prefix>/T.R";
#                                    default <target>
#   [ANNOTATION_TEST_PREFIX <prefix>]  put before the CTest names of the CPU checks, which already
#                                    begin with TEST_PREFIX (below); default none
#   [TEST_COMMAND <command>]         how messages say to run the tests (takes ctest's -R);
#                                    default "ctest --test-dir <top binary dir>"
#   [TEST_ENVIRONMENT <VAR=value>...]  set for each of the suite's topic tests (GPU and emulated),
#                                    over the environment ctest runs in: e.g. a second suite's own
#                                    BANKCHECK_RESULTS_DIR, where a script exports one for the first
#   [LIBRARIES <library>...])        more libraries the kernel files use
#
# Builds
#   <target>              the GPU program: every case of the kernel files, one CTest test per topic
#                         ("<prefix>/<topic>", label gpu, one GPU of CTest's resource allocation,
#                         skipped with the reason where no usable GPU is found); BANKCHECK_CASES
#                         (glob patterns over case names) selects cases at run time
#   <target>_annotations  the CPU checks (label cpu), one CTest test each: each annotation against
#                         the CPU bank model, "<prefix>/model/<topic>.<rest>" for case <topic>/<rest>
#                         (skipped, saying why, when BANKCHECK_CASES does not select the case), and
#                         the baseline files against the registered cases, "<prefix>.baseline_files"
#   <target>_emulated     where the build has bankcheck::emulated_runtime (bankcheck's tree, FetchContent
#                         or the installed package) and the kernels have sm_90 SASS: the GPU
#                         program's cases on the CPU, their launches counted from the kernels'
#                         sm_90 SASS (docs/emulate.md); one CTest test per topic,
#                         "<prefix>/emulated/<topic>" (label emulate, not cpu: it needs the
#                         toolkit's cuobjdump and nvdisasm, found at configure time (below); without
#                         them its tests skip with the reason, or fail with BANKCHECK_REQUIRE_EMULATION=1)
#   <target>_kernels      the kernel files, compiled once (with -lineinfo) for every program
# A plain `ctest` of the build ends with its skipped tests under their reasons (the CTestCustom.cmake
# of _bankcheck_print_skipped_after_ctest, below; bankcheck_add_gpu_test writes it too).
# Results and baselines name the CUDA compiler and <target>_kernels' CUDA_ARCHITECTURES; the GPU
# program warns once when the GPU has no native code among them and so runs JIT-compiled PTX.
# It also writes <top binary dir>/bankcheck-suites/<target>.suite, the suite's folders, test names
# and the bankcheck command (BANKCHECK_CLI) for CI scripts (bankcheck-ci), and after each build of a
# program <target>.cases beside it, every case's name (a selection that selects no case of any suite
# of the build fails, suite_runner.h); where the project builds
# that command (bankcheck::cli through FetchContent), <target> depends on it. Both programs read baselines from BASELINES_DIR and write results fragments under RESULTS_DIR
# (BANKCHECK_BASELINES_DIR and BANKCHECK_RESULTS_DIR override them at run time); their messages
# name TEST_COMMAND and the CTest names. Warnings are the project's: none are added here.
# The emulated program reads the kernels' SASS with the CUDA toolkit's cuobjdump and nvdisasm.
# Found once per build folder: the toolkit's bin folder, then NVIDIA's wheels (nvidia-cuda-cuobjdump,
# nvidia-cuda-nvdisasm) in the active virtual environment or the python3 on PATH, then PATH
# (BANKCHECK_CUOBJDUMP_EXECUTABLE and BANKCHECK_NVDISASM_EXECUTABLE, cached, are what the emulated
# tests are given; set them to choose others). Prints one note for those missing: the emulated tests
# then skip, saying so, until the tools are installed (ctest looks again each time it reads the
# tests: BankcheckDiscoverTopics.cmake).
function(_bankcheck_find_sass_tools)
  set(hints "")
  if(CMAKE_CUDA_COMPILER)
    get_filename_component(compiler_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    list(APPEND hints "${compiler_bin}")
  endif()
  if(CUDAToolkit_BIN_DIR)
    list(APPEND hints "${CUDAToolkit_BIN_DIR}")
  endif()
  if(NOT BANKCHECK_CUOBJDUMP_EXECUTABLE OR NOT BANKCHECK_NVDISASM_EXECUTABLE)
    _bankcheck_sass_wheel_bins(wheel_bins)
    list(APPEND hints ${wheel_bins})
  endif()
  set(missing "")
  foreach(tool IN ITEMS cuobjdump nvdisasm)
    string(TOUPPER "${tool}" upper)
    find_program(BANKCHECK_${upper}_EXECUTABLE NAMES ${tool} HINTS ${hints}
                 DOC "The CUDA toolkit's ${tool}, which bankcheck's emulated tests read SASS with")
    if(NOT BANKCHECK_${upper}_EXECUTABLE)
      list(APPEND missing ${tool})
    endif()
  endforeach()
  get_property(noted GLOBAL PROPERTY _bankcheck_sass_tools_noted)
  if(missing AND NOT noted)
    set_property(GLOBAL PROPERTY _bankcheck_sass_tools_noted ON)
    list(JOIN missing " and " missing_text)
    list(TRANSFORM missing PREPEND "nvidia-cuda-" OUTPUT_VARIABLE wheels)
    list(JOIN wheels " " wheels_text)
    message(STATUS "bankcheck: ${missing_text} not found (not with the CUDA toolkit, NVIDIA's wheels or on PATH): "
                   "the emulated tests (ctest -L emulate) will skip, saying so. `pip install ${wheels_text}` into the "
                   "active virtual environment (the next ctest finds them), or install the CUDA toolkit's and "
                   "configure again (or give -DBANKCHECK_<TOOL>_EXECUTABLE=<path>)")
  endif()
endfunction()

function(bankcheck_add_kernel_suite target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "BASELINES_DIR;RESULTS_DIR;TEST_PREFIX;ANNOTATION_TEST_PREFIX;TEST_COMMAND" "SOURCES;LIBRARIES;TEST_ENVIRONMENT")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "bankcheck_add_kernel_suite(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "bankcheck_add_kernel_suite(${target}): give SOURCES, the kernel files that register cases")
  endif()
  _bankcheck_print_skipped_after_ctest()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT CUDA IN_LIST languages)
    message(FATAL_ERROR "bankcheck_add_kernel_suite(${target}): kernel files need the CUDA language; "
                        "enable it with project(... LANGUAGES CXX CUDA) or enable_language(CUDA)")
  endif()
  if(NOT DEFINED ARG_BASELINES_DIR)
    set(ARG_BASELINES_DIR "${CMAKE_CURRENT_SOURCE_DIR}/baselines")
  endif()
  if(NOT DEFINED ARG_RESULTS_DIR)
    set(ARG_RESULTS_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}-results")
  endif()
  if(NOT DEFINED ARG_TEST_PREFIX)
    set(ARG_TEST_PREFIX "${target}")
  endif()
  if(NOT DEFINED ARG_TEST_COMMAND)
    # Quoted for the shell only where the path needs it, so the usual command reads plainly.
    set(build_dir "${CMAKE_BINARY_DIR}")
    if(NOT build_dir MATCHES "^[A-Za-z0-9_./+:@%-]+$")
      string(REPLACE "'" "'\\''" build_dir "${build_dir}")
      set(build_dir "'${build_dir}'")
    endif()
    set(ARG_TEST_COMMAND "ctest --test-dir ${build_dir}")
  endif()
  # The topic tests' own environment, one argument of the discovery commands below.
  string(REPLACE ";" "$<SEMICOLON>" test_environment "${ARG_TEST_ENVIRONMENT}")
  cmake_path(ABSOLUTE_PATH ARG_BASELINES_DIR BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
  cmake_path(ABSOLUTE_PATH ARG_RESULTS_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  # Here, not where this file is included: GoogleTest keeps its script's path in a variable of the
  # including directory, which the caller's directory (bankcheck as a subproject) would not see.
  include(GoogleTest)

  # An OBJECT library: its objects are linked whole into both programs, so every file's
  # registration (a static object that nothing references) is kept; a static library would drop it.
  add_library(${target}_kernels OBJECT ${ARG_SOURCES})
  target_link_libraries(${target}_kernels PUBLIC bankcheck::testing ${ARG_LIBRARIES})
  target_compile_features(${target}_kernels PUBLIC cxx_std_17 cuda_std_17)
  # Line info lets SASS be read against the source; it does not change the code.
  target_compile_options(${target}_kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)

  # The settings, compiled into both programs (bankcheck/suite/suite.h), so that they hold when the
  # programs run outside CTest too. Raw strings: paths are taken as they are.
  set(settings "${CMAKE_CURRENT_BINARY_DIR}/${target}_settings.cc")
  set(settings_template [==[
// Generated by bankcheck_add_kernel_suite(@target@): where this suite keeps its baselines and
// results, and how its messages name its tests.
#include "bankcheck/suite/suite.h"

namespace {
[[maybe_unused]] const bool kSuiteSettings = bankcheck::suites::SetSuiteSettings({
    R"bankcheck(@ARG_BASELINES_DIR@)bankcheck",
    R"bankcheck(@ARG_RESULTS_DIR@)bankcheck",
    R"bankcheck(@ARG_TEST_PREFIX@)bankcheck",
    R"bankcheck(@ARG_ANNOTATION_TEST_PREFIX@)bankcheck",
    R"bankcheck(@ARG_TEST_COMMAND@)bankcheck",
    R"bankcheck(@CMAKE_SOURCE_DIR@)bankcheck",
    R"bankcheck(@CMAKE_BINARY_DIR@)bankcheck",
});
}  // namespace
]==])
  file(CONFIGURE OUTPUT "${settings}" CONTENT "${settings_template}" @ONLY)

  # How the kernels were built, for results and baselines: a generator expression reads their
  # CUDA_ARCHITECTURES as it is at generation time, so a value set after this call counts too.
  set(build_info "${CMAKE_CURRENT_BINARY_DIR}/${target}_build.cc")
  string(CONFIGURE [==[
// Generated by bankcheck_add_kernel_suite(@target@): how its kernels were built.
#include "bankcheck/suite/suite.h"

namespace {
[[maybe_unused]] const bool kSuiteBuild = bankcheck::suites::SetSuiteBuild({
    R"bankcheck(@CMAKE_CUDA_COMPILER_ID@ @CMAKE_CUDA_COMPILER_VERSION@)bankcheck",
    R"bankcheck($<TARGET_PROPERTY:@target@_kernels,CUDA_ARCHITECTURES>)bankcheck",
});
}  // namespace
]==] build_info_content @ONLY)
  file(GENERATE OUTPUT "${build_info}" CONTENT "${build_info_content}")
  set_source_files_properties("${build_info}" PROPERTIES GENERATED TRUE)

  set(junit_dir "${CMAKE_BINARY_DIR}/test-results/junit")
  add_executable(${target} "${settings}" "${build_info}")
  target_link_libraries(${target} PRIVATE ${target}_kernels bankcheck::kernel_suite_main)
  # One CTest test per topic: its cases run in one process (a supervisor starts a fresh one after
  # a kernel fault). The program lists its topics after each build, as gtest_discover_tests does.
  set(test_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_topics.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -D "EXE=$<TARGET_FILE:${target}>" -D "TEST_FILE=${test_file}"
            -D "PREFIX=${ARG_TEST_PREFIX}/" -D "JUNIT_DIR=${junit_dir}"
            -D "CASES_FILE=${CMAKE_BINARY_DIR}/bankcheck-suites/${target}.cases" -D "ENVIRONMENT=${test_environment}"
            -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/BankcheckDiscoverTopics.cmake"
    VERBATIM)
  # Until the program is built, ctest lists one test that says so (as gtest_discover_tests does).
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake")
  file(WRITE "${include_file}"
    "if(EXISTS [==[${test_file}]==])\n"
    "  include([==[${test_file}]==])\n"
    "else()\n"
    "  add_test([==[${target}_NOT_BUILT]==] [==[${target}_NOT_BUILT]==])\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")

  add_executable(${target}_annotations "${settings}")
  target_link_libraries(${target}_annotations PRIVATE ${target}_kernels bankcheck::annotation_checks)
  # The CTest names are the GoogleTest names, which the program takes from the suite's settings.
  _bankcheck_gtest_skip_expression(skip_expression)
  gtest_discover_tests(${target}_annotations
    TEST_PREFIX "${ARG_ANNOTATION_TEST_PREFIX}"
    DISCOVERY_TIMEOUT 60
    XML_OUTPUT_DIR "${junit_dir}"
    PROPERTIES LABELS cpu SKIP_REGULAR_EXPRESSION "${skip_expression}")
  # The emulated program (docs/emulate.md), where this build has the stand-in CUDA runtime: the same
  # kernel objects linked with it in place of cudart (CUDA_RUNTIME_LIBRARY None; bankcheck::cuda
  # leaves cudart out of programs marked BANKCHECK_EMULATED), so that every launch is recorded and
  # counted from the kernels' sm_90 SASS on the CPU. It has the same settings: that its results go
  # beside RESULTS_DIR, to its name with "-emulated", is the program's rule (ResultsDir,
  # case_runner.h), which `<program> --bankcheck_results_dir` prints. One CTest test per topic,
  # "<prefix>/emulated/<topic>", labelled emulate, given the tools it reads SASS with
  # (_bankcheck_find_sass_tools).
  # Only where the kernels have sm_90 SASS to read (90 or 90a, not only its PTX): a consumer that
  # builds for other architectures gets no emulated program, and a note.
  set(emulatable OFF)
  get_target_property(kernel_architectures ${target}_kernels CUDA_ARCHITECTURES)
  foreach(architecture IN LISTS kernel_architectures)
    if(architecture MATCHES "^90a?(-real)?$" OR architecture MATCHES "^all")
      set(emulatable ON)
    endif()
  endforeach()
  # Without one, a test stands in for the emulated tests: skipped saying why, failed under
  # BANKCHECK_REQUIRE_EMULATION=1 (a gate that must emulate is not green having emulated nothing).
  set(no_emulated_program "")
  if(NOT TARGET bankcheck::emulated_runtime)
    set(no_emulated_program "this bankcheck has no emulated runtime (bankcheck::emulated_runtime)")
  elseif(NOT emulatable)
    string(CONCAT no_emulated_program "its kernels are built for CUDA_ARCHITECTURES \"${kernel_architectures}\", "
                  "without sm_90 SASS: add 90 (e.g. \"80-real;90\")")
    message(STATUS "bankcheck: ${target}: no emulated program (docs/emulate.md): ${no_emulated_program}")
  endif()
  if(no_emulated_program)
    set(name "${ARG_TEST_PREFIX}/emulated/no_emulated_program")
    add_test(NAME "${name}" COMMAND ${target} "--bankcheck_no_emulated_program=${no_emulated_program}")
    set_tests_properties("${name}" PROPERTIES LABELS emulate SKIP_RETURN_CODE 77)
  endif()
  if(TARGET bankcheck::emulated_runtime AND emulatable)
    add_executable(${target}_emulated "${settings}" "${build_info}")
    target_link_libraries(${target}_emulated PRIVATE ${target}_kernels bankcheck::kernel_suite_main
                                                     bankcheck::emulated_runtime)
    set_target_properties(${target}_emulated PROPERTIES CUDA_RUNTIME_LIBRARY None BANKCHECK_EMULATED ON)
    set(emulated_test_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_emulated_topics.cmake")
    _bankcheck_find_sass_tools()
    add_custom_command(TARGET ${target}_emulated POST_BUILD
      COMMAND "${CMAKE_COMMAND}" -D "EXE=$<TARGET_FILE:${target}_emulated>" -D "TEST_FILE=${emulated_test_file}"
              -D "PREFIX=${ARG_TEST_PREFIX}/" -D "JUNIT_DIR=${junit_dir}"
              -D "CASES_FILE=${CMAKE_BINARY_DIR}/bankcheck-suites/${target}.cases" -D EMULATED=ON
              -D "ENVIRONMENT=${test_environment}"
              -D "CUOBJDUMP=${BANKCHECK_CUOBJDUMP_EXECUTABLE}" -D "NVDISASM=${BANKCHECK_NVDISASM_EXECUTABLE}"
              -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/BankcheckDiscoverTopics.cmake"
      VERBATIM)
    set(emulated_include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_emulated_include.cmake")
    file(WRITE "${emulated_include_file}"
      "if(EXISTS [==[${emulated_test_file}]==])\n"
      "  include([==[${emulated_test_file}]==])\n"
      "else()\n"
      "  add_test([==[${target}_emulated_NOT_BUILT]==] [==[${target}_emulated_NOT_BUILT]==])\n"
      "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${emulated_include_file}")
  endif()

  # Checked once the caller's folder is read, so that architectures set after this call count. A
  # deferred call expands its arguments when it runs, so the name is written into it now.
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _bankcheck_warn_default_architectures [==[${target}]==])")

  # The command that merges and reports the suite's results (bankcheck::cli, BANKCHECK_CLI): where
  # this project builds it (bankcheck through FetchContent), building the suite builds it too.
  if(TARGET bankcheck::cli)
    get_target_property(cli_target bankcheck::cli ALIASED_TARGET)
    if(cli_target)
      add_dependencies(${target} ${cli_target})
    endif()
  endif()

  # What CI scripts read to find the suite (bankcheck-ci, framework/ci/bankcheck-ci.sh): its folders,
  # the beginnings of its CTest names and the bankcheck command (empty when none was built), one
  # "key=value" line each.
  # baseline_files_test: the CTest name of the baseline files check, as the CPU program names it
  # (GtestNameForBaselineFilesCheck, framework/suite/internal/record_command.h).
  # no_emulated_program: why the suite has no <target>_emulated (empty when it has one), so that a
  # script builds only the programs that exist (bankcheck-ci-cpu).
  string(REGEX REPLACE "[^A-Za-z0-9_/]" "_" baseline_files_suite "${ARG_TEST_PREFIX}")
  if(baseline_files_suite STREQUAL "")
    set(baseline_files_suite bankcheck)
  endif()
  file(WRITE "${CMAKE_BINARY_DIR}/bankcheck-suites/${target}.suite"
    "target=${target}\n"
    "baselines_dir=${ARG_BASELINES_DIR}\n"
    "results_dir=${ARG_RESULTS_DIR}\n"
    "test_prefix=${ARG_TEST_PREFIX}\n"
    "annotation_test_prefix=${ARG_ANNOTATION_TEST_PREFIX}\n"
    "baseline_files_test=${ARG_ANNOTATION_TEST_PREFIX}${baseline_files_suite}.baseline_files\n"
    "no_emulated_program=${no_emulated_program}\n"
    "cli=${BANKCHECK_CLI}\n")
endfunction()

# _bankcheck_gtest_skip_expression(<variable>): the SKIP_REGULAR_EXPRESSION that makes CTest report
# a test that called GTEST_SKIP as skipped: GoogleTest's "[  SKIPPED ]" line, matched by its start
# alone. gtest_discover_tests writes each property into a CMake bracket argument, and CMake 4
# writes [[...]] without '=': a ']' at the end of the value closes it early and ctest cannot read
# the generated file, so the expression holds no ']'.
function(_bankcheck_gtest_skip_expression out)
  set(${out} "\\[  SKIPPED " PARENT_SCOPE)
endfunction()

# _bankcheck_warn_default_architectures(<target>): warns when the suite's kernels are built for the
# architectures CMake chose on its own (nvcc's default, e.g. 75; CMake caches them with the help
# string "CUDA architectures" when neither the project, the command line nor CUDAARCHS gave any):
# on a newer GPU those kernels run as JIT-compiled PTX, not the code the project ships, so their
# counts are not the ones to record. Said at configure time, not only by the GPU program on a GPU.
function(_bankcheck_warn_default_architectures target)
  get_target_property(architectures ${target}_kernels CUDA_ARCHITECTURES)
  get_property(help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
  if(help STREQUAL "CUDA architectures" AND "$ENV{CUDAARCHS}" STREQUAL ""
     AND "${architectures}" STREQUAL "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
    message(WARNING "bankcheck_add_kernel_suite(${target}): its kernels are built for CUDA architectures "
                    "'${architectures}', CMake's default, since CMAKE_CUDA_ARCHITECTURES was not set: on a newer GPU "
                    "(sm_80, sm_90) they run as JIT-compiled PTX, and their counts are not those of native code. "
                    "Configure with the GPUs you test on, e.g. -DCMAKE_CUDA_ARCHITECTURES=90 (H100) or \"80-real;90\".")
  endif()
endfunction()

# bankcheck_add_gpu_test(<target> SOURCES <file>... [LIBRARIES <library>...])
#
# A program of your own GoogleTest TEST()s that measure launches (bankcheck/testing/testing.h,
# bankcheck/testing/matchers.h), as CTest runs a GPU test: linked with bankcheck's main (GPU selection from
# CTest's resource allocation, CUPTI set up before any test), one CTest test labelled `gpu` that takes
# one GPU of a resource spec (`ctest --resource-spec-file`), and reported skipped, not passed, when
# every test in it skipped (no usable GPU: exit 77). JUnit XML goes to
# <top binary dir>/test-results/junit/<target>.xml. bankcheck's own GPU test programs are made so.
# _bankcheck_print_skipped_after_ctest(): makes plain `ctest` in this build end with its skipped tests
# under their reasons, which ctest itself prints only with -V: <top binary dir>/CTestCustom.cmake
# runs `bankcheck-ci --ctest-post-test <top binary dir>` after the tests (CTEST_CUSTOM_POST_TEST;
# bankcheck-ci reads the reasons from the run's log). A CTestCustom.cmake of the project's own is
# left alone: it can include <top binary dir>/bankcheck-ctest-custom.cmake, written either way.
# bankcheck-ci is the checkout's (bankcheck's tree, FetchContent) or the one installed beside
# BANKCHECK_CLI; without either, nothing is written. Once per build folder.
function(_bankcheck_print_skipped_after_ctest)
  get_property(done GLOBAL PROPERTY _bankcheck_print_skipped_after_ctest)
  if(done)
    return()
  endif()
  set_property(GLOBAL PROPERTY _bankcheck_print_skipped_after_ctest TRUE)
  set(ci "${_BANKCHECK_KERNEL_SUITE_MODULE_DIR}/../framework/ci/bankcheck-ci.sh")
  if(NOT EXISTS "${ci}" AND DEFINED BANKCHECK_CLI)
    get_filename_component(bindir "${BANKCHECK_CLI}" DIRECTORY)
    set(ci "${bindir}/bankcheck-ci")
  endif()
  if(NOT EXISTS "${ci}")
    return()
  endif()
  get_filename_component(ci "${ci}" ABSOLUTE)
  set(marker "# Written by bankcheck (_bankcheck_print_skipped_after_ctest)")
  file(WRITE "${CMAKE_BINARY_DIR}/bankcheck-ctest-custom.cmake"
    "${marker}: after the tests, the skipped ones under their reasons.\n"
    "list(APPEND CTEST_CUSTOM_POST_TEST [==[\"${ci}\" --ctest-post-test \"${CMAKE_BINARY_DIR}\"]==])\n")
  set(custom "${CMAKE_BINARY_DIR}/CTestCustom.cmake")
  if(EXISTS "${custom}")
    file(STRINGS "${custom}" first LIMIT_COUNT 1)
    if(NOT first MATCHES "^# Written by bankcheck")
      return()
    endif()
  endif()
  file(WRITE "${custom}" "${marker}: a project's own CTestCustom.cmake replaces it.\n"
    "include([==[${CMAKE_BINARY_DIR}/bankcheck-ctest-custom.cmake]==])\n")
endfunction()

function(bankcheck_add_gpu_test target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBRARIES")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_SOURCES)
    message(FATAL_ERROR "bankcheck_add_gpu_test(${target} SOURCES <file>... [LIBRARIES <library>...]): "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES} bankcheck::testing bankcheck::gtest_main)
  add_test(NAME ${target} COMMAND ${target}
    "--gtest_output=xml:${CMAKE_BINARY_DIR}/test-results/junit/${target}.xml")
  set_tests_properties(${target} PROPERTIES LABELS gpu RESOURCE_GROUPS "gpus:1" SKIP_RETURN_CODE 77)
  _bankcheck_print_skipped_after_ctest()
endfunction()
