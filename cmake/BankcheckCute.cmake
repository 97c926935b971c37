# bankcheck_find_cute(<out_var>): the folder that holds CuTe's headers (cute/tensor.hpp), or ""
# when none is found. CuTe is optional: only bankcheck's own wgmma_layouts and cute_gemm cases use
# it (suites/CMakeLists.txt), and without it they skip with the reason. Looked for, in order:
#   1. BANKCHECK_CUTE_INCLUDE_DIR, when set (an error if it holds no cute/tensor.hpp);
#   2. <build folder>/cute-headers, where ci/jobs/install-deps.sh installs the nvidia-cutlass wheel
#      (pip install --target: no environment of the system is touched);
#   3. the nvidia-cutlass wheel of the python3 on PATH (pip install nvidia-cutlass, --user or in
#      a venv): its package cutlass_library holds the headers in source/include.
include_guard(GLOBAL)

set(BANKCHECK_CUTE_INCLUDE_DIR "" CACHE PATH
    "CuTe's include folder (holding cute/tensor.hpp); empty: ci/jobs/install-deps.sh's or python3's nvidia-cutlass wheel")

function(bankcheck_find_cute out_var)
  if(BANKCHECK_CUTE_INCLUDE_DIR)
    if(NOT EXISTS "${BANKCHECK_CUTE_INCLUDE_DIR}/cute/tensor.hpp")
      message(FATAL_ERROR "BANKCHECK_CUTE_INCLUDE_DIR=${BANKCHECK_CUTE_INCLUDE_DIR} holds no cute/tensor.hpp: "
                          "give the folder that holds cute/ (in the nvidia-cutlass wheel: "
                          "cutlass_library/source/include), or leave it empty to look for the wheel")
    endif()
    set(${out_var} "${BANKCHECK_CUTE_INCLUDE_DIR}" PARENT_SCOPE)
    return()
  endif()
  # ci/jobs/install-deps.sh's pip --target. Written here, not beside the include guard: a variable set
  # there would hold only in the scope of the first directory that includes this file.
  set(candidates "${CMAKE_BINARY_DIR}/cute-headers/cutlass_library/source/include")
  find_program(BANKCHECK_PYTHON3 NAMES python3 DOC "python3, asked where the nvidia-cutlass wheel is")
  if(BANKCHECK_PYTHON3)
    # find_spec locates the package without importing it (the wheel's python needs more packages).
    execute_process(
      COMMAND "${BANKCHECK_PYTHON3}" -c
              "import importlib.util, os; s = importlib.util.find_spec('cutlass_library'); print(os.path.join(list(s.submodule_search_locations)[0], 'source', 'include') if s else '')"
      OUTPUT_VARIABLE python_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE status)
    if(status EQUAL 0 AND python_dir)
      list(APPEND candidates "${python_dir}")
    endif()
  endif()
  foreach(dir IN LISTS candidates)
    if(EXISTS "${dir}/cute/tensor.hpp")
      set(${out_var} "${dir}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out_var} "" PARENT_SCOPE)
endfunction()
