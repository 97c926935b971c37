#include "bankcheck/core/memory_sectors.h"

#include <algorithm>
#include <string>
#include <utility>

#include "bankcheck/core/error.h"

namespace bankcheck {
namespace {

// A thread's local memory is far smaller than this; past it LocalAddress would overflow.
constexpr uint64_t kMaxLocalOffset = uint64_t{1} << 40;

void CheckAccess(const WarpAccess& access, bool local) {
  const uint32_t bytes = access.bytes;
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16)
    throw Error(ErrorKind::kBadInput,
                "an access of " + std::to_string(bytes) + " bytes per lane: give 1, 2, 4, 8 or 16");
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (access.active(lane) && access.addresses[lane] > UINT64_MAX - bytes)
      throw Error(ErrorKind::kBadInput, "lane " + std::to_string(lane) + "'s bytes pass the end of memory");
    else if (local && access.active(lane) && access.addresses[lane] >= kMaxLocalOffset)
      throw Error(ErrorKind::kBadInput,
                  "lane " + std::to_string(lane) +
                      "'s local offset is past 2^40 bytes: give offsets in a thread's local memory");
}

// The copy engine moves a run in pieces of this many bytes from its first (H100, docs/counters.md).
constexpr uint64_t kCopyPieceBytes = 128;
// More rows than any box of 256 by 256 by 16 has; past it a box is not counted row by row.
constexpr uint64_t kMaxBoxRows = uint64_t{1} << 20;

uint64_t Mod32(int64_t value) { return static_cast<uint64_t>((value % 32 + 32) % 32); }

// Every active lane's byte ranges [first, last] in the memory the sectors are of: one per lane for
// global memory; for local memory one per 4-byte word (a word's bytes stay together).
std::vector<std::pair<uint64_t, uint64_t>> Ranges(const WarpAccess& access, bool local) {
  CheckAccess(access, local);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!access.active(lane)) continue;
    const uint64_t first = access.addresses[lane], end = first + access.bytes;
    if (!local) {
      ranges.emplace_back(first, end - 1);
      continue;
    }
    for (uint64_t at = first; at < end; at = (at / 4 + 1) * 4) {
      const uint64_t word_end = std::min(end, (at / 4 + 1) * 4);
      ranges.emplace_back(LocalAddress(lane, at), LocalAddress(lane, word_end - 1));
    }
  }
  return ranges;
}

}  // namespace

uint64_t LocalAddress(int lane, uint64_t offset) {
  return offset / 4 * (kWarpSize * 4) + static_cast<uint64_t>(lane) * 4 + offset % 4;
}

std::vector<uint64_t> SectorsTouched(const WarpAccess& access, bool local) {
  std::vector<uint64_t> sectors;
  for (const auto& [first, last] : Ranges(access, local))
    for (uint64_t sector = first / kSectorBytes; sector <= last / kSectorBytes; ++sector)
      sectors.push_back(sector);
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  return sectors;
}

SectorCost GlobalSectors(const WarpAccess& access) {
  CheckAccess(access, false);
  // The distinct sectors SectorsTouched lists, counted on the stack (the emulator costs every global
  // access it runs): a lane's bytes, at most 16, lie in at most two sectors.
  uint64_t sectors[2 * kWarpSize];
  size_t touched = 0;
  // The ideal counts every lane's bytes, the same bytes again for each lane that reads them, but
  // never more sectors than the access touches: all lanes on one word cost 1, while lanes that
  // share words spread over several sectors cost more than their distinct bytes (docs/counters.md).
  uint64_t lane_bytes = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!access.active(lane)) continue;
    const uint64_t first = access.addresses[lane], last = first + access.bytes - 1;
    for (uint64_t sector = first / kSectorBytes; sector <= last / kSectorBytes; ++sector)
      sectors[touched++] = sector;
    lane_bytes += access.bytes;
  }
  std::sort(sectors, sectors + touched);
  SectorCost cost;
  cost.sectors = static_cast<uint64_t>(std::unique(sectors, sectors + touched) - sectors);
  cost.ideal = std::min<uint64_t>(cost.sectors, (lane_bytes + kSectorBytes - 1) / kSectorBytes);
  return cost;
}

