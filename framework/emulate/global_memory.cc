#include "emulate/internal/global_memory.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "core/platform/span_bounds.h"

namespace bankcheck::emulate {

KnownMemory::~KnownMemory() = default;
bool KnownMemory::Allocated(uint64_t /*address*/, uint64_t /*size*/) const { return false; }

bool MayWriteGlobalMemory(const Module& module, std::string_view mangled) {
  const auto found = module.data().kernels.find(mangled);
  return found == module.data().kernels.end() || internal::MayWriteGlobal(found->second);
}

namespace internal {

using bankcheck::internal::SpanEnd;
using bankcheck::internal::SpanFits;
using bankcheck::internal::SpanWithin;

void ByteRanges::Add(uint64_t start, uint64_t end) {
  if (start >= end) return;
  // Merge with every range that overlaps or touches [start, end).
  auto at = ranges_.upper_bound(start);
  if (at != ranges_.begin() && std::prev(at)->second >= start) --at;
  while (at != ranges_.end() && at->first <= end) {
    start = std::min(start, at->first);
    end = std::max(end, at->second);
    at = ranges_.erase(at);
  }
  ranges_.emplace(start, end);
}

void ByteRanges::Remove(uint64_t start, uint64_t end) {
  if (start >= end) return;
  auto at = ranges_.upper_bound(start);
  if (at != ranges_.begin() && std::prev(at)->second > start) --at;
  while (at != ranges_.end() && at->first < end) {
    const uint64_t first = at->first, last = at->second;
    at = ranges_.erase(at);
    if (first < start) ranges_.emplace(first, start);
    if (last > end) {
      ranges_.emplace(end, last);
      break;
    }
  }
}

bool ByteRanges::Contains(uint64_t start, uint64_t end) const {
  if (start >= end) return true;
  auto at = ranges_.upper_bound(start);
  if (at == ranges_.begin()) return false;
  --at;
  return at->first <= start && at->second >= end;
}

std::vector<std::pair<uint64_t, uint64_t>> ByteRanges::Within(uint64_t start, uint64_t end) const {
  std::vector<std::pair<uint64_t, uint64_t>> parts;
  if (start >= end) return parts;
  auto at = ranges_.upper_bound(start);
  if (at != ranges_.begin() && std::prev(at)->second > start) --at;
  for (; at != ranges_.end() && at->first < end; ++at)
    parts.emplace_back(std::max(start, at->first), std::min(end, at->second));
  return parts;
}

namespace {

// The parts of [start, end) that `ranges` does not hold.
std::vector<std::pair<uint64_t, uint64_t>> Outside(const ByteRanges& ranges, uint64_t start, uint64_t end) {
  std::vector<std::pair<uint64_t, uint64_t>> gaps;
  uint64_t at = start;
  for (const auto& [first, last] : ranges.Within(start, end)) {
    if (first > at) gaps.emplace_back(at, first);
    at = last;
  }
  if (at < end) gaps.emplace_back(at, end);
  return gaps;
}

const void* AsPointer(uint64_t address) {
  return reinterpret_cast<const void*>(static_cast<uintptr_t>(address));
}

// What one snapshot knows: the known bytes when it was taken, and the earlier values of those the
// host overwrote since.
struct SnapshotState {
  ByteRanges known;
  ByteRanges saved_ranges;
  std::map<uint64_t, std::vector<uint8_t>> saved;  // disjoint chunks, by start
  uint64_t saved_bytes = 0;

  // What it holds, counted as Limits::max_snapshot_bytes counts it.
  uint64_t Bytes() const {
    return (known.size() + saved_ranges.size() + saved.size()) * GlobalMemory::kEntryBytes + saved_bytes;
  }
};

}  // namespace

struct GlobalMemory::Shared {
  explicit Shared(Limits given) : limits(given) {}
  const Limits limits;
  mutable std::mutex mutex;
  std::map<uint64_t, uint64_t> allocations;  // start -> size
  ByteRanges known;
  std::vector<std::weak_ptr<SnapshotState>> live;  // snapshots a recorded launch still holds
  std::weak_ptr<const KnownMemory> latest;         // the last snapshot, while nothing changed since
  std::string why_forgotten;

