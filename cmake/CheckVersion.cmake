# cmake -D VERSION=<x.y.z> -D CLI=<bankcheck> -D VERSION_FILE=<bankcheckConfigVersion.cmake>
#       -D CHANGELOG=<CHANGELOG.md> -P CheckVersion.cmake
# Fails unless every place that reports bankcheck's version reports VERSION (the project's, from
# project(bankcheck VERSION ...)): `bankcheck --version`, the CMake package's version file (which
# must accept find_package(bankcheck VERSION EXACT)) and a "## [VERSION]" section of the changelog.
# Run by ctest on the build (bankcheck_version) and by ci/jobs/release.sh on the installed tree.
foreach(input IN ITEMS VERSION CLI VERSION_FILE CHANGELOG)
  if(NOT DEFINED ${input} OR "${${input}}" STREQUAL "")
    message(FATAL_ERROR "CheckVersion.cmake: give -D ${input}=...")
  endif()
endforeach()

execute_process(COMMAND "${CLI}" --version OUTPUT_VARIABLE printed RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT printed STREQUAL "bankcheck ${VERSION}\n")
  message(FATAL_ERROR "${CLI} --version printed \"${printed}\" (exit ${status}), not \"bankcheck ${VERSION}\"")
endif()

if(NOT EXISTS "${VERSION_FILE}")
  message(FATAL_ERROR "no CMake package version file ${VERSION_FILE}")
endif()
set(PACKAGE_FIND_NAME bankcheck)
set(PACKAGE_FIND_VERSION "${VERSION}")
string(REPLACE "." ";" parts "${VERSION}")
list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
set(PACKAGE_FIND_VERSION_COUNT 3)
set(CMAKE_SIZEOF_VOID_P 8)  # as the 64-bit consumer that find_package would be
include("${VERSION_FILE}")
if(NOT PACKAGE_VERSION STREQUAL VERSION OR NOT PACKAGE_VERSION_EXACT OR PACKAGE_VERSION_UNSUITABLE)
  message(FATAL_ERROR "${VERSION_FILE} says version \"${PACKAGE_VERSION}\" (exact: ${PACKAGE_VERSION_EXACT}, "
                      "unsuitable: ${PACKAGE_VERSION_UNSUITABLE}), not ${VERSION}")
endif()

string(REPLACE "." "\\." version_pattern "${VERSION}")
file(STRINGS "${CHANGELOG}" section REGEX "^## \\[${version_pattern}\\]")
if(NOT section)
  message(FATAL_ERROR "${CHANGELOG} has no \"## [${VERSION}]\" section: say what this version changes")
endif()
message(STATUS "bankcheck ${VERSION}: --version, ${VERSION_FILE} and ${CHANGELOG} agree")
