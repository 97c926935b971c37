# cmake -D EXE=<bankcheck_kernel_suite> -P check_no_emulated_program.cmake
cmake_minimum_required(VERSION 3.25)
# A suite with no emulated program (its kernels without sm_90 SASS) has one CTest test in its place,
# "<prefix>/emulated/no_emulated_program", label emulate, which runs the GPU program with
# --bankcheck_no_emulated_program=<why>: skipped (77) saying why, and failed under
# BANKCHECK_REQUIRE_EMULATION=1, so that a gate that must emulate is not green having emulated nothing.
set(why "its kernels are built for CUDA_ARCHITECTURES \"80\", without sm_90 SASS")
foreach(required IN ITEMS 0 1)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "BANKCHECK_REQUIRE_EMULATION=${required}"
                          "${EXE}" "--bankcheck_no_emulated_program=${why}"
    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE result)
  if(required)
    set(expected_code 1)
    set(needle "bankcheck: BANKCHECK_REQUIRE_EMULATION=1 is set, but this suite has no emulated program: ${why}")
  else()
    set(expected_code 77)
    set(needle "bankcheck: skipped: this suite has no emulated program: ${why}")
  endif()
  string(FIND "${output}" "${needle}" at)
  if(NOT result STREQUAL expected_code OR at EQUAL -1)
    message(FATAL_ERROR "BANKCHECK_REQUIRE_EMULATION=${required} ${EXE} --bankcheck_no_emulated_program: "
                        "exit ${result} (expected ${expected_code}), output lacks \"${needle}\" or not:\n${output}${errors}")
  endif()
endforeach()
message(STATUS "No emulated program: skipped saying why, failed where emulation is required")
