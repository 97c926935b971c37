# `cmake --install`: the libraries, the public headers, the `bankcheck` CLI (and bankcheck-ci, the CI
# job of a project that uses bankcheck) and a CMake package,
#   <prefix>/lib/cmake/bankcheck/bankcheckConfig.cmake      find_package(bankcheck CONFIG)
# whose targets are those of the build tree (bankcheck::core, ::cuda, ::testing, ::gtest_main,
# ::suite, ::kernel_suite_main, ::annotation_checks, ::emulate, ::emulated_runtime, and ::cli with
# BANKCHECK_BUILD_CLI) and which offers bankcheck_add_kernel_suite() (with the emulated program).
# The layers that include GoogleTest (::testing, ::gtest_main, ::suite, ::kernel_suite_main,
# ::annotation_checks) are installed as sources, <prefix>/share/bankcheck/framework, which the
# package builds in the consumer's build with the consumer's GoogleTest
# (cmake/BankcheckGoogleTestLayers.cmake); the others are installed compiled. The GPU side's
# dependencies are found again in the consumer (find_dependency), unless the consumer has their
# targets already.
include(CMakePackageConfigHelpers)

set(BANKCHECK_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/bankcheck"
    CACHE STRING "Where the installed CMake package goes, under the prefix")
set(BANKCHECK_INSTALL_SOURCEDIR "${CMAKE_INSTALL_DATADIR}/bankcheck/framework")

set(bankcheck_installed_targets bankcheck_core)
if(BANKCHECK_BUILD_CLI)
  list(APPEND bankcheck_installed_targets bankcheck)
endif()
if(BANKCHECK_PYTHON_WHEEL)
  # The command, and the layers the injection library links in (their paths reach it as well).
  set(bankcheck_installed_targets bankcheck bankcheck_core bankcheck_cuda)
elseif(BANKCHECK_ENABLE_CUDA)
  list(APPEND bankcheck_installed_targets bankcheck_cuda bankcheck_emulate bankcheck_emulated_runtime)
endif()

# The emulator's C library (bankcheck/emulate/emulate_c.h; the Python package's bankcheck.emulator loads it):
# in every install and in the wheel.
set_target_properties(bankcheck_emulate_c PROPERTIES EXPORT_NAME emulate_c)
list(APPEND bankcheck_installed_targets bankcheck_emulate_c)

# bankcheck_every_installed: the exported targets and the libraries `bankcheck run` loads, and the
# static layer linked into the emulator's C library.
set(bankcheck_every_installed ${bankcheck_installed_targets})
if(NOT bankcheck_emulate IN_LIST bankcheck_every_installed)
  list(APPEND bankcheck_every_installed bankcheck_emulate)
endif()
if(BANKCHECK_BUILD_CLI AND BANKCHECK_ENABLE_CUDA)
  list(APPEND bankcheck_every_installed bankcheck_inject bankcheck_nvtx)
endif()

# The ctest bankcheck_gtest_abi: the libraries and objects installed compiled refer to nothing of
# GoogleTest, whose ABI differs between versions (framework/testing/gtest_abi_test.sh).
if(BANKCHECK_BUILD_TESTS)
  set(bankcheck_gtest_users "")
  foreach(bankcheck_target IN LISTS bankcheck_installed_targets)
    get_target_property(bankcheck_type ${bankcheck_target} TYPE)
    if(bankcheck_type STREQUAL "OBJECT_LIBRARY")
      list(APPEND bankcheck_gtest_users "$<TARGET_OBJECTS:${bankcheck_target}>")
    elseif(bankcheck_type STREQUAL "STATIC_LIBRARY")
      list(APPEND bankcheck_gtest_users "$<TARGET_FILE:${bankcheck_target}>")
    endif()
  endforeach()
  add_test(NAME bankcheck_gtest_abi
    COMMAND bash "${PROJECT_SOURCE_DIR}/framework/testing/gtest_abi_test.sh" ${bankcheck_gtest_users}
    COMMAND_EXPAND_LISTS)
  set_tests_properties(bankcheck_gtest_abi PROPERTIES LABELS cpu)
endif()

