# bankcheck's dependencies, each resolved in this order:
#   1. targets that already exist: a project that includes bankcheck (add_subdirectory,
#      FetchContent) and brought its own GoogleTest, nlohmann-json or CLI11 first (its own
#      FetchContent, vcpkg, Conan, find_package) keeps them;
#   2. find_package(... CONFIG): Debian's packages (ci/jobs/install-deps.sh), or any other install on
#      CMAKE_PREFIX_PATH; -DCMAKE_DISABLE_FIND_PACKAGE_<Package>=ON skips this step;
#   3. FetchContent at a pinned version and SHA-256, built here: a download, or the sources given as
#      -DFETCHCONTENT_SOURCE_DIR_<NAME>=<folder> (CMake's own override; Debian's `googletest`
#      package has GoogleTest's at /usr/src/googletest). -DBANKCHECK_FETCH_DEPENDENCIES=OFF forbids
#      the download: a missing dependency then stops the configure step with what to do.
# The CUDA toolkit comes from NVIDIA's installer or packages only. CLI11 is needed only for the CLI
# (BANKCHECK_BUILD_CLI), Google Benchmark only for the benchmarks (a package, never fetched).
include(FetchContent)

option(BANKCHECK_FETCH_DEPENDENCIES
  "Download a dependency that is neither a target yet nor found by find_package (pinned version)" ON)

# What to do when a dependency is missing, as one message.
function(bankcheck_missing_dependency package debian_packages fetch_name detail)
  string(TOUPPER "${fetch_name}" fetch_upper)
  message(FATAL_ERROR
    "bankcheck needs ${package}, which is neither a target yet nor found by find_package(${package} CONFIG)"
    "${detail}. Any one of these fixes it:\n"
    "  - install it:  sudo apt-get install ${debian_packages}  (or run ${PROJECT_SOURCE_DIR}/ci/jobs/install-deps.sh)\n"
    "  - give its sources:  -DFETCHCONTENT_SOURCE_DIR_${fetch_upper}=<folder>\n"
    "  - bring it yourself before bankcheck (FetchContent_MakeAvailable, vcpkg, Conan, find_package), "
    "so that its targets exist when bankcheck is configured\n"
    "  - let bankcheck download its pinned version: -DBANKCHECK_FETCH_DEPENDENCIES=ON")
endfunction()

# bankcheck_targets_exist(<out> <target>...): <out> is TRUE when every target is defined.
function(bankcheck_targets_exist out)
  set(${out} TRUE PARENT_SCOPE)
  foreach(target IN LISTS ARGN)
    if(NOT TARGET ${target})
      set(${out} FALSE PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# bankcheck_resolve_dependency(<package> TARGETS <target>... DEBIAN <packages>
#   [FIND_ARGS <args>...] FETCH_NAME <name> URL <url> URL_HASH <hash> [SET <var> <value>]...)
# Leaves <package>'s TARGETS defined, by the order above, and sets bankcheck_<package>_from in the
# caller to "target", "find_package" or "FetchContent".
function(bankcheck_resolve_dependency package)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "DEBIAN;FETCH_NAME;URL;URL_HASH" "TARGETS;FIND_ARGS;SET")
  bankcheck_targets_exist(have_all ${ARG_TARGETS})
  if(have_all)
    message(STATUS "bankcheck: ${package}: the targets that exist already (${ARG_TARGETS})")
    set(bankcheck_${package}_from target PARENT_SCOPE)
    return()
  endif()
  find_package(${package} ${ARG_FIND_ARGS} CONFIG QUIET)
  if(${package}_FOUND)
    bankcheck_targets_exist(have_all ${ARG_TARGETS})
    if(NOT have_all)
      bankcheck_missing_dependency(${package} "${ARG_DEBIAN}" ${ARG_FETCH_NAME}
        " (find_package found ${${package}_DIR}, without all of ${ARG_TARGETS})")
    endif()
    message(STATUS "bankcheck: ${package}: find_package, ${${package}_DIR}")
    set(bankcheck_${package}_from find_package PARENT_SCOPE)
    # find_package's targets are this folder's; its callers read these.
    foreach(variable IN ITEMS ${package}_DIR ${package}_VERSION)
      set(${variable} "${${variable}}" PARENT_SCOPE)
    endforeach()
    return()
  endif()
  string(TOUPPER "${ARG_FETCH_NAME}" fetch_upper)
  if(NOT BANKCHECK_FETCH_DEPENDENCIES AND NOT FETCHCONTENT_SOURCE_DIR_${fetch_upper})
    bankcheck_missing_dependency(${package} "${ARG_DEBIAN}" ${ARG_FETCH_NAME} "")
  endif()
  if(FETCHCONTENT_SOURCE_DIR_${fetch_upper})
    message(STATUS "bankcheck: ${package}: FetchContent from FETCHCONTENT_SOURCE_DIR_${fetch_upper}=${FETCHCONTENT_SOURCE_DIR_${fetch_upper}}")
  else()
    message(STATUS "bankcheck: ${package}: not found; FetchContent downloads ${ARG_URL}. Offline, install it "
                   "(sudo apt-get install ${ARG_DEBIAN}) or give -DFETCHCONTENT_SOURCE_DIR_${fetch_upper}=<its sources>")
  endif()
  # The dependency's own options (e.g. INSTALL_GTEST OFF), as normal variables that its option()
  # calls honour (CMP0077), in this function's scope only.
  set(CMAKE_POLICY_DEFAULT_CMP0077 NEW)
  set(settings ${ARG_SET})
  while(settings)
    list(POP_FRONT settings variable value)
    set(${variable} ${value})
  endwhile()
  # A declaration the including project made first (its own URL or sources) wins, as always.
  FetchContent_Declare(${ARG_FETCH_NAME} URL "${ARG_URL}" URL_HASH "${ARG_URL_HASH}" DOWNLOAD_EXTRACT_TIMESTAMP ON)
  FetchContent_MakeAvailable(${ARG_FETCH_NAME})
  foreach(target IN LISTS ARG_TARGETS)
    if(NOT TARGET ${target})
      bankcheck_missing_dependency(${package} "${ARG_DEBIAN}" ${ARG_FETCH_NAME}
        " (its sources, built here, made no ${target})")
    endif()
  endforeach()
  set(bankcheck_${package}_from FetchContent PARENT_SCOPE)
