// Device-function calls: CALL.REL.NOINC into a function of the kernel's listing and its
// RET.REL.NODEC, the return address a register pair the caller set. The listings are nvcc 13.0's
// -arch=sm_90 SASS (nvdisasm) of small kernels calling __noinline__ functions and sqrtf, their
// registers moved to follow the tests' prologue (R0 the thread's x, UR4 the shared window).
#include <gmock/gmock.h>

#include <cstdint>
#include <string>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

uint64_t Executions(const LaunchRecord& record, uint32_t pc) {
  for (const InstructionCounts& row : record.instructions)
    if (row.pc_offset == pc) return row.executions;
  return 0;
}

// int f(int* s, int i) { s[i] = i; return s[(i * 3) & 31]; } called by every thread; the caller
// then reads word (f's result's address) * 2: the callee's R4 carries back.
constexpr char kCall[] = R"(
        /*0040*/                   MOV R6, 0x60 ;
        /*0050*/                   CALL.REL.NOINC `($_Z4testPi$_Z1fPii) ;
        /*0060*/                   IMAD.SHL.U32 R8, R4, 0x2, RZ ;
        /*0070*/                   LDS R9, [R8+UR4] ;
        /*0080*/                   EXIT ;
$_Z4testPi$_Z1fPii:
        /*0090*/                   IMAD R2, R0, 0xc, RZ ;
        /*00a0*/                   HFMA2.MMA R3, -RZ, RZ, 0, 0 ;
        /*00b0*/                   LOP3.LUT R4, R2, 0x7c, RZ, 0xc0, !PT ;
        /*00c0*/                   IMAD.MOV.U32 R2, RZ, RZ, R6 ;
        /*00d0*/                   LEA R7, R0, UR4, 0x2 ;
        /*00e0*/                   STS [R7], R0 ;
        /*00f0*/                   LDS R5, [R4+UR4] ;
        /*0100*/                   RET.REL.NODEC R2 `(_Z4testPi) ;
