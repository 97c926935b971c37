#include "cuda/internal/sass_metrics.h"

#include <gmock/gmock.h>

#include <map>
#include <string>
#include <vector>

namespace bankcheck::internal {
namespace {

using ::testing::ElementsAre;

// Section names and symbols as an sm_90 cubin of a dynamic-parallelism kernel holds them.
std::string CubinBytes(bool launches_from_device) {
  std::string bytes(
      "\x7f"
      "ELF",
      4);
  for (const char* name : {".text._Z6ParentPf", ".nv.info._Z6ParentPf", ".text._Z5ChildPf", "_Z6ParentPf"})
    bytes += std::string(name) + '\0';
  if (launches_from_device) bytes += std::string("__cudaCDP2LaunchDeviceV2") + '\0';
  return bytes;
}

TEST(DeviceLaunchingFunctionsTest, NamesEveryFunctionOfAModuleThatLaunchesFromTheDevice) {
  const std::string cubin = CubinBytes(true);
  EXPECT_THAT(DeviceLaunchingFunctions(cubin.data(), cubin.size()), ElementsAre("_Z6ParentPf", "_Z5ChildPf"));
}

TEST(DeviceLaunchingFunctionsTest, NamesNoneOfAModuleThatDoesNot) {
  const std::string cubin = CubinBytes(false);
  EXPECT_TRUE(DeviceLaunchingFunctions(cubin.data(), cubin.size()).empty());
}

}  // namespace
}  // namespace bankcheck::internal