  void Changed() { latest.reset(); }

  // Past max_known_ranges, nothing is known: scattered bytes cost a range each.
  bool KeepBounded() {
    if (known.size() <= limits.max_known_ranges) return true;
    known.clear();
    why_forgotten = "device memory was forgotten: it held more than " +
                    std::to_string(limits.max_known_ranges) +
                    " separate ranges of known bytes (scattered writes), over the emulator's limit";
    return false;
  }

  // Calls `each` with every part of [start, start + size) that lies in an allocation.
  template <typename Each>
  void InAllocations(uint64_t start, uint64_t size, Each each) const {
    const uint64_t end = SpanEnd(start, size);
    auto at = allocations.upper_bound(start);
    if (at != allocations.begin()) --at;
    for (; at != allocations.end() && at->first < end; ++at) {
      const uint64_t first = std::max(start, at->first), last = std::min(end, at->first + at->second);
      if (first < last) each(first, last);
    }
  }

  template <typename Each>
  void ForEachLive(Each each) {
    live.erase(std::remove_if(live.begin(), live.end(), [](const auto& weak) { return weak.expired(); }),
               live.end());
    for (const auto& weak : live)
      if (const std::shared_ptr<SnapshotState> state = weak.lock()) each(*state);
  }

  // What the live snapshots hold together.
  uint64_t SnapshotBytes() {
    uint64_t bytes = 0;
    ForEachLive([&](const SnapshotState& state) { bytes += state.Bytes(); });
    return bytes;
  }
};

namespace {

class SnapshotView final : public KnownMemory {
 public:
  SnapshotView(std::shared_ptr<GlobalMemory::Shared> shared, std::shared_ptr<SnapshotState> state)
      : shared_(std::move(shared)), state_(std::move(state)) {}
  bool Read(uint64_t address, uint32_t size, void* out) const override {
    if (!SpanFits(address, size)) return false;
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (!state_->known.Contains(address, address + size)) return false;
    // Known bytes are in an allocation, still mapped (Free forgets them first); those the host
    // overwrote since are taken from what was saved.
    auto* bytes = static_cast<uint8_t*>(out);
    std::memcpy(bytes, AsPointer(address), size);
    for (const auto& [first, last] : state_->saved_ranges.Within(address, address + size)) {
      auto chunk = state_->saved.upper_bound(first);
      if (chunk != state_->saved.begin()) --chunk;
      for (; chunk != state_->saved.end() && chunk->first < last; ++chunk) {
        const uint64_t from = std::max(first, chunk->first);
        const uint64_t to = std::min(last, chunk->first + chunk->second.size());
        if (from < to)
          std::memcpy(bytes + (from - address), chunk->second.data() + (from - chunk->first), to - from);
      }
    }
    return true;
  }
  bool Allocated(uint64_t address, uint64_t size) const override {
    if (size == 0) return false;
    std::lock_guard<std::mutex> lock(shared_->mutex);
    auto at = shared_->allocations.upper_bound(address);
    if (at == shared_->allocations.begin()) return false;
    --at;
    return SpanWithin(address - at->first, size, at->second);
  }