.L_x_5:
        /*0110*/                   BRA `(.L_x_5);
)";

TEST(CallsTest, ACallAndItsReturnAreFollowed) {
  const Emulation emulation = EmulateBothWays(Listing(kCall), Launch(Dim3{2, 1, 1}, Dim3{64, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  const LaunchRecord& record = *emulation.record;
  EXPECT_EQ(Row(record, 0xe0).executions, 4u);  // in f, once a warp
  EXPECT_EQ(Row(record, 0xe0).wavefronts, 4u);  // s[i]: conflict-free
  EXPECT_EQ(Row(record, 0xf0).wavefronts, 4u);  // s[(3i) & 31]: 32 banks
  // Back in the caller: word 6i % 64, two words a bank, 2-way.
  EXPECT_EQ(Row(record, 0x70).executions, 4u);
  EXPECT_EQ(Row(record, 0x70).wavefronts, 8u);
  EXPECT_EQ(Executions(record, 0x110), 0u);  // nothing runs past the return
}

TEST(CallsTest, AnUnknownReturnAddressIsUndecided) {
  // The low word a register read before any write (the high word is known, 0).
  const Emulation unwritten =
      Emulate(Listing(Replace(kCall, "IMAD.MOV.U32 R2, RZ, RZ, R6 ;", "IMAD.MOV.U32 R2, RZ, RZ, R10 ;")),
              Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(unwritten.undecided);
  EXPECT_EQ(unwritten.undecided->pc, 0x100u);
  EXPECT_THAT(unwritten.undecided->reason, HasSubstr("feeds the return address of RET.REL.NODEC"));
  // The high word loaded from shared memory.
  const Emulation loaded =
      Emulate(Listing(Replace(kCall, "HFMA2.MMA R3, -RZ, RZ, 0, 0 ;", "LDS R3, [UR4] ;")),
              Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(loaded.undecided);
  EXPECT_THAT(loaded.undecided->reason, HasSubstr("a load from shared memory"));
  EXPECT_THAT(loaded.undecided->reason, HasSubstr("the return address"));
}

TEST(CallsTest, AReturnElsewhereThanAfterACallIsUndecided) {
  for (const char* address : {"MOV R6, 0x70 ;", "MOV R6, 0x64 ;"}) {
    const Emulation emulation =
        Emulate(Listing(Replace(kCall, "MOV R6, 0x60 ;", address)), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
    ASSERT_TRUE(emulation.undecided) << address;
    EXPECT_EQ(emulation.undecided->pc, 0x100u);
    EXPECT_THAT(emulation.undecided->reason, HasSubstr("not to the instruction after a call")) << address;
  }
  // A 64-bit address past the kernel.
  const Emulation high = Emulate(Listing(Replace(kCall, "HFMA2.MMA R3, -RZ, RZ, 0, 0 ;", "MOV R3, 0x1 ;")),
                                 Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(high.undecided);
  EXPECT_THAT(high.undecided->reason, HasSubstr("not to the instruction after a call"));
}

TEST(CallsTest, CallsTheEmulatorDoesNotFollowAreUndecided) {
  // Through a function pointer (the callee's offset from the constant bank ptxas relocates).
  const Emulation pointer = Emulate(
      Listing(Replace(kCall, "CALL.REL.NOINC `($_Z4testPi$_Z1fPii)", "CALL.REL.NOINC R6 `(_Z4testPi)")),
      Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(pointer.undecided);
  EXPECT_THAT(pointer.undecided->reason, HasSubstr("calls through R6 (a function pointer)"));
  // A return the kernel's own code makes, with no call to return from.
  const Emulation unmatched =
      Emulate(Listing(Replace(kCall, "CALL.REL.NOINC `($_Z4testPi$_Z1fPii)", "BRA `($_Z4testPi$_Z1fPii)")),
              Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(unmatched.undecided);
  EXPECT_THAT(unmatched.undecided->reason, HasSubstr("no call to return from"));
  // The hardware-stack forms nvcc does not emit for sm_90.
  const Emulation pushed =
      Emulate(Listing(Replace(kCall, "CALL.REL.NOINC", "CALL.REL")), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(pushed.undecided);
  EXPECT_EQ(pushed.undecided->pc, 0x50u);
  EXPECT_THAT(pushed.undecided->reason, HasSubstr("is an instruction the emulator does not follow"));
}

// d(): if (threadIdx.x < 16) v = g(s, threadIdx.x), inside BSSY B1 ... BSYNC B1; g branches on
// i & 3 (its own BSSY B0/BSYNC B0), then __syncwarp(__activemask()) (VOTE.ANY, WARPSYNC) and
// reads s[(2i) & 31]; the caller stores at g's address after the two halves reconverge.
constexpr char kDivergentCall[] = R"(
        /*0040*/                   BSSY B1, `(.L_x_0) ;
        /*0050*/                   IMAD.MOV.U32 R5, RZ, RZ, RZ ;
        /*0060*/                   ISETP.GT.U32.AND P0, PT, R0, 0xf, PT ;
        /*0070*/               @P0 BRA `(.L_x_1) ;
        /*0080*/                   MOV R2, 0xa0 ;
        /*0090*/                   CALL.REL.NOINC `($_Z4testPi$_Z1gPii) ;
.L_x_1:
        /*00a0*/                   BSYNC B1 ;
.L_x_0:
        /*00b0*/                   STS [R5+UR4], R0 ;
        /*00c0*/                   EXIT ;
$_Z4testPi$_Z1gPii:
        /*00d0*/                   LOP3.LUT P0, R4, R0, 0x3, RZ, 0xc0, !PT ;
        /*00e0*/                   BSSY B0, `(.L_x_2) ;
        /*00f0*/                   IMAD.MOV.U32 R3, RZ, RZ, RZ ;
        /*0100*/              @!P0 BRA `(.L_x_3) ;
        /*0110*/                   IMAD.SHL.U32 R6, R0, 0x20, RZ ;
        /*0120*/                   LDS R3, [R6+UR4] ;
.L_x_3:
        /*0130*/                   BSYNC B0 ;
