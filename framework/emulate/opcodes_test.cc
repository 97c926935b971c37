#include "emulate/internal/opcodes.h"

#include <gmock/gmock.h>

#include <string>
#include <vector>

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
  EXPECT_TRUE((isetp.bits & mod::kU32) != 0);
  EXPECT_TRUE((isetp.bits & mod::kAnd) != 0);
  EXPECT_TRUE((isetp.bits & mod::kOr) == 0);
  EXPECT_EQ(Decode("ISETP", {"NE", "OR"}).test, internal::Test::kNotEqual);
  EXPECT_EQ(Decode("ISETP", {"AND"}).test, internal::Test::kNone);  // no comparison: the evaluator stops
}

// Bytes per lane are the memory op's (memory_op_test.cc).
TEST(DecodeModifiersTest, WidthsAndMatrices) {
  EXPECT_EQ(Decode("LDS", {"128"}).width, 4);
  EXPECT_EQ(Decode("LDS", {"64"}).width, 2);
  EXPECT_EQ(Decode("DADD", {}).width, 2);  // the table's width: double precision is a pair
  EXPECT_EQ(Decode("HMMA", {"16816", "F32"}).width, 4);
  EXPECT_EQ(Decode("LDSM", {"16", "M88", "4"}).matrices, 4);
  EXPECT_EQ(Decode("STSM", {"16", "M88", "2"}).matrices, 2);
}

TEST(DecodeModifiersTest, Rounding) {
  EXPECT_EQ(Decode("F2I", {"FTZ", "U32", "TRUNC", "NTZ"}).rounding, Rounding::kZero);
  EXPECT_EQ(Decode("I2F", {"U32", "RP"}).rounding, Rounding::kUp);
  EXPECT_EQ(Decode("F2I", {"FLOOR"}).rounding, Rounding::kDown);
  EXPECT_EQ(Decode("I2F", {}).rounding, Rounding::kNearest);
}

// Every modifier the evaluator reads is a row of modifiers.def: the tests, modes and atomic forms
// below are derived from those bits, never from the text.
TEST(DecodeModifiersTest, UnorderedTestsShuffleModesTranspositionAndIntegerAtomics) {
  const DecodedModifiers ltu = Decode("FSETP", {"LTU", "AND"});
  EXPECT_EQ(ltu.test, internal::Test::kLess);
  EXPECT_TRUE(ltu.unordered);
  EXPECT_FALSE(Decode("FSETP", {"LT", "AND"}).unordered);
  EXPECT_EQ(Decode("FSETP", {"NAN", "AND"}).nan_test, DecodedModifiers::NanTest::kNan);
  EXPECT_EQ(Decode("FSETP", {"NUM", "AND"}).nan_test, DecodedModifiers::NanTest::kNumber);
  EXPECT_EQ(Decode("SHFL", {"BFLY", "PT"}).shuffle, DecodedModifiers::ShuffleMode::kButterfly);
  EXPECT_EQ(Decode("SHFL", {"IDX"}).shuffle, DecodedModifiers::ShuffleMode::kIndex);
  EXPECT_TRUE(Decode("LDSM", {"16", "MT88", "4"}).transposed);
  EXPECT_FALSE(Decode("LDSM", {"16", "M88", "4"}).transposed);
  EXPECT_EQ(Decode("ATOMG", {"E", "ADD", "STRONG", "GPU"}).atomic, AtomicOp::kAdd);
  EXPECT_EQ(Decode("ATOMS", {"POPC", "INC", "32"}).atomic, AtomicOp::kIncrement);
  // A float or 64-bit add, or any modifier outside the allow-list, is not an integer add.
  EXPECT_EQ(Decode("ATOMG", {"E", "ADD", "F32", "FTZ", "RN", "STRONG", "GPU"}).atomic, AtomicOp::kOther);
  EXPECT_EQ(Decode("RED", {"E", "ADD", "64", "STRONG", "GPU"}).atomic, AtomicOp::kOther);
  EXPECT_EQ(Decode("ATOMS", {"CAS"}).atomic, AtomicOp::kOther);
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
