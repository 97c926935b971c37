#pragma once
// The sector model of global and local memory (docs/model.md, "Global and local memory"): what one
// warp instruction's active lanes cost in 32-byte sectors, as the H200 counts them
// (smsp__sass_sectors_mem_global / _local, docs/design/memory-traffic.md). The one rule the CPU
// model (`bankcheck predict --op ldg|stg|ldl|stl`) and the emulator both use.

#include <cstdint>
#include <vector>

#include "bankcheck/bank_model.h"

namespace bankcheck {

inline constexpr uint32_t kSectorBytes = 32;

// One warp instruction's sectors, and the fewest its bytes could take (global memory only).
struct SectorCost {
  uint64_t sectors = 0;  // distinct 32-byte sectors the active lanes' bytes touch
  uint64_t ideal = 0;    // ceil(lane bytes / 32), a sector's at most 32; 0 for local memory
  friend bool operator==(const SectorCost& a, const SectorCost& b) {
    return a.sectors == b.sectors && a.ideal == b.ideal;
  }
};

// A global access: each active lane's bytes [address, address + bytes), over the whole warp (not
// per quarter-warp). The ideal counts each lane's bytes (the same bytes again for every lane that
// reads them), each sector's at most 32: ceil(sum over the sectors touched of min(32, the lanes'
// bytes in it) / 32). Without lanes that share bytes that is ceil(distinct bytes / 32). Throws
// Error(kBadInput) for a width other than 1, 2, 4, 8 or 16 bytes or an address whose bytes pass
// 2^64.
SectorCost GlobalSectors(const WarpAccess& access);

// A cp.async's reads of its global sources (kind global_ldgsts). A 4- or 8-byte copy reads them as
// a global load does (GlobalSectors over the whole warp). A 16-byte copy reads them as its shared
// side is served (bank_model.h, IsRowCopy): a phase of 8 lanes that copies one row reads its
// lanes' distinct sectors together; any other phase reads each active lane's sectors apart (on the
// H200, 16 contiguous bytes a lane into shared words 32 bytes apart: 32 sectors a warp, not 16;
// docs/model.md, "cp.async"). The ideal is GlobalSectors'. The same errors as GlobalSectors.
SectorCost CopySourceSectors(const WarpCopy& copy);

// Where byte `offset` of lane `lane`'s local memory lies in the warp's local memory: the threads'
// local memories are interleaved in 4-byte words, lane L's word w at w * 128 + L * 4.
uint64_t LocalAddress(int lane, uint64_t offset);

// A local access: `access.addresses` are the lanes' byte offsets in their own local memory (any
// base common to every lane that is a multiple of 4 gives the same count); each lane's bytes mapped
// by LocalAddress, their distinct sectors counted. `ideal` is 0: the GPU has no ideal for local
// memory. The same errors as GlobalSectors.
SectorCost LocalSectors(const WarpAccess& access);

// The distinct sectors (by index: address / 32) the access touches, ascending: for explaining a
// prediction. `local`: the addresses are local offsets, mapped by LocalAddress.
std::vector<uint64_t> SectorsTouched(const WarpAccess& access, bool local);

}  // namespace bankcheck
