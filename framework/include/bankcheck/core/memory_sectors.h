#pragma once
// The sector model of global and local memory (docs/model.md, "Global and local memory"): what one
// warp instruction's active lanes cost in 32-byte sectors, as the H200 counts them
// (smsp__sass_sectors_mem_global / _local, docs/design/memory-traffic.md). The one rule the CPU
// model (`bankcheck predict --op ldg|stg|ldl|stl`) and the emulator both use.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/bank_model.h"

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

// A TMA tensor copy's box (cp.async.bulk.tensor: UTMALDG, UTMASTG), as its tensor map gives it:
// the tensor's global address, rank (1 to 5), element size, dimensions (elements) and the byte
// strides of dimensions 1 and up (strides[0] is not used: dimension 0 is contiguous), the box's
// size per dimension and its first coordinates, which may lie before or past the tensor.
struct TensorBox {
  uint64_t address = 0;
  uint32_t rank = 0;
  uint32_t element_bytes = 0;
  std::array<uint64_t, 5> dims{};
  std::array<uint64_t, 5> strides{};
  std::array<uint32_t, 5> box{};
  std::array<int64_t, 5> at{};
};

// The global sectors a TMA copy moves (kinds global_tma_ld, global_tma_st), as the H100 counts them
// (l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld, l1tex__m_l1tex2xbar_write_sectors_mem_
// global_op_tma_st; docs/counters.md, "TMA"). `undecided` says why the count is not known (empty
// when it is).
struct TmaSectors {
  uint64_t sectors = 0;
  std::string undecided;
  bool decided() const { return undecided.empty(); }
};

// A contiguous run of global bytes as the copy engine moves it: in pieces of up to 128 bytes from
// its first byte, each piece the 32-byte sectors it touches (256 bytes 16 past a sector: 10
// sectors, not 9). A bulk copy (cp.async.bulk: UBLKCP) is one run.
uint64_t CopyRunSectors(uint64_t address, uint64_t bytes);

// A box is copied row by row (a row: the box's extent in dimension 0 at one index of the others),
// each row a run (CopyRunSectors) at its address, rows never sharing a sector. A load reads every
// row of the box, the parts out of the tensor too: a row whose other coordinates lie in the tensor
// at its address (whatever part of dimension 0 lies outside), a row outside as if it began on a
// sector. A store writes only the tensor's part of each row: its part of dimension 0, rows outside
// nothing. Undecided: a loaded row inside in its other coordinates but wholly outside in dimension 0
// (not measured), and boxes of more than 2^20 rows. Throws Error(kBadInput) for a rank outside 1-5,
// an element size other than 1, 2, 4 or 8, or a box dimension of 0.
TmaSectors TensorBoxSectors(const TensorBox& box, bool store);

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
