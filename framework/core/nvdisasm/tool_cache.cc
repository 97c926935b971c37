#include "core/nvdisasm/tool_cache.h"

#include <sys/stat.h>

#include <cstdlib>
#include <system_error>

#include "bankcheck/core/error.h"
#include "core/platform/environment.h"
#include "core/platform/file_io.h"

namespace bankcheck::internal {

std::string DisassemblyCacheFolder(const std::string& default_folder) {
  const char* set = std::getenv("BANKCHECK_DISASSEMBLY_CACHE");
  if (set != nullptr && std::string_view(set) == "off") return "";
  if (std::string folder = AbsolutePathFromEnvironment("BANKCHECK_DISASSEMBLY_CACHE"); !folder.empty())
    return folder;
  return default_folder;
}

std::string ToolIdentity(const std::string& tool) {
  struct stat info {};
  if (tool.empty() || tool.front() != '/' || ::stat(tool.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
    return "";
  return tool + " " + std::to_string(info.st_size) + " " + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec);
}

std::string ToolCacheHeader(std::string_view magic, const std::string& identity, size_t input_size) {
  return std::string(magic) + identity + "\n" + std::to_string(input_size) + "\n";
}

std::optional<std::string> ReadToolCache(const std::filesystem::path& file, const std::string& header,
                                         std::string_view input) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
  std::string entry;
  try {
    entry = ReadTextFile(file, "");
  } catch (const Error&) {
    return std::nullopt;
  }
  if (entry.size() < header.size() + input.size() || entry.compare(0, header.size(), header) != 0 ||
      std::string_view(entry).substr(header.size(), input.size()) != input)
    return std::nullopt;
  return entry.substr(header.size() + input.size());
}

std::string WriteToolCache(const std::filesystem::path& file, const std::string& header,
                           std::string_view input, std::string_view output) {
  try {
    CreateOutputFolders(file.parent_path());
    std::string entry = header;
    entry.append(input);
    entry.append(output);
    WriteFileAtomically(file, entry);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace bankcheck::internal
