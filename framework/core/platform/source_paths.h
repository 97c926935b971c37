#pragma once
// Source paths as line info names them, shown relative to the project (BANKCHECK_SOURCE_ROOT).
// Plain string prefixes: the files need not exist on this machine.

#include <filesystem>
#include <string>
#include <string_view>

namespace bankcheck {

// `file` without the folder `root` in front of it; unchanged unless `root` ends at a path-component
// boundary of `file` ("/work/ma" is no prefix of "/work/main/a.cu").
std::string WithoutRoot(const std::string& file, std::string root);

// `file` as line info should name it: an absolute path lexically normalized ("/p/build/../k.cu" is
// "/p/k.cu"; a compiler run in the build folder on a relative source path, as ccache's base_dir
// makes it, writes the former), so that it is found under the project's root and not under its
// build folder. Relative paths are returned as they are.
std::string NormalizedSourcePath(std::string_view file);

// `file` (as NormalizedSourcePath gives it) as a program compiled at run time (NVRTC, the PTX JIT)
// named it. Line info names such a source "<the process's folder at compile time>/<its name>", a
// file that is not on disk: so that a line's identity does not depend on the folder a program runs
// from, a file under `working_folder` (the process's current folder, not "/") that does not `exist` is
// named relative to it. Every other path is returned as it is.
std::string RunTimeSourceName(const std::string& file, const std::string& working_folder, bool exists);

// Whether the path `file` names something inside the folder `root`, by its text alone (no link
// followed; false for an empty root).
bool IsLexicallyUnder(const std::string& file, const std::string& root);

// Why `bankcheck annotate --apply` must not write the file at `resolved` (its path, links
// resolved), `relative` being that path under the source root; "" when it may. A results file
// names the files (it may come from a pull request), so only what annotations belong in is
// written: a C, C++ or CUDA source by its extension (.c .cc .cpp .cxx .c++ .C .cu .cuh .h .hh .hpp
// .hxx .h++ .inl .ipp .tpp .tcc), never a file or folder whose name starts with '.' (.git/config,
// .github/workflows/), and only a regular file (no device, FIFO or folder). A file with other hard
// links may be written: the atomic replacement gives this name a new file and leaves the other
// names' file as it was.
std::string NotAnEditableSource(const std::filesystem::path& relative, const std::filesystem::path& resolved);

}  // namespace bankcheck
