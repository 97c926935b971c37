// FADD, FMUL, FFMA and FMNMX computed through the output pass (ComputeOutputs): a hand-written kernel
// whose thread t reads a, b, c from in[3t..3t+2] and stores a - b, a * b (.FTZ), fma(a, b, c),
// min(a, |b|), max(a, b) to out[5t..5t+4]. The interesting lanes' results are written out by hand.
#include <gmock/gmock.h>

#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/checked_forms.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/global_memory.h"

namespace bankcheck::emulate {
namespace {

using internal::FusedMultiplyAdd32;
using internal::GlobalMemory;
using internal::Rounding;
using internal::Saturated32;
using ::testing::HasSubstr;

constexpr char kArithmetic[] = R"(
.text._Z4testPi:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0020*/                   IMAD.WIDE.U32 R2, R0, 0xc, R2 ;
        /*0030*/                   LDG.E R5, desc[UR6][R2.64] ;
        /*0040*/                   LDG.E R6, desc[UR6][R2.64+0x4] ;
        /*0050*/                   LDG.E R7, desc[UR6][R2.64+0x8] ;
        /*0060*/                   FADD R8, R5, -R6 ;
        /*0070*/                   %s ;
        /*0080*/                   FFMA R10, R5, R6, R7 ;
        /*0090*/                   FMNMX R11, R5, |R6|, PT ;
        /*00a0*/                   FMNMX R12, R5, R6, !PT ;
        /*00b0*/                   LDC.64 R14, c[0x0][0x218] ;
        /*00c0*/                   IMAD.WIDE.U32 R14, R0, 0x14, R14 ;
        /*00d0*/                   STG.E desc[UR6][R14.64], R8 ;
        /*00e0*/                   STG.E desc[UR6][R14.64+0x4], R9 ;
        /*00f0*/                   STG.E desc[UR6][R14.64+0x8], R10 ;
        /*0100*/                   STG.E desc[UR6][R14.64+0xc], R11 ;
        /*0110*/                   STG.E desc[UR6][R14.64+0x10], R12 ;
        /*0120*/                   EXIT ;
)";

uint32_t Bits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  return bits;
}
float Float(uint32_t bits) {
  float value = 0;
  std::memcpy(&value, &bits, 4);
  return value;
}

class Fp32Test : public ::testing::Test {
 protected:
  Fp32Test() : in_(3 * 32), out_(5 * 32) {
    for (uint32_t t = 0; t < 32; ++t) {
      in_[3 * t] = Bits(static_cast<float>(t) + 0.25f);
      in_[3 * t + 1] = Bits(static_cast<float>(t) / 3.0f);
      in_[3 * t + 2] = Bits(1.0f);
    }
    // Lane 0: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11; fused with c = -(1 + 2^-11) it
    // leaves 2^-24, unfused 0.
    in_[0] = in_[1] = Bits(1.0f + std::ldexp(1.0f, -12));
    in_[2] = Bits(-(1.0f + std::ldexp(1.0f, -11)));
    // Lane 1: 2^-100 * 2^-30 = 2^-130, a subnormal: flushed to +0 by FMUL.FTZ.
    in_[3] = Bits(std::ldexp(1.0f, -100));
    in_[4] = Bits(std::ldexp(1.0f, -30));
    // Lane 2: a NaN with a payload: FADD gives the canonical NaN, FMNMX the other operand.
    in_[6] = 0x7fc12345u;
    in_[7] = Bits(-1.0f);
    Register(in_);
    Register(out_);
  }
  void Register(std::vector<uint32_t>& buffer) {
    const uint64_t at = reinterpret_cast<uintptr_t>(buffer.data());
    memory_.Allocate(at, buffer.size() * 4);
    memory_.WroteKnown(at, buffer.size() * 4);
  }
  // Runs `listing` (one block of 32 threads) with in_ and `out` as its arguments.
  ComputedOutputs Run(const char* listing, const std::vector<uint32_t>& out) {
    LaunchToEmulate launch;
    launch.mangled = "_Z4testPi";
    launch.block = {32, 1, 1};
    const uint64_t pointers[2] = {reinterpret_cast<uintptr_t>(in_.data()),
                                  reinterpret_cast<uintptr_t>(out.data())};
    launch.param_bytes.resize(16);
    std::memcpy(launch.param_bytes.data(), pointers, 16);
    launch.memory = memory_.Snapshot();
    return ComputeOutputs(Module::FromListings(listing, ""), launch);
  }
  // kArithmetic with `multiply` as its instruction at 0x0070.
  ComputedOutputs Run(const std::string& multiply) {
    std::vector<char> text(sizeof kArithmetic + 64);
    std::snprintf(text.data(), text.size(), kArithmetic, multiply.c_str());
    return Run(text.data(), out_);
  }
  std::vector<uint32_t> in_, out_;
  GlobalMemory memory_;
};

