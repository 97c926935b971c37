#pragma once
// The output pass's state (bankcheck/emulate/emulator.h's ComputeOutputs; docs/design/emulate.md, "Computing
// outputs"): the bytes the launch stored, the block's shared memory with values, its warps parked
// while another runs. The counting pass has none of it: its counts never depend on values it could
// not know.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/diagnostics.h"
#include "emulate/internal/global_memory.h"
#include "emulate/internal/memory_model.h"
#include "emulate/internal/warp.h"

namespace bankcheck::emulate::internal {

// The bytes a launch stored to global memory, and which block stored each: a load reads them over the
// memory the launch found, but only within the block that stored them (another block's order is not
// followed).
class LaunchStores {
 public:
  // Bytes of address space a launch's stores may touch (in 4 KiB pages): what a hostile kernel's
  // scattered stores could otherwise make the pass hold in memory.
  static constexpr uint64_t kMaxPages = 8192;
  explicit LaunchStores(uint64_t max_pages = kMaxPages);
  ~LaunchStores();

  // false, storing nothing, when the store would touch a page past the most it was made with.
  bool Store(uint64_t address, const uint8_t* bytes, uint32_t size, uint64_t block);
  enum class Read { kFound, kNotStored, kOtherBlock };
  // For an atomic: bytes any block stored are found.
  static constexpr uint64_t kAnyBlock = UINT64_MAX;
  // kFound: every byte of [address, + size) was stored, by `block` (or kAnyBlock): copied to `out`.
  // kNotStored: none was. kOtherBlock: another block stored one, or only some were stored.
  Read Load(uint64_t address, uint32_t size, uint64_t block, uint8_t* out) const;
  // Separate runs of stored bytes a launch may leave: each is written back and known on its own (a
  // map entry, a range of known bytes, a chunk saved in snapshots), so scattered single bytes cost a
  // hundred times their size.
  static constexpr uint64_t kMaxRuns = uint64_t{1} << 18;
  // The stored bytes into `runs`, by start: consecutive addresses, joined across a gap of less than a
  // page whose bytes `found` (may be nullptr) knows, which the launch left as it found them. false,
  // `runs` cut, when there are more than `max_runs`.
  bool Runs(const KnownMemory* found, uint64_t max_runs,
            std::map<uint64_t, std::vector<uint8_t>>* runs) const;

 private:
  struct Page;
  Page* PageOf(uint64_t address, bool create) const;
  mutable std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;  // by address / page size
  mutable Page* last_ = nullptr;                                       // the page touched last
  mutable uint64_t last_number_ = UINT64_MAX;
  uint64_t max_pages_;
};

// Register `part` of a store's data (its register, or the next ones for .64 and .128) in `lane`.
inline Value DataPart(const WarpState& warp, const Operand& data, uint32_t part, int lane) {
  if (data.index == ZeroRegister(data.kind)) return Known(0);
  const int number = data.index + static_cast<int>(part);
  if (data.kind == OperandKind::kUniformRegister)
    return number < kUniformRegisterZero ? warp.uniform[number] : Known(0);
  return number < kRegisterZero ? warp.registers[number * kWarpSize + lane] : Known(0);
}

// A store's `size` bytes of data (1 to 16: its register and the next ones) in `lane`, into `words`:
// Known when every register is, else the first unknown one.
inline Value StoreData(const WarpState& warp, const Operand& data, uint32_t size, int lane,
                       uint32_t (&words)[4]) {
  Value first_unknown = Known(0);
  for (uint32_t part = 0; part * 4 < size; ++part) {
    const Value value = DataPart(warp, data, part, lane);
    if (!value.known() && first_unknown.known()) first_unknown = value;
    words[part] = value.bits;
  }
  return first_unknown;
}

// The output pass's memory model (memory_model.h): every block run with values, one after another,
// its warps interleaved at its barriers (output_pass.cc); its memory instructions on the block's shared
// bytes (output_shared.cc), the launch's global bytes and each thread's local bytes (output_memory.cc).
class ValuesMemory final : public MemoryModel {
 public:
  // Every block's counts, by instruction index (they count as the counting pass's do); the stores in
  // `stores`.
  Rows RunGrid(LaunchEvaluator& evaluator) override;
  // Shared, global and local loads, stores, copies and integer atomics, run with values by the lanes
  // whose guards hold; any other stops.
  void Access(LaunchEvaluator& evaluator, const Instruction& in, size_t index, uint32_t mask) override;
  // BAR.SYNC 0x0 reached by the whole warp: it waits there for the block's other warps.
  void Barrier(LaunchEvaluator& evaluator, const Instruction& in, uint32_t mask) override;
  bool AtBarrier() const override { return at_barrier_; }
  // A tensor copy writes shared memory the pass does not follow, and an mbarrier's waits order warps
  // the rounds of RunBlock do not: Stop.
  void TensorCopyOrMbarrier(const Instruction& in) const override;
  // The output pass computes only the forms checked against the GPU (checked_forms.h).
  uint32_t UncheckedOrigin(const Instruction& in, size_t index) const override {
    return in.unchecked_form ? Origin(index) : 0;
  }
  // The stand-in parameter address is followed by the counting pass alone: a load through it would
  // read memory the pass does not hold.
  bool KnowsParameterWindow() const override { return false; }

