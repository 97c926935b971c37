include(GoogleTest)

# bankcheck_add_test(<target> [GPU] SOURCES ... [LIBS ...])
#
# One of bankcheck's own GoogleTest executables (a kernel suite is bankcheck_add_kernel_suite()'s),
# labelled `cpu` or `gpu` for CTest. A test that calls GTEST_SKIP (as every GPU test does on a
# machine without a usable GPU) is reported by CTest as skipped, not passed; ci/test.sh prints the
# reasons.
function(bankcheck_add_test target)
  cmake_parse_arguments(ARG "GPU" "" "SOURCES;LIBS" ${ARGN})
  # A GPU program is made as a user's own are (bankcheck_add_gpu_test, BankcheckKernelSuite.cmake):
  # bankcheck's main (GPU selection, set-up before any test, exit 77 when all skipped), one CTest
  # test whose tests share one process (CUDA and CUPTI start once, about 0.5 s) on one GPU of CTest's
  # resource allocation. CPU programs get GoogleTest's main, which touches no GPU, and are discovered
  # test by test.
  if(ARG_GPU)
    bankcheck_add_gpu_test(${target} SOURCES ${ARG_SOURCES} LIBRARIES ${ARG_LIBS})
    bankcheck_set_warnings(${target})
    return()
  endif()
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS} GTest::gmock_main)
  _bankcheck_gtest_skip_expression(skip_expression)
  bankcheck_set_warnings(${target})
  gtest_discover_tests(${target}
    DISCOVERY_TIMEOUT 60
    # Name value-parameterized tests by their generated names, not by "GetParam() = 0x..."
    NO_PRETTY_VALUES
    XML_OUTPUT_DIR "${CMAKE_BINARY_DIR}/test-results/junit"
    PROPERTIES
      LABELS cpu
      SKIP_REGULAR_EXPRESSION "${skip_expression}")
endfunction()

# bankcheck_compile_own_tests_for_speed(): bankcheck's own test programs (targets named *_test in
# this project's folders) compile their C++ files with -Og in every optimized build
# type. Their code is assertions, fixtures and host references; the code under test is in the
# libraries, which keep the build type's flags. A GoogleTest file at -Og -g takes about 60% of the
# CPU seconds of -O2 -g, and these files are the largest part of the build. CUDA files keep the
# build type's flags: nvcc's -O takes only a number, and lowering it saves little there (the host
# compiler is a smaller part of an nvcc run). Called once, at the end of the top-level CMakeLists.txt.
function(bankcheck_compile_own_tests_for_speed)
  set(folders "${PROJECT_SOURCE_DIR}")
  while(folders)
    list(POP_FRONT folders folder)
    get_property(subfolders DIRECTORY "${folder}" PROPERTY SUBDIRECTORIES)
    list(APPEND folders ${subfolders})
    get_property(targets DIRECTORY "${folder}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(target MATCHES "_test$" AND NOT type STREQUAL "INTERFACE_LIBRARY")
        target_compile_options(${target} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CONFIG:Debug>>>:-Og>)
      endif()
    endforeach()
  endwhile()
endfunction()
