#include "emulate/internal/memory_op.h"

#include <gmock/gmock.h>

#include <string>

#include "bankcheck/core/bank_model.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {
namespace {

// An instruction as ReadKernels decodes it: "LDG.E.128" with its operands' text.
Instruction Decoded(const std::string& opcode, const std::string& operands) {
  Instruction in;
  in.opcode = opcode;
  size_t at = opcode.find('.');
  in.base = opcode.substr(0, at);
  while (at != std::string::npos) {
    const size_t next = opcode.find('.', at + 1);
    in.modifiers.push_back(
        opcode.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
    at = next;
  }
  in.info = FindOpcode(in.base);
  in.decoded = DecodeModifiers(in.info, in.modifiers);
  in.operands = ParseOperands(operands);
  in.memory_op = DecodeMemoryOp(in);
  return in;
}

MemoryOp Op(const std::string& opcode, const std::string& operands) {
  return Decoded(opcode, operands).memory_op;
}

TEST(MemoryOpTest, BytesPerLaneAreOneRuleForSharedGlobalAndLocal) {
  EXPECT_EQ(Op("LDS.128", "R4, [R2]").bytes, 16);
  EXPECT_EQ(Op("LDS.64", "R4, [R2]").bytes, 8);
  EXPECT_EQ(Op("LDS.U16", "R4, [R2]").bytes, 2);
  EXPECT_EQ(Op("STS.U8", "[R2], R4").bytes, 1);
  EXPECT_EQ(Op("LDS", "R4, [R2]").bytes, 4);
  EXPECT_EQ(Op("LDSM.16.M88.4", "R4, [R2]").bytes, kMatrixRowBytes);
  EXPECT_EQ(Op("LDG.E.128", "R4, desc[UR4][R2.64]").bytes, 16);
  EXPECT_EQ(Op("LDL.S8", "R4, [R1+0x8]").bytes, 1);
  // An atomic's width is its type's: a double add moves 8 bytes a lane, into a register pair.
  const MemoryOp f64 = Op("ATOMG.E.ADD.F64.FTZ.RN.STRONG.GPU", "PT, R6, desc[UR4][R2.64], R8");
  EXPECT_EQ(f64.bytes, 8);
  EXPECT_EQ(f64.registers, 2);
  EXPECT_EQ(Op("LDG.E.64", "R4, desc[UR4][R2.64]").registers, 2);
  EXPECT_EQ(Op("LDSM.16.M88.2", "R4, [R2]").registers, 2);  // a register per matrix
  EXPECT_TRUE(Op("LDG.E.S16", "R4, desc[UR4][R2.64]").sign_extends);
  EXPECT_FALSE(Op("LDG.E.U16", "R4, desc[UR4][R2.64]").sign_extends);
}

TEST(MemoryOpTest, OperandsAreFoundOnceByTheirPlaceAroundTheAddress) {
  const MemoryOp load = Op("LDG.E.CONSTANT", "R4, desc[UR4][R2.64+0x10]");
  EXPECT_EQ(load.access, Access::kLoad);
  EXPECT_EQ(load.address, 1);
  EXPECT_EQ(load.destination, 0);
  EXPECT_EQ(load.data, -1);
  EXPECT_EQ(load.form, AddressForm::kWide);
  const MemoryOp store = Op("STG.E", "desc[UR4][R2.64], R5");
  EXPECT_EQ(store.access, Access::kStore);
  EXPECT_EQ(store.address, 0);
  EXPECT_EQ(store.data, 1);
  EXPECT_EQ(store.destination, -1);
  // ATOMG's predicate comes first: the destination is the register before the address.
  const MemoryOp atomic = Op("ATOMG.E.ADD.STRONG.GPU", "PT, R7, desc[UR4][R2.64], R9");
  EXPECT_EQ(atomic.access, Access::kAtomic);
  EXPECT_EQ(atomic.destination, 1);
  EXPECT_EQ(atomic.data, 3);
  const MemoryOp reduction = Op("REDG.E.ADD.STRONG.GPU", "desc[UR4][R2.64], R9");
  EXPECT_EQ(reduction.access, Access::kReduction);
  EXPECT_EQ(reduction.destination, -1);
  EXPECT_EQ(reduction.data, 1);
  const MemoryOp shared = Op("ATOMS.ADD", "R0, [R2+UR4+0x10], R3");
  EXPECT_EQ(shared.form, AddressForm::kOffset);
  EXPECT_EQ(shared.destination, 0);
  EXPECT_EQ(shared.data, 2);
  EXPECT_TRUE(Op("LD.E", "R4, [R2.64]").generic);
  EXPECT_FALSE(Op("LDG.E", "R4, desc[UR4][R2.64]").generic);
  EXPECT_EQ(Op("HGMMA.64x64x16.F32", "R24, gdesc[UR4], R24").access, Access::kNone);
  EXPECT_EQ(Op("IADD3", "R1, R2, R3, RZ").access, Access::kNone);
}

TEST(MemoryOpTest, ACopyHasItsSharedDestinationAndGlobalSource) {
  const MemoryOp copy = Op("LDGSTS.E.BYPASS.LTC128B.128", "[R3+0x100], desc[UR4][R4.64]");
  EXPECT_EQ(copy.access, Access::kCopy);
  EXPECT_EQ(copy.address, 0);
  EXPECT_EQ(copy.source, 1);
  EXPECT_EQ(copy.form, AddressForm::kOffset);
  EXPECT_EQ(copy.bytes, 16);
  // The zero-fill form (its bytes a register gives) and a source with a uniform register are not read.
  EXPECT_EQ(Op("LDGSTS.E.BYPASS.LTC128B.128.ZFILL", "[R3], desc[UR4][R4.64]").source, -1);
  EXPECT_EQ(Op("LDGSTS.E.128", "[R3], desc[UR4][R4.64+UR6]").source, -1);
}

TEST(MemoryOpTest, TheGlobalAddressFormsReadAreDecidedOnce) {
  EXPECT_EQ(Op("LDG.E", "R4, desc[UR4][R2.64+0x10]").form, AddressForm::kWide);
  EXPECT_EQ(Op("LD.E", "R4, [R2+0x10]").form, AddressForm::kWide);          // .E: R2 is a pair
  EXPECT_EQ(Op("ST", "[R2.64], R4").form, AddressForm::kWide);              // written as a pair
  EXPECT_EQ(Op("STG", "desc[UR4][RZ+0x10], R4").form, AddressForm::kWide);  // an absolute address
  EXPECT_EQ(Op("ST", "[R2], R4").form, AddressForm::kUnreadable);           // 32 bits of a 64-bit address
  EXPECT_EQ(Op("LDG.E", "R4, desc[UR4][R2.64+UR6]").form, AddressForm::kUnreadable);
  EXPECT_EQ(Op("LDG.E", "R4, desc[UR4][R2.64+URZ]").form, AddressForm::kWide);
  EXPECT_EQ(Op("LDL", "R4, [R1+UR4+0x8]").form, AddressForm::kOffset);
  EXPECT_EQ(Op("LDS", "R4, desc[UR4][R2.64]").form, AddressForm::kUnreadable);  // not a shared address
  EXPECT_EQ(Op("LDS", "R4, R2").form, AddressForm::kUnreadable);                // none at all
  EXPECT_EQ(Op("STS", "[R2], [R4]").form, AddressForm::kUnreadable);            // two
}

}  // namespace
}  // namespace bankcheck::emulate::internal
