// Undecided reasons of instructions the opcode table has no row for: a call names its callee, and
// a call into the device runtime says that device-side launches are not emulated.

#include <gmock/gmock.h>

#include <string>

#include "bankcheck/emulate/emulator.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;

Emulation EmulateOne(const std::string& instruction) {
  const Module module = Module::FromListings(R"(.text._Z4testPi:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   )" + instruction +
                                                 R"( ;
        /*0020*/                   EXIT ;
)",
                                             "");
  LaunchToEmulate launch;
  launch.mangled = "_Z4testPi";
  return Emulate(module, launch);
}

TEST(DiagnosticsTest, ACallIntoTheDeviceRuntimeIsADeviceSideLaunch) {
  const Emulation emulation = EmulateOne("CALL.ABS.NOINC `(__cudaCDP2GetParameterBufferV2)");
  ASSERT_TRUE(emulation.undecided);
  EXPECT_EQ(emulation.undecided->pc, 0x10u);
  EXPECT_THAT(
      emulation.undecided->reason,
      HasSubstr("CALL.ABS.NOINC calls __cudaCDP2GetParameterBufferV2: a kernel launched from the device "
                "(dynamic parallelism) is not emulated"));
}

TEST(DiagnosticsTest, ACallOutOfTheKernelNamesItsCallee) {
  const Emulation emulation = EmulateOne("CALL.ABS.NOINC `(vprintf)");
  ASSERT_TRUE(emulation.undecided);
  EXPECT_THAT(emulation.undecided->reason,
              HasSubstr("CALL.ABS.NOINC calls vprintf, a function outside the kernel"));
}

TEST(DiagnosticsTest, AnotherInstructionWithoutARowIsNotUnderstood) {
  const Emulation emulation = EmulateOne("CALL.ABS.NOINC 0x0");
  ASSERT_TRUE(emulation.undecided);
  EXPECT_THAT(emulation.undecided->reason,
              HasSubstr("CALL.ABS.NOINC is an instruction the emulator does not"));
}

}  // namespace
}  // namespace bankcheck::emulate
