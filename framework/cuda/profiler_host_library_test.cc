// Loading CUPTI's profiler host library ahead: needs no GPU, only the toolkit's libraries.
#include "cuda/internal/profiler_host_library.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <filesystem>
#include <string>

namespace bankcheck::internal {
namespace {

// The path of the loaded libnvperf_host.so that dlopen("libnvperf_host.so"), as CUPTI calls it,
// finds; empty when none is loaded.
std::string LoadedHostLibrary() {
  void* handle = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return "";
  link_map* map = nullptr;
  const std::string path = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr ? map->l_name : "";
  dlclose(handle);  // RTLD_NOLOAD took a reference
  return path;
}

TEST(ProfilerHostLibraryTest, FindsTheLoadedCuptiAndLoadsTheHostLibraryBesideIt) {
  const std::string folder = LoadedCuptiFolder();
  ASSERT_FALSE(folder.empty()) << "this test program links libcupti, so it must be loaded";
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(folder) / "libnvperf_host.so")) << folder;
  EXPECT_TRUE(LoadProfilerHostLibrary());
  EXPECT_EQ(std::filesystem::canonical(LoadedHostLibrary()),
            std::filesystem::canonical(std::filesystem::path(folder) / "libnvperf_host.so"));
  EXPECT_TRUE(LoadProfilerHostLibrary()) << "loading it again is harmless";
}

}  // namespace
}  // namespace bankcheck::internal
