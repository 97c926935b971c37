# cmake -D EXE=<bankcheck_kernel_suite_emulated> -D DISCOVER=<BankcheckDiscoverTopics.cmake>
#       -D WORK=<folder> -P check_sass_tools_after_build.cmake
cmake_minimum_required(VERSION 3.25)
# cuobjdump and nvdisasm installed after the build (`pip install nvidia-cuda-cuobjdump
# nvidia-cuda-nvdisasm` into the active virtual environment): configure did not find them, and the
# next ctest gives them to the emulated tests all the same, without configuring or building again.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/build")
# The discovery after a build whose configure found neither tool.
execute_process(COMMAND "${CMAKE_COMMAND}" -D "EXE=${EXE}" -D "TEST_FILE=${WORK}/build/topics.cmake"
                        -D "PREFIX=S/" -D "JUNIT_DIR=${WORK}/junit" -D EMULATED=ON
                        -D "CUOBJDUMP=BANKCHECK_CUOBJDUMP_EXECUTABLE-NOTFOUND"
                        -D "NVDISASM=BANKCHECK_NVDISASM_EXECUTABLE-NOTFOUND" -P "${DISCOVER}"
  RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the discovery failed (${result}): ${errors}")
endif()
file(WRITE "${WORK}/build/CTestTestfile.cmake" "include([==[${WORK}/build/topics.cmake]==])\n")
set(bin "${WORK}/venv/lib/python3.11/site-packages/nvidia/cu13/bin")
# The tests as the next ctest reads them, in a virtual environment at WORK/venv.
function(list_tests out)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "VIRTUAL_ENV=${WORK}/venv"
                          "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" --show-only=json-v1
    OUTPUT_VARIABLE listing RESULT_VARIABLE result ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "ctest --show-only failed (${result}): ${errors}")
  endif()
  if(NOT listing MATCHES "S/emulated/")
    message(FATAL_ERROR "ctest lists no emulated test S/emulated/<topic>:\n${listing}")
  endif()
  set(${out} "${listing}" PARENT_SCOPE)
endfunction()
# Before the tools are installed, the tests are given none of them.
list_tests(listing)
string(FIND "${listing}" "${bin}/" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "the emulated tests are given ${bin} before anything is installed there:\n${listing}")
endif()
# Then the tools, as NVIDIA's wheels install them into a virtual environment: nothing is configured
# or built again, ctest only reads the same test files.
file(MAKE_DIRECTORY "${bin}")
foreach(tool IN ITEMS cuobjdump nvdisasm)
  file(WRITE "${bin}/${tool}" "#!/bin/sh\nexit 0\n")
  file(CHMOD "${bin}/${tool}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endforeach()
list_tests(listing)
foreach(tool IN ITEMS cuobjdump nvdisasm)
  string(TOUPPER "${tool}" upper)
  string(FIND "${listing}" "BANKCHECK_${upper}=${bin}/${tool}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the emulated tests are not given ${bin}/${tool}:\n${listing}")
  endif()
endforeach()
message(STATUS "SASS tools installed after the build are found by the next ctest")