TEST_F(Fp32Test, FusedRoundedOnceSubnormalsFlushedUnderFtzNanCanonical) {
  const ComputedOutputs outputs = Run("FMUL.FTZ R9, R5, R6");
  ASSERT_FALSE(outputs.not_computed) << outputs.not_computed->Describe();
  const std::vector<uint8_t>& bytes = outputs.written.at(reinterpret_cast<uintptr_t>(out_.data()));
  ASSERT_EQ(bytes.size(), out_.size() * 4);
  std::vector<uint32_t> out(out_.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  EXPECT_EQ(out[2], Bits(std::ldexp(1.0f, -24))) << "FFMA rounds once";
  EXPECT_EQ(out[5 + 1], 0u) << "2^-130 flushed by FMUL.FTZ";
  EXPECT_EQ(out[5 + 0], Bits(std::ldexp(1.0f, -100) - std::ldexp(1.0f, -30)));
  EXPECT_EQ(out[10 + 0], 0x7fffffffu) << "FADD of a NaN";
  EXPECT_EQ(out[10 + 2], 0x7fffffffu) << "FFMA of a NaN";
  EXPECT_EQ(out[10 + 3], Bits(1.0f)) << "min(NaN, |-1|)";
  EXPECT_EQ(out[10 + 4], Bits(-1.0f)) << "max(NaN, -1)";
  for (uint32_t t = 3; t < 32; ++t) {
    const float a = Float(in_[3 * t]), b = Float(in_[3 * t + 1]);
    EXPECT_EQ(out[5 * t], Bits(a - b)) << t;
    EXPECT_EQ(out[5 * t + 1], Bits(a * b)) << t;
    EXPECT_EQ(out[5 * t + 2], Bits(std::fma(a, b, 1.0f))) << t;
    EXPECT_EQ(out[5 * t + 3], Bits(std::fmin(a, b))) << t;
    EXPECT_EQ(out[5 * t + 4], Bits(std::fmax(a, b))) << t;
  }
}

TEST_F(Fp32Test, IntegralImmediatesAreFloats) {
  // nvdisasm's "FMUL R9, R5, 3": the float 3, not the bits 0x3.
  const ComputedOutputs outputs = Run("FMUL R9, R5, 3");
  ASSERT_FALSE(outputs.not_computed) << outputs.not_computed->Describe();
  std::vector<uint32_t> out(out_.size());
  std::memcpy(out.data(), outputs.written.at(reinterpret_cast<uintptr_t>(out_.data())).data(),
              out.size() * 4);
  for (uint32_t t = 3; t < 32; ++t) EXPECT_EQ(out[5 * t + 1], Bits(Float(in_[3 * t]) * 3.0f)) << t;
}

// Thread t: FSETP of a >= b (ordered) and a > b (unordered), and SHFL of its lane number in each mode;
// stored to out[7t ... 7t+6]. (The forms checked against the GPU: FSETP.GT.AND has no vectors.)
constexpr char kCompareAndShuffle[] = R"(
.text._Z4testPi:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0020*/                   IMAD.WIDE.U32 R2, R0, 0xc, R2 ;
        /*0030*/                   LDG.E R5, desc[UR6][R2.64] ;
        /*0040*/                   LDG.E R6, desc[UR6][R2.64+0x4] ;
        /*0050*/                   FSETP.GE.AND P0, P1, R5, R6, PT ;
        /*0060*/                   FSETP.GTU.AND P2, PT, R5, R6, PT ;
        /*0070*/                   SEL R8, 0x1, RZ, P0 ;
        /*0080*/                   SEL R9, 0x1, RZ, P2 ;
        /*0090*/                   SHFL.BFLY PT, R10, R0, 0x1, 0x1f ;
        /*00a0*/                   SHFL.UP P3, R11, R0, 0x2, RZ ;
        /*00b0*/                   SHFL.DOWN PT, R12, R0, 0x4, 0x1f ;
        /*00c0*/                   SHFL.IDX PT, R13, R0, 0x5, 0x1f ;
        /*00d0*/                   SEL R14, 0x1, RZ, P3 ;
        /*00e0*/                   LDC.64 R16, c[0x0][0x218] ;
        /*00f0*/                   IMAD.WIDE.U32 R16, R0, 0x1c, R16 ;
        /*0100*/                   STG.E desc[UR6][R16.64], R8 ;
        /*0110*/                   STG.E desc[UR6][R16.64+0x4], R9 ;
        /*0120*/                   STG.E desc[UR6][R16.64+0x8], R10 ;
        /*0130*/                   STG.E desc[UR6][R16.64+0xc], R11 ;
        /*0140*/                   STG.E desc[UR6][R16.64+0x10], R12 ;
        /*0150*/                   STG.E desc[UR6][R16.64+0x14], R13 ;
        /*0160*/                   STG.E desc[UR6][R16.64+0x18], R14 ;
        /*0170*/                   EXIT ;
)";

