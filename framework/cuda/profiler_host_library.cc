#include "cuda/internal/profiler_host_library.h"

#include <dlfcn.h>
#include <link.h>

#include <string_view>

namespace bankcheck::internal {

std::string LoadedCuptiFolder() {
  std::string folder;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* found) {
        const std::string_view path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const size_t slash = path.rfind('/');
        if (slash == std::string_view::npos || path.substr(slash + 1).rfind("libcupti.so", 0) != 0) return 0;
        *static_cast<std::string*>(found) = std::string(path.substr(0, slash));
        return 1;
      },
      &folder);
  return folder;
}

bool LoadProfilerHostLibrary() {
  const std::string folder = LoadedCuptiFolder();
  return !folder.empty() && dlopen((folder + "/libnvperf_host.so").c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr;
}

}  // namespace bankcheck::internal
