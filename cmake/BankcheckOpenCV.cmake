# bankcheck_find_opencv_cuda(<out_var>): the folder that holds OpenCV's CUDA device headers
# (opencv2/core/cuda/reduce.hpp), or "" when none is found. Only the corpus uses them
# (corpus/kernels/opencv_*.cu), header-only: the headers' device templates are instantiated in our
# kernels and no OpenCV library is linked. Optional: without them those cases register and skip with
# the reason. Looked for, in order:
#   1. BANKCHECK_OPENCV_INCLUDE_DIR, when set (an error if it holds no opencv2/core/cuda/reduce.hpp);
#   2. the system's opencv4 include folder, where Debian's libopencv-core-dev installs them
#      (ci/jobs/install-deps.sh installs it; built with 4.6.0+dfsg-12).
include_guard(GLOBAL)

set(BANKCHECK_OPENCV_INCLUDE_DIR "" CACHE PATH
    "OpenCV 4's include folder (holding opencv2/core/cuda/reduce.hpp); empty: the system's (libopencv-core-dev)")

function(bankcheck_find_opencv_cuda out_var)
  if(BANKCHECK_OPENCV_INCLUDE_DIR)
    if(NOT EXISTS "${BANKCHECK_OPENCV_INCLUDE_DIR}/opencv2/core/cuda/reduce.hpp")
      message(FATAL_ERROR "BANKCHECK_OPENCV_INCLUDE_DIR=${BANKCHECK_OPENCV_INCLUDE_DIR} holds no "
                          "opencv2/core/cuda/reduce.hpp: give the folder that holds opencv2/ (Debian's "
                          "libopencv-core-dev: /usr/include/opencv4), or leave it empty to look for it")
    endif()
    set(${out_var} "${BANKCHECK_OPENCV_INCLUDE_DIR}" PARENT_SCOPE)
    return()
  endif()
  find_path(BANKCHECK_OPENCV_CUDA_HEADERS NAMES opencv2/core/cuda/reduce.hpp PATH_SUFFIXES opencv4
            DOC "the folder holding OpenCV's opencv2/core/cuda/reduce.hpp (found: libopencv-core-dev)")
  if(BANKCHECK_OPENCV_CUDA_HEADERS)
    set(${out_var} "${BANKCHECK_OPENCV_CUDA_HEADERS}" PARENT_SCOPE)
  else()
    set(${out_var} "" PARENT_SCOPE)
  endif()
endfunction()