TEST_F(Fp32Test, ComparisonsOrderedAndUnorderedAndShufflesInEveryMode) {
  for (uint32_t t = 0; t < 32; ++t) {
    in_[3 * t] = Bits(static_cast<float>(t));
    in_[3 * t + 1] = Bits(10.0f);
  }
  in_[3 * 3] = 0x7fc00000u;  // lane 3: NaN
  std::vector<uint32_t> out(7 * 32);
  Register(out);
  const ComputedOutputs outputs = Run(kCompareAndShuffle, out);
  ASSERT_FALSE(outputs.not_computed) << outputs.not_computed->Describe();
  std::memcpy(out.data(), outputs.written.at(reinterpret_cast<uintptr_t>(out.data())).data(), out.size() * 4);
  for (uint32_t t = 0; t < 32; ++t) {
    const uint32_t* row = &out[7 * t];
    EXPECT_EQ(row[0], t >= 10 && t != 3 ? 1u : 0u) << "GE, lane " << t;
    EXPECT_EQ(row[1], t > 10 || t == 3 ? 1u : 0u) << "GTU, lane " << t;
    EXPECT_EQ(row[2], t ^ 1) << "BFLY, lane " << t;
    EXPECT_EQ(row[3], t >= 2 ? t - 2 : t) << "UP, lane " << t;
    EXPECT_EQ(row[6], t >= 2 ? 1u : 0u) << "UP's predicate, lane " << t;
    EXPECT_EQ(row[4], t + 4 <= 31 ? t + 4 : t) << "DOWN, lane " << t;
    EXPECT_EQ(row[5], 5u) << "IDX, lane " << t;
  }
}

// A form no GPU vectors check is not computed, the reason naming it (internal/checked_forms.def),
// though the handler could compute it (.FTZ and .NAN each are).
TEST_F(Fp32Test, AFormWithoutGpuVectorsIsNotComputed) {
  const ComputedOutputs outputs = Run("FMNMX.FTZ.NAN R9, R5, R6, PT");
  ASSERT_TRUE(outputs.not_computed);
  EXPECT_THAT(outputs.not_computed->reason, HasSubstr("form FMNMX.FTZ.NAN ("));
  EXPECT_THAT(outputs.not_computed->reason, HasSubstr("), not among the forms checked against the GPU"));
}

TEST_F(Fp32Test, AnotherRoundingIsNotComputed) {
  const ComputedOutputs outputs = Run("FMUL.RZ R9, R5, R6");
  ASSERT_TRUE(outputs.not_computed);
  EXPECT_THAT(outputs.not_computed->reason,
              HasSubstr("form FMUL.RZ (FMUL.RZ at pc 0x0070), not among the forms checked against the "
                        "GPU (checked_forms.def), feeds the value stored"));
}

