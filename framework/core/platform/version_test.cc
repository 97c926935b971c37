#include "bankcheck/core/version.h"

#include <gtest/gtest.h>

#include <string>

#include "bankcheck/core/run_metadata.h"

namespace bankcheck {
namespace {

// BANKCHECK_PROJECT_VERSION is CMake's PROJECT_VERSION, given to this test by its CMakeLists.txt.
TEST(VersionTest, IsTheCMakeProjectVersion) { EXPECT_STREQ(Version(), BANKCHECK_PROJECT_VERSION); }

TEST(VersionTest, DescribeRunRecordsIt) {
  EXPECT_EQ(DescribeRun("NVIDIA H100", "sm_90", 13000, 13000).bankcheck_version, BANKCHECK_PROJECT_VERSION);
}

}  // namespace
}  // namespace bankcheck
