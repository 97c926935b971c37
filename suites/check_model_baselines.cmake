# cmake -D ANNOTATIONS=<bankcheck_kernel_suite_annotations> -D BASELINES=<baselines folder>
#       -D WORK=<scratch folder> -P check_model_baselines.cmake
cmake_minimum_required(VERSION 3.25)
# The CPU model check of a case without c.expect (its lines state its conflicts) holds the model to
# the case's committed baselines: it passes against the real ones, fails naming the baseline when
# a baseline disagrees with the model, and skips, saying so, where the case has none.
set(check "KernelSuite/model/transpose.unpadded_32x8/128x128")
set(name "transpose/unpadded_32x8/128x128")

function(run_check dir out_var rc_var)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "BANKCHECK_BASELINES_DIR=${dir}" "${ANNOTATIONS}"
                          "--gtest_filter=${check}" OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()
function(expect what text needle)
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what} lacks \"${needle}\":\n${text}")
  endif()
endfunction()

# The committed baselines: the model of the unpadded transpose agrees with what the GPU recorded.
run_check("${BASELINES}" out rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${check} against ${BASELINES} failed (${rc}):\n${out}")
endif()
expect("${check} against ${BASELINES}" "${out}" "[  PASSED  ] 1 test")

# A copy whose entry for the case holds the padded transpose's loads: the check fails and names it.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/doctored/sm_90" "${WORK}/empty/sm_90")
file(READ "${BASELINES}/sm_90/transpose.json" json)
string(JSON padded_loads GET "${json}" cases "transpose/padded_32x8/128x128" launches 0 shared_ld)
string(JSON json SET "${json}" cases "${name}" launches 0 shared_ld "${padded_loads}")
file(WRITE "${WORK}/doctored/sm_90/transpose.json" "${json}")
run_check("${WORK}/doctored" out rc)
if(rc EQUAL 0)
  message(FATAL_ERROR "${check} passed against a baseline that disagrees with the model:\n${out}")
endif()
expect("${check} against a doctored baseline" "${out}" "the CPU model disagrees with the sm_90 baseline")

# No baseline for the case: skipped, saying why.
run_check("${WORK}/empty" out rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${check} without a baseline failed (${rc}):\n${out}")
endif()
expect("${check} without a baseline" "${out}" "has no c.expect and no baseline yet")
expect("${check} without a baseline" "${out}" "[  SKIPPED ] 1 test")
