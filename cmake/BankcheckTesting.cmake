include(GoogleTest)

# bankcheck_add_test(<target> [GPU] SOURCES ... [LIBS ...])
#
# One of bankcheck's own GoogleTest executables (a kernel suite is bankcheck_add_kernel_suite()'s),
# labelled `cpu` or `gpu` for CTest. A test that calls GTEST_SKIP (as every GPU test does on a
# machine without a usable GPU) is reported by CTest as skipped, not passed; ci/test.sh prints the
# reasons.
function(bankcheck_add_test target)
  cmake_parse_arguments(ARG "GPU" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  # GPU programs get bankcheck's main (GPU selection, set-up before any test, exit 77 when all
  # skipped); CPU programs GoogleTest's, which touches no GPU.
  if(ARG_GPU)
    target_link_libraries(${target} PRIVATE ${ARG_LIBS} bankcheck::gtest_main)
  else()
    target_link_libraries(${target} PRIVATE ${ARG_LIBS} GTest::gmock_main)
  endif()
  bankcheck_set_warnings(${target})
  # A GPU program is one CTest test: its tests share one process (CUDA and CUPTI start once, about
  # 0.5 s), and it takes one GPU from CTest's resource allocation (`ctest --resource-spec-file`,
  # which ci/test.sh writes from nvidia-smi) on the GPU that bankcheck::gtest_main selects through
  # CUDA_VISIBLE_DEVICES. When every test skipped (no usable GPU) it exits 77: skipped, not passed.
  # CPU programs are discovered test by test.
  if(ARG_GPU)
    add_test(NAME ${target} COMMAND ${target}
      "--gtest_output=xml:${CMAKE_BINARY_DIR}/test-results/junit/${target}.xml")
    set_tests_properties(${target} PROPERTIES LABELS gpu RESOURCE_GROUPS "gpus:1" SKIP_RETURN_CODE 77)
    return()
  endif()
  gtest_discover_tests(${target}
    DISCOVERY_TIMEOUT 60
    # Name value-parameterized tests by their generated names, not by "GetParam() = 0x..."
    NO_PRETTY_VALUES
    XML_OUTPUT_DIR "${CMAKE_BINARY_DIR}/test-results/junit"
    PROPERTIES
      LABELS cpu
      SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endfunction()