 private:
  std::shared_ptr<GlobalMemory::Shared> shared_;
  std::shared_ptr<SnapshotState> state_;
};

}  // namespace

GlobalMemory::GlobalMemory() : GlobalMemory(Limits{}) {}
GlobalMemory::GlobalMemory(Limits limits) : shared_(std::make_shared<Shared>(limits)) {}
GlobalMemory::~GlobalMemory() = default;

void GlobalMemory::Allocate(uint64_t address, uint64_t size) {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->allocations[address] = size;
  shared_->known.Remove(address, SpanEnd(address, size));
  shared_->Changed();
}

void GlobalMemory::Free(uint64_t address) {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  const auto found = shared_->allocations.find(address);
  if (found == shared_->allocations.end()) return;
  const uint64_t end = SpanEnd(address, found->second);
  shared_->allocations.erase(found);
  shared_->known.Remove(address, end);
  shared_->ForEachLive([&](SnapshotState& state) { state.known.Remove(address, end); });
  shared_->Changed();
}

void GlobalMemory::BeforeWrite(uint64_t address, uint64_t size) {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  const uint64_t end = SpanEnd(address, size);
  uint64_t held = shared_->SnapshotBytes();
  shared_->ForEachLive([&](SnapshotState& state) {
    for (const auto& [first, last] : state.known.Within(address, end))
      for (const auto& [from, to] : Outside(state.saved_ranges, first, last)) {
        // The chunk, its entry and its range's: counted before they are made.
        const uint64_t cost = (to - from) + 2 * kEntryBytes;
        if (held + cost > shared_->limits.max_snapshot_bytes) {
          state.known.Remove(from, to);  // unknown to it, rather than unbounded
          held += kEntryBytes;           // a range Remove may split in two
          continue;
        }
        held += cost;
        const auto* bytes = static_cast<const uint8_t*>(AsPointer(from));
        state.saved.emplace(from, std::vector<uint8_t>(bytes, bytes + (to - from)));
        state.saved_ranges.Add(from, to);
        state.saved_bytes += to - from;
      }
  });
}

bool GlobalMemory::WroteKnown(uint64_t address, uint64_t size) {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->InAllocations(address, size,
                         [&](uint64_t first, uint64_t last) { shared_->known.Add(first, last); });
  shared_->Changed();
  return shared_->KeepBounded();
}

void GlobalMemory::WroteUnknown(uint64_t address, uint64_t size) {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->known.Remove(address, SpanEnd(address, size));
  shared_->Changed();
}

bool GlobalMemory::Copied(uint64_t destination, uint64_t source, uint64_t size) {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  const std::vector<std::pair<uint64_t, uint64_t>> known =
      shared_->known.Within(source, SpanEnd(source, size));
  shared_->known.Remove(destination, SpanEnd(destination, size));
  for (const auto& [first, last] : known)
    shared_->InAllocations(destination + (first - source), last - first,
                           [&](uint64_t from, uint64_t to) { shared_->known.Add(from, to); });
  shared_->Changed();
  return shared_->KeepBounded();
}

void GlobalMemory::ForgetAll(const std::string& why) {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->known.clear();
  shared_->why_forgotten = why;
  shared_->Changed();
}

std::string GlobalMemory::WhyForgotten() const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->why_forgotten;
}

std::shared_ptr<const KnownMemory> GlobalMemory::Snapshot() {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  if (std::shared_ptr<const KnownMemory> latest = shared_->latest.lock()) return latest;
  auto state = std::make_shared<SnapshotState>();
  // A copy that would pass what the snapshots may hold is not made: the launch finds nothing known.
  if (shared_->SnapshotBytes() + shared_->known.size() * kEntryBytes <= shared_->limits.max_snapshot_bytes)
    state->known = shared_->known;
  shared_->live.push_back(state);
  std::shared_ptr<const KnownMemory> view = std::make_shared<SnapshotView>(shared_, std::move(state));
  shared_->latest = view;
  return view;
}

bool GlobalMemory::Known(uint64_t address, uint64_t size) const {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return SpanFits(address, size) && shared_->known.Contains(address, address + size);
}

bool MayWriteGlobal(const Instruction& instruction) {
  if (StopsEmulation(instruction)) return true;  // not understood, or a call out of the kernel: anything
  return MayWriteGlobal(instruction.info->semantics, instruction.info->memory);
}

bool MayWriteGlobal(const Kernel& kernel) {
  return std::any_of(kernel.code.begin(), kernel.code.end(),
                     [](const Instruction& instruction) { return MayWriteGlobal(instruction); });
}

bool KnownLoad(const Instruction& instruction, const KnownMemory& memory, uint64_t address,
               bool kernel_writes_global, uint8_t* bytes) {
  const MemoryOp& op = instruction.memory_op;
  if (op.memory != Memory::kGlobal || op.access != Access::kLoad || op.form != AddressForm::kWide)
    return false;
  // ld.global.nc promises the bytes do not change while the kernel runs; any other load reads
  // them as the launch found them only when no instruction of the kernel may write global memory.
  if (kernel_writes_global && !instruction.Is(mod::kConstant)) return false;
  if (address % op.bytes != 0) return false;  // the GPU faults
  return memory.Read(address, op.bytes, bytes);
}

}  // namespace internal
}  // namespace bankcheck::emulate
