// FRND (ceilf, floorf, truncf, rintf and nearbyintf, and their double forms): its value as IEEE
// roundToIntegral defines it (RoundToIntegral32, RoundToIntegral64); in a launch, computed only in
// the forms checked_forms.def lists, in either pass, and unknown in every register it writes.
#include <gmock/gmock.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/checked_forms.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

using internal::Rounding;
using internal::RoundToIntegral32;
using internal::RoundToIntegral64;

uint32_t Bits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  return bits;
}
uint64_t Bits(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, 8);
  return bits;
}
constexpr Rounding kModes[] = {Rounding::kNearest, Rounding::kZero, Rounding::kDown, Rounding::kUp};

// A value per mode (to nearest even, toward zero, down, up) of a float, and of the double of the
// same value.
void ExpectRounded(float x, float nearest, float zero, float down, float up) {
  const float expected[] = {nearest, zero, down, up};
  for (int mode = 0; mode < 4; ++mode) {
    EXPECT_EQ(RoundToIntegral32(Bits(x), kModes[mode], false), Bits(expected[mode])) << x << " mode " << mode;
    EXPECT_EQ(RoundToIntegral64(Bits(double{x}), kModes[mode]), Bits(double{expected[mode]}))
        << x << " mode " << mode;
  }
}

TEST(RoundTest, HalvesTieToEvenSignedZerosAndOnesBelowOne) {
  ExpectRounded(0.5f, 0.0f, 0.0f, 0.0f, 1.0f);
  ExpectRounded(-0.5f, -0.0f, -0.0f, -1.0f, -0.0f);
  ExpectRounded(1.5f, 2.0f, 1.0f, 1.0f, 2.0f);
  ExpectRounded(2.5f, 2.0f, 2.0f, 2.0f, 3.0f);
  ExpectRounded(-2.5f, -2.0f, -2.0f, -3.0f, -2.0f);
  ExpectRounded(3.5f, 4.0f, 3.0f, 3.0f, 4.0f);
  ExpectRounded(0.75f, 1.0f, 0.0f, 0.0f, 1.0f);
  ExpectRounded(-0.25f, -0.0f, -0.0f, -1.0f, -0.0f);
  ExpectRounded(0.49999997f, 0.0f, 0.0f, 0.0f, 1.0f);
  ExpectRounded(0.99999994f, 1.0f, 0.0f, 0.0f, 1.0f);
  ExpectRounded(1.0000001f, 1.0f, 1.0f, 1.0f, 2.0f);
  ExpectRounded(-7.0f, -7.0f, -7.0f, -7.0f, -7.0f);
  // The carry into the exponent: 8388607.5 (2^23 - 0.5) to nearest even is 2^23.
  ExpectRounded(8388607.5f, 8388608.0f, 8388607.0f, 8388607.0f, 8388608.0f);
  ExpectRounded(-8388606.5f, -8388606.0f, -8388606.0f, -8388607.0f, -8388606.0f);
  // 2^23 and above: integral already.
  ExpectRounded(8388609.0f, 8388609.0f, 8388609.0f, 8388609.0f, 8388609.0f);
  ExpectRounded(-3.0e38f, -3.0e38f, -3.0e38f, -3.0e38f, -3.0e38f);
  // Zeros and infinities unchanged.
  ExpectRounded(0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
  ExpectRounded(-0.0f, -0.0f, -0.0f, -0.0f, -0.0f);
  ExpectRounded(INFINITY, INFINITY, INFINITY, INFINITY, INFINITY);
  ExpectRounded(-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY);
  // Doubles: 2^52 - 0.5 to nearest even is 2^52; 2^52 + 1 is integral.
  const double below = 4503599627370495.5;
  EXPECT_EQ(RoundToIntegral64(Bits(below), Rounding::kNearest), Bits(4503599627370496.0));
  EXPECT_EQ(RoundToIntegral64(Bits(-below), Rounding::kDown), Bits(-4503599627370496.0));
  EXPECT_EQ(RoundToIntegral64(Bits(below), Rounding::kZero), Bits(4503599627370495.0));
  EXPECT_EQ(RoundToIntegral64(Bits(4503599627370497.0), Rounding::kUp), Bits(4503599627370497.0));
}

// Subnormals: rounded as any value below one, or, under .FTZ, flushed to the zero of their sign first.
TEST(RoundTest, SubnormalsRoundOrFlushUnderFtz) {
  const uint32_t positive = 0x00000001u, negative = 0x807fffffu;
  EXPECT_EQ(RoundToIntegral32(positive, Rounding::kUp, false), Bits(1.0f));
  EXPECT_EQ(RoundToIntegral32(positive, Rounding::kUp, true), 0u);
  EXPECT_EQ(RoundToIntegral32(negative, Rounding::kDown, false), Bits(-1.0f));
  EXPECT_EQ(RoundToIntegral32(negative, Rounding::kDown, true), 0x80000000u);
  EXPECT_EQ(RoundToIntegral32(negative, Rounding::kNearest, false), 0x80000000u);
  EXPECT_EQ(RoundToIntegral32(positive, Rounding::kZero, true), 0u);
  EXPECT_EQ(RoundToIntegral64(0x8000000000000001ull, Rounding::kDown), Bits(-1.0));
  EXPECT_EQ(RoundToIntegral64(0x000fffffffffffffull, Rounding::kNearest), 0u);
}

// NaNs, as the GPU's vectors show (form_frnd*): FRND gives the canonical 0x7fffffff for every NaN,
// as the other fp32 instructions do; FRND.F64 quiets its NaN, sign and payload kept.
TEST(RoundTest, NansAreCanonicalInSinglePrecisionAndQuietedInDouble) {
  for (const Rounding mode : kModes) {
    for (const bool ftz : {false, true}) {
      EXPECT_EQ(RoundToIntegral32(0x7fc12345u, mode, ftz), 0x7fffffffu);
      EXPECT_EQ(RoundToIntegral32(0xff812345u, mode, ftz), 0x7fffffffu);
      EXPECT_EQ(RoundToIntegral32(0x7f800001u, mode, ftz), 0x7fffffffu);
    }
    EXPECT_EQ(RoundToIntegral64(0xfff4000000000002ull, mode), 0xfffc000000000002ull);
    EXPECT_EQ(RoundToIntegral64(0x7ff8000000000001ull, mode), 0x7ff8000000000001ull);
  }
}

// Every other value as the host's ceil, floor, trunc and nearbyint (to nearest even, the host's
// default mode) give it: near integers at every exponent that has a fraction, and random bits.
TEST(RoundTest, AgreesWithTheHostsRoundingOnEveryExponent) {
  uint64_t state = 0x243f6a8885a308d3ull;
  const auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 200000; ++i) {
    const uint64_t r = next();
    // Exponents 100 to 151 (2^-27 to 2^24) and any bits below; every eighth value random bits.
    uint32_t x = static_cast<uint32_t>(r >> 32);
    if (i % 8 != 0) x = (x & 0x807fffffu) | static_cast<uint32_t>(100 + r % 52) << 23;
    uint64_t y = next();
    if (i % 8 != 0) y = (y & 0x800fffffffffffffull) | (uint64_t{1000} + r % 80) << 52;
    float f = 0;
    double d = 0;
    std::memcpy(&f, &x, 4);
    std::memcpy(&d, &y, 8);
    if (std::isnan(f) || std::isnan(d)) continue;
    EXPECT_EQ(RoundToIntegral32(x, Rounding::kNearest, false), Bits(std::nearbyint(f))) << std::hex << x;
    EXPECT_EQ(RoundToIntegral32(x, Rounding::kZero, false), Bits(std::trunc(f))) << std::hex << x;
    EXPECT_EQ(RoundToIntegral32(x, Rounding::kDown, false), Bits(std::floor(f))) << std::hex << x;
    EXPECT_EQ(RoundToIntegral32(x, Rounding::kUp, false), Bits(std::ceil(f))) << std::hex << x;
    EXPECT_EQ(RoundToIntegral64(y, Rounding::kNearest), Bits(std::nearbyint(d))) << std::hex << y;
    EXPECT_EQ(RoundToIntegral64(y, Rounding::kZero), Bits(std::trunc(d))) << std::hex << y;
    EXPECT_EQ(RoundToIntegral64(y, Rounding::kDown), Bits(std::floor(d))) << std::hex << y;
    EXPECT_EQ(RoundToIntegral64(y, Rounding::kUp), Bits(std::ceil(d))) << std::hex << y;
    if (::testing::Test::HasFailure()) return;
  }
}

