# bankcheck_find_cupy(<out_include_dirs> <module:NAME>...): the include folders of CuPy's sources for
# the corpus's CuPy cases (corpus/kernels/cupy_signal.cu), or "" when none are found. CuPy is
# optional: without it those cases skip with the reason.
#
# CuPy keeps its kernels as CUDA source strings in its Python modules (compiled by NVRTC at run
# time); corpus/extract_cupy_kernels.py writes each requested string, unchanged, into
# <build folder>/corpus-cupy-kernels/<module>/<NAME>.cuh at configure time, without importing CuPy.
# <out_include_dirs> gets CuPy's headers (cupy/_core/include) and that folder. Looked for, in order:
#   1. BANKCHECK_CUPY_DIR, when set: a folder holding cupy/_core/include and cupyx/ (an unpacked
#      cupy-cuda13x wheel; an error if it holds neither);
#   2. <build folder>/cupy-sources, where ci/jobs/install-deps.sh unpacks the pinned wheel's headers and
#      Python sources (no environment of the system is touched).
# The kernels are CuPy's as the pinned version (ci/requirements/cupy-requirements.txt) has them: a folder whose
# modules lack a requested string is an error when given as BANKCHECK_CUPY_DIR; found in the build
# folder, it is reported with a warning and treated as none.
include_guard(GLOBAL)

set(BANKCHECK_CUPY_DIR "" CACHE PATH
    "A folder holding an unpacked cupy-cuda13x wheel (cupy/_core/include, cupyx/); empty: ci/jobs/install-deps.sh's")

function(bankcheck_find_cupy out_include_dirs)
  set(${out_include_dirs} "" PARENT_SCOPE)
  if(BANKCHECK_CUPY_DIR)
    if(NOT EXISTS "${BANKCHECK_CUPY_DIR}/cupy/_core/include/cupy/complex.cuh" OR
       NOT IS_DIRECTORY "${BANKCHECK_CUPY_DIR}/cupyx")
      message(FATAL_ERROR "BANKCHECK_CUPY_DIR=${BANKCHECK_CUPY_DIR} holds no cupy/_core/include/cupy/complex.cuh "
                          "and cupyx/: give the folder a cupy-cuda13x wheel was unpacked into (python3 -m zipfile "
                          "-e <wheel> <folder>), or leave it empty for ci/jobs/install-deps.sh's")
    endif()
    set(site "${BANKCHECK_CUPY_DIR}")
  elseif(EXISTS "${CMAKE_BINARY_DIR}/cupy-sources/cupy/_core/include/cupy/complex.cuh")
    set(site "${CMAKE_BINARY_DIR}/cupy-sources")
  else()
    return()
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(NOT Python3_Interpreter_FOUND)
    message(WARNING "CuPy's sources are in ${site} but no python3 was found to extract its kernels: "
                    "the CuPy corpus cases will skip")
    return()
  endif()
  set(extractor "${PROJECT_SOURCE_DIR}/corpus/extract_cupy_kernels.py")
  set(kernels_dir "${CMAKE_BINARY_DIR}/corpus-cupy-kernels")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${extractor}")
  execute_process(COMMAND "${Python3_EXECUTABLE}" "${extractor}" "${site}" "${kernels_dir}" ${ARGN}
                  RESULT_VARIABLE status ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    # Given by hand, the folder is an error to fix; found in the build folder, a stale install to redo.
    if(BANKCHECK_CUPY_DIR)
      set(severity FATAL_ERROR)
    else()
      set(severity WARNING)
    endif()
    message(${severity} "CuPy's kernels could not be extracted from ${site} (${error}): the CuPy corpus cases "
                        "will skip. ci/jobs/install-deps.sh installs the version they were written for.")
    return()
  endif()
  set(${out_include_dirs} "${site}/cupy/_core/include" "${kernels_dir}" PARENT_SCOPE)
endfunction()
