#include "core/platform/source_paths.h"

#include <sys/stat.h>

#include <array>
#include <string_view>

namespace bankcheck {

std::string WithoutRoot(const std::string& file, std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (root.empty()) return file;
  if (root.back() != '/') root += '/';
  const bool under_root = file.size() > root.size() && file.compare(0, root.size(), root) == 0;
  return under_root ? file.substr(root.size()) : file;
}

std::string NormalizedSourcePath(std::string_view file) {
  const std::filesystem::path path(file);
  if (!path.is_absolute()) return std::string(file);
  return path.lexically_normal().string();
}

std::string RunTimeSourceName(const std::string& file, const std::string& working_folder, bool exists) {
  if (exists || working_folder.empty() || working_folder == "/") return file;
  return WithoutRoot(file, working_folder);
}

bool IsLexicallyUnder(const std::string& file, const std::string& root) {
  return !root.empty() && WithoutRoot(file, root) != file;
}

std::string NotAnEditableSource(const std::filesystem::path& relative,
                                const std::filesystem::path& resolved) {
  for (const std::filesystem::path& part : relative) {
    const std::string name = part.string();
    if (!name.empty() && name[0] == '.') return "a hidden file or folder (" + name + "), not a source";
  }
  static constexpr std::array<std::string_view, 17> kSourceExtensions = {
      ".c",  ".cc",  ".cpp", ".cxx", ".c++", ".C",   ".cu",  ".cuh", ".h",
      ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".tcc"};
  const std::string extension = resolved.extension().string();
  bool source = false;
  for (const std::string_view known : kSourceExtensions) source = source || extension == known;
  if (!source) return "not a C, C++ or CUDA source by its extension";
  struct stat status {};
  if (::lstat(resolved.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) return "not a regular file";
  return "";
}

}  // namespace bankcheck
