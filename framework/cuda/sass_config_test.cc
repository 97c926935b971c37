#include "cuda/internal/sass_config.h"

#include <gtest/gtest.h>

#include "bankcheck/core/error.h"

namespace bankcheck::internal {
namespace {

TEST(SassConfigTest, EmptyIsTheDefault) {
  const SassConfig config = ParseSassConfig("");
  EXPECT_TRUE(config.IsDefault());
  EXPECT_EQ(Describe(config), "granularity=gpu,patching=lazy,metrics=all");
}

TEST(SassConfigTest, ReadsEverySetting) {
  const SassConfig config = ParseSassConfig("granularity=smsp,patching=eager,metrics=ld-st");
  EXPECT_EQ(config.granularity, SassConfig::Granularity::kSmsp);
  EXPECT_FALSE(config.lazy_patching);
  EXPECT_EQ(config.metrics, SassConfig::Metrics::kLdSt);
  EXPECT_FALSE(config.IsDefault());
  EXPECT_EQ(Describe(ParseSassConfig("metrics=no-ideal,granularity=sm")),
            "granularity=sm,patching=lazy,metrics=no-ideal");
  // Shared memory alone, as before global and local memory were counted: what they cost.
  EXPECT_EQ(ParseSassConfig("metrics=shared").metrics, SassConfig::Metrics::kShared);
  EXPECT_EQ(Describe(ParseSassConfig("metrics=shared")), "granularity=gpu,patching=lazy,metrics=shared");
  EXPECT_TRUE(KindsLeftOut(ParseSassConfig("metrics=shared"))[MemoryKind::kGlobalLoad]);
  EXPECT_TRUE(KindsLeftOut(ParseSassConfig("metrics=shared"))[MemoryKind::kLocalStore]);
  EXPECT_FALSE(KindsLeftOut(ParseSassConfig("metrics=shared"))[MemoryKind::kSharedAtomic]);
  EXPECT_EQ(KindsLeftOut(SassConfig{}), PerKind<bool>{});
}

TEST(SassConfigTest, RefusesWhatItDoesNotKnowNamingTheVariable) {
  for (const char* bad : {"granularity=warp", "granularity", "speed=fast", "granularity=sm,granularity=gpu",
                          "granularity=sm,", ",", "metrics=ALL"}) {
    try {
      ParseSassConfig(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput) << bad;
      EXPECT_NE(std::string(e.what()).find("BANKCHECK_SASS_CONFIG"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace bankcheck::internal
