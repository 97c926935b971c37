#include "bankcheck/memory_sectors.h"

#include <algorithm>
#include <string>
#include <utility>

#include "bankcheck/error.h"

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
  SectorCost cost;
  cost.sectors = SectorsTouched(access, false).size();
  // The ideal counts every lane's bytes, the same bytes again for each lane that reads them, but
  // never more sectors than the access touches: all lanes on one word cost 1, while lanes that
  // share words spread over several sectors cost more than their distinct bytes (docs/counters.md).
  uint64_t lane_bytes = 0;
  for (const auto& [first, last] : Ranges(access, false)) lane_bytes += last + 1 - first;
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

SectorCost LocalSectors(const WarpAccess& access) {
  SectorCost cost;
  cost.sectors = SectorsTouched(access, true).size();
  return cost;
}

}  // namespace bankcheck
