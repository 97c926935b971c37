include(GoogleTest)

# bankcheck_add_test(<target> [GPU] SOURCES ... [LIBS ...])
#
# One GoogleTest executable, its tests registered with CTest through discovery and labelled
# `cpu` or `gpu`. A test that calls GTEST_SKIP (as every GPU test does on a machine without a
# usable GPU) is reported by CTest as skipped, not passed; ci/test.sh prints the reasons.
function(bankcheck_add_test target)
  cmake_parse_arguments(ARG "GPU" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS} bankcheck::gtest_main)
  bankcheck_set_warnings(${target})
  # GPU tests each take one GPU from CTest's resource allocation (`ctest --resource-spec-file`,
  # which ci/test.sh writes from nvidia-smi): one GPU test per GPU at a time, on the GPU that
  # bankcheck::gtest_main selects through CUDA_VISIBLE_DEVICES.
  if(ARG_GPU)
    set(label gpu)
    set(resource_groups RESOURCE_GROUPS "gpus:1")
  else()
    set(label cpu)
    set(resource_groups "")
  endif()
  gtest_discover_tests(${target}
    DISCOVERY_TIMEOUT 60
    # Name value-parameterized tests by their generated names, not by "GetParam() = 0x..."
    NO_PRETTY_VALUES
    XML_OUTPUT_DIR "${CMAKE_BINARY_DIR}/test-results/junit"
    PROPERTIES
      LABELS ${label}
      ${resource_groups}
      SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endfunction()
