# Every dependency comes from a Debian package or the CUDA toolkit. A missing one stops the
# configure step with the package to install, not with CMake's generic "could not find" text.

function(bankcheck_require_package package debian_packages)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR
      "bankcheck needs ${package}, which was not found.\n"
      "Install it with:  sudo apt-get install ${debian_packages}\n"
      "(or run ${PROJECT_SOURCE_DIR}/ci/install-deps.sh, which installs everything bankcheck needs).")
  endif()
endfunction()

# The GPU side (BANKCHECK_ENABLE_CUDA): the toolkit with CUPTI, and GoogleTest for the testing
# layer. The core and the CLI need neither.
if(BANKCHECK_ENABLE_CUDA)
  bankcheck_require_package(CUDAToolkit "the CUDA Toolkit 13 (nvcc, cudart, CUPTI); put nvcc on PATH" 13)
  if(NOT TARGET CUDA::cupti)
    message(FATAL_ERROR "The CUDA Toolkit at ${CUDAToolkit_LIBRARY_DIR} has no CUPTI library (libcupti.so). "
                        "Install the toolkit's CUPTI component (cuda-cupti-13-0).")
  endif()
  bankcheck_require_package(GTest "libgtest-dev libgmock-dev" CONFIG)
  if(NOT TARGET GTest::gmock)
    message(FATAL_ERROR "GoogleMock was not found. Install it with:  sudo apt-get install libgmock-dev")
  endif()
endif()
bankcheck_require_package(nlohmann_json "nlohmann-json3-dev" 3.10 CONFIG)
bankcheck_require_package(CLI11 "libcli11-dev" CONFIG)
if(BANKCHECK_BUILD_BENCHMARKS)
  bankcheck_require_package(benchmark "libbenchmark-dev" CONFIG)
endif()
