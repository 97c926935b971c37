#include "emulate/internal/sass.h"

#include <gmock/gmock.h>

#include <set>
#include <string>

#include "bankcheck/core/error.h"

namespace bankcheck::emulate::internal {
namespace {

TEST(ParseOperandsTest, RegistersPredicatesImmediatesConstantsAndAddresses) {
  const std::vector<Operand> ops =
      ParseOperands("R4, -R9.reuse, ~UR5, !P0, UPT, 0x1f, -0x4, c[0x0][0x210], RZ");
  ASSERT_EQ(ops.size(), 9u);
  EXPECT_EQ(ops[0].kind, OperandKind::kRegister);
  EXPECT_EQ(ops[0].index, 4);
  EXPECT_TRUE(ops[1].negate);
  EXPECT_EQ(ops[1].index, 9);
  EXPECT_EQ(ops[2].kind, OperandKind::kUniformRegister);
  EXPECT_TRUE(ops[2].invert);
  EXPECT_EQ(ops[3].kind, OperandKind::kPredicate);
  EXPECT_TRUE(ops[3].invert);
  EXPECT_EQ(ops[4].kind, OperandKind::kUniformPredicate);
  EXPECT_EQ(ops[4].index, kPredicateTrue);
  EXPECT_EQ(ops[5].value, 0x1fu);
  EXPECT_EQ(ops[6].value, 0xfffffffcu);
  EXPECT_EQ(ops[7].kind, OperandKind::kConstant);
  EXPECT_EQ(ops[7].value, 0x210u);
  EXPECT_EQ(ops[8].index, kRegisterZero);

  const std::vector<Operand> memory = ParseOperands("R7, [R0+UR4+0x20]");
  ASSERT_EQ(memory.size(), 2u);
  EXPECT_EQ(memory[1].kind, OperandKind::kMemory);
  EXPECT_EQ(memory[1].base, 0);
  EXPECT_EQ(memory[1].uniform_base, 4);
  EXPECT_EQ(memory[1].offset, 0x20);
  EXPECT_EQ(ParseOperands("[R2.64+-0x10]")[0].offset, -0x10);
  EXPECT_EQ(ParseOperands("`(.L_x_15)")[0].kind, OperandKind::kLabel);
  EXPECT_EQ(ParseOperands("B0, `(.L_x_14)")[0].kind, OperandKind::kBarrier);
  EXPECT_EQ(ParseOperands("SR_TID.X")[0].kind, OperandKind::kSpecial);
  const Operand global = ParseOperands("desc[UR6][R18.64+0x40]")[0];
  EXPECT_EQ(global.kind, OperandKind::kGlobalMemory);
  EXPECT_EQ(global.base, 18);
  EXPECT_EQ(global.uniform_base, -1);  // UR6 is the descriptor, not part of the address
  EXPECT_EQ(global.offset, 0x40);
  EXPECT_EQ(ParseOperands("gdesc[UR4]")[0].kind, OperandKind::kOther);
  EXPECT_TRUE(ParseOperands("-RZ, RZ, 0, 5.9604644775390625e-08")[3].is_float);
}

TEST(ParseOperandsTest, InfinitiesAndNansHoldTheirBits) {
  const std::vector<Operand> special = ParseOperands("INF, -INF, +QNAN, -QNAN");
  ASSERT_EQ(special.size(), 4u);
  EXPECT_EQ(special[0].value, 0x7f800000u);
  EXPECT_EQ(special[1].value, 0xff800000u);
  EXPECT_FALSE(special[1].negate);
  EXPECT_EQ(special[2].value, 0x7fffffffu);
  EXPECT_EQ(special[3].value, 0xffffffffu);
  for (const Operand& operand : special) EXPECT_TRUE(operand.is_float);
}

TEST(ParseOperandsTest, AnUnreadableAddressIsAnError) {
  EXPECT_THROW(ParseOperands("R1, [R2+R3+R4]"), Error);
  EXPECT_THROW(ParseOperands("R1, [Q7]"), Error);
}

// cuobjdump -elf's shape (CUDA 13.0, sm_90), cut to what ReadKernels reads.
constexpr char kElf[] = R"elf(
Sections:
Index Offset   Size ES Align                      Type    Flags Link     Info Name
   22   e180   1480  0  4                       NOBITS       43    0       1d .nv.shared._Z1kPKfPfii

.nv.info._Z1kPKfPfii
	<0x2>
	Attribute:	EIATTR_KPARAM_INFO
	Format:	EIFMT_SVAL
	Value:	Index : 0x0	Ordinal : 0x3	Offset  : 0x14	Size    : 0x4
		Pointee's logAlignment : 0x0	Space : 0x0	cbank : 0x1f	Parameter Space : CBANK	
	<0x5>
	Attribute:	EIATTR_KPARAM_INFO
	Format:	EIFMT_SVAL
	Value:	Index : 0x0	Ordinal : 0x0	Offset  : 0x0	Size    : 0x8
		Pointee's logAlignment : 0x0	Space : 0x0	cbank : 0x1f	Parameter Space : CBANK	
	<0x14>
	Attribute:	EIATTR_PARAM_CBANK
	Format:	EIFMT_SVAL
	Value:	0x1d 0x180210 
)elf";

constexpr char kListing[] = R"(
.text._Z1kPKfPfii:
        /*0000*/                   S2R R0, SR_TID.X ;
.L_x_1:
        /*0010*/              @!P0 BRA `(.L_x_1) ;
        /*0020*/                   EXIT ;
)";

TEST(ReadKernelsTest, ParametersSharedSizeAndBranchTargets) {
  const auto kernels = ReadKernels(kListing, kElf);
  const Kernel& kernel = kernels.at("_Z1kPKfPfii");
  EXPECT_THAT(kernel.info.params, ::testing::ElementsAre(ParamSlot{0, 0, 8}, ParamSlot{3, 0x14, 4}));
  EXPECT_EQ(kernel.info.param_base, 0x210u);
  EXPECT_EQ(kernel.info.static_shared_bytes, 0x1480u);
  ASSERT_EQ(kernel.code.size(), 3u);
  EXPECT_EQ(kernel.code[1].target, 1);
  EXPECT_TRUE(kernel.code[1].guard_negated);
  EXPECT_EQ(kernel.code[1].guard, 0);
  EXPECT_EQ(kernel.code[2].info->semantics, Semantics::kExit);
}

// What cudaFuncGetAttributes answers from: cuobjdump -elf's lines (CUDA 13.0, sm_90) for a kernel
// with __launch_bounds__(256) in a module with 400 bytes of __constant__ variables.
TEST(ReadKernelsTest, RegistersFrameThreadsArchitectureAndConstants) {
  const std::string elf = std::string(kElf) + R"elf(
	Note Version: 2
	CUDA Virtual SM: sm_90
   10    c20    190  0  4                     PROGBITS        2    0        0 .nv.constant3

.nv.info
	<0x1>
	Attribute:	EIATTR_REGCOUNT
	Format:	EIFMT_SVAL
	Value:	function: _Z1kPKfPfii(0x12)	register count: 78
	<0x2>
	Attribute:	EIATTR_FRAME_SIZE
	Format:	EIFMT_SVAL
	Value:	function: _Z1kPKfPfii(0x12)	frame size: 0x28

.nv.info._Z1kPKfPfii
	<0x7>
	Attribute:	EIATTR_MAX_THREADS
	Format:	EIFMT_SVAL
	Value:	0x100 0x1 0x1 
)elf";
  const KernelInfo& info = ReadKernels(kListing, elf).at("_Z1kPKfPfii").info;
  EXPECT_EQ(info.registers, 78);
  EXPECT_EQ(info.frame_bytes, 0x28u);
  EXPECT_EQ(info.max_threads, 256u);
  EXPECT_EQ(info.virtual_arch, 90u);
  EXPECT_EQ(info.module_constants, 0x190u);
  EXPECT_EQ(info.params.size(), 2u);  // what was read before is read still
  // Without the attributes: not known (-1 registers), no bound on threads.
  const KernelInfo& bare = ReadKernels(kListing, kElf).at("_Z1kPKfPfii").info;
  EXPECT_EQ(bare.registers, -1);
  EXPECT_EQ(bare.max_threads, 0u);
  EXPECT_EQ(bare.virtual_arch, 0u);
}

// Names as long as a crafted listing makes them (40,000 characters overflowed the stack of the
// std::regex patterns that read them): read in linear time, without recursion.
TEST(ReadKernelsTest, LongNamesAreReadWithoutRecursion) {
  const std::string name(40000, 'a');
  const std::string listing = ".text._Z1kv:\n        /*0000*/                   CALL.REL.NOINC `(" + name +
                              ") ;\n        /*0010*/                   EXIT ;\n";
  const std::string elf =
      ".nv.info." + name + "\n\tValue:\t0x1d 0x180210\n.nv.info._Z1kv\n" +
      "\tAttribute:\tEIATTR_PARAM_CBANK\n\tValue:\t0x1d 0x180220 \n   22   e180   1480  0  4  "
      "NOBITS       43    0       1d .nv.shared." +
      name + "\n";
  const auto kernels = ReadKernels(listing, elf);
  const Kernel& kernel = kernels.at("_Z1kv");
  ASSERT_EQ(kernel.code.size(), 2u);
  ASSERT_EQ(kernel.code[0].operands.size(), 1u);
  EXPECT_EQ(kernel.code[0].operands[0].kind, OperandKind::kLabel);
  EXPECT_EQ(kernel.code[0].operands[0].text, name);
  EXPECT_EQ(kernel.info.param_base, 0x220u);  // the long-named section's value is not this kernel's
  EXPECT_EQ(kernel.info.static_shared_bytes, 0u);
  const std::vector<Operand> constant = ParseOperands("c[0x0][" + std::string(40000, '1') + "]");
  EXPECT_EQ(constant[0].kind, OperandKind::kConstant);
  EXPECT_THROW(ParseOperands("`(" + name), Error);
  EXPECT_THROW(ParseOperands("c[0x12345][0x0]"), Error);
}

TEST(OpcodeTableTest, EachOpcodeOnceWithAStage) {
  size_t count = 0;
  const OpcodeInfo* table = OpcodeTable(&count);
  std::set<std::string> seen;
  for (size_t i = 0; i < count; ++i) {
    EXPECT_TRUE(seen.insert(table[i].opcode).second) << table[i].opcode;
    EXPECT_GE(table[i].stage, 1);
    EXPECT_LE(table[i].stage, 3);
  }
}

}  // namespace
}  // namespace bankcheck::emulate::internal
