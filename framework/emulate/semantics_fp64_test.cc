// DADD, DMUL and DFMA computed through the output pass (ComputeOutputs): a hand-written kernel whose
// thread t reads the doubles x, y, z from in[3t..3t+2] and stores x + y, x * y and fma(x, y, z) to
// out[3t..3t+2]. The NaN lanes' results are the GPU's (conformance/vectors.txt), written out by hand.
#include <gmock/gmock.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/global_memory.h"

namespace bankcheck::emulate {
namespace {

using internal::GlobalMemory;

constexpr char kDoubles[] = R"(
.text._Z4testPd:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0020*/                   IMAD.WIDE.U32 R2, R0, 0x18, R2 ;
        /*0030*/                   LDG.E.64 R4, desc[UR6][R2.64] ;
        /*0040*/                   LDG.E.64 R6, desc[UR6][R2.64+0x8] ;
        /*0050*/                   LDG.E.64 R8, desc[UR6][R2.64+0x10] ;
        /*0060*/                   DADD R10, R4, %s ;
        /*0070*/                   DMUL R12, R4, R6 ;
        /*0080*/                   DFMA R14, R4, R6, R8 ;
        /*0090*/                   LDC.64 R16, c[0x0][0x218] ;
        /*00a0*/                   IMAD.WIDE.U32 R16, R0, 0x18, R16 ;
        /*00b0*/                   STG.E.64 desc[UR6][R16.64], R10 ;
        /*00c0*/                   STG.E.64 desc[UR6][R16.64+0x8], R12 ;
        /*00d0*/                   STG.E.64 desc[UR6][R16.64+0x10], R14 ;
        /*00e0*/                   EXIT ;
)";

uint64_t Bits(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, 8);
  return bits;
}
double Double(uint64_t bits) {
  double value = 0;
  std::memcpy(&value, &bits, 8);
  return value;
}

constexpr uint64_t kInf = 0x7ff0000000000000ull, kMinusInf = 0xfff0000000000000ull;
constexpr uint64_t kInvalid = 0xfff8000000000000ull;  // the GPU's NaN of inf - inf and 0 * inf

// Runs kDoubles (one block of 32 threads, DADD's second source `dadd_b`) on `in` and `out`.
ComputedOutputs RunDoubles(const std::string& dadd_b, const std::vector<uint64_t>& in,
                           const std::vector<uint64_t>& out) {
  GlobalMemory memory;
  for (const std::vector<uint64_t>* buffer : {&in, &out}) {
    const uint64_t at = reinterpret_cast<uintptr_t>(buffer->data());
    memory.Allocate(at, buffer->size() * 8);
    memory.WroteKnown(at, buffer->size() * 8);
  }
  LaunchToEmulate launch;
  launch.mangled = "_Z4testPd";
  launch.block = {32, 1, 1};
  const uint64_t pointers[2] = {reinterpret_cast<uintptr_t>(in.data()),
                                reinterpret_cast<uintptr_t>(out.data())};
  launch.param_bytes.resize(16);
  std::memcpy(launch.param_bytes.data(), pointers, 16);
  launch.memory = memory.Snapshot();
  std::vector<char> text(sizeof kDoubles + 16);
  std::snprintf(text.data(), text.size(), kDoubles, dadd_b.c_str());
  return ComputeOutputs(Module::FromListings(text.data(), ""), launch);
}