  LaunchStores stores;  // what the launch stored
  static constexpr size_t kMaxLocalBytes = size_t{1} << 22;

 private:
  // One block, its warps interleaved: each runs to the next block barrier or its end.
  void RunBlock(const Dim3& ctaid);
  void SharedLoad(const Instruction& in, size_t index, uint32_t lanes);  // output_shared.cc
  void SharedStore(const Instruction& in, uint32_t lanes);
  void SharedCopy(const Instruction& in, uint32_t lanes);
  void SharedMatrix(const Instruction& in, size_t index, uint32_t lanes, bool store);
  void SharedAtomic(const Instruction& in, size_t index, uint32_t lanes);
  // The byte of the block's shared memory a lane's access of `size` bytes starts at; Stop when its
  // address is unknown, misaligned or outside.
  uint64_t SharedByteAt(const Instruction& in, const Operand& address, int lane, uint32_t size) const;
  void WriteShared(uint64_t at, const void* bytes, uint32_t size, bool known);
  bool SharedKnown(uint64_t at, uint32_t size) const;
  void GlobalLoad(const Instruction& in, size_t index, uint32_t lanes);  // output_memory.cc
  void GlobalStore(const Instruction& in, uint32_t lanes);
  void GlobalAtomic(const Instruction& in, size_t index, uint32_t lanes);
  void LocalAccess(const Instruction& in, size_t index, uint32_t lanes);
  [[noreturn]] void TooManyStores(const Instruction& in) const;
  // A lane's global address, of operand `operand` (a 64-bit register pair plus the offset); Stop when
  // unknown or of a form not read.
  uint64_t GlobalAddress(const Instruction& in, int operand, int lane) const;
  // `size` bytes at `address` as the launch's loads see them: false when some are unknown; Stop when
  // another block of the launch stored them.
  bool ReadGlobal(const Instruction& in, uint64_t address, uint32_t size, uint8_t* out) const;

  LaunchEvaluator* evaluator_ = nullptr;  // the one RunGrid runs
  uint64_t block_ = 0;                    // the serial number of the block running, from 1
  // The block's shared memory: each byte's value and whether it is known (1) or not (0).
  std::vector<uint8_t> shared_, shared_known_;
  // The block's warps; the evaluator points at the one running.
  std::vector<WarpState> warps_;
  bool at_barrier_ = false;  // the running warp reached a block barrier (BAR.SYNC)
  // The block's threads' local memory: the known bytes, by thread index in the block << 32 | address;
  // at most kMaxLocalBytes.
  std::unordered_map<uint64_t, uint8_t> local_;
};

}  // namespace bankcheck::emulate::internal
