#include "emulate/internal/opcodes.h"

#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "emulate/internal/sass.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {
namespace {

DecodedModifiers Decode(const std::string& opcode, const std::vector<std::string>& modifiers) {
  return DecodeModifiers(FindOpcode(opcode), modifiers);
}

TEST(DecodeModifiersTest, ComparisonSignednessAndCombination) {
  const DecodedModifiers isetp = Decode("ISETP", {"GE", "U32", "AND"});
  EXPECT_EQ(isetp.test, internal::Test::kGreaterOrEqual);
  EXPECT_NE(isetp.bits & mod::kU32, 0u);
  EXPECT_NE(isetp.bits & mod::kAnd, 0u);
  EXPECT_EQ(isetp.bits & mod::kOr, 0u);
  EXPECT_EQ(Decode("ISETP", {"NE", "OR"}).test, internal::Test::kNotEqual);
  EXPECT_EQ(Decode("ISETP", {"AND"}).test, internal::Test::kNone);  // no comparison: the evaluator stops
}

TEST(DecodeModifiersTest, WidthsAndSharedAccessBytes) {
  EXPECT_EQ(Decode("LDS", {"128"}).width, 4);
  EXPECT_EQ(Decode("LDS", {"128"}).access_bytes, 16);
  EXPECT_EQ(Decode("LDS", {"64"}).width, 2);
  EXPECT_EQ(Decode("LDS", {"64"}).access_bytes, 8);
  EXPECT_EQ(Decode("LDS", {"U16"}).access_bytes, 2);
  EXPECT_EQ(Decode("STS", {"U8"}).access_bytes, 1);
  EXPECT_EQ(Decode("LDS", {}).access_bytes, 4);
  EXPECT_EQ(Decode("DADD", {}).width, 2);  // the table's width: double precision is a pair
  EXPECT_EQ(Decode("HMMA", {"16816", "F32"}).width, 4);
  const DecodedModifiers ldsm = Decode("LDSM", {"16", "M88", "4"});
  EXPECT_EQ(ldsm.matrices, 4);
  EXPECT_EQ(ldsm.access_bytes, kMatrixRowBytes);
  EXPECT_EQ(Decode("STSM", {"16", "M88", "2"}).matrices, 2);
}

TEST(DecodeModifiersTest, Rounding) {
  EXPECT_EQ(Decode("F2I", {"FTZ", "U32", "TRUNC", "NTZ"}).rounding, Rounding::kZero);
  EXPECT_EQ(Decode("I2F", {"U32", "RP"}).rounding, Rounding::kUp);
  EXPECT_EQ(Decode("F2I", {"FLOOR"}).rounding, Rounding::kDown);
  EXPECT_EQ(Decode("I2F", {}).rounding, Rounding::kNearest);
}

TEST(OpcodeTableTest, SharedRowsNameTheirKindAndUniformRowsTheirScope) {
  EXPECT_EQ(FindOpcode("STS")->shared_kind, MemoryKind::kSharedStore);
  EXPECT_EQ(FindOpcode("LDSM")->shared_kind, MemoryKind::kSharedLdmatrix);
  EXPECT_EQ(FindOpcode("LDGSTS")->shared_kind, MemoryKind::kSharedCpAsync);
  EXPECT_EQ(FindOpcode("ATOMS")->shared_kind, MemoryKind::kSharedAtomic);
  EXPECT_TRUE(IsShared(FindOpcode("LDS")->memory));
  EXPECT_FALSE(IsShared(FindOpcode("LDG")->memory));
  EXPECT_TRUE(FindOpcode("UIADD3")->uniform());
  EXPECT_FALSE(FindOpcode("IADD3")->uniform());
  EXPECT_EQ(FindOpcode("FOO"), nullptr);
}

TEST(OpcodeTableTest, WgmmaRowsCostHgmmaAndFenceNothing) {
  const OpcodeInfo* hgmma = FindOpcode("HGMMA");
  EXPECT_EQ(hgmma->semantics, Semantics::kWgmma);
  EXPECT_EQ(hgmma->shared_kind, MemoryKind::kSharedWgmma);
  EXPECT_EQ(hgmma->scope, Scope::kWarpgroup);
  EXPECT_FALSE(MayWriteGlobal(hgmma->semantics, hgmma->memory));  // it writes registers only
  EXPECT_EQ(FindOpcode("WARPGROUP")->semantics, Semantics::kNop);
  EXPECT_EQ(sm90::WgmmaOperandWavefronts(sm90::kMeasuredWgmma), 8u);
  EXPECT_EQ(sm90::WgmmaAccumulators(sm90::kMeasuredWgmma), 32);
}

TEST(ReadKernelsTest, InstructionsAreDecodedWhenRead) {
  const auto kernels = ReadKernels(
      ".text._Z1kv:\n        /*0000*/                   ISETP.GT.U32.AND P0, PT, R1, 0x3, PT ;\n"
      "        /*0010*/                   S2R R0, SR_CgaCtaId ;\n        /*0020*/                   EXIT ;\n",
      "");
  const Kernel& kernel = kernels.at("_Z1kv");
  ASSERT_EQ(kernel.code.size(), 3u);
  EXPECT_EQ(kernel.code[0].decoded.test, internal::Test::kGreater);
  EXPECT_TRUE(kernel.code[0].Is(mod::kU32));
  EXPECT_EQ(kernel.code[1].operands.at(1).kind, OperandKind::kSpecial);
  EXPECT_EQ(kernel.code[1].operands.at(1).index, static_cast<int>(sm90::SpecialRegister::kCgaCtaId));
}

}  // namespace
}  // namespace bankcheck::emulate::internal
