# cmake -D EXE=<bankcheck_kernel_suite> [-D OTHER=<another suite program of the build>]
#       -P check_case_selection.cmake
cmake_minimum_required(VERSION 3.25)
# A case selection that selects no case of any suite of the build (a misspelled BANKCHECK_CASES)
# fails every program that reads it, naming the selection, instead of skipping every topic and
# passing; recording with it fails too. A topic with no selected case, where the selection selects
# cases elsewhere (another topic, another suite of the build), still skips saying why. Decided
# before any case runs, so no GPU is needed.
function(run_suite out_code out_text)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${ARGN}
    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
  set(${out_code} "${result}" PARENT_SCOPE)
  set(${out_text} "${output}${errors}" PARENT_SCOPE)
endfunction()
function(expect what code text expected_code needle)
  string(FIND "${text}" "${needle}" at)
  if(NOT code STREQUAL expected_code OR at EQUAL -1)
    message(FATAL_ERROR "${what}: exit ${code} (expected ${expected_code}), output lacks \"${needle}\" or not:\n${text}")
  endif()
endfunction()

set(typo "transpos/*")
set(said "BANKCHECK_CASES='${typo}' selects no case of any kernel suite of this build")
run_suite(code text "BANKCHECK_CASES=${typo}" "${EXE}" --bankcheck_topic=transpose)
expect("a misspelled selection, a topic's test" "${code}" "${text}" 1 "${said}")
run_suite(code text "BANKCHECK_CASES=${typo}" "${EXE}")
expect("a misspelled selection, the whole suite" "${code}" "${text}" 1 "${said}")
run_suite(code text "BANKCHECK_CASES=${typo}" "${EXE}" --bankcheck_list_cases)
expect("a misspelled selection, --bankcheck_list_cases" "${code}" "${text}" 1 "${said}")
run_suite(code text "BANKCHECK_UPDATE_BASELINES=1" "BANKCHECK_CASES=${typo}" "${EXE}" --bankcheck_topic=transpose)
expect("a misspelled selection, recording" "${code}" "${text}" 1 "${said}")
run_suite(code text "BANKCHECK_UPDATE_BASELINES=1" "BANKCHECK_CASES=${typo}" "${EXE}" --bankcheck_topic=transpose)
expect("a misspelled selection, recording" "${code}" "${text}" 1 "${said}")

# Cases of another topic: this topic skips, saying so.
run_suite(code text "BANKCHECK_CASES=transpose/*" "${EXE}" --bankcheck_topic=transpose16)
expect("another topic's cases" "${code}" "${text}" 77
       "bankcheck: every case was skipped: BANKCHECK_CASES='transpose/*' selects no case of topic 'transpose16'")
# Cases of another suite of the build (its program lists them after each build): the same.
if(OTHER)
  run_suite(code names "${OTHER}" --bankcheck_list_cases)
  string(REGEX MATCH "^[^\n]+" other_case "${names}")
  if(NOT code EQUAL 0 OR other_case STREQUAL "")
    message(FATAL_ERROR "${OTHER} --bankcheck_list_cases: exit ${code}, no case:\n${names}")
  endif()
  run_suite(code text "BANKCHECK_CASES=${other_case}" "${EXE}" --bankcheck_topic=transpose)
  expect("another suite's case" "${code}" "${text}" 77
         "bankcheck: every case was skipped: BANKCHECK_CASES='${other_case}' selects no case of topic 'transpose'")
  run_suite(code text "BANKCHECK_CASES=${other_case}" "${EXE}" --bankcheck_list_cases)
  expect("another suite's case, --bankcheck_list_cases" "${code}" "${text}" 0 "")
  if(NOT text STREQUAL "")
    message(FATAL_ERROR "BANKCHECK_CASES='${other_case}' ${EXE} --bankcheck_list_cases lists:\n${text}")
  endif()
endif()
message(STATUS "A case selection that selects nothing fails; one that selects elsewhere skips")