// One warp's launch where `frnd` writes R8 (and R9 with .F64) from R4 = 2.5 (R4:R5 = 2.5 as a
// double), R8 and R9 known before it, and `read` (R8 or R9) gives a shared address.
Emulation RoundedAddress(const std::string& frnd, const std::string& read) {
  return Emulate(Listing(R"(
        /*0040*/                   MOV R4, 0x40200000 ;
        /*0050*/                   MOV R5, 0x40040000 ;
        /*0060*/                   MOV R8, 0x1 ;
        /*0070*/                   MOV R9, 0x2 ;
        /*0080*/                   )" +
                         frnd + R"( ;
        /*0090*/                   LOP3.LUT R3, )" +
                         read + R"(, 0x7c, RZ, 0xc0, !PT ;
        /*00a0*/                   LDS R10, [R3+UR4] ;
        /*00b0*/                   EXIT ;
)"),
                 Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
}

// Outside checked_forms.def (until their GPU vectors replay with 0 differ): unknown in the counting
// pass too, the reason naming the form. FRND.F64 writes a register pair: both registers are unknown
// (the high one kept its old value when only the first was made unknown). A form in the table is
// computed, the address known.
TEST(RoundTest, FormsWithoutGpuVectorsAreUnknownInEveryRegisterTheyWrite) {
  const std::pair<const char*, const char*> kForms[] = {
      {"FRND R8, R4", "R8"},          {"FRND.CEIL R8, R4", "R8"}, {"FRND.FTZ.FLOOR R8, R4", "R8"},
      {"FRND.TRUNC R8, R4", "R8"},    {"FRND.F64 R8, R4", "R9"},  {"FRND.F64.CEIL R8, R4", "R9"},
      {"FRND.F64.TRUNC R8, R4", "R8"}};
  for (const auto& [frnd, read] : kForms) {
    const std::string form = std::string(frnd).substr(0, std::string(frnd).find(' '));
    const Emulation emulation = RoundedAddress(frnd, read);
    if (internal::HasConformanceVectors(form)) {
      EXPECT_TRUE(emulation.record) << frnd << ": " << emulation.undecided->Describe();
      continue;
    }
    ASSERT_TRUE(emulation.undecided) << frnd << ": decided, " << read << " left known";
    EXPECT_THAT(emulation.undecided->reason,
                HasSubstr("form " + form + " (" + form + " at pc 0x0080), not among the forms checked"))
        << frnd;
  }
}

}  // namespace
}  // namespace bankcheck::emulate
