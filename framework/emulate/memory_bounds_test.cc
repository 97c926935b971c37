// The output pass and the known memory bounded in memory, not in bytes (docs/security.md): a byte
// stored or saved alone costs a map entry, so runs are joined where they can be and counted, and
// entries are counted with their cost (output_bounds_test.cc runs a byte-scatter kernel through the
// stand-in runtime within 1.5 GiB).
#include <gmock/gmock.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/global_memory.h"
#include "emulate/internal/output_pass.h"

namespace bankcheck::emulate {
namespace {

using internal::GlobalMemory;
using internal::LaunchStores;
using ::testing::HasSubstr;

uint64_t AddressOf(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer); }

// Knows the bytes of [0x1000, 0x1100), each its address's low byte.
class KnownWindow final : public KnownMemory {
 public:
  bool Read(uint64_t address, uint32_t size, void* out) const override {
    if (address < 0x1000 || address > 0x1100 || size > 0x1100 - address) return false;
    for (uint32_t i = 0; i < size; ++i) static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(address + i);
    return true;
  }
};

TEST(LaunchStoresRunsTest, RunsJoinAcrossBytesTheLaunchKnewAndAreCounted) {
  LaunchStores stores;
  const uint8_t byte = 0xab;
  for (uint64_t address : {0x1000, 0x1002, 0x1004, 0x2000, 0x2002})
    ASSERT_TRUE(stores.Store(address, &byte, 1, 1));
  std::map<uint64_t, std::vector<uint8_t>> runs;
  ASSERT_TRUE(stores.Runs(nullptr, 5, &runs));
  EXPECT_EQ(runs.size(), 5u) << "nothing known between them: each byte a run";
  runs.clear();
  EXPECT_FALSE(stores.Runs(nullptr, 4, &runs)) << "past the most runs";
  EXPECT_LE(runs.size(), 4u);
  runs.clear();
  const KnownWindow window;
  ASSERT_TRUE(stores.Runs(&window, 3, &runs));
  ASSERT_EQ(runs.size(), 3u) << "joined where the window knows the bytes between";
  EXPECT_EQ(runs.at(0x1000), (std::vector<uint8_t>{0xab, 0x01, 0xab, 0x03, 0xab}));
  EXPECT_EQ(runs.at(0x2000), (std::vector<uint8_t>{0xab})) << "0x2001 is not known: runs of their own";
  EXPECT_EQ(runs.at(0x2002), (std::vector<uint8_t>{0xab}));
}

// Host buffers stand for device allocations.
class MemoryBoundsTest : public ::testing::Test {
 protected:
  MemoryBoundsTest() : buffer_(256, 7) {}
  uint64_t Address(size_t at) const { return AddressOf(buffer_.data() + at); }
  std::vector<uint8_t> buffer_;
};

TEST_F(MemoryBoundsTest, PastTheMostRangesOfKnownBytesNothingIsKnown) {
  GlobalMemory::Limits limits;
  limits.max_known_ranges = 4;
  GlobalMemory memory(limits);
  memory.Allocate(Address(0), buffer_.size());
  for (size_t at = 0; at < 8; at += 2) EXPECT_TRUE(memory.WroteKnown(Address(at), 1)) << at;
  EXPECT_TRUE(memory.Known(Address(6), 1));
  EXPECT_TRUE(memory.WroteKnown(Address(1), 1)) << "joins two: 3 ranges";
  EXPECT_TRUE(memory.WroteKnown(Address(10), 1));
  EXPECT_FALSE(memory.WroteKnown(Address(12), 1)) << "a fifth";
  EXPECT_FALSE(memory.Known(Address(0), 1));
  EXPECT_FALSE(memory.Known(Address(10), 1));
  EXPECT_THAT(memory.WhyForgotten(), HasSubstr("more than 4 separate ranges of known bytes"));
  memory.ForgetAll("a launch wrote");
  EXPECT_EQ(memory.WhyForgotten(), "a launch wrote");
}

// Each byte saved alone costs its entries: a snapshot saves what fits and forgets the rest.
TEST_F(MemoryBoundsTest, SavedBytesAreCountedWithTheirEntries) {
  GlobalMemory::Limits limits;
  limits.max_snapshot_bytes = 1000;
  GlobalMemory memory(limits);
  memory.Allocate(Address(0), buffer_.size());
  memory.WroteKnown(Address(0), buffer_.size());
  const std::shared_ptr<const KnownMemory> before = memory.Snapshot();  // one range: 64
  // Each byte saved costs 1 + 2 * 64: seven fit in 1000 with the range.
  for (size_t at = 0; at < 20; at += 2) {
    memory.BeforeWrite(Address(at), 1);
    buffer_[at] = 9;
    memory.WroteKnown(Address(at), 1);
  }
  uint8_t value = 0;
  ASSERT_TRUE(before->Read(Address(12), 1, &value));
  EXPECT_EQ(value, 7) << "saved";
  EXPECT_FALSE(before->Read(Address(14), 1, &value)) << "forgotten: over what snapshots may hold";
  ASSERT_TRUE(before->Read(Address(15), 1, &value)) << "never overwritten";
  EXPECT_EQ(value, 7);
}

TEST_F(MemoryBoundsTest, ASnapshotThatWouldHoldTooMuchKnowsNothing) {
  GlobalMemory::Limits limits;
  limits.max_snapshot_bytes = 3 * GlobalMemory::kEntryBytes;
  GlobalMemory memory(limits);
  memory.Allocate(Address(0), buffer_.size());
  memory.WroteKnown(Address(0), 2);
  memory.WroteKnown(Address(4), 2);
  const std::shared_ptr<const KnownMemory> first = memory.Snapshot();  // two ranges: 128
  uint8_t value = 0;
  EXPECT_TRUE(first->Read(Address(4), 1, &value));
  memory.WroteKnown(Address(8), 2);
  const std::shared_ptr<const KnownMemory> second = memory.Snapshot();  // three more: 320 in all
  EXPECT_FALSE(second->Read(Address(8), 1, &value));
  EXPECT_FALSE(second->Read(Address(0), 1, &value));
  EXPECT_TRUE(first->Read(Address(4), 1, &value)) << "the first is as it was";
}

}  // namespace
}  // namespace bankcheck::emulate
