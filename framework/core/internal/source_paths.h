#pragma once
// Source paths as line info names them, shown relative to the project (BANKCHECK_SOURCE_ROOT).
// Plain string prefixes: the files need not exist on this machine.

#include <string>

namespace bankcheck {

// `file` without the folder `root` in front of it; unchanged unless `root` ends at a path-component
// boundary of `file` ("/work/ma" is no prefix of "/work/main/a.cu").
std::string WithoutRoot(const std::string& file, std::string root);

// Whether `file` is inside the folder `root` (false for an empty root).
bool UnderRoot(const std::string& file, const std::string& root);

}  // namespace bankcheck
