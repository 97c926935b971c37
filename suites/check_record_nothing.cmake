# cmake -D EXE=<bankcheck_kernel_suite> -D WORK=<folder> -P check_record_nothing.cmake
cmake_minimum_required(VERSION 3.25)
# A recording (BANKCHECK_UPDATE_BASELINES=1) whose cases all skip records nothing: it fails, saying
# so, instead of the skip that ctest shows as green (no GPU here: CUDA_VISIBLE_DEVICES hides every
# one, so this holds on a GPU machine too). Without the recording, the same run still skips.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/baselines")
foreach(recording IN ITEMS 1 0)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "CUDA_VISIBLE_DEVICES=" "BANKCHECK_UPDATE_BASELINES=${recording}"
                          "BANKCHECK_BASELINES_DIR=${WORK}/baselines" "BANKCHECK_RESULTS_DIR=${WORK}/results"
                          "BANKCHECK_CASES=classic_demo/*" "${EXE}" --bankcheck_topic=classic_demo
    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
  if(recording)
    set(expected_code 1)
    set(needle "bankcheck: error: BANKCHECK_UPDATE_BASELINES=1 recorded nothing: every case was skipped")
  else()
    set(expected_code 77)
    set(needle "bankcheck: every case was skipped")
  endif()
  string(FIND "${output}" "${needle}" at)
  if(NOT result STREQUAL expected_code OR at EQUAL -1)
    message(FATAL_ERROR "BANKCHECK_UPDATE_BASELINES=${recording}, no GPU: exit ${result} (expected ${expected_code}), "
                        "output lacks \"${needle}\" or not:\n${output}${errors}")
  endif()
endforeach()
file(GLOB_RECURSE recorded "${WORK}/baselines/*")
if(recorded)
  message(FATAL_ERROR "a recording with every case skipped wrote: ${recorded}")
endif()
message(STATUS "A recording that records nothing fails; the same run unrecorded skips")
