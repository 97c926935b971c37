# bankcheck_find_flashinfer(<include_var> <cccl_var>): the folder that holds FlashInfer's CUDA headers
# (flashinfer/norm.cuh), or "" when none is found, and the folder of the CCCL headers to compile them
# with, or "" for the toolkit's own. Optional: only the corpus's FlashInfer cases
# (corpus/kernels/flashinfer_*.cu) use them, and without them those cases skip with the reason.
# Looked for, in order:
#   1. BANKCHECK_FLASHINFER_INCLUDE_DIR, when set (an error if it holds no flashinfer/norm.cuh);
#   2. <build folder>/flashinfer-headers/include, where ci/jobs/install-deps.sh extracts the include tree
#      of the pinned flashinfer-python wheel (ci/requirements/flashinfer-requirements.txt).
# Not the python3's flashinfer-python package: importing it needs torch, and its version is not the
# pinned one. The CCCL headers: <build folder>/flashinfer-headers/cccl (the pinned nvidia-cuda-cccl
# wheel's, extracted there by ci/jobs/install-deps.sh) when it holds cuda/cmath.
include_guard(GLOBAL)

set(BANKCHECK_FLASHINFER_INCLUDE_DIR "" CACHE PATH
    "FlashInfer's include folder (holding flashinfer/norm.cuh); empty: ci/jobs/install-deps.sh's")

function(bankcheck_find_flashinfer include_var cccl_var)
  # Written here, not beside the include guard: see cmake/BankcheckCute.cmake.
  set(installed "${CMAKE_BINARY_DIR}/flashinfer-headers")
  set(cccl "")
  if(EXISTS "${installed}/cccl/cuda/cmath")
    set(cccl "${installed}/cccl")
  endif()
  set(${cccl_var} "${cccl}" PARENT_SCOPE)
  if(BANKCHECK_FLASHINFER_INCLUDE_DIR)
    if(NOT EXISTS "${BANKCHECK_FLASHINFER_INCLUDE_DIR}/flashinfer/norm.cuh")
      message(FATAL_ERROR "BANKCHECK_FLASHINFER_INCLUDE_DIR=${BANKCHECK_FLASHINFER_INCLUDE_DIR} holds no "
                          "flashinfer/norm.cuh: give the folder that holds flashinfer/ (in the "
                          "flashinfer-python wheel: flashinfer/data/include), or leave it empty to use "
                          "ci/jobs/install-deps.sh's")
    endif()
    set(${include_var} "${BANKCHECK_FLASHINFER_INCLUDE_DIR}" PARENT_SCOPE)
  elseif(EXISTS "${installed}/include/flashinfer/norm.cuh")
    set(${include_var} "${installed}/include" PARENT_SCOPE)
  else()
    set(${include_var} "" PARENT_SCOPE)
  endif()
endfunction()

# bankcheck_cccl_has_fast_mod_div(<out_var> <cccl_dir>): whether CCCL (that of <cccl_dir>, else the
# toolkit's) has cuda::fast_mod_div (<cuda/cmath>), which FlashInfer's fastdiv.cuh (so page.cuh and
# pos_enc.cuh) needs: CCCL 3.0, of CUDA 13.0, has not. Decided once per folder, by compiling its use;
# the corpus's page and RoPE cases skip, saying so, where it is false.
function(bankcheck_cccl_has_fast_mod_div out_var cccl_dir)
  include(CheckSourceCompiles)
  string(MD5 key "${cccl_dir}")
  set(CMAKE_REQUIRED_QUIET ON)
  if(cccl_dir)
    set(CMAKE_REQUIRED_INCLUDES "${cccl_dir}")
  endif()
  check_source_compiles(CUDA [=[
#include <cuda/cmath>
int main() {
  cuda::fast_mod_div<unsigned> divisor(3u);
  return static_cast<int>(7u / divisor);
}
]=] BANKCHECK_CCCL_HAS_FAST_MOD_DIV_${key})
  set(${out_var} ${BANKCHECK_CCCL_HAS_FAST_MOD_DIV_${key}} PARENT_SCOPE)
endfunction()
