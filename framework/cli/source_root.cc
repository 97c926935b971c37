#include "source_root.h"

#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "bankcheck/core/error.h"
#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/line_annotations.h"
#include "core/platform/file_io.h"

namespace bankcheck::cli {

namespace fs = std::filesystem;

fs::path SourceRoot(const std::string& option, bool given) {
  std::string root = given ? option : SourceRootFromEnvironment();
  const char* from = given ? "--source-root" : "BANKCHECK_SOURCE_ROOT";
  if (root.empty()) {
    root = fs::current_path().string();
    from = "the current directory (no --source-root or BANKCHECK_SOURCE_ROOT)";
  }
  std::error_code error;
  if (!fs::is_directory(root, error))
    throw Error(ErrorKind::kBadInput, "the source root " + root + ", from " + from + ", is not a folder");
  return fs::canonical(root);
}

std::optional<fs::path> RelativeToRootResolved(const std::string& file, const fs::path& root,
                                               fs::path& resolved) {
  std::error_code error;
  resolved = fs::weakly_canonical(fs::absolute(file, error), error);
  if (error) return std::nullopt;
  const fs::path relative = resolved.lexically_relative(root);
  if (relative.empty() || relative == "." || *relative.begin() == "..") return std::nullopt;
  return relative;
}

std::function<SourceFile(const std::string& file)> SourceFilesUnder(const fs::path& root) {
  struct Entry {
    std::string repository_path;
    const LineAnnotationScan* scan = nullptr;
  };
  struct Cache {
    std::map<std::string, Entry> by_name;  // as line info names the file
    // By the resolved path: a file is read and scanned once, however many names a results file
    // gives it (src/./k.cu, src//k.cu, ...). nullopt: unreadable or too large, its lines unchecked.
    std::map<std::string, std::optional<LineAnnotationScan>> by_path;
  };
  // Shared by the copies of the function; its entries (and so the scans SourceFile points at) live
  // as long as any copy.
  auto cache = std::make_shared<Cache>();
  return [root, cache](const std::string& file) {
    auto found = cache->by_name.find(file);
    if (found == cache->by_name.end()) {
      Entry entry;
      fs::path resolved;
      if (const std::optional<fs::path> relative = RelativeToRootResolved(file, root, resolved)) {
        entry.repository_path = relative->generic_string();
        auto [scan, first] = cache->by_path.try_emplace(resolved.string());
        std::error_code error;
        if (first && fs::is_regular_file(resolved, error)) {
          try {
            scan->second = ScanLineAnnotations(ReadTextFile(resolved, ""), file);
          } catch (const Error&) {
            // Unreadable or too large: its lines are not checked.
          }
        }
        if (scan->second) entry.scan = &*scan->second;
      }
      found = cache->by_name.emplace(file, std::move(entry)).first;
    }
    return SourceFile{found->second.repository_path, found->second.scan};
  };
}

}  // namespace bankcheck::cli
