# cmake -D EXE=<bankcheck_kernel_suite> -D ANNOTATIONS=<bankcheck_kernel_suite_annotations>
#       -P check_suite_names.cmake
cmake_minimum_required(VERSION 3.25)
# The kernel suite's names as a person sees them, without a GPU: its GoogleTest tests are
# "KernelSuite/<topic>.<rest of the case name>" (its TEST_PREFIX), its CPU model checks
# "KernelSuite/model/<topic>.<rest>" and its baseline files check "KernelSuite.baseline_files";
# BANKCHECK_CASES selects cases by name in both programs, and the anchored ctest -R of a topic
# selects that topic's CTest test alone.
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

# The CPU program lists every check whatever BANKCHECK_CASES says (CTest's tests are listed from it
# after each build), and a check that BANKCHECK_CASES does not select skips, saying why.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "BANKCHECK_CASES=transpose16/*" "${ANNOTATIONS}" --gtest_list_tests
  OUTPUT_VARIABLE checks ERROR_VARIABLE errors RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${ANNOTATIONS} --gtest_list_tests failed (${result}): ${errors}")
endif()
set(what "BANKCHECK_CASES='transpose16/*' ${ANNOTATIONS} --gtest_list_tests")
expect("${what}" "${checks}" "KernelSuite/model/transpose.\n  padded_32x32/128x128\n")
expect("${what}" "${checks}" "KernelSuite/model/transpose16.\n  padded/64x64\n")
expect("${what}" "${checks}" "KernelSuite.\n  baseline_files\n")
expect_not("${what}" "${checks}" "KernelModel")
set(check "KernelSuite/model/transpose.padded_32x8/128x128")
foreach(cases "transpose16/*" "transpose/padded_32x8/*")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "BANKCHECK_CASES=${cases}" "${ANNOTATIONS}" "--gtest_filter=${check}"
    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
  set(what "BANKCHECK_CASES='${cases}' ${ANNOTATIONS} --gtest_filter=${check}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}): ${output}${errors}")
  endif()
  if(cases STREQUAL "transpose16/*")
    expect("${what}" "${output}" "BANKCHECK_CASES='transpose16/*' does not select this case")
    expect("${what}" "${output}" "[  SKIPPED ] ${check}")
  else()
    expect("${what}" "${output}" "[       OK ] ${check}")
  endif()
endforeach()

# The printed -R of a topic selects that topic's CTest test alone ("transpose", not "transpose16").
# Checked with CMake's MATCHES, the regular expressions ctest -R uses (cmsys::RegularExpression):
# running ctest here would replace the build's Testing/Temporary/LastTest.log, in which the running
# ctest keeps the output that ci/test.sh reads the skip reasons from.
execute_process(COMMAND "${EXE}" --bankcheck_list_topics OUTPUT_VARIABLE topics RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${EXE} --bankcheck_list_topics failed (${result})")
endif()
string(REGEX REPLACE "\n$" "" topics "${topics}")
string(REPLACE "\n" ";" topics "${topics}")
set(selected "")
foreach(topic IN LISTS topics)
  if("KernelSuite/${topic}" MATCHES "^KernelSuite/transpose$")
    list(APPEND selected "${topic}")
  endif()
endforeach()
if(NOT selected STREQUAL "transpose" OR NOT "transpose16" IN_LIST topics)
  message(FATAL_ERROR "-R '^KernelSuite/transpose$' selects the topics [${selected}] of [${topics}]")
endif()
# Nor does it select the topic's model checks, which a topic's own ctest -R does.
if("${check}" MATCHES "^KernelSuite/transpose$" OR NOT "${check}" MATCHES "^KernelSuite/model/transpose\\.")
  message(FATAL_ERROR "-R '^KernelSuite/transpose$' selects ${check}, or '^KernelSuite/model/transpose\\.' does not")
endif()
message(STATUS "The kernel suite's test names are as expected")