endfunction()

# The GPU side (BANKCHECK_ENABLE_CUDA): the toolkit with CUPTI, and GoogleTest for the testing
# layer (not built for the Python wheel). The core and the CLI need neither.
if(BANKCHECK_ENABLE_CUDA)
  include(BankcheckFindCUDAToolkit)
  bankcheck_find_cuda_toolkit(13 QUIET)
  if(NOT CUDAToolkit_FOUND)
    message(FATAL_ERROR "bankcheck needs the CUDA Toolkit 13 (nvcc, cudart, CUPTI), which was not found. "
                        "Install NVIDIA's cuda-toolkit-13-0 and put nvcc on PATH, or give -DCUDAToolkit_ROOT=<toolkit>.")
  endif()
  if(NOT TARGET CUDA::cupti)
    message(FATAL_ERROR "The CUDA Toolkit at ${CUDAToolkit_LIBRARY_DIR} has no CUPTI library (libcupti.so). "
                        "Install the toolkit's CUPTI component (cuda-cupti-13-0).")
  endif()
endif()
if(BANKCHECK_ENABLE_CUDA AND NOT BANKCHECK_PYTHON_WHEEL)
  # GoogleTest older than 1.11 names its targets gtest, gmock, ... without the GTest:: aliases
  # that bankcheck links: give them those names.
  if(NOT TARGET GTest::gtest AND TARGET gtest AND TARGET gmock)
    foreach(library gtest gtest_main gmock gmock_main)
      if(TARGET ${library} AND NOT TARGET GTest::${library})
        add_library(GTest::${library} ALIAS ${library})
      endif()
    endforeach()
  endif()
  # googletest 1.12.1: the release Debian 12 ships (its sources: the `googletest` package).
  bankcheck_resolve_dependency(GTest
    TARGETS GTest::gtest GTest::gtest_main GTest::gmock GTest::gmock_main
    DEBIAN "libgtest-dev libgmock-dev"
    FETCH_NAME googletest
    URL https://github.com/google/googletest/archive/refs/tags/release-1.12.1.tar.gz
    URL_HASH SHA256=81964fe578e9bd7c94dfdb09c8e4d6e6759e19967e397dbea48d1c10e45d0df2
    SET BUILD_GMOCK ON INSTALL_GTEST OFF gtest_force_shared_crt ON)
endif()
# nlohmann-json: the core reads and writes JSON (privately; header-only).
bankcheck_resolve_dependency(nlohmann_json
  TARGETS nlohmann_json::nlohmann_json
  FIND_ARGS 3.10
  DEBIAN nlohmann-json3-dev
  FETCH_NAME nlohmann_json
  URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
  URL_HASH SHA256=d6c65aca6b1ed68e7a182f4757257b107ae403032760ed6ef121c9d55e81757d
  SET JSON_Install OFF)
# CLI11: the `bankcheck` command only. BANKCHECK_BUILD_CLI=AUTO as a subproject builds the command
# only where CLI11 can be had without asking (a target, an installed package, a permitted download
# or FETCHCONTENT_SOURCE_DIR_CLI11), and otherwise says why there is none; it then reads ON or OFF.
if(BANKCHECK_BUILD_CLI STREQUAL "AUTO")
  set(BANKCHECK_BUILD_CLI ON)
  if(NOT PROJECT_IS_TOP_LEVEL AND NOT TARGET CLI11::CLI11 AND NOT BANKCHECK_FETCH_DEPENDENCIES
     AND NOT FETCHCONTENT_SOURCE_DIR_CLI11)
    find_package(CLI11 CONFIG QUIET)
    if(NOT CLI11_FOUND)
      set(BANKCHECK_BUILD_CLI OFF)
      message(STATUS "bankcheck: not building the bankcheck command (bankcheck::cli): CLI11 is neither a target, "
                     "nor found, nor may it be downloaded (BANKCHECK_FETCH_DEPENDENCIES=OFF). Install it "
                     "(sudo apt-get install libcli11-dev), give -DFETCHCONTENT_SOURCE_DIR_CLI11=<its sources>, or "
                     "allow the download")
    endif()
  endif()
endif()
if(BANKCHECK_BUILD_CLI)
  bankcheck_resolve_dependency(CLI11
    TARGETS CLI11::CLI11
    DEBIAN libcli11-dev
    FETCH_NAME cli11
    URL https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.5.0.tar.gz
    URL_HASH SHA256=17e02b4cddc2fa348e5dbdbb582c59a3486fa2b2433e70a0c3bacb871334fd55
    SET CLI11_INSTALL OFF CLI11_BUILD_TESTS OFF CLI11_BUILD_EXAMPLES OFF CLI11_BUILD_DOCS OFF)
endif()
if(BANKCHECK_BUILD_BENCHMARKS)
  find_package(benchmark CONFIG QUIET)
  if(NOT benchmark_FOUND)
    message(FATAL_ERROR "bankcheck's benchmarks need Google Benchmark, which was not found. Install it with:  "
                        "sudo apt-get install libbenchmark-dev  (or give -DBANKCHECK_BUILD_BENCHMARKS=OFF)")
  endif()
endif()
