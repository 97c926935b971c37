# cmake -D EXE=<bankcheck_kernel_suite> -D BUILD_DIR=<build folder> -P check_suite_names.cmake
# The kernel suite's names as a person sees them, without a GPU: its GoogleTest tests are
# "KernelSuite/<topic>.<rest of the case name>" (its TEST_PREFIX), BANKCHECK_CASES selects cases by
# name, and the anchored ctest -R of a topic selects that topic's CTest test alone.
function(expect what text needle)
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what} lacks \"${needle}\":\n${text}")
  endif()
endfunction()
function(expect_not what text needle)
  string(FIND "${text}" "${needle}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${what} has \"${needle}\":\n${text}")
  endif()
endfunction()

set(cases "transpose/padded_32x8/*,transpose16/padded/*")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "BANKCHECK_CASES=${cases}" "${EXE}" --gtest_list_tests
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${result}): ${errors}")
endif()
set(what "BANKCHECK_CASES='${cases}' ${EXE} --gtest_list_tests")
expect("${what}" "${listing}" "KernelSuite/transpose.\n  padded_32x8/100x37\n  padded_32x8/128x128\n")
expect("${what}" "${listing}" "KernelSuite/transpose16.\n  padded/64x64\n")
expect_not("${what}" "${listing}" "padded_32x32")
expect_not("${what}" "${listing}" "swizzled")

execute_process(COMMAND "${CMAKE_COMMAND}" -E env "BANKCHECK_CASES=transpose/*" "${EXE}" --bankcheck_list_cases
  OUTPUT_VARIABLE names RESULT_VARIABLE result)
expect("--bankcheck_list_cases" "${names}" "transpose/padded_32x8/128x128\n")
expect_not("--bankcheck_list_cases" "${names}" "transpose16/")

# ctest's own regular expressions: the printed -R of topic "transpose" is not "transpose16".
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${BUILD_DIR}" -N -R "^KernelSuite/transpose$"
  OUTPUT_VARIABLE tests RESULT_VARIABLE result)
expect("ctest -N -R '^KernelSuite/transpose$'" "${tests}" "KernelSuite/transpose\n")
expect("ctest -N -R '^KernelSuite/transpose$'" "${tests}" "Total Tests: 1\n")
message(STATUS "The kernel suite's test names are as expected")
