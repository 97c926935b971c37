// Offsets near 2^64 (core/platform/span_bounds.h): a constant-bank read at a negative offset, as
// `ld.param.u32 [param_1+-0x21c]` makes one, and byte spans that would wrap, in every check of that
// shape in the emulator.
#include "core/platform/span_bounds.h"

#include <gmock/gmock.h>

#include <cstdint>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/emulate_test_support.h"
#include "emulate/internal/global_memory.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate {
namespace {

using bankcheck::internal::SpanEnd;
using bankcheck::internal::SpanFits;
using bankcheck::internal::SpanWithin;
using ::testing::HasSubstr;

TEST(SpanBoundsTest, SpansThatWouldWrapAreOutside) {
  EXPECT_TRUE(SpanWithin(0x14, 4, 0x18));
  EXPECT_FALSE(SpanWithin(0x15, 4, 0x18));
  EXPECT_FALSE(SpanWithin(UINT64_MAX - 3, 4, 0x18)) << "2^64 - 4 + 4 wraps to 0";
  EXPECT_FALSE(SpanWithin(UINT64_MAX - 1, 4, 8));
  EXPECT_TRUE(SpanWithin(8, 0, 8));
  EXPECT_EQ(SpanEnd(10, 5), 15u);
  EXPECT_EQ(SpanEnd(UINT64_MAX - 3, 8), UINT64_MAX);
  EXPECT_TRUE(SpanFits(UINT64_MAX - 3, 3));
  EXPECT_FALSE(SpanFits(UINT64_MAX - 3, 5));
  EXPECT_FALSE(SpanFits(4, 0));
}

// LDC at c[0x0][-0x4] (offset 2^64 - 4): blockDim's words are at 0x0 to 0x18, and the sum offset + 4
// wrapped to 0, so the read took the word below the launch configuration's array.
TEST(SpanBoundsTest, AConstantAtANegativeOffsetIsUnknown) {
  for (const char* offset : {"-0x4", "-0x8", "-0x18"}) {
    const Module module = test_support::Listing(std::string(R"(
        /*0040*/                   LDC R1, c[0x0][)") +
                                                offset + R"(] ;
        /*0050*/                   STS [R1+UR4], RZ ;
        /*0060*/                   EXIT ;
)");
    const Emulation emulation = Emulate(module, test_support::Launch(Dim3{1}, Dim3{32}));
    ASSERT_TRUE(emulation.undecided) << offset << " was read as a known value";
    EXPECT_THAT(emulation.undecided->reason, HasSubstr("argument bytes the launch did not give")) << offset;
  }
}

// A kernel whose parameters start at 0 (a crafted EIATTR_PARAM_CBANK): c[0x0][-0x2] is 2^64 - 2 bytes
// into the arguments, and 2^64 - 2 + 4 wrapped to 2, inside the 8 bytes given.
TEST(SpanBoundsTest, AnArgumentAtANegativeOffsetIsMissing) {
  const Module module = test_support::Listing(R"(
        /*0040*/                   LDC R1, c[0x0][-0x2] ;
        /*0050*/                   STS [R1+UR4], RZ ;
        /*0060*/                   EXIT ;
)",
                                              ".nv.info._Z4testPi\n\tAttribute:\tEIATTR_PARAM_CBANK\n"
                                              "\tValue:\t0x1d 0x180000\n");
  ASSERT_EQ(module.Find("_Z4testPi")->param_base, 0u);
  const Emulation emulation =
      Emulate(module, test_support::Launch(Dim3{1}, Dim3{32}, std::vector<uint8_t>(8, 0)));
  ASSERT_TRUE(emulation.undecided) << "read as a known value";
  EXPECT_THAT(emulation.undecided->reason, HasSubstr("argument bytes the launch did not give"));
}

// An address's immediates add modulo 2^64, as the GPU adds them: the signed sum overflowed (UBSan in
// ci/jobs/fuzz.sh: fuzz_corpus/address_offsets_near_2_64.txt), and so did negating -0x8000000000000000.
TEST(SpanBoundsTest, AddressOffsetsAddModulo2To64) {
  const std::vector<internal::Operand> operands =
      internal::ParseOperands("R7, [R0+0x7fffffffffffffff+0x7fffffffffffffff], c[0x0][-0x8000000000000000]");
  ASSERT_EQ(operands.size(), 3u);
  EXPECT_EQ(static_cast<uint64_t>(operands[1].offset), 0xfffffffffffffffeu);
  EXPECT_EQ(operands[2].value, 0x8000000000000000u);
}

TEST(SpanBoundsTest, KnownMemoryRefusesSpansThatWrap) {
  std::vector<uint8_t> buffer(64, 1);
  const auto address = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(buffer.data()));
  internal::GlobalMemory memory;
  memory.Allocate(address, buffer.size());
  memory.WroteKnown(address, buffer.size());
  EXPECT_TRUE(memory.Known(address, 64));
  EXPECT_FALSE(memory.Known(address, UINT64_MAX)) << "address + size wraps below address";
  EXPECT_FALSE(memory.Known(address, 0));
  const std::shared_ptr<const KnownMemory> snapshot = memory.Snapshot();
  EXPECT_TRUE(snapshot->Allocated(address, 64));
  EXPECT_FALSE(snapshot->Allocated(address, UINT64_MAX));
  uint8_t out[16] = {};
  EXPECT_FALSE(snapshot->Read(UINT64_MAX - 7, 16, out));
  memory.WroteUnknown(address + 8, UINT64_MAX);  // to the top: the rest of the buffer
  EXPECT_TRUE(memory.Known(address, 8));
  EXPECT_FALSE(memory.Known(address + 8, 1));
}

}  // namespace
}  // namespace bankcheck::emulate
