#pragma once
// bankcheck's version. It is written once, in project(bankcheck VERSION ...) of the top
// CMakeLists.txt; `bankcheck --version`, the "bankcheck_version" of results files and the CMake
// package (bankcheckConfigVersion.cmake) all take it from there.

namespace bankcheck {

// "0.2.0": major.minor.patch.
const char* Version();

}  // namespace bankcheck
