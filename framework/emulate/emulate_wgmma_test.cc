// wgmma (HGMMA) emulated: the measured form costed by the rule fitted to the H100 baselines
// (sm90::WgmmaOperandWavefronts), every other form undecided with the reason, as the SASS nvcc 13
// emits for kernels/wgmma_layouts.cu writes it.

#include <gmock/gmock.h>

#include <string>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

// The descriptors' uniform registers as the kernel sets them (their values are not read).
constexpr char kDescriptors[] = R"(
        /*0040*/                   UMOV UR8, 0x40 ;
        /*0050*/                   UMOV UR9, 0x40000040 ;
        /*0060*/                   UMOV UR10, 0x240 ;
        /*0070*/                   UMOV UR11, 0x40000040 ;
)";

// The launch of `hgmma` (at pc 0x90, after WARPGROUP.ARRIVE) by one block of `threads`.
Emulation EmulateHgmma(const std::string& hgmma, uint32_t threads) {
  const std::string body = std::string(kDescriptors) + R"(
        /*0080*/                   WARPGROUP.ARRIVE ;
        /*0090*/                   )" +
                           hgmma + R"( ;
        /*00a0*/                   HGMMA.64x64x16.F32 R24, gdesc[UR8], R24, gsb0 ;
        /*00b0*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
        /*00c0*/                   EXIT ;
)";
  return Emulate(Listing(body), Launch(Dim3{2, 1, 1}, Dim3{threads, 1, 1}));
}

std::string WhyUndecided(const Emulation& emulation) {
  if (!emulation.undecided) {
    ADD_FAILURE() << "decided, where it should be undecided";
    return "";
  }
  return emulation.undecided->reason;
}

TEST(EmulateWgmmaTest, TheMeasuredFormCostsEightWavefrontsPerWarpWithoutConflicts) {
  const Emulation emulation = EmulateHgmma("HGMMA.64x64x16.F32 R24, gdesc[UR8], RZ, !UPT", 256);
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  const KindCounts& gmma = emulation.record->kinds[MemoryKind::kSharedWgmma];
  const uint64_t warps = 2 * 8;  // two blocks of two warpgroups
  EXPECT_EQ(gmma.instructions, 2 * warps);
  EXPECT_EQ(gmma.wavefronts, 2 * warps * 8);
  EXPECT_EQ(gmma.ideal_wavefronts, 2 * warps * 8);
  const InstructionCounts& first = Row(*emulation.record, 0x90);
  EXPECT_EQ(first.kind, MemoryKind::kSharedWgmma);
  EXPECT_EQ(first.opcode, "HGMMA.64x64x16.F32");
  EXPECT_EQ(first.executions, warps);
  EXPECT_EQ(first.wavefronts, warps * 8);
  EXPECT_EQ(emulation.record->loads().instructions, 0u);
}

TEST(EmulateWgmmaTest, TheAccumulatorsAreUnknownAfterwards) {
  // R24..R55 are written: an address from the last of them is unknown, from HGMMA.
  const std::string body = std::string(kDescriptors) + R"(
        /*0080*/                   WARPGROUP.ARRIVE ;
        /*0090*/                   HGMMA.64x64x16.F32 R24, gdesc[UR8], RZ, !UPT, gsb0 ;
        /*00a0*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
        /*00b0*/                   LDS R3, [R55] ;
        /*00c0*/                   EXIT ;
)";
  const std::string why = WhyUndecided(Emulate(Listing(body), Launch(Dim3{1, 1, 1}, Dim3{128, 1, 1})));
  EXPECT_THAT(why, HasSubstr("HGMMA.64x64x16.F32 at pc 0x0090"));
}

TEST(EmulateWgmmaTest, FormsNoMeasurementCoversAreUndecidedWithWhatToDo) {
  const std::string measure = "measure this form on an sm_90 GPU";
  for (const char* unmeasured :
       {"HGMMA.64x128x16.F32 R24, gdesc[UR8], RZ, !UPT", "HGMMA.64x64x16.F16 R24, gdesc[UR8], RZ, !UPT",
        "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR8], RZ, !UPT"}) {
    const std::string why = WhyUndecided(EmulateHgmma(unmeasured, 128));
    EXPECT_THAT(why, HasSubstr("a wgmma shape or type whose shared-memory cost is not measured"))
        << unmeasured;
    EXPECT_THAT(why, HasSubstr(measure)) << unmeasured;
  }
  const std::string register_a =
      WhyUndecided(EmulateHgmma("HGMMA.64x64x16.F32 R24, R56, gdesc[UR8], RZ", 128));
  EXPECT_THAT(register_a, HasSubstr("reads its A operand from registers (the RS form)"));
  EXPECT_THAT(register_a, HasSubstr(measure));
  EXPECT_THAT(WhyUndecided(EmulateHgmma("HGMMA.64x64x16.F32 R24, gdesc[UR8].tnspB, RZ, !UPT", 128)),
              HasSubstr("has operands of a form not measured"));
  EXPECT_THAT(WhyUndecided(EmulateHgmma("HGMMA.64x64x16.F32 R240, gdesc[UR8], RZ, !UPT", 128)),
              HasSubstr("has operands of a form not measured"));
}

TEST(EmulateWgmmaTest, WgmmaNeedsWholeWarpgroupsAndEveryLane) {
  EXPECT_THAT(WhyUndecided(EmulateHgmma("HGMMA.64x64x16.F32 R24, gdesc[UR8], RZ, !UPT", 64)),
              HasSubstr("runs in a block of 64 threads: wgmma needs whole warpgroups of 128 threads"));
  const std::string body = std::string(kDescriptors) + R"(
        /*0080*/                   ISETP.GE.U32.AND P0, PT, R0, 0x10, PT ;
        /*0090*/               @P0 HGMMA.64x64x16.F32 R24, gdesc[UR8], RZ, !UPT ;
        /*00a0*/                   EXIT ;
)";
  EXPECT_THAT(WhyUndecided(Emulate(Listing(body), Launch(Dim3{1, 1, 1}, Dim3{128, 1, 1}))),
              HasSubstr("runs with some of its warp's lanes off: every lane must run wgmma"));
}

}  // namespace
}  // namespace bankcheck::emulate
