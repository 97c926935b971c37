// The tensor core's dot product (internal/tensor_core.h) on hand-checked cases, and the fragment maps
// against the PTX ISA's tables. The GPU's own vectors check the rest (conformance/vectors.txt).
#include "emulate/internal/tensor_core.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bankcheck::emulate::internal {
namespace {

constexpr uint32_t kHalfOne = 0x3c00, kHalfTwo = 0x4000, kHalfThree = 0x4200;

// The dot of f16 elements (padded with zeros to k = 16) plus the f32 c.
uint32_t Half(std::vector<uint32_t> a, std::vector<uint32_t> b, uint32_t c) {
  a.resize(16, 0);
  b.resize(16, 0);
  return TensorCoreDot(MmaElement::kF16, a.data(), b.data(), 16, c, false);
}

TEST(TensorCoreTest, SumsExactly) {
  EXPECT_EQ(Half({kHalfOne, kHalfTwo}, {kHalfOne, kHalfOne}, 0x3f000000u), 0x40600000u);  // 1 + 2 + 0.5
  // 2^10 - 2^10 + 1: the products cancel, c is kept.
  EXPECT_EQ(Half({0x6400, 0x6400}, {kHalfOne, 0xbc00}, 0x3f800000u), 0x3f800000u);
  // bf16: 2 - 1 + 0.25.
  const uint32_t a[16] = {0x3f80, 0x3f80}, b[16] = {0x4000, 0xbf80};
  EXPECT_EQ(TensorCoreDot(MmaElement::kBf16, a, b, 16, 0x3e800000u, false), 0x3fa00000u);
}

// An exact zero (cancellation, or only zeros, whatever their signs) is +0.
TEST(TensorCoreTest, ExactZeroIsPositive) {
  EXPECT_EQ(Half({0x4500, 0x4500}, {kHalfOne, 0xbc00}, 0), 0u);
  EXPECT_EQ(Half({0x8000}, {kHalfOne}, 0x80000000u), 0u);
}

// Each term is cut 25 bits below the group's largest exponent, toward zero: 2^-24 and 2^-25 below
// 1 are kept, 2^-26 is not; so is a term below c, and a negative one does not borrow (1 - 2^-30
// stays 1, where IEEE's rounding toward zero gives 0x3f7fffff).
TEST(TensorCoreTest, TruncatesEachTermTwentyFiveBitsBelowTheLargest) {
  constexpr uint32_t kMinusOne = 0xbf800000u;
  EXPECT_EQ(Half({kHalfOne, 0x0001}, {kHalfOne, kHalfOne}, kMinusOne), 0x33800000u);  // 2^-24
  EXPECT_EQ(Half({kHalfOne, 0x0001}, {kHalfOne, 0x3800}, kMinusOne), 0x33000000u);    // 2^-25
  EXPECT_EQ(Half({kHalfOne, 0x0001}, {kHalfOne, 0x3400}, kMinusOne), 0u);             // 2^-26 dropped
  EXPECT_EQ(Half({kHalfOne}, {kHalfOne}, 0xb0800000u), 0x3f800000u);                  // 1 - 2^-30
  EXPECT_EQ(Half({kHalfOne}, {kHalfOne}, 0x34800000u), 0x3f800002u);                  // 1 + 2^-22
  // Fifteen products of 2^-26 below a 1: each dropped alone, though their sum is not below 2^-25.
  std::vector<uint32_t> a(16, 0x0001), b(16, 0x3400);
  a[0] = b[0] = kHalfOne;
  EXPECT_EQ(Half(a, b, kMinusOne), 0u);
}

// The sum is rounded toward zero to f32 (1 + 2^-23 + 2^-24 stays 1 + 2^-23), and to nearest even
// to f16: 1 + 2^-11 is a tie down to 1, 1 + 3 * 2^-11 a tie up to 1 + 2^-9.
TEST(TensorCoreTest, RoundsTowardZeroToF32AndToNearestEvenToF16) {
  EXPECT_EQ(Half({kHalfOne, 0x0001}, {kHalfOne, kHalfOne}, 0x34000000u), 0x3f800001u);
  uint32_t a[16] = {kHalfOne, 0x1000}, b[16] = {kHalfOne, kHalfOne};
  EXPECT_EQ(TensorCoreDot(MmaElement::kF16, a, b, 16, 0, true), 0x3c00u);
  b[1] = kHalfThree;
  EXPECT_EQ(TensorCoreDot(MmaElement::kF16, a, b, 16, 0, true), 0x3c02u);
  // f16 c: 1 + 1.
  b[1] = 0;
  EXPECT_EQ(TensorCoreDot(MmaElement::kF16, a, b, 16, kHalfOne, true), kHalfTwo);
}

// Subnormal operands are kept: f16 2^-24 * 2^-24 = 2^-48; f32 c 2^-149 plus zeros is itself.
TEST(TensorCoreTest, KeepsSubnormals) {
  EXPECT_EQ(Half({0x0001}, {0x0001}, 0), 0x27800000u);
  EXPECT_EQ(Half({}, {}, 0x00000001u), 0x00000001u);
  EXPECT_EQ(Half({0x03ff}, {kHalfOne}, 0x80000001u), 0x387fc000u);  // 1023 * 2^-24, c below F bits
}

TEST(TensorCoreTest, NanAndInfinities) {
  EXPECT_EQ(Half({0x7e00}, {kHalfOne}, 0), 0x7fffffffu);                    // NaN operand
  EXPECT_EQ(Half({0x7c00}, {0}, 0), 0x7fffffffu);                           // inf * 0
  EXPECT_EQ(Half({0x7c00, 0xfc00}, {kHalfOne, kHalfOne}, 0), 0x7fffffffu);  // inf - inf
  EXPECT_EQ(Half({0x7c00}, {0xbc00}, 0x40a00000u), 0xff800000u);            // -inf + 5
  EXPECT_EQ(Half({0x7c00}, {kHalfOne}, 0xff800000u), 0x7fffffffu);          // inf + c = -inf
  EXPECT_EQ(Half({kHalfOne}, {kHalfOne}, 0x7fc00000u), 0x7fffffffu);        // NaN c
  uint32_t a[16] = {0x7c00}, b[16] = {kHalfOne};
  EXPECT_EQ(TensorCoreDot(MmaElement::kF16, a, b, 16, 0x7e00, true), 0x7fffu);  // f16 NaN
}

// tf32 reads an f32's sign, exponent and 10 high fraction bits.
TEST(TensorCoreTest, Tf32IgnoresTheLowThirteenBits) {
  uint32_t a[8] = {0x3f801fffu}, b[8] = {0x3f800000u};
  EXPECT_EQ(TensorCoreDot(MmaElement::kTf32, a, b, 8, 0, false), 0x3f800000u);
  a[0] = 0x3f802000u;
  EXPECT_EQ(TensorCoreDot(MmaElement::kTf32, a, b, 8, 0, false), 0x3f802000u);
}

// The PTX ISA's maps: m16n8k16 a6 of lane 4g + t is row g + 8, column 2t + 8; b2 of it row (k)
// 2t + 8, column g; c3 row g + 8, column 2t + 1; m16n8k8 tf32 a1 row g + 8, column t, a2 row g,
// column t + 4.
TEST(TensorCoreTest, FragmentMapsAreThePtxIsas) {
  const FragmentSlot a6 = MmaASlot(MmaElement::kF16, 9, 10);
  EXPECT_EQ(a6.lane, 5u);
  EXPECT_EQ(a6.reg, 3u);
  EXPECT_EQ(a6.half, 0u);
  const FragmentSlot b2 = MmaBSlot(MmaElement::kBf16, 10, 1);
  EXPECT_EQ(b2.lane, 5u);
  EXPECT_EQ(b2.reg, 1u);
  EXPECT_EQ(b2.half, 0u);
  const FragmentSlot c3 = MmaCSlot(false, 9, 3);
  EXPECT_EQ(c3.lane, 5u);
  EXPECT_EQ(c3.reg, 3u);
  const FragmentSlot c1 = MmaCSlot(true, 9, 3);
  EXPECT_EQ(c1.reg, 1u);
  EXPECT_EQ(c1.half, 1u);
  EXPECT_EQ(MmaASlot(MmaElement::kTf32, 9, 1).reg, 1u);
  EXPECT_EQ(MmaASlot(MmaElement::kTf32, 1, 5).reg, 2u);
  EXPECT_EQ(MmaASlot(MmaElement::kTf32, 1, 5).lane, 5u);
  EXPECT_EQ(MmaBSlot(MmaElement::kTf32, 5, 2).reg, 1u);
  EXPECT_EQ(MmaBSlot(MmaElement::kTf32, 5, 2).lane, 9u);
}

}  // namespace
}  // namespace bankcheck::emulate::internal
