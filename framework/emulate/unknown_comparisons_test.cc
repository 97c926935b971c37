// ISETP's combination with a predicate follows Kleene's logic: where one side is unknown (a value
// loaded from shared memory, say) and the other decides the result alone (false under .AND, true
// under .OR), the result is known. CUB's merge sort reads a key past its segment's end and combines
// the comparison with the range check this way.
#include <gmock/gmock.h>

#include <string>

#include "bankcheck/core/bank_model.h"
#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"

namespace bankcheck::emulate {
namespace {

using ::testing::HasSubstr;
using namespace test_support;  // NOLINT(build/namespaces): the listings of these tests

// R5 is loaded from shared memory (unknown); P0 is tid < 8. `combine` makes P1 from them; P1
// guards a store, so the launch is decided only where P1 is known in every lane.
Emulation EmulateWith(const std::string& combine) {
  return Emulate(Listing(R"(
        /*0040*/                   IMAD.SHL.U32 R3, R0, 0x4, RZ ;
        /*0050*/                   LDS R5, [R3+UR4] ;
        /*0060*/                   ISETP.GE.U32.AND P0, PT, R0, 0x8, PT ;
        /*0070*/                   )" +
                         combine + R"( ;
        /*0080*/               @P1 STS [R3+UR4+0x80], R0 ;
        /*0090*/                   EXIT ;
)"),
                 Launch(Dim3{1, 1, 1}, Dim3{32, 1, 1}));
}

// The executions of the row at `pc`; 0 when the record has none.
uint64_t Executions(const LaunchRecord& record, uint32_t pc) {
  for (const InstructionCounts& row : record.instructions)
    if (row.pc_offset == pc) return row.executions;
  return 0;
}

TEST(UnknownComparisonsTest, AFalsePredicateDecidesAnd) {
  // P0 is false in lanes 0-7 and true in 8-31: P1 = (R5 < 3) AND !P0 is false in lanes 8-31
  // whatever R5 is, but unknown in lanes 0-7.
  const Emulation unknown = EmulateWith("ISETP.LT.AND P1, PT, R5, 0x3, !P0");
  ASSERT_TRUE(unknown.undecided);
  EXPECT_THAT(unknown.undecided->reason, HasSubstr("a load from shared memory (LDS at pc 0x0050"));
  // AND with P0: false in lanes 0-7, unknown in lanes 8-31.
  EXPECT_TRUE(EmulateWith("ISETP.LT.AND P1, PT, R5, 0x3, P0").undecided);
  // AND with PT (always true) still needs the comparison.
  EXPECT_TRUE(EmulateWith("ISETP.LT.AND P1, PT, R5, 0x3, PT").undecided);
  // AND with PT's negation: false in every lane, so the store never runs.
  const Emulation never = EmulateWith("ISETP.LT.AND P1, PT, R5, 0x3, !PT");
  ASSERT_TRUE(never.record) << never.undecided->Describe();
  EXPECT_EQ(Executions(*never.record, 0x80), 0u);
}

TEST(UnknownComparisonsTest, ATruePredicateDecidesOr) {
  // OR with PT: true in every lane, whatever R5 is; both destinations (the second is the negated
  // comparison ORed with PT).
  for (const char* combine : {"ISETP.LT.OR P1, PT, R5, 0x3, PT", "ISETP.LT.OR P2, P1, R5, 0x3, PT"}) {
    const Emulation always = EmulateWith(combine);
    ASSERT_TRUE(always.record) << combine << ": " << always.undecided->Describe();
    EXPECT_EQ(Row(*always.record, 0x80).executions, 1u) << combine;
    EXPECT_EQ(Row(*always.record, 0x80).wavefronts, 1u) << combine;
  }
  // OR with P0, false in lanes 0-7: unknown there.
  EXPECT_TRUE(EmulateWith("ISETP.LT.OR P1, PT, R5, 0x3, P0").undecided);
  // XOR needs both sides.
  EXPECT_TRUE(EmulateWith("ISETP.LT.XOR P1, PT, R5, 0x3, PT").undecided);
}

TEST(UnknownComparisonsTest, AKnownComparisonDecidesWhatItDominates) {
  // R0 (tid) >= 0 always: OR-ed with an unknown predicate it is true; its negation (false) ANDed
  // with one is false. The unknown predicate is R5's comparison.
  const std::string unknown_p2 = "ISETP.LT.AND P2, PT, R5, 0x3, PT ;\n        /*0078*/                   ";
  const Emulation ored = EmulateWith(unknown_p2 + "ISETP.GE.U32.OR P1, PT, R0, RZ, P2");
  ASSERT_TRUE(ored.record) << ored.undecided->Describe();
  EXPECT_EQ(Row(*ored.record, 0x80).executions, 1u);
  const Emulation anded = EmulateWith(unknown_p2 + "ISETP.LT.U32.AND P1, PT, R0, RZ, P2");
  ASSERT_TRUE(anded.record) << anded.undecided->Describe();
  EXPECT_EQ(Executions(*anded.record, 0x80), 0u);
  // The second destination, the negated comparison (false), ORed with the unknown: unknown.
  EXPECT_TRUE(EmulateWith(unknown_p2 + "ISETP.GE.U32.OR P3, P1, R0, RZ, P2").undecided);
}

}  // namespace
}  // namespace bankcheck::emulate