.L_x_2:
        /*0140*/                   VOTE.ANY R4, PT, PT ;
        /*0150*/                   WARPSYNC R4 ;
        /*0160*/                   IMAD.SHL.U32 R4, R0, 0x8, RZ ;
        /*0170*/                   LOP3.LUT R5, R4, 0x78, RZ, 0xc0, !PT ;
        /*0180*/                   LDS R4, [R5+UR4] ;
        /*0190*/                   IMAD.MOV.U32 R3, RZ, RZ, 0x0 ;
        /*01a0*/                   RET.REL.NODEC R2 `(_Z4testPi) ;
.L_x_11:
        /*01b0*/                   BRA `(.L_x_11);
)";

TEST(CallsTest, ACallInDivergentCodeKeepsItsLanes) {
  const Emulation emulation = EmulateBothWays(Listing(kDivergentCall), Launch(Dim3{1, 1, 1}, Dim3{64, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  const LaunchRecord& record = *emulation.record;
  // In g (warp 0's lanes 0-15 only), the 12 lanes with i & 3 != 0 read word 8i: three banks, four
  // words each; after WARPSYNC of the 16 lanes that called, all 16 read words 0-30, one a bank.
  EXPECT_EQ(Row(record, 0x120).executions, 1u);
  EXPECT_EQ(Row(record, 0x120).wavefronts, 4u);
  EXPECT_EQ(Row(record, 0x180).executions, 1u);
  EXPECT_EQ(Row(record, 0x180).wavefronts, 1u);
  // Reconverged at BSYNC B1: each warp stores once.
  EXPECT_EQ(Row(record, 0xb0).executions, 2u);
}

// if (i < 16) g(s, i); else g(s, i); without a convergence barrier: the two halves call g apart
// (the second call site before g, so the scheduler runs it while the first half waits in g) and
// meet at g's first instruction. Whether the GPU runs them as one there is not known.
constexpr char kTwoCalls[] = R"(
        /*0040*/                   ISETP.GT.U32.AND P0, PT, R0, 0xf, PT ;
        /*0050*/               @P0 BRA `(.L_x_9) ;
        /*0060*/                   MOV R2, 0x80 ;
        /*0070*/                   CALL.REL.NOINC `($_Z4testPi$_Z1gPii) ;
        /*0080*/                   EXIT ;
.L_x_9:
        /*0090*/                   MOV R2, 0xb0 ;
        /*00a0*/                   CALL.REL.NOINC `($_Z4testPi$_Z1gPii) ;
        /*00b0*/                   EXIT ;
$_Z4testPi$_Z1gPii:
        /*00c0*/                   LEA R5, R0, UR4, 0x2 ;
        /*00d0*/                   LDS R4, [R5] ;
        /*00e0*/                   IMAD.MOV.U32 R3, RZ, RZ, 0x0 ;
        /*00f0*/                   RET.REL.NODEC R2 `(_Z4testPi) ;
)";

TEST(CallsTest, LanesFromTwoCallsMeetingInTheCalleeAreUndecided) {
  const Emulation emulation = Emulate(Listing(kTwoCalls), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.undecided);
  EXPECT_EQ(emulation.undecided->pc, 0xc0u);
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("entered a function by different calls meet"));
  // One half only: decided, each call returning where its caller said.
  const Emulation half = Emulate(Listing(kTwoCalls), Launch(Dim3{1, 1, 1}, Dim3{16, 1, 1}));
  ASSERT_TRUE(half.record) << half.undecided->Describe();
  EXPECT_EQ(Row(*half.record, 0xd0).executions, 1u);
}

// A recursive function as nvcc writes one (its return address kept on the stack across the inner
// call: STL, then LDL before RET), its convergence-barrier save (BMOV) left out.
constexpr char kRecursion[] = R"(
        /*0040*/                   LDC R4, c[0x0][0x210] ;
        /*0050*/                   MOV R20, 0x80 ;
        /*0060*/                   IMAD.MOV.U32 R21, RZ, RZ, 0x0 ;
        /*0070*/                   CALL.REL.NOINC `($_Z4testPi$_Z3reci) ;
        /*0080*/                   EXIT ;
$_Z4testPi$_Z3reci:
        /*0090*/                   STL [R1+0x8], R21 ;
        /*00a0*/                   STL [R1+0x4], R20 ;
        /*00b0*/                   ISETP.GE.AND P0, PT, R4, 0x1, PT ;
        /*00c0*/                   BSSY B6, `(.L_x_1) ;
        /*00d0*/              @!P0 BRA `(.L_x_2) ;
        /*00e0*/                   HFMA2.MMA R21, -RZ, RZ, 0, 0 ;
        /*00f0*/                   MOV R20, 0x120 ;
        /*0100*/                   VIADD R4, R4, 0xffffffff ;
        /*0110*/                   CALL.REL.NOINC `($_Z4testPi$_Z3reci) ;
        /*0120*/                   VIADD R4, R4, 0x1 ;
        /*0130*/                   BRA `(.L_x_3) ;
.L_x_2:
        /*0140*/                   LDS R4, [UR4] ;
.L_x_3:
        /*0150*/                   BSYNC B6 ;
.L_x_1:
        /*0160*/                   LDL R20, [R1+0x4] ;
        /*0170*/                   LDL R21, [R1+0x8] ;
        /*0180*/                   RET.REL.NODEC R20 `(_Z4testPi) ;
.L_x_4:
        /*0190*/                   BRA `(.L_x_4);
)";

TEST(CallsTest, RecursionIsFollowedToItsDepthLimit) {
  // n = 0: one call, its return address reloaded from local memory, which is not followed.
  const Emulation once = Emulate(Listing(kRecursion), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, IntParameter(0)));
  ASSERT_TRUE(once.undecided);
  EXPECT_EQ(once.undecided->pc, 0x180u);
  EXPECT_THAT(once.undecided->reason, HasSubstr("feeds the return address"));
  // n = 1000: calls nest past the emulator's bound before any returns.
  const Emulation deep =
      Emulate(Listing(kRecursion), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}, IntParameter(1000)));
  ASSERT_TRUE(deep.undecided);
  EXPECT_EQ(deep.undecided->pc, 0x110u);
  EXPECT_THAT(deep.undecided->reason, HasSubstr("calls nest deeper than 64"));
}

// sqrtf(x) (IEEE, -prec-sqrt=true) of x = threadIdx.x - 8: MUFU.RSQ and its refinement where the
// input's bits say it is in range (1-23 here), else a call of ptxas's slow path (zero, negatives).
constexpr char kSqrt[] = R"(
        /*0040*/                   I2FP.F32.S32 R9, R0 ;
        /*0050*/                   FADD R9, R9, -8 ;
        /*0060*/                   BSSY B0, `(.L_x_0) ;
        /*0070*/                   IADD3 R4, R9, -0xd000000, RZ ;
        /*0080*/                   MUFU.RSQ R5, R9 ;
        /*0090*/                   ISETP.GT.U32.AND P0, PT, R4, 0x727fffff, PT ;
        /*00a0*/              @!P0 BRA `(.L_x_1) ;
        /*00b0*/                   MOV R8, 0xd0 ;
        /*00c0*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm20_sqrt_rn_f32_slowpath) ;
        /*00d0*/                   BRA `(.L_x_2) ;
.L_x_1:
        /*00e0*/                   FMUL.FTZ R3, R9, R5 ;
        /*00f0*/                   FMUL.FTZ R5, R5, 0.5 ;
        /*0100*/                   FFMA R9, -R3, R3, R9 ;
        /*0110*/                   FFMA R5, R9, R5, R3 ;
.L_x_2:
        /*0120*/                   BSYNC B0 ;
.L_x_0:
        /*0130*/                   IMAD.SHL.U32 R6, R0, 0x4, RZ ;
        /*0140*/                   STS [R6+UR4], R5 ;
        /*0150*/                   EXIT ;
$__internal_0_$__cuda_sm20_sqrt_rn_f32_slowpath:
        /*0160*/                   LOP3.LUT P0, RZ, R9, 0x7fffffff, RZ, 0xc0, !PT ;
        /*0170*/              @!P0 MOV R2, R9 ;
        /*0180*/              @!P0 BRA `(.L_x_3) ;
        /*0190*/                   FSETP.GEU.FTZ.AND P0, PT, R9, RZ, PT ;
        /*01a0*/              @!P0 MOV R2, 0x7fffffff ;
        /*01b0*/              @!P0 BRA `(.L_x_3) ;
        /*01c0*/                   FSETP.GTU.FTZ.AND P0, PT, |R9|, +INF , PT ;
        /*01d0*/               @P0 FADD.FTZ R2, R9, 1 ;
        /*01e0*/               @P0 BRA `(.L_x_3) ;
        /*01f0*/                   FSETP.NEU.FTZ.AND P0, PT, |R9|, +INF , PT ;
        /*0200*/               @P0 FFMA R3, R9, 1.84467440737095516160e+19, RZ ;
        /*0210*/               @P0 MUFU.RSQ R2, R3 ;
        /*0220*/               @P0 FMUL.FTZ R4, R3, R2 ;
        /*0230*/               @P0 FMUL.FTZ R6, R2, 0.5 ;
        /*0240*/              @!P0 MOV R2, R9 ;
        /*0250*/               @P0 FADD.FTZ R5, -R4, -RZ ;
        /*0260*/               @P0 FFMA R5, R4, R5, R3 ;
        /*0270*/               @P0 FFMA R5, R5, R6, R4 ;
        /*0280*/               @P0 FMUL.FTZ R2, R5, 2.3283064365386962891e-10 ;
.L_x_3:
        /*0290*/                   HFMA2.MMA R3, -RZ, RZ, 0, 0 ;
        /*02a0*/                   MOV R5, R2 ;
        /*02b0*/                   MOV R2, R8 ;
        /*02c0*/                   RET.REL.NODEC R2 `(_Z4testPi) ;
.L_x_4:
        /*02d0*/                   BRA `(.L_x_4);
)";

TEST(CallsTest, SquareRootsSlowPathIsDecidedOnTheInputsBits) {
  // Lanes 0-8 (x <= 0) call the slow path, lanes 9-31 refine MUFU.RSQ's estimate; they meet again
  // at BSYNC B0 and store once.
  const Emulation emulation = EmulateBothWays(Listing(kSqrt), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0x140).executions, 1u);
  EXPECT_EQ(Row(*emulation.record, 0x140).wavefronts, 1u);
}

TEST(CallsTest, SquareRootsValueIsKnownOnEveryPath) {
  // The store runs where the root is NaN: the negatives (x = -8 to -1, lanes 0-7), from the slow
  // path's bits; the other roots are known too, the fast path's from MUFU.RSQ's model and its
  // refinement (FMUL, FFMA), so the store's lanes are decided. Before the model (issue 55) the
  // fast path's roots were unknown and the launch undecided at the store.
  const std::string where_nan =
      Replace(Replace(kSqrt, "IMAD.SHL.U32 R6, R0, 0x4, RZ ;", "FSETP.NEU.AND P1, PT, R5, R5, PT ;"),
              "                   STS [R6+UR4], R5 ;", "               @P1 STS [UR4], R5 ;");
  const Emulation slow =
      EmulateBothWays(Listing(Replace(where_nan, "FADD R9, R9, -8 ;", "FMUL R9, R9, -1 ;")),
                      Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(slow.record) << slow.undecided->Describe();
  EXPECT_EQ(Row(*slow.record, 0x140).executions, 1u);  // lanes 1-31
  const Emulation both = EmulateBothWays(Listing(where_nan), Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(both.record) << both.undecided->Describe();
  EXPECT_EQ(Row(*both.record, 0x140).executions, 1u);  // lanes 0-7
  // With MUFU.EX2 (no model) in MUFU.RSQ's place, the fast path's roots are unknown again.
  const Emulation unmodelled = Emulate(Listing(Replace(where_nan, "MUFU.RSQ R5, R9 ;", "MUFU.EX2 R5, R9 ;")),
                                       Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(unmodelled.undecided);
  EXPECT_EQ(unmodelled.undecided->pc, 0x140u);
  EXPECT_THAT(unmodelled.undecided->reason, HasSubstr("MUFU.EX2"));
}

}  // namespace
}  // namespace bankcheck::emulate
