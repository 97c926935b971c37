#include "core/internal/source_paths.h"

namespace bankcheck {

std::string WithoutRoot(const std::string& file, std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (root.empty()) return file;
  if (root.back() != '/') root += '/';
  const bool under_root = file.size() > root.size() && file.compare(0, root.size(), root) == 0;
  return under_root ? file.substr(root.size()) : file;
}

bool UnderRoot(const std::string& file, const std::string& root) {
  return !root.empty() && WithoutRoot(file, root) != file;
}

}  // namespace bankcheck
