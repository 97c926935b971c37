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
  if(ARG_GPU)
    set(label gpu)
    set(resources "gpus:1")
  else()
    set(label cpu)
    set(resources "")
  endif()
  gtest_discover_tests(${target}
    DISCOVERY_TIMEOUT 60
    XML_OUTPUT_DIR "${CMAKE_BINARY_DIR}/test-results/junit"
    PROPERTIES
      LABELS ${label}
      SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
      ENVIRONMENT "BANKCHECK_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()
