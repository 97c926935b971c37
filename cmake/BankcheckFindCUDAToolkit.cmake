# bankcheck_find_cuda_toolkit(<find_package arguments>): find_package(CUDAToolkit ...), also with
# CMake 3.25.0 and 3.25.1 (Debian 12's cmake). Their FindCUDAToolkit, for a project whose
# cmake_minimum_required is 3.25 or newer, sets the deprecation property of CUDA::nvToolsExt
# without checking the target exists, and a toolkit without nvToolsExt (CUDA 13, NVIDIA's wheels)
# makes no such target: "set_property could not find TARGET CUDA::nvToolsExt", the configure
# fails. For that one call those versions see a minimum of 3.24, which leaves out only that
# property (the minimum sets no policy; cmake_minimum_required did that already). Installed with
# the package, whose bankcheckConfig.cmake finds the consumer's toolkit through it.
macro(bankcheck_find_cuda_toolkit)
  if(CMAKE_VERSION VERSION_LESS 3.25.2 AND CMAKE_MINIMUM_REQUIRED_VERSION VERSION_GREATER_EQUAL 3.25)
    set(_bankcheck_minimum_required "${CMAKE_MINIMUM_REQUIRED_VERSION}")
    set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
    find_package(CUDAToolkit ${ARGN})
    set(CMAKE_MINIMUM_REQUIRED_VERSION "${_bankcheck_minimum_required}")
    unset(_bankcheck_minimum_required)
  else()
    find_package(CUDAToolkit ${ARGN})
  endif()
endmacro()