// Half pairs (HADD2, HMUL2, HFMA2): each half rounded to nearest even, every NaN 0x7fff; a half
// selector (R6.H0_H0) is not read, so its result is not computed.
TEST_F(Fp32Test, HalfPairsRoundToNearestEvenAndSelectorsAreNotComputed) {
  in_[0] = 0x3c003c00u;  // lane 0: (1, 1) + (2^-10, 2^-11): 1 + 2^-10 exactly, and a tie kept even at 1
  in_[1] = 0x14001000u;
  in_[3] = 0x7e01fc00u;  // lane 1: (NaN, -inf) + (0, inf): NaN both
  in_[4] = 0x00007c00u;
  in_[6] = 0x80008000u;  // lane 2: (-0, -0) + (-0, +0): -0 and +0
  in_[7] = 0x80000000u;
  const ComputedOutputs outputs = Run("HADD2 R9, R5, R6");
  ASSERT_FALSE(outputs.not_computed) << outputs.not_computed->Describe();
  std::vector<uint32_t> out(out_.size());
  std::memcpy(out.data(), outputs.written.at(reinterpret_cast<uintptr_t>(out_.data())).data(),
              out.size() * 4);
  EXPECT_EQ(out[1], 0x3c013c00u);
  EXPECT_EQ(out[5 + 1], 0x7fff7fffu);
  EXPECT_EQ(out[10 + 1], 0x80000000u);
  const ComputedOutputs selected = Run("HADD2 R9, R5, R6.H0_H0");
  ASSERT_TRUE(selected.not_computed);
  EXPECT_THAT(selected.not_computed->reason, HasSubstr("HADD2 at pc 0x0070"));
}

// FFMA and FADD (as fma(a, 1, b)) in every direction, on the edges of form_fadd_rz's and form_ffma_rm's
// GPU vectors: overflow, subnormals, exact zeros, NaN.
constexpr uint32_t kMax = 0x7f7fffffu, kInf = 0x7f800000u, kOne = 0x3f800000u, kNegative = 0x80000000u;
uint32_t Add(uint32_t a, uint32_t b, Rounding rounding) { return FusedMultiplyAdd32(a, kOne, b, rounding); }

TEST(DirectedRoundingTest, OverflowGoesToTheInfinityOnlyInItsDirection) {
  EXPECT_EQ(Add(kMax, kMax, Rounding::kZero), kMax);  // vectors: 7f7fffff + 7f7fffff
  EXPECT_EQ(Add(kMax | kNegative, kMax | kNegative, Rounding::kZero), kMax | kNegative);
  EXPECT_EQ(Add(kMax, 0x3f800001u, Rounding::kZero), kMax);  // beyond kMax by less than a unit
  EXPECT_EQ(Add(kMax, kMax, Rounding::kNearest), kInf);
  EXPECT_EQ(Add(kMax, kMax, Rounding::kUp), kInf);
  EXPECT_EQ(Add(kMax, 0x3f800001u, Rounding::kUp), kInf);
  // FFMA.RM: a positive overflow is the largest finite value, a negative one -inf (vectors).
  EXPECT_EQ(FusedMultiplyAdd32(kMax, kMax, 0xc0200000u, Rounding::kDown), kMax);
  EXPECT_EQ(FusedMultiplyAdd32(kMax, kMax | kNegative, kMax | kNegative, Rounding::kDown), kInf | kNegative);
  EXPECT_EQ(FusedMultiplyAdd32(0x3f800001u, 0x3f000000u, kMax, Rounding::kDown), kMax);
  EXPECT_EQ(FusedMultiplyAdd32(0xc0200000u, 0x4f000000u, kMax | kNegative, Rounding::kDown),
            kInf | kNegative);
  EXPECT_EQ(FusedMultiplyAdd32(kInf, kOne, kMax, Rounding::kZero), kInf);  // an infinity stays one
}

TEST(DirectedRoundingTest, SubnormalsAreKept) {
  EXPECT_EQ(Add(0x007fffffu, 0x80000001u, Rounding::kZero), 0x007ffffeu);
  EXPECT_EQ(Add(0x00000001u, 0x807fffffu, Rounding::kZero), 0x807ffffeu);
  EXPECT_EQ(Add(0x80000001u, 0x00800000u, Rounding::kZero), 0x007fffffu);
  // 2^-149 * -2^-149 is a tiny negative: down, the smallest subnormal below zero; toward zero, -0.
  EXPECT_EQ(FusedMultiplyAdd32(0x00000001u, 0x80000001u, kNegative, Rounding::kDown), 0x80000001u);
  EXPECT_EQ(FusedMultiplyAdd32(0x00000001u, 0x80000001u, kNegative, Rounding::kZero), kNegative);
  EXPECT_EQ(FusedMultiplyAdd32(0x00000001u, 0x80000001u, kNegative, Rounding::kUp), kNegative);
  // -2^-126 plus a tiny positive product: down, -2^-126 itself; toward zero, the largest subnormal.
  EXPECT_EQ(FusedMultiplyAdd32(0x80000001u, 0x80000001u, 0x80800000u, Rounding::kDown), 0x80800000u);
  EXPECT_EQ(FusedMultiplyAdd32(0x80000001u, 0x80000001u, 0x80800000u, Rounding::kZero), 0x807fffffu);
  EXPECT_EQ(FusedMultiplyAdd32(0x00800000u, 0x00800000u, 0x80000001u, Rounding::kDown), 0x80000001u);
}

