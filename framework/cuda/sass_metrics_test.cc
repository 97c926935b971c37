#include "cuda/internal/sass_metrics.h"

#include <gmock/gmock.h>

namespace bankcheck::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

// The shape of `nvdisasm -c` output for an sm_90 cubin (CUDA 13.0).
constexpr char kListing[] = R"listing(
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"

//--------------------- .text._Z9TransposePKfPfi --------------------------
	.section	.text._Z9TransposePKfPfi,"ax",@progbits
	.sectionflags	@"SHI_REGISTERS=12"
	.align	128
        .global         _Z9TransposePKfPfi
        .type           _Z9TransposePKfPfi,@function
.text._Z9TransposePKfPfi:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0210*/                   STS [R7], R2 ;
        /*0220*/              @!P0 LDS.128 R4, [R9+UR4] ;
        /*0230*/                   LDSM.16.M88.4 R8, [R3] ;
.L_x_0:
        /*0240*/               @UP0 ATOMS.POPC.INC.32 RZ, [R2+UR5], RZ ;
        /*0248*/                   HGMMA.64x64x16.F32 R24, gdesc[UR4], R24 ;
        /*0250*/                   EXIT ;
.text._Z5OtherPi:
        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
)listing";

TEST(ParseNvdisasmTest, OpcodesByFunctionAndOffsetWithoutPredicatesOrOperands) {
  const auto opcodes = ParseNvdisasm(kListing);
  ASSERT_EQ(opcodes.size(), 2u);
  EXPECT_THAT(opcodes.at("_Z9TransposePKfPfi"),
              ElementsAre(Pair(0x0000u, "LDC"), Pair(0x0210u, "STS"), Pair(0x0220u, "LDS.128"),
                          Pair(0x0230u, "LDSM.16.M88.4"), Pair(0x0240u, "ATOMS.POPC.INC.32"),
                          Pair(0x0248u, "HGMMA.64x64x16.F32"), Pair(0x0250u, "EXIT")));
  EXPECT_THAT(opcodes.at("_Z5OtherPi"), ElementsAre(Pair(0x0000u, "BAR.SYNC.DEFER_BLOCKING")));
}

TEST(ParseNvdisasmTest, NoListingGivesNoOpcodes) { EXPECT_TRUE(ParseNvdisasm("").empty()); }

// Section names and symbols as an sm_90 cubin of a dynamic-parallelism kernel holds them.
std::string CubinBytes(bool launches_from_device) {
  std::string bytes(
      "\x7f"
      "ELF",
      4);
  for (const char* name : {".text._Z6ParentPf", ".nv.info._Z6ParentPf", ".text._Z5ChildPf", "_Z6ParentPf"})
    bytes += std::string(name) + '\0';
  if (launches_from_device) bytes += std::string("__cudaCDP2LaunchDeviceV2") + '\0';
  return bytes;
}

TEST(DeviceLaunchingFunctionsTest, NamesEveryFunctionOfAModuleThatLaunchesFromTheDevice) {
  const std::string cubin = CubinBytes(true);
  EXPECT_THAT(DeviceLaunchingFunctions(cubin.data(), cubin.size()), ElementsAre("_Z6ParentPf", "_Z5ChildPf"));
}

TEST(DeviceLaunchingFunctionsTest, NamesNoneOfAModuleThatDoesNot) {
  const std::string cubin = CubinBytes(false);
  EXPECT_TRUE(DeviceLaunchingFunctions(cubin.data(), cubin.size()).empty());
}

}  // namespace
}  // namespace bankcheck::internal
