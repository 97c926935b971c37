#pragma once
// Kernels' names as people read them: what records, messages and tables show of a mangled name.

#include <string>

namespace bankcheck::internal {

// The readable name of `mangled` ("_Z9transposePfS_" -> "transpose(float*, float*)"); `mangled`
// itself when it is not a mangled C++ name (an extern "C" kernel) or cannot be demangled.
std::string Demangle(const std::string& mangled);

}  // namespace bankcheck::internal