// An exact zero is -0 where both terms are -0, else +0, but -0 rounding down; a NaN result is
// 0x7fffffff in every direction.
TEST(DirectedRoundingTest, ExactZerosAndNans) {
  for (const Rounding rounding : {Rounding::kNearest, Rounding::kZero, Rounding::kUp}) {
    EXPECT_EQ(Add(kOne, kOne | kNegative, rounding), 0u);
    EXPECT_EQ(Add(0, kNegative, rounding), 0u);
  }
  EXPECT_EQ(Add(kOne, kOne | kNegative, Rounding::kDown), kNegative);
  EXPECT_EQ(Add(0, kNegative, Rounding::kDown), kNegative);
  EXPECT_EQ(Add(0, 0, Rounding::kDown), 0u);
  for (const Rounding rounding : {Rounding::kNearest, Rounding::kZero, Rounding::kDown, Rounding::kUp}) {
    EXPECT_EQ(Add(kNegative, kNegative, rounding), kNegative);
    EXPECT_EQ(Add(0x7fc12345u, kOne, rounding), 0x7fffffffu);
    EXPECT_EQ(FusedMultiplyAdd32(kInf, 0, kOne, rounding), 0x7fffffffu);
    EXPECT_EQ(FusedMultiplyAdd32(kInf, kOne, kInf | kNegative, rounding), 0x7fffffffu);
  }
}

// (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 lies halfway between two floats, and c = ±2^-100 is lost in the
// double nearest the sum: the exact error (TwoSum) decides each direction, and ties go to even.
TEST(DirectedRoundingTest, TheErrorTermDecidesWhatTheDoubleSumLost) {
  const uint32_t x = Bits(1.0f + std::ldexp(1.0f, -12)), tiny = Bits(std::ldexp(1.0f, -100));
  const uint32_t low = Bits(1.0f + std::ldexp(1.0f, -11)), high = low + 1;
  EXPECT_EQ(FusedMultiplyAdd32(x, x, 0, Rounding::kNearest), low);  // the tie, to even
  EXPECT_EQ(FusedMultiplyAdd32(x, x, tiny, Rounding::kNearest), high);
  EXPECT_EQ(FusedMultiplyAdd32(x, x, tiny | kNegative, Rounding::kNearest), low);
  EXPECT_EQ(FusedMultiplyAdd32(x, x, tiny, Rounding::kZero), low);
  EXPECT_EQ(FusedMultiplyAdd32(x, x, tiny | kNegative, Rounding::kUp), high);
  // A sum on a float, just below it: down and toward zero, the float below; up, the float itself.
  EXPECT_EQ(FusedMultiplyAdd32(kOne, kOne, tiny | kNegative, Rounding::kDown), 0x3f7fffffu);
  EXPECT_EQ(FusedMultiplyAdd32(kOne, kOne, tiny | kNegative, Rounding::kZero), 0x3f7fffffu);
  EXPECT_EQ(FusedMultiplyAdd32(kOne, kOne, tiny | kNegative, Rounding::kUp), kOne);
  EXPECT_EQ(FusedMultiplyAdd32(kOne | kNegative, kOne, tiny, Rounding::kDown), kOne | kNegative);
  EXPECT_EQ(FusedMultiplyAdd32(kOne | kNegative, kOne, tiny, Rounding::kZero), 0xbf7fffffu);
}