TEST(Fp64Test, NanOperandsQuietedInTheGpusOrderInvalidOperationsNegativeNan) {
  std::vector<uint64_t> in(3 * 32), out(3 * 32);
  for (uint32_t t = 0; t < 32; ++t) {
    in[3 * t] = Bits(static_cast<double>(t) + 0.1);
    in[3 * t + 1] = Bits(static_cast<double>(t) / 3.0);
    in[3 * t + 2] = Bits(-1.0 / 7.0);
  }
  // Lane 0: x a quiet NaN, y a signaling one: every form returns y quieted (its sign and payload).
  in[0] = 0x7ff8000000000001ull, in[1] = 0xfff4000000000002ull;
  // Lane 1: x a signaling NaN, z a quiet one: DADD and DMUL return x quieted, DFMA z before x.
  in[3] = 0x7ff4000000000003ull, in[4] = Bits(1.0), in[5] = 0xfff8000000000005ull;
  // Lane 2: inf + -inf is invalid; DMUL and DFMA give -inf.
  in[6] = kInf, in[7] = kMinusInf, in[8] = Bits(0.0);
  // Lane 3: 0 * inf is invalid, in DMUL and inside DFMA.
  in[9] = Bits(0.0), in[10] = kInf, in[11] = Bits(1.0);
  // Lane 4: inf * 1 + -inf is invalid only in DFMA.
  in[12] = kInf, in[13] = Bits(1.0), in[14] = kMinusInf;
  // Lane 5: y and z signaling NaNs: every form returns y quieted (DFMA before z).
  in[15] = Bits(2.0), in[16] = 0x7ff4000000000006ull, in[17] = 0xfff4000000000007ull;

  const ComputedOutputs outputs = RunDoubles("R6", in, out);
  ASSERT_FALSE(outputs.not_computed) << outputs.not_computed->Describe();
  const std::vector<uint8_t>& bytes = outputs.written.at(reinterpret_cast<uintptr_t>(out.data()));
  ASSERT_EQ(bytes.size(), out.size() * 8);
  std::memcpy(out.data(), bytes.data(), bytes.size());

  for (int form = 0; form < 3; ++form) {
    EXPECT_EQ(out[form], 0xfffc000000000002ull) << "lane 0, form " << form;
    EXPECT_EQ(out[5 * 3 + form], 0x7ffc000000000006ull) << "lane 5, form " << form;
  }
  EXPECT_EQ(out[3], 0x7ffc000000000003ull) << "DADD of a signaling NaN";
  EXPECT_EQ(out[4], 0x7ffc000000000003ull) << "DMUL of a signaling NaN";
  EXPECT_EQ(out[5], 0xfff8000000000005ull) << "DFMA: z's NaN before x's";
  EXPECT_EQ(out[6], kInvalid) << "inf + -inf";
  EXPECT_EQ(out[7], kMinusInf);
  EXPECT_EQ(out[8], kMinusInf);
  EXPECT_EQ(out[9], kInf);
  EXPECT_EQ(out[10], kInvalid) << "0 * inf";
  EXPECT_EQ(out[11], kInvalid) << "0 * inf + 1";
  EXPECT_EQ(out[12], kInf);
  EXPECT_EQ(out[13], kInf);
  EXPECT_EQ(out[14], kInvalid) << "inf * 1 + -inf";
  for (uint32_t t = 6; t < 32; ++t) {
    const double x = Double(in[3 * t]), y = Double(in[3 * t + 1]), z = Double(in[3 * t + 2]);
    EXPECT_EQ(out[3 * t], Bits(x + y)) << t;
    EXPECT_EQ(out[3 * t + 1], Bits(x * y)) << t;
    EXPECT_EQ(out[3 * t + 2], Bits(std::fma(x, y, z))) << t;
  }
}

// A NaN read through - or |x|: no vector says the sign the GPU returns, so the result is unknown.
TEST(Fp64Test, ANegatedNanOperandIsUnknown) {
  std::vector<uint64_t> in(3 * 32, Bits(1.5)), out(3 * 32);
  const ComputedOutputs numbers = RunDoubles("-R6", in, out);
  EXPECT_FALSE(numbers.not_computed) << numbers.not_computed->Describe();
  in[3 * 7 + 1] = 0x7ff8000000000000ull;
  const ComputedOutputs nan = RunDoubles("-R6", in, out);
  ASSERT_TRUE(nan.not_computed);
  EXPECT_THAT(nan.not_computed->reason, ::testing::HasSubstr("DADD"));
}

}  // namespace
}  // namespace bankcheck::emulate
