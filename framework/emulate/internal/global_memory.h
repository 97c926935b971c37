#pragma once
// Known global memory (docs/emulate.md, "Known global memory"): which bytes of the stand-in
// runtime's device allocations hold values the host wrote there (cudaMemcpy or cudaMemset to the
// device, a memset node of a graph), and so are known, and which may hold anything (never written,
// or after a launch that may write global memory anywhere). Sound above all: a byte is known only
// when its value is certain; everything else is unknown.
//
// Launches are recorded while a session counts and emulated when it ends, after the host may have
// written the memory again: each recorded launch takes a Snapshot, the memory as the launch found
// it. A snapshot reads the live memory (device memory is host memory here), except for the bytes
// the host overwrote after it was taken, whose earlier values it saved first (BeforeWrite).
//
// Bounded in memory, whatever a program or its kernels write (docs/security.md): each range of known
// bytes and each saved chunk is counted with its bookkeeping (kEntryBytes), and past Limits the model
// knows less instead (unknown: never wrong).

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {

// Disjoint half-open byte ranges [start, end), merged where they touch.
class ByteRanges {
 public:
  void Add(uint64_t start, uint64_t end);
  void Remove(uint64_t start, uint64_t end);
  bool Contains(uint64_t start, uint64_t end) const;  // every byte of [start, end)
  // The parts of [start, end) in the set, in order.
  std::vector<std::pair<uint64_t, uint64_t>> Within(uint64_t start, uint64_t end) const;
  bool empty() const { return ranges_.empty(); }
  size_t size() const { return ranges_.size(); }  // how many ranges
  void clear() { ranges_.clear(); }

 private:
  std::map<uint64_t, uint64_t> ranges_;  // start -> end
};

class GlobalMemory {
 public:
  // What one range or saved chunk costs besides its bytes: a std::map node with its key and value
  // and the allocator's header (a byte stored alone costs this, not one byte).
  static constexpr uint64_t kEntryBytes = 64;
  struct Limits {
    // Separate ranges of known bytes (scattered stores of a launch each make one): past it, nothing
    // is known, and WhyForgotten says so.
    uint64_t max_known_ranges = uint64_t{1} << 20;
    // What the live snapshots hold together: their copies of the known ranges and the bytes they
    // saved, each range and chunk counted with kEntryBytes. A snapshot that would pass it knows
    // nothing; a byte that would, it forgets instead of saving.
    uint64_t max_snapshot_bytes = uint64_t{256} << 20;
  };

  GlobalMemory();
  explicit GlobalMemory(Limits limits);
  ~GlobalMemory();
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;

  // A device allocation of `size` bytes at `address` (host memory that stays readable until Free):
  // unknown until written.
  void Allocate(uint64_t address, uint64_t size);
  // The allocation at `address` is released: its bytes are unknown, to snapshots too.
  void Free(uint64_t address);
  // The host is about to write [address, address + size): snapshots save what they know of it.
  void BeforeWrite(uint64_t address, uint64_t size);
  // The host wrote [address, address + size) with values it knows (a copy from host memory, a
  // memset): known where it lies in an allocation. false when that passed max_known_ranges: then
  // nothing is known.
  bool WroteKnown(uint64_t address, uint64_t size);
  // The host wrote [address, address + size) with values it does not know.
  void WroteUnknown(uint64_t address, uint64_t size);
  // A copy of device memory: [destination, + size) is known where [source, + size) was. false as
  // WroteKnown's.
  bool Copied(uint64_t destination, uint64_t source, uint64_t size);
  // A launch that may write global memory where the model cannot follow: nothing is known, `why`.
  void ForgetAll(const std::string& why = "");
  // Why nothing was known the last time everything was forgotten ("" before that): ForgetAll's
  // reason, or max_known_ranges.
  std::string WhyForgotten() const;

  // The memory as a launch recorded now finds it, for its emulation whenever that runs.
  std::shared_ptr<const KnownMemory> Snapshot();

  // Whether every byte of [address, address + size) is known now (tests, diagnostics).
  bool Known(uint64_t address, uint64_t size) const;

  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
};

// Whether `instruction` may write global memory (a store, atomic or reduction to global or generic
// memory, a bulk or tensor copy out of shared memory, or an opcode the table does not know).
bool MayWriteGlobal(const Instruction& instruction);
// Whether any instruction of `kernel` may.
bool MayWriteGlobal(const Kernel& kernel);

// The bytes (MemoryOp::bytes) that the load `instruction` (an LDG) reads at `address` into `bytes`, when
// `memory` knows every one and the launch cannot have changed them (`kernel_writes_global`: a launch of a
// kernel that may write global memory changes them, but for the read-only loads, .CONSTANT); false
// otherwise, and for a misaligned address or an address form the emulator does not read (MemoryOp).
bool KnownLoad(const Instruction& instruction, const KnownMemory& memory, uint64_t address,
               bool kernel_writes_global, uint8_t* bytes);

}  // namespace bankcheck::emulate::internal