// Against the host's fmaf in each of its rounding modes, an oracle here only (the emulator never
// changes the host's mode): random bits, and operands near each other's exponents so that sums
// cancel and round at every exponent, subnormals included.
TEST(DirectedRoundingTest, AgreesWithTheHostsFmaInEveryMode) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  const auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<uint32_t>(state >> 16);
  };
  constexpr std::pair<Rounding, int> kModes[] = {{Rounding::kNearest, FE_TONEAREST},
                                                 {Rounding::kZero, FE_TOWARDZERO},
                                                 {Rounding::kDown, FE_DOWNWARD},
                                                 {Rounding::kUp, FE_UPWARD}};
  for (int i = 0; i < 100000; ++i) {
    uint32_t a = next(), b = next(), c = next();
    if (i % 4 != 0) {  // exponents near c's (a * b's exponent is theirs added, less the bias)
      const uint32_t e = 1 + next() % 253;
      a = (a & 0x807fffffu) | (127 + next() % 8) << 23;
      b = (b & 0x807fffffu) | ((e > 10 ? e - next() % 8 : e) << 23);
      c = (c & 0x807fffffu) | e << 23;
      if (i % 16 == 1) c &= 0x807fffffu;  // a subnormal addend
    }
    for (const auto& [rounding, mode] : kModes) {
      volatile float x = Float(a), y = Float(b), z = Float(c);
      std::fesetround(mode);
      volatile float host = std::fma(x, y, z);
      std::fesetround(FE_TONEAREST);
      const uint32_t expected = std::isnan(host) ? 0x7fffffffu : Bits(host);
      ASSERT_EQ(FusedMultiplyAdd32(a, b, c, rounding), expected)
          << std::hex << a << " " << b << " " << c << " mode " << static_cast<int>(rounding);
    }
  }
}

// .SAT: [+0, 1], a NaN and every negative (-0 too) +0 (form_fadd_sat's and form_ffma_sat's vectors).
TEST(DirectedRoundingTest, SaturationClampsToZeroAndOne) {
  EXPECT_EQ(Saturated32(0x7fffffffu), 0u);
  EXPECT_EQ(Saturated32(kNegative), 0u);
  EXPECT_EQ(Saturated32(0x80000001u), 0u);
  EXPECT_EQ(Saturated32(kInf | kNegative), 0u);
  EXPECT_EQ(Saturated32(kInf), kOne);
  EXPECT_EQ(Saturated32(kMax), kOne);
  EXPECT_EQ(Saturated32(0x3f800001u), kOne);
  EXPECT_EQ(Saturated32(0x3f7fffffu), 0x3f7fffffu);
  EXPECT_EQ(Saturated32(0x00000001u), 0x00000001u);  // a subnormal is kept
}

// In a launch: FADD.RZ, FADD.SAT, FFMA.RM and FFMA.SAT (checked_forms.def) give a known address;
// the other directions and combinations, which no GPU vector checks, are unknown in the counting
// pass too, the reason naming the form.
TEST(DirectedRoundingTest, OnlyTheCheckedFormsAreComputedInEitherPass) {
  // The lane's index as a float, `op` on R4, back to an integer: the address.
  const auto producer = [](const std::string& op) {
    return "I2FP.F32.U32 R4, R0 ;\n        /*0044*/ " + op + " ;\n        /*0048*/ F2I.TRUNC.NTZ R5, R4";
  };
  constexpr const char* kComputed[] = {"FADD.RZ R4, R4, 0.5", "FADD.SAT R4, R4, -0.5",
                                       "FFMA.RM R4, R4, 0.5, R4", "FFMA.SAT R4, R4, R4, -R4"};
  for (const char* op : kComputed) {
    const std::string form = std::string(op).substr(0, std::string(op).find(' '));
    ASSERT_TRUE(internal::HasConformanceVectors(form)) << form;
    const Emulation emulation = test_support::EmulateAddressFrom(producer(op));
    EXPECT_TRUE(emulation.record) << op << ": " << emulation.undecided->Describe();
  }
  constexpr const char* kUnknown[] = {"FADD.RP R4, R4, 0.5", "FADD.RM R4, R4, 0.5", "FFMA.RZ R4, R4, 0.5, R4",
                                      "FFMA.SAT.RM R4, R4, R4, R4", "FADD.FTZ.RZ R4, R4, 0.5"};
  for (const char* op : kUnknown) {
    const std::string form = std::string(op).substr(0, std::string(op).find(' '));
    ASSERT_FALSE(internal::HasConformanceVectors(form)) << form;
    EXPECT_THAT(test_support::WhyAddressUndecided(producer(op)),
                HasSubstr("form " + form + " (" + form + " at pc 0x0044), not among the forms checked"));
  }
}

}  // namespace
}  // namespace bankcheck::emulate
