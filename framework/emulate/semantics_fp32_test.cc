// FADD, FMUL, FFMA and FMNMX computed through the output pass (ComputeOutputs): a hand-written kernel
// whose thread t reads a, b, c from in[3t..3t+2] and stores a - b, a * b (.FTZ), fma(a, b, c),
// min(a, |b|), max(a, b) to out[5t..5t+4]. The interesting lanes' results are written out by hand.
#include <gmock/gmock.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/emulator.h"
#include "emulate/internal/global_memory.h"

namespace bankcheck::emulate {
namespace {

using internal::GlobalMemory;
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

}  // namespace
}  // namespace bankcheck::emulate
