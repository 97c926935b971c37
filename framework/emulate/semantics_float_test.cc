// The conversions to and from 64-bit integers (I2F.S64, F2I.S64.TRUNC) and the bfloat16 pairs'
// fused multiply-add (HFMA2.MMA.BF16_V2): their values (IntToFloat, FloatToInt64, Bf16Fma) on the
// edges of their GPU vectors' inputs, and, in a launch, computed only in the forms checked_forms.def
// lists, in either pass.
#include <gmock/gmock.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/checked_forms.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate {
namespace {

using internal::Bf16Fma;
using internal::FloatToInt64;
using internal::IntToFloat;
using internal::Rounding;
using ::testing::HasSubstr;

// I2F.S64 of the pair's value (its magnitude and sign), to nearest even.
uint32_t FromInt64(int64_t value) {
  const bool negative = value < 0;
  return IntToFloat(negative ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value),
                    negative, Rounding::kNearest);
}

TEST(FloatConversionTest, Int64ToFloatRoundsToNearestEven) {
  EXPECT_EQ(FromInt64(0), 0u);
  EXPECT_EQ(FromInt64(-1), 0xbf800000u);
  EXPECT_EQ(FromInt64(INT64_MIN), 0xdf000000u);               // -2^63, exact
  EXPECT_EQ(FromInt64(INT64_MAX), 0x5f000000u);               // rounds up to 2^63
  EXPECT_EQ(FromInt64((int64_t{1} << 24) + 1), 0x4b800000u);  // a tie, to the even 2^24
  EXPECT_EQ(FromInt64((int64_t{1} << 24) + 3), 0x4b800002u);  // a tie, to the even 2^24 + 4
  EXPECT_EQ(FromInt64(-((int64_t{1} << 40) + (int64_t{1} << 16) + 1)), 0xd3800001u);  // above half: away
  EXPECT_EQ(FromInt64(int64_t{0x123456789} << 20), 0x5991a2b4u);
  // The other directions (the 32-bit forms' rule): toward zero and down on a negative value.
  EXPECT_EQ(IntToFloat((uint64_t{1} << 24) + 1, true, Rounding::kZero), 0xcb800000u);
  EXPECT_EQ(IntToFloat((uint64_t{1} << 24) + 1, true, Rounding::kDown), 0xcb800001u);
}

TEST(FloatConversionTest, FloatToInt64TruncatesAndSaturatesNanToTheMostNegative) {
  constexpr uint64_t kMin = uint64_t{1} << 63, kMax = kMin - 1;
  for (const uint32_t nan : {0x7fc00000u, 0x7fc12345u, 0xffc00001u, 0x7f800001u, 0xff812345u})
    EXPECT_EQ(FloatToInt64(nan, Rounding::kZero), kMin) << std::hex << nan;  // form_f2i_s64_trunc's vectors
  EXPECT_EQ(FloatToInt64(0x7f800000u, Rounding::kZero), kMax);
  EXPECT_EQ(FloatToInt64(0xff800000u, Rounding::kZero), kMin);
  EXPECT_EQ(FloatToInt64(0x5f000000u, Rounding::kZero), kMax);  // 2^63: one past the largest
  EXPECT_EQ(FloatToInt64(0xdf000000u, Rounding::kZero), kMin);  // -2^63 itself
  EXPECT_EQ(FloatToInt64(0x5effffffu, Rounding::kZero), 0x7fffff8000000000u);
  EXPECT_EQ(FloatToInt64(0xbfc00000u, Rounding::kZero), ~uint64_t{0});  // -1.5: -1
  EXPECT_EQ(FloatToInt64(0x3f7fffffu, Rounding::kZero), 0u);
  EXPECT_EQ(FloatToInt64(0x80000000u, Rounding::kZero), 0u);
  EXPECT_EQ(FloatToInt64(0x80000001u, Rounding::kZero), 0u);
  EXPECT_EQ(FloatToInt64(0xbfc00000u, Rounding::kDown), ~uint64_t{1});  // -1.5 down: -2
}

