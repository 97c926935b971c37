// Global and local costing: an executed global, local or generic access's lane addresses given to
// the core's sector rule (memory_sectors.h). Where an address, or whether a lane runs, is not known
// (a pointer loaded from memory, the local window of a generic address), or an address is the
// kernel's parameters' (sm90.h's parameter window: no counter was measured for it), the launch's
// kinds of that memory are not counted, with a note, and its shared-memory counts stay decided: never
// a guess. TMA's kinds, launch totals costed from the tensor map (semantics_async.cc), have their own.

#include <algorithm>
#include <optional>
#include <string>

#include "bankcheck/core/error.h"
#include "bankcheck/core/memory_sectors.h"
#include "emulate/internal/cluster.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {
namespace {

// Whether another block counted with this one (block_groups.h) has this block's sectors: every
// lane's address moves by the same step . (c - this block), which keeps each local lane's word
// order when a multiple of 4 bytes; a global access's sectors are checked at every shift that step
// can make modulo 32 bytes (a multiple of the largest power of 2 dividing it and 32). Global
// addresses are followed in their low word: modulo 2^32 it moves as the 64-bit address does, and
// 2^32 is a multiple of 32.
bool SameInEveryBlock(const WarpAccess& access, const BlockDependence& moves, bool local) {
  uint32_t granule = kSectorBytes;
  for (uint32_t step : moves.step)
    if (step != 0) granule = std::min(granule, step & (0u - step));  // its lowest set bit
  if (local) return granule % 4 == 0;
  const uint64_t sectors = GlobalSectors(access).sectors;
  for (uint32_t shift = granule; shift < kSectorBytes; shift += granule) {
    WarpAccess moved = access;
    for (uint64_t& address : moved.addresses) address += shift;
    if (GlobalSectors(moved).sectors != sectors) return false;
  }
  return true;
}

// Marks the kinds `which` selects not counted, and says whether one already was (its note written).
template <typename Which>
bool MarkNotCounted(PerKind<bool>& not_counted, const Which& which) {
  bool already = false;
  for (const MemoryKindInfo& info : MemoryKinds())
    if (which(info)) {
      already = already || not_counted[info.kind];
      not_counted[info.kind] = true;
    }
  return already;
}

}  // namespace

void LaunchEvaluator::NotCounted(MemorySpace space, const std::string& why) {
  if (!MarkNotCounted(sectors_not_counted_, [&](const MemoryKindInfo& info) {
        return info.space == space && SassMetricsCount(info);
      }))
    sector_notes_.push_back(std::string(space == MemorySpace::kGlobal ? "global" : "local") +
                            " memory not counted: " + why);
}

void LaunchEvaluator::TensorCopiesNotCounted(const std::string& why) {
  if (!MarkNotCounted(sectors_not_counted_,
                      [](const MemoryKindInfo& info) { return !SassMetricsCount(info); }))
    sector_notes_.push_back("TMA copies' global traffic not counted: " + why);
}

void LaunchEvaluator::CostSectors(const Instruction& in, size_t index, uint32_t mask) {
  const MemoryKind kind = *SectorKindOf(in.info->semantics, in.info->memory);
  const MemorySpace space = InfoOf(kind).space;
  if (sectors_not_counted_[kind]) return;
  const MemoryOp& op = in.memory_op;
  const bool generic = op.generic, local = space == MemorySpace::kLocal;
  const bool clustered = launch_.cluster != Dim3{};
  const auto where = [&] { return " of " + Located(in); };  // only for a note: most accesses need none
  if (op.form != AddressForm::kOffset && op.form != AddressForm::kWide)
    return NotCounted(space, "the address" + where() + " is a form the emulator does not read");
  const Operand& address = in.operands[static_cast<size_t>(op.address)];
  WarpAccess access;
  access.bytes = op.bytes;
  std::optional<BlockDependence> moves;  // the first lane's dependence on the block
  bool varies = false;                   // another lane's differs
  bool in_shared_window = false;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const Value guard = Guard(in, lane);
    if (guard.known() && !guard.bits) continue;
    if (!guard.known()) return NotCounted(space, "whether a lane runs" + where() + " is not known");
    const LaneAddress read = ReadAddress(address, op.form, lane);
    if (!read.value.known())
      return NotCounted(space, OriginText(kernel_, read.value.origin) + " feeds the address" + where());
    const uint64_t bits = read.bits;
    if (generic && static_cast<uint32_t>(bits >> 32) == sm90::kSharedWindowHighWord) {
      in_shared_window = true;
      continue;
    }
    if (!local && sm90::InParameterWindow(bits))
      return NotCounted(space, Located(in) +
                                   " reaches the kernel's parameters through their generic address, whose "
                                   "traffic no counter was measured for");
    if (moves && !(*moves == read.value.block)) varies = true;
    if (!moves) moves = read.value.block;
    access.SetLane(lane, bits);
  }
  if (in_shared_window) {
    // Another block's shared memory: counted as distributed shared memory (GenericAccess).
    if (access.active_mask != 0)
      NotCounted(space, Located(in) + " reaches shared and global memory with different lanes");
    return;
  }
  if (access.active_mask == 0) return;
  if (generic && clustered)
    return NotCounted(space, Located(in) +
                                 " is a generic access in a launch with clusters, whose row is "
                                 "distributed shared memory's");
  SectorCost cost;
  try {
    cost = local ? LocalSectors(access) : GlobalSectors(access);
    // Only blocks counted with this one (grouping on, its dependence followed) need its sectors.
    if (!not_affine_ && limits_.group_blocks && moves->any() &&
        (varies || moves->other || !SameInEveryBlock(access, *moves, local)))
      return NotCounted(space,
                        "the address" + where() +
                            " moves with the block so that blocks counted together could differ in sectors");
  } catch (const Error& error) {
    return NotCounted(space, "the access" + where() + ": " + error.what());
  }
  Count(index, kind, cost.sectors, cost.ideal);
}

void LaunchEvaluator::CostCopySources(const Instruction& in, size_t index, const WarpCopy& copy) {
  constexpr MemoryKind kind = MemoryKind::kGlobalCpAsync;
  if (sectors_not_counted_[kind]) return;
  // Every source was read (ReadSources stops the launch on an unknown one, and on the zero-fill
  // form, whose bytes read a register gives); one that depends on the block makes every block
  // evaluated, so each block's sectors are its own.
  SectorCost cost;
  try {
    cost = CopySourceSectors(copy);
  } catch (const Error& error) {
    return NotCounted(MemorySpace::kGlobal, "the global source of " + Located(in) + ": " + error.what());
  }
  Count(index, kind, cost.sectors, cost.ideal);
}

void LaunchEvaluator::Count(size_t index, MemoryKind kind, uint64_t wavefronts, uint64_t ideal) {
  Row& row = rows_[{index, kind}];
  ++row.executions;
  row.wavefronts += wavefronts;
  row.ideal += ideal;
}

}  // namespace bankcheck::emulate::internal
