// P2R (ptxas's spill of a predicate: FlashInfer's packbits and layernorm, CUB's block sort) and
// MATCH.ANY (__match_any_sync: CUB's warp exchange, its warp scans, CuPy's channelizer). Their values
// as the PTX ISA and the SASS define them (PackPredicates, MatchAny); in a launch, a family new to the
// emulator, computed only in the forms checked_forms.def lists, in either pass.
#include <gmock/gmock.h>

#include <array>
#include <string>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

// P2R d, PR, a, mask: the predicates where mask has a bit, a's bits elsewhere.
TEST(PredicateSpillTest, PackPredicatesTakesThePredicatesUnderTheMaskAndTheRestFromA) {
  using internal::PackPredicates;
  EXPECT_EQ(PackPredicates(0x40, 0, 0x40), 0x40u);  // P6 true, spilled alone (P2R R10, PR, RZ, 0x40)
  EXPECT_EQ(PackPredicates(0x3f, 0, 0x40), 0u);     // P6 false: the other predicates are not taken
  EXPECT_EQ(PackPredicates(0x02, 0, 0x02), 0x02u);  // P2R R6, PR, RZ, 0x2
  EXPECT_EQ(PackPredicates(0x55, 0xffffff00u, 0x7f), 0xffffff55u);
  EXPECT_EQ(PackPredicates(0x00, 0xffffffffu, 0x0f), 0xfffffff0u);  // a's bits kept outside the mask only
}

// MATCH.ANY d, a: in each lane, the lanes (of those that run it) whose a equals its own.
TEST(WarpMatchTest, MatchAnyIsTheMaskOfTheLanesOfEqualValue) {
  std::array<uint64_t, 32> values{};
  for (int lane = 0; lane < 32; ++lane) values[lane] = static_cast<uint64_t>(lane % 4);
  EXPECT_EQ(internal::MatchAny(values.data(), 0xffffffffu, 0), 0x11111111u);
  EXPECT_EQ(internal::MatchAny(values.data(), 0xffffffffu, 7), 0x88888888u);
  // Only the lanes that run it: a partial mask (after WARPSYNC 0xfffff).
  EXPECT_EQ(internal::MatchAny(values.data(), 0x000fffffu, 5), 0x00022222u);
  // 64-bit values (.U64): equal only if both words are.
  values.fill(7);
  values[3] = uint64_t{1} << 32 | 7;
  EXPECT_EQ(internal::MatchAny(values.data(), 0xffffffffu, 0), 0xfffffff7u);
  EXPECT_EQ(internal::MatchAny(values.data(), 0xffffffffu, 3), 0x00000008u);
}

// Understood, so counted where their values feed no address (P2R stopped the emulation as an
// instruction it did not understand); the forms not in checked_forms.def are unknown, named.
TEST(PredicateSpillTest, P2RAndMatchAnyAreCountedAndUnlistedFormsAreUnknown) {
  const Module module = Listing(R"(
        /*0040*/                   ISETP.GE.AND P6, PT, R0, 0x4, PT ;
        /*0050*/                   P2R R5, PR, RZ, 0x40 ;
        /*0060*/                   MATCH.ANY R6, R0 ;
        /*0070*/                   MATCH.ANY.U64 R7, R4 ;
        /*0080*/                   IMAD.SHL.U32 R3, R0, 0x4, RZ ;
        /*0090*/                   STS [R3+UR4], R5 ;
        /*00a0*/                   STS [R3+UR4+0x80], R6 ;
        /*00b0*/                   STS [R3+UR4+0x100], R7 ;
        /*00c0*/                   EXIT ;
)");
  const Emulation emulation = Emulate(module, Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  EXPECT_EQ(Row(*emulation.record, 0x90).wavefronts, 1u);
  EXPECT_EQ(Row(*emulation.record, 0xb0).wavefronts, 1u);
  // The byte forms and a mask reaching PT's bit: no vector says what they give.
  EXPECT_THAT(WhyAddressUndecided("P2R.B1 R5, PR, RZ, 0x1"), HasSubstr("P2R.B1 at pc 0x0040"));
  EXPECT_THAT(WhyAddressUndecided("MATCH.ANY.U32 R5, R0"), HasSubstr("MATCH.ANY.U32 at pc 0x0040"));
  // MATCH.ALL also writes a predicate, which the emulator does not read.
  EXPECT_THAT(WhyAddressUndecided("MATCH.ALL P0, R5, R0"), HasSubstr("MATCH.ALL"));
  // P2R of another shape than d, PR, a, mask.
  EXPECT_THAT(WhyAddressUndecided("P2R R5, P0, RZ, 0x1"),
              HasSubstr("P2R is a form the emulator does not understand"));
}

}  // namespace
}  // namespace bankcheck::emulate
