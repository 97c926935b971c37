#include "emulate/internal/global_memory.h"

#include <gmock/gmock.h>

#include <cstring>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"

namespace bankcheck::emulate {
namespace {

using internal::ByteRanges;
using internal::GlobalMemory;
using ::testing::HasSubstr;

uint64_t AddressOf(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

TEST(ByteRangesTest, MergesSplitsAndAnswersContainment) {
  ByteRanges ranges;
  ranges.Add(10, 20);
  ranges.Add(20, 30);  // touches: one range
  ranges.Add(40, 50);
  EXPECT_TRUE(ranges.Contains(10, 30));
  EXPECT_FALSE(ranges.Contains(25, 45));
  ranges.Remove(15, 17);
  EXPECT_FALSE(ranges.Contains(10, 20));
  EXPECT_TRUE(ranges.Contains(17, 30));
  using Parts = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(ranges.Within(0, 100), (Parts{{10, 15}, {17, 30}, {40, 50}}));
  EXPECT_EQ(ranges.Within(12, 45), (Parts{{12, 15}, {17, 30}, {40, 45}}));
  ranges.Remove(0, 100);
  EXPECT_TRUE(ranges.empty());
}

// Host buffers stand for device allocations: the model reads the memory at its addresses.
class GlobalMemoryTest : public ::testing::Test {
 protected:
  GlobalMemoryTest() : buffer_(256, 0) { memory_.Allocate(Address(0), buffer_.size() * 4); }
  uint64_t Address(size_t word) const { return AddressOf(buffer_.data() + word); }
  // What cudaMemcpy to the device does to the model around its copy.
  void HostWrites(size_t word, std::vector<uint32_t> values) {
    memory_.BeforeWrite(Address(word), values.size() * 4);
    std::memcpy(buffer_.data() + word, values.data(), values.size() * 4);
    memory_.WroteKnown(Address(word), values.size() * 4);
  }
  uint32_t ReadWord(const KnownMemory& view, size_t word) {
    uint32_t value = 0;
    EXPECT_TRUE(view.Read(Address(word), 4, &value)) << "word " << word;
    return value;
  }
  std::vector<uint32_t> buffer_;
  GlobalMemory memory_;
};

TEST_F(GlobalMemoryTest, OnlyWhatTheHostWroteIsKnown) {
  EXPECT_FALSE(memory_.Known(Address(0), 4)) << "cudaMalloc's memory holds anything on the GPU";
  HostWrites(4, {7, 8});
  EXPECT_TRUE(memory_.Known(Address(4), 8));
  EXPECT_FALSE(memory_.Known(Address(3), 8));
  // A write past the allocation's end is known only inside it.
  memory_.WroteKnown(Address(254), 64);
  EXPECT_TRUE(memory_.Known(Address(254), 8));
  EXPECT_FALSE(memory_.Known(Address(256), 4));
  // A launch that may write anywhere: nothing is known.
  memory_.ForgetAll();
  EXPECT_FALSE(memory_.Known(Address(4), 4));
}

TEST_F(GlobalMemoryTest, ADeviceCopyIsKnownWhereItsSourceWas) {
  HostWrites(0, {1, 2});
  memory_.WroteKnown(Address(20), 16);
  memory_.Copied(Address(18), Address(0), 16);  // words 0-3 to 18-21: 0 and 1 known, 2 and 3 not
  EXPECT_TRUE(memory_.Known(Address(18), 8));
  EXPECT_FALSE(memory_.Known(Address(20), 4));
  EXPECT_FALSE(memory_.Known(Address(21), 4));
  EXPECT_TRUE(memory_.Known(Address(22), 8));
}

TEST_F(GlobalMemoryTest, ASnapshotReadsTheMemoryAsItWasWhenTaken) {
  HostWrites(0, {10, 11, 12, 13});
  const std::shared_ptr<const KnownMemory> before = memory_.Snapshot();
  EXPECT_EQ(memory_.Snapshot(), before) << "nothing changed: the same snapshot";
  HostWrites(1, {21, 22});  // overwrites two words the snapshot knows
  HostWrites(8, {30});      // writes one it did not know
  const std::shared_ptr<const KnownMemory> after = memory_.Snapshot();
  EXPECT_EQ(ReadWord(*before, 0), 10u);
  EXPECT_EQ(ReadWord(*before, 1), 11u);
  EXPECT_EQ(ReadWord(*before, 2), 12u);
  uint64_t pair = 0;
  ASSERT_TRUE(before->Read(Address(2), 8, &pair));
  EXPECT_EQ(pair, uint64_t{13} << 32 | 12);
  uint32_t unknown = 0;
  EXPECT_FALSE(before->Read(Address(8), 4, &unknown));
  EXPECT_EQ(ReadWord(*after, 1), 21u);
  EXPECT_EQ(ReadWord(*after, 8), 30u);
  // Later launches' effects do not reach an earlier snapshot; freeing does (the pages go).
  memory_.ForgetAll();
  EXPECT_EQ(ReadWord(*before, 3), 13u);
  uint32_t freed = 0;
  memory_.Free(Address(0));
  EXPECT_FALSE(before->Read(Address(3), 4, &freed));
  EXPECT_FALSE(after->Read(Address(8), 4, &freed));
}

// A launch's LDG of memory the model knows: the values it loads, here feeding a shared address.
// Block b's lane t loads values[b * 32 + t] and stores to bins[value].
constexpr char kHistogram[] = R"(
.text._Z4testPi:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   S2UR UR4, SR_CgaCtaId ;
        /*0020*/                   UMOV UR5, 0x400 ;
        /*0030*/                   ULEA UR4, UR4, UR5, 0x18 ;
        /*0040*/                   S2R R1, SR_CTAID.X ;
        /*0050*/                   LEA R6, R1, R0, 0x5 ;
        /*0060*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0070*/                   IMAD.WIDE.U32 R2, R6, 0x4, R2 ;
        /*0080*/                   LDG.E%s R4, desc[UR6][R2.64] ;
        /*0090*/                   IMAD.SHL.U32 R5, R4, 0x4, RZ ;
        /*00a0*/                   STS [R5+UR4], RZ ;
%s        /*00c0*/                   EXIT ;
)";

Module HistogramModule(const std::string& load_modifiers, bool stores_globally) {
  std::vector<char> text(sizeof kHistogram + 200);
  std::snprintf(text.data(), text.size(), kHistogram, load_modifiers.c_str(),
                stores_globally ? "        /*00b0*/                   STG.E desc[UR6][R2.64], R4 ;\n" : "");
  return Module::FromListings(text.data(), "");
}

class KnownLoadTest : public ::testing::Test {
 protected:
  // Block 0's lanes load 0..31 (one bank each), block 1's 0, 32, 64, ... (one bank, 32 words).
  KnownLoadTest() : values_(64) {
    for (uint32_t t = 0; t < 32; ++t) {
      values_[t] = t;
      values_[32 + t] = 32 * t;
    }
    memory_.Allocate(AddressOf(values_.data()), values_.size() * 4);
    memory_.WroteKnown(AddressOf(values_.data()), values_.size() * 4);
  }
  LaunchToEmulate Launch(bool with_memory) {
    LaunchToEmulate launch;
    launch.mangled = "_Z4testPi";
    launch.grid = {2, 1, 1};
    launch.block = {32, 1, 1};
    const uint64_t pointer = AddressOf(values_.data());
    launch.param_bytes.resize(8);
    std::memcpy(launch.param_bytes.data(), &pointer, 8);
    if (with_memory) launch.memory = memory_.Snapshot();
    return launch;
  }
  static uint64_t Wavefronts(uint32_t stride_words) {
    WarpAccess access;
    access.bytes = 4;
    for (int lane = 0; lane < kWarpSize; ++lane) access.SetLane(lane, 0x400 + 4 * stride_words * lane);
    return CostWarpAccess(access).wavefronts;
  }
  std::vector<uint32_t> values_;
  GlobalMemory memory_;
};

TEST_F(KnownLoadTest, ReadOnlyLoadsOfKnownMemoryDecideAddressesInEveryBlock) {
  const Emulation emulation = Emulate(HistogramModule(".CONSTANT", true), Launch(true));
  ASSERT_TRUE(emulation.record) << emulation.undecided->Describe();
  // Each block's own values: the loaded value depends on the block, so both are evaluated.
  EXPECT_EQ(emulation.evaluated_blocks, 2u);
  EXPECT_EQ(emulation.record->stores().instructions, 2u);
  EXPECT_EQ(emulation.record->stores().wavefronts, Wavefronts(1) + Wavefronts(32));
  EXPECT_EQ(Wavefronts(1) + Wavefronts(32), 33u);
}

TEST_F(KnownLoadTest, ACoherentLoadIsKnownOnlyInAKernelThatWritesNoGlobalMemory) {
  const Emulation plain = Emulate(HistogramModule("", false), Launch(true));
  ASSERT_TRUE(plain.record) << plain.undecided->Describe();
  EXPECT_EQ(plain.record->stores().wavefronts, 33u);
  const Emulation storing = Emulate(HistogramModule("", true), Launch(true));
  ASSERT_TRUE(storing.undecided);
  EXPECT_THAT(storing.undecided->reason, HasSubstr("a load from memory (LDG.E at pc 0x0080"));
}

TEST_F(KnownLoadTest, UnknownMemoryAndNoMemoryLeaveTheLaunchUndecided) {
  const Emulation without = Emulate(HistogramModule(".CONSTANT", false), Launch(false));
  ASSERT_TRUE(without.undecided);
  EXPECT_THAT(without.undecided->reason, HasSubstr("a load from memory"));
  LaunchToEmulate launch = Launch(false);
  memory_.ForgetAll();
  launch.memory = memory_.Snapshot();
  const Emulation forgotten = Emulate(HistogramModule(".CONSTANT", false), launch);
  ASSERT_TRUE(forgotten.undecided);
  EXPECT_THAT(forgotten.undecided->reason, HasSubstr("feeds the address of STS at pc 0x00a0"));
}

TEST_F(KnownLoadTest, ALaunchReadsTheValuesItWasRecordedWith) {
  const LaunchToEmulate launch = Launch(true);
  std::vector<uint32_t> strided(32);  // block 0 then 32-way too
  for (uint32_t t = 0; t < 32; ++t) strided[t] = 32 * t;
  memory_.BeforeWrite(AddressOf(values_.data()), 32 * 4);
  std::memcpy(values_.data(), strided.data(), 32 * 4);
  memory_.WroteKnown(AddressOf(values_.data()), 32 * 4);
  const Emulation recorded = Emulate(HistogramModule(".CONSTANT", false), launch);
  ASSERT_TRUE(recorded.record) << recorded.undecided->Describe();
  EXPECT_EQ(recorded.record->stores().wavefronts, 33u);
  const Emulation later = Emulate(HistogramModule(".CONSTANT", false), Launch(true));
  ASSERT_TRUE(later.record) << later.undecided->Describe();
  EXPECT_EQ(later.record->stores().wavefronts, 64u);
}

TEST(MayWriteGlobalMemoryTest, StoresAtomicsAndUnknownOpcodesMayWrite) {
  EXPECT_TRUE(MayWriteGlobalMemory(HistogramModule("", true), "_Z4testPi"));
  EXPECT_FALSE(MayWriteGlobalMemory(HistogramModule("", false), "_Z4testPi"));
  EXPECT_TRUE(MayWriteGlobalMemory(HistogramModule("", false), "_Z5otherv")) << "no such kernel";
  const Module unknown = Module::FromListings(R"(
.text._Z4testPi:
        /*0000*/                   XYZW R1, R2 ;
        /*0010*/                   EXIT ;
)",
                                              "");
  EXPECT_TRUE(MayWriteGlobalMemory(unknown, "_Z4testPi"));
}

}  // namespace
}  // namespace bankcheck::emulate