SectorCost CopySourceSectors(const WarpCopy& copy) {
  WarpAccess sources;
  sources.bytes = copy.destination.bytes;
  for (int lane = 0; lane < kWarpSize; ++lane)
    if (copy.destination.active(lane)) sources.SetLane(lane, copy.sources[lane]);
  SectorCost cost = GlobalSectors(sources);
  if (sources.bytes != kCopyChunkBytes) return cost;
  cost.sectors = 0;
  for (int first = 0; first < kWarpSize; first += kCopyPhaseLanes) {
    const uint32_t phase = (sources.active_mask >> first) & kCopyPhaseMask;
    if (phase == 0) continue;
    const bool row = IsRowCopy(copy.destination.addresses.data() + first, copy.sources.data() + first, phase);
    WarpAccess read;  // the lanes read together: the row's, or one lane
    read.bytes = sources.bytes;
    for (int lane = 0; lane < kCopyPhaseLanes; ++lane) {
      if (!(phase >> lane & 1u)) continue;
      read.SetLane(first + lane, copy.sources[first + lane]);
      if (row) continue;
      cost.sectors += GlobalSectors(read).sectors;
      read.active_mask = 0;
    }
    if (row) cost.sectors += GlobalSectors(read).sectors;
  }
  return cost;
}

uint64_t CopyRunSectors(uint64_t address, uint64_t bytes) {
  uint64_t sectors = 0;
  for (uint64_t done = 0; done < bytes; done += kCopyPieceBytes) {
    // Only where the piece starts within its sector matters: the sum cannot overflow.
    const uint64_t first = (address + done) % kSectorBytes;
    const uint64_t last = first + std::min(kCopyPieceBytes, bytes - done) - 1;
    sectors += last / kSectorBytes + 1;
  }
  return sectors;
}

TmaSectors TensorBoxSectors(const TensorBox& box, bool store) {
  const uint32_t eb = box.element_bytes;
  if (box.rank < 1 || box.rank > box.dims.size())
    throw Error(ErrorKind::kBadInput, "a tensor box of rank " + std::to_string(box.rank) + ": give 1 to 5");
  if (eb != 1 && eb != 2 && eb != 4 && eb != 8)
    throw Error(ErrorKind::kBadInput,
                "tensor elements of " + std::to_string(eb) + " bytes: give 1, 2, 4 or 8");
  uint64_t rows = 1;
  for (uint32_t i = 0; i < box.rank; ++i) {
    if (box.box[i] == 0)
      throw Error(ErrorKind::kBadInput, "a tensor box of 0 elements in dimension " + std::to_string(i));
    if (i > 0) rows *= box.box[i];
  }
  TmaSectors cost;
  if (rows > kMaxBoxRows) {
    cost.undecided = "a box of " + std::to_string(rows) + " rows, more than are counted row by row";
    return cost;
  }
  const int64_t x = box.at[0], end = x + box.box[0], width = static_cast<int64_t>(box.dims[0]);
  // Only where a row starts within its sector matters (the strides are multiples of 16 bytes).
  const uint64_t base = box.address % kSectorBytes;
  std::array<uint32_t, 5> index{};  // the row's index in dimensions 1 and up
  for (uint64_t row = 0; row < rows; ++row) {
    bool inside = true;
    uint64_t start = base;
    for (uint32_t i = 1; i < box.rank; ++i) {
      const int64_t c = box.at[i] + index[i];
      inside = inside && c >= 0 && static_cast<uint64_t>(c) < box.dims[i];
      start += Mod32(c) * (box.strides[i] % kSectorBytes);
    }
    for (uint32_t i = 1; i < box.rank && ++index[i] == box.box[i]; ++i) index[i] = 0;
    if (!inside) {
      if (!store) cost.sectors += CopyRunSectors(0, uint64_t{box.box[0]} * eb);
      continue;
    }
    const int64_t first = store ? std::max<int64_t>(x, 0) : x, last = store ? std::min(end, width) : end;
    if (x >= width || end <= 0) {
      if (!store)
        cost.undecided = "a loaded box row wholly outside the tensor's first dimension (not measured)";
      continue;
    }
    cost.sectors += CopyRunSectors(start + Mod32(first) * eb, static_cast<uint64_t>(last - first) * eb);
  }
  return cost;
}

SectorCost LocalSectors(const WarpAccess& access) {
  SectorCost cost;
  cost.sectors = SectorsTouched(access, true).size();
  return cost;
}

}  // namespace bankcheck
