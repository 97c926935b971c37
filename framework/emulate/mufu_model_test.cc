// The MUFU model's rule around its tables (mufu_model.h): given a table of correctly rounded values,
// the rule gives the correctly rounded value at every exponent (scaling by a power of two commutes
// with rounding while the result stays normal), and the special inputs give what the GPU gives
// (benchmarks/mufu_exhaustive.cu proves the rule with the GPU's own tables on all 2^32 inputs).
#include "emulate/internal/mufu_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace bankcheck::emulate::internal {
namespace {

// A table holding MufuReference's correctly rounded values.
struct RoundedTable {
  MufuFunction f;
  uint32_t operator()(uint32_t i) const { return MufuReference(f, MufuTableInput(i)); }
};

TEST(MufuModelTest, ScalesACorrectlyRoundedTableToEveryExponent) {
  std::mt19937 random(7);
  for (MufuFunction f : {MufuFunction::kRcp, MufuFunction::kRsq, MufuFunction::kSqrt}) {
    const RoundedTable table{f};
    int checked = 0;
    for (int i = 0; i < 200000; ++i) {
      const uint32_t exponent = 1 + static_cast<uint32_t>(random() % 254);
      const uint32_t x = (exponent << 23) | static_cast<uint32_t>(random() & 0x7fffffu);
      const uint32_t want = MufuReference(f, x);
      if (((want >> 23) & 0xffu) == 0) continue;  // a subnormal result: flushed, below
      ASSERT_EQ(MufuModel(f, x, table), want)
          << "function " << static_cast<int>(f) << ", x 0x" << std::hex << x;
      ++checked;
    }
    EXPECT_GT(checked, 190000);
  }
}

TEST(MufuModelTest, SpecialInputs) {
  const auto rcp = [](uint32_t x) {
    return MufuModel(MufuFunction::kRcp, x, RoundedTable{MufuFunction::kRcp});
  };
  const auto rsq = [](uint32_t x) {
    return MufuModel(MufuFunction::kRsq, x, RoundedTable{MufuFunction::kRsq});
  };
  const auto sqrt = [](uint32_t x) {
    return MufuModel(MufuFunction::kSqrt, x, RoundedTable{MufuFunction::kSqrt});
  };
  EXPECT_EQ(rcp(0x00000000u), 0x7f800000u);   // 1/+0 = +inf
  EXPECT_EQ(rcp(0x80000001u), 0xff800000u);   // a subnormal is -0: -inf
  EXPECT_EQ(rcp(0xff800000u), 0x80000000u);   // 1/-inf = -0
  EXPECT_EQ(rcp(0x7f7fffffu), 0x00000000u);   // a subnormal result is flushed
  EXPECT_EQ(rcp(0x7fc00001u), 0x7fffffffu);   // any NaN: the canonical one
  EXPECT_EQ(rsq(0x80000000u), 0xff800000u);   // rsqrt(-0) = -inf
  EXPECT_EQ(rsq(0xbf800000u), 0x7fffffffu);   // rsqrt(-1): NaN
  EXPECT_EQ(rsq(0x7f800000u), 0x00000000u);   // rsqrt(+inf) = +0
  EXPECT_EQ(rsq(0x40800000u), 0x3f000000u);   // rsqrt(4) = 0.5
  EXPECT_EQ(sqrt(0x80000000u), 0x80000000u);  // sqrt(-0) = -0
  EXPECT_EQ(sqrt(0x00000001u), 0x00000000u);  // a subnormal is +0
  EXPECT_EQ(sqrt(0xff800000u), 0x7fffffffu);  // sqrt(-inf): NaN
  EXPECT_EQ(sqrt(0x7f800000u), 0x7f800000u);  // sqrt(+inf) = +inf
  EXPECT_EQ(sqrt(0x3e800000u), 0x3f000000u);  // sqrt(0.25) = 0.5
}

}  // namespace
}  // namespace bankcheck::emulate::internal