// bfloat16: 0x3f80 is 1. One rounding to nearest even of the exact fma, as fma.rn.bf16x2 defines it.
TEST(FloatConversionTest, Bf16FmaRoundsOnceToNearestEven) {
  EXPECT_EQ(Bf16Fma(0x3f80, 0x3f80, 0x3b80), 0x3f80);  // 1 + 2^-8: a tie, to the even 1
  EXPECT_EQ(Bf16Fma(0x3f80, 0x3f80, 0x3c40), 0x3f82);  // 1 + 3 * 2^-8: a tie, to the even 1 + 2^-6
  // 0.875 * 1.140625 = 1 - 2^-9, a tie (to the even 1), less 2^-40: fused, below the tie. Rounded to
  // binary32 first, the 2^-40 would be lost and the tie give 1.
  EXPECT_EQ(Bf16Fma(0x3f60, 0x3f92, 0x0000), 0x3f80);
  EXPECT_EQ(Bf16Fma(0x3f60, 0x3f92, 0xab80), 0x3f7f);
  EXPECT_EQ(Bf16Fma(0x0001, 0x3f80, 0x0001), 0x0002);  // subnormals kept
  EXPECT_EQ(Bf16Fma(0x7f7f, 0x4000, 0x3f80), 0x7f80);  // overflow: +inf
  EXPECT_EQ(Bf16Fma(0xff7f, 0x4000, 0x3f80), 0xff80);
  // What no GPU vector shows (form_hfma2_bf16's inputs are finite, its results not zero): not computed.
  EXPECT_EQ(Bf16Fma(0x7fc0, 0x3f80, 0x3f80), std::nullopt);
  EXPECT_EQ(Bf16Fma(0x7f80, 0x3f80, 0x3f80), std::nullopt);
  EXPECT_EQ(Bf16Fma(0x3f80, 0x3f80, 0xbf80), std::nullopt);  // an exact zero
  EXPECT_EQ(Bf16Fma(0x0000, 0x3f80, 0x8000), std::nullopt);
  EXPECT_EQ(Bf16Fma(0x8001, 0x3f00, 0x0000), std::nullopt);  // -2^-134: a tie, to the even -0
}

// In a launch the forms of checked_forms.def give a known address; the others of these opcodes,
// which no GPU vector checks, are unknown in the counting pass too, the reason naming the form.
TEST(FloatConversionTest, OnlyTheCheckedFormsAreComputedInEitherPass) {
  constexpr const char* kLine = " ;\n        /*00";
  // The lane's index through `op` into R6 (R6:R7 for a pair), then R5, the address.
  const auto through = [&](const std::string& before, const std::string& op, const std::string& after) {
    return before + kLine + "44*/ " + op + kLine + "48*/ " + after;
  };
  struct Case {
    const char* op;
    std::string producer;
  };
  const auto i2f = [&](const std::string& op) {
    return through("MOV R8, R0 ;\n        /*0042*/ MOV R9, RZ", op, "F2I.TRUNC.NTZ R5, R6");
  };
  const auto f2i = [&](const std::string& op) {
    return through("MOV R7, 0x1 ;\n        /*0042*/ I2FP.F32.U32 R4, R0", op, "IADD3 R5, R6, R7, RZ");
  };
  const auto bf16 = [&](const std::string& op) {
    return through("MOV R4, 0x3f803f80 ;\n        /*0042*/ MOV R8, 0x41004100", op,
                   "LOP3.LUT R5, R6, 0x1f, RZ, 0xc0, !PT");
  };
  const Case kComputed[] = {{"I2F.S64", i2f("I2F.S64 R6, R8")},
                            {"F2I.S64.TRUNC", f2i("F2I.S64.TRUNC R6, R4")},
                            {"HFMA2.MMA.BF16_V2", bf16("HFMA2.MMA.BF16_V2 R6, R8, R4, R4")}};
  for (const Case& c : kComputed) {
    ASSERT_TRUE(internal::HasConformanceVectors(c.op)) << c.op;
    const Emulation emulation = test_support::EmulateAddressFrom(c.producer);
    EXPECT_TRUE(emulation.record) << c.op << ": " << emulation.undecided->Describe();
  }
  const Case kUnknown[] = {{"I2F.U64", i2f("I2F.U64 R6, R8")},
                           {"I2F.S64.RZ", i2f("I2F.S64.RZ R6, R8")},
                           {"F2I.S64", f2i("F2I.S64 R6, R4")},
                           {"F2I.U64.TRUNC", f2i("F2I.U64.TRUNC R6, R4")},
                           {"F2I.S64.FLOOR", f2i("F2I.S64.FLOOR R6, R4")},
                           {"HFMA2.BF16_V2", bf16("HFMA2.BF16_V2 R6, R8, R4, R4")}};
  for (const Case& c : kUnknown) {
    ASSERT_FALSE(internal::HasConformanceVectors(c.op)) << c.op;
    EXPECT_THAT(test_support::WhyAddressUndecided(c.producer),
                HasSubstr("form " + std::string(c.op) + " (" + c.op + " at pc 0x0044), not among the forms"));
  }
}

}  // namespace
}  // namespace bankcheck::emulate