# The installed programs and shared libraries are linked with their install RPATH in the build tree
# too (BUILD_WITH_INSTALL_RPATH), so that `cmake --install` has nothing to rewrite. Otherwise CMake
# pads their build-tree RPATH with ':' to make room for rewriting it in place, and the trailing ':'
# is an empty entry, which the dynamic loader reads as the current folder: the build tree's
# libbankcheck_inject.so would load a libstdc++.so.6 planted wherever the measured program runs.
# They need no folder of the build tree (they link none of its shared libraries); the CUDA
# toolkit's library folder reaches them through bankcheck_cuda's link option (framework/cuda). The
# ctest bankcheck_rpath checks every ELF file of the build and of an install (ci/checks/check-rpath.py).
foreach(bankcheck_target IN LISTS bankcheck_every_installed)
  get_target_property(bankcheck_type ${bankcheck_target} TYPE)
  if(bankcheck_type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
    set_target_properties(${bankcheck_target} PROPERTIES BUILD_WITH_INSTALL_RPATH ON)
  endif()
endforeach()

# No path of the machine that builds bankcheck may reach an installed file: the libraries'
# __FILE__ (GoogleTest registrations, which a consumer's generated CTest files carry as
# DEF_SOURCE_LINE; failure and skip messages) and their debug information name the source and build
# folders as "bankcheck/..." and "bankcheck-build/...". ci/jobs/example.sh greps the install tree for both.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag("-ffile-prefix-map=/a=b" BANKCHECK_HAS_FILE_PREFIX_MAP)
if(BANKCHECK_HAS_FILE_PREFIX_MAP)
  # The last map that matches wins: the build folder may lie inside the source folder.
  set(bankcheck_source_map "-ffile-prefix-map=${PROJECT_SOURCE_DIR}=bankcheck")
  set(bankcheck_build_map "-ffile-prefix-map=${PROJECT_BINARY_DIR}=bankcheck-build")
  set(bankcheck_mapped_targets ${bankcheck_every_installed})
  if(BANKCHECK_BUILD_CLI AND BANKCHECK_ENABLE_CUDA)
    list(APPEND bankcheck_mapped_targets bankcheck_inject_recorder)  # linked into libbankcheck_inject.so
  endif()
  foreach(bankcheck_target IN LISTS bankcheck_mapped_targets)
    target_compile_options(${bankcheck_target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CXX>:${bankcheck_source_map};${bankcheck_build_map}>"
      "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${bankcheck_source_map},${bankcheck_build_map}>")
  endforeach()
else()
  message(WARNING "bankcheck: ${CMAKE_CXX_COMPILER} has no -ffile-prefix-map (GCC 8, Clang 10): the installed "
                  "libraries name this machine's source and build folders")
endif()
# The Python wheel: the command in <package>/bin, the libraries it loads in <package>/lib (the
# command finds them by the same relative path as in any install), nothing else.
if(BANKCHECK_PYTHON_WHEEL)
  install(TARGETS bankcheck RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  install(TARGETS bankcheck_inject bankcheck_nvtx bankcheck_emulate_c LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  return()
endif()
install(TARGETS ${bankcheck_installed_targets}
  EXPORT bankcheckTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
  # Each layer's public headers (its HEADERS file set); internal/ headers are never installed.
  FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
# bankcheck-ci (framework/ci/bankcheck-ci.sh): a project's CI job (build, ctest, report, baselines
# patch), beside the command it runs; it finds this package from there, and its parts, which it
# sources, in <datadir>/bankcheck (bankcheck-ci-report.sh, bankcheck-ci-baselines.sh). bankcheck-merge
# (framework/ci/bankcheck-merge.sh): the last job of a sharded run (docs/ci.md), beside it too, and
# bankcheck-shard-plan (framework/ci/bankcheck-shard-plan.py): shards balanced by recorded times.
# libbankcheck_inject.so, which `bankcheck run` loads into the program it measures: found by the
# command at <bindir>/<relative path to libdir> (framework/cli/run_command.cc), not exported.
if(BANKCHECK_BUILD_CLI AND BANKCHECK_ENABLE_CUDA)
  install(TARGETS bankcheck_inject bankcheck_nvtx LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
if(BANKCHECK_BUILD_CLI)
  install(PROGRAMS "${CMAKE_CURRENT_LIST_DIR}/../framework/ci/bankcheck-ci.sh"
    DESTINATION "${CMAKE_INSTALL_BINDIR}" RENAME bankcheck-ci)
  install(FILES "${CMAKE_CURRENT_LIST_DIR}/../framework/ci/bankcheck-ci-report.sh"
    "${CMAKE_CURRENT_LIST_DIR}/../framework/ci/bankcheck-ci-baselines.sh"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/bankcheck")
  install(PROGRAMS "${CMAKE_CURRENT_LIST_DIR}/../framework/ci/bankcheck-merge.sh"
    DESTINATION "${CMAKE_INSTALL_BINDIR}" RENAME bankcheck-merge)
  install(PROGRAMS "${CMAKE_CURRENT_LIST_DIR}/../framework/ci/bankcheck-shard-plan.py"
    DESTINATION "${CMAKE_INSTALL_BINDIR}" RENAME bankcheck-shard-plan)
endif()
# bankcheck-ci-cpu (framework/ci/bankcheck-ci-cpu.sh): the GPU-less gate, which builds a project
# against the package it is installed with and runs bankcheck-ci beside it; the CUDA wheels' pins it
# installs the toolkit from go to <datadir>/bankcheck, where it looks for them.
if(BANKCHECK_BUILD_CLI AND BANKCHECK_ENABLE_CUDA)
  install(PROGRAMS "${CMAKE_CURRENT_LIST_DIR}/../framework/ci/bankcheck-ci-cpu.sh"
    DESTINATION "${CMAKE_INSTALL_BINDIR}" RENAME bankcheck-ci-cpu)
  install(FILES "${CMAKE_CURRENT_LIST_DIR}/../framework/ci/cuda-wheels-requirements.txt"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/bankcheck")
endif()
install(EXPORT bankcheckTargets NAMESPACE bankcheck:: DESTINATION "${BANKCHECK_INSTALL_CMAKEDIR}")
# The GoogleTest-facing layers' sources and the internal headers they include, as in framework/,
# and their public headers (their HEADERS file sets) with the others.
if(BANKCHECK_ENABLE_CUDA)
  foreach(bankcheck_layer IN LISTS BANKCHECK_GTEST_LAYERS)
    get_target_property(bankcheck_headers bankcheck_${bankcheck_layer} HEADER_SET)
    if(NOT bankcheck_headers)
      set(bankcheck_headers "")
    endif()
    foreach(bankcheck_header IN LISTS bankcheck_headers)  # each in its folder under include/
      file(RELATIVE_PATH bankcheck_header_path "${PROJECT_SOURCE_DIR}/framework/include" "${bankcheck_header}")
      get_filename_component(bankcheck_header_folder "${bankcheck_header_path}" DIRECTORY)
      install(FILES "${bankcheck_header}" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/${bankcheck_header_folder}")
    endforeach()
    foreach(bankcheck_source IN LISTS BANKCHECK_GTEST_LAYER_${bankcheck_layer})
      get_filename_component(bankcheck_folder "${bankcheck_source}" DIRECTORY)
      install(FILES "${PROJECT_SOURCE_DIR}/framework/${bankcheck_source}"
        DESTINATION "${BANKCHECK_INSTALL_SOURCEDIR}/${bankcheck_folder}")
    endforeach()
  endforeach()
  foreach(bankcheck_folder IN LISTS BANKCHECK_GTEST_LAYER_HEADER_DIRS)
    # A core room's top-level headers, without its internal/ folder (the core's alone).
    set(bankcheck_excluded "")
    if(bankcheck_folder MATCHES "^core/")
      set(bankcheck_excluded PATTERN "internal" EXCLUDE PATTERN "testdata" EXCLUDE)
    endif()
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/framework/${bankcheck_folder}/"
      DESTINATION "${BANKCHECK_INSTALL_SOURCEDIR}/${bankcheck_folder}" FILES_MATCHING PATTERN "*.h"
      ${bankcheck_excluded})
  endforeach()
endif()

# bankcheckConfig.cmake asks for the GPU side's dependencies only when the package has it.
set(BANKCHECK_PACKAGE_HAS_CUDA ${BANKCHECK_ENABLE_CUDA})
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/bankcheckConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/bankcheckConfig.cmake" INSTALL_DESTINATION "${BANKCHECK_INSTALL_CMAKEDIR}"
  PATH_VARS BANKCHECK_INSTALL_SOURCEDIR)
# 0.x: any 0.y satisfies find_package(bankcheck 0.x); a new major version may break kernel files.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/bankcheckConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
# The license, its notices (the CLI compiles CLI11 and nlohmann-json in) and the changelog, with
# every install and so in the release tarball (ci/jobs/release.sh).
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/NOTICE" "${PROJECT_SOURCE_DIR}/THIRD-PARTY-NOTICES"
    "${PROJECT_SOURCE_DIR}/CHANGELOG.md"
  DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(FILES
    "${PROJECT_BINARY_DIR}/bankcheckConfig.cmake"
    "${PROJECT_BINARY_DIR}/bankcheckConfigVersion.cmake"
    "${CMAKE_CURRENT_LIST_DIR}/BankcheckKernelSuite.cmake"
    "${CMAKE_CURRENT_LIST_DIR}/BankcheckGoogleTestLayers.cmake"
    "${CMAKE_CURRENT_LIST_DIR}/BankcheckDiscoverTopics.cmake"
    "${CMAKE_CURRENT_LIST_DIR}/BankcheckSassToolWheels.cmake"
    "${CMAKE_CURRENT_LIST_DIR}/BankcheckFindCUDAToolkit.cmake"
  DESTINATION "${BANKCHECK_INSTALL_CMAKEDIR}")

# `bankcheck --version`, this version file and CHANGELOG.md all say PROJECT_VERSION (ci/jobs/release.sh
# checks the installed tree the same way).
if(BANKCHECK_BUILD_TESTS)
  add_test(NAME bankcheck_version
    COMMAND "${CMAKE_COMMAND}" -D "VERSION=${PROJECT_VERSION}" -D "CLI=$<TARGET_FILE:bankcheck::cli>"
            -D "VERSION_FILE=${PROJECT_BINARY_DIR}/bankcheckConfigVersion.cmake"
            -D "CHANGELOG=${PROJECT_SOURCE_DIR}/CHANGELOG.md" -P "${CMAKE_CURRENT_LIST_DIR}/CheckVersion.cmake")
  set_tests_properties(bankcheck_version PROPERTIES LABELS cpu)
endif()
