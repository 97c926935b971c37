// TMA loads and the mbarriers that wait for them, as nvcc 13 emits them for sm_90 (CuTe's
// SM90_TMA_LOAD, kernels/wgmma_layouts.cu): UTMALDG completes when it runs (the copy engine writes
// shared memory outside the LSU pipe: no shared kind costs it, and shared memory's contents are
// never known here), its global reads costed from its tensor map where the map is the stand-in
// runtime's and is read (CostTensorCopy); SYNCS.EXCH.64 initializes an mbarrier,
// SYNCS.ARRIVE.TRANS64 arrives on it (expecting transaction bytes), SYNCS.PHASECHK.TRANS64.TRYWAIT
// tests a phase; ELECT picks the lane that issues the copy. A block's warps run one after another,
// so a wait for a phase that an arrival of a later warp would complete is undecided; the bytes a
// completed copy delivers are taken to be those expected (were they fewer, the GPU would wait for
// ever).

#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/memory_sectors.h"
#include "core/platform/span_bounds.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/sm90.h"
#include "emulate/internal/tensor_map.h"

namespace bankcheck::emulate::internal {
namespace {

// nvcc's mbarrier.init of `count` arrivals writes (2^20 - count) << 1 in the low word and
// (2^20 - count) << 11 in the high word (SASS: UIADD3 URa, -count, 0x100000, then two shifts).
constexpr uint32_t kMbarrierCountLimit = 1u << 20;

}  // namespace

void LaunchEvaluator::Asynchronous(const Instruction& in, size_t index, uint32_t mask) {
  const uint32_t lanes = Decide(in, mask, "whether it runs");
  if (lanes == 0) return;
  if (in.info->semantics != Semantics::kElect) memory_.TensorCopyOrMbarrier(in);
  switch (in.info->semantics) {
    case Semantics::kTensorLoad:
      // UTMALDG.<n>D [shared, mbarrier, coordinates], [tensor map][, desc]: a tile, no multicast or
      // im2col.
      if (in.modifiers.size() != 1)
        Stop(in, in.opcode + " is a tensor copy the emulator does not understand");
      ++tensor_copies_;
      CostTensorCopy(in, index, /*store=*/false);
      return;
    case Semantics::kMbarrier:
      Mbarrier(in, index, lanes);
      return;
    default:
      Elect(in, index, lanes);
      return;
  }
}

std::optional<std::string> LaunchEvaluator::TensorMapBytes(uint64_t address, uint8_t* out) const {
  using bankcheck::internal::SpanWithin;
  if (sm90::InParameterWindow(address)) {
    // A __grid_constant__ map: its bytes are the launch's arguments, which never change.
    const uint64_t offset = static_cast<uint32_t>(address), base = kernel_.info.param_base;
    if (offset < base || !SpanWithin(offset - base, kTensorMapBytes, launch_.param_bytes.size()))
      return std::string("the tensor map's address is not that of a kernel parameter");
    std::memcpy(out, launch_.param_bytes.data() + (offset - base), kTensorMapBytes);
    return std::nullopt;
  }
  // A map in global memory: read as the launch found it, where no instruction of the kernel may write
  // global memory (as a load other than ld.global.nc reads known memory, global_memory.h).
  if (address % kTensorMapAlignment != 0)
    return std::string("the tensor map's address is not aligned to 64 bytes (the GPU faults)");
  if (launch_.memory == nullptr || kernel_writes_global_ ||
      !launch_.memory->Read(address, kTensorMapBytes, out))
    return std::string("the tensor map's bytes in global memory are not known") +
           (kernel_writes_global_ ? " (the kernel may write global memory)" : "");
  return std::nullopt;
}

// UTMALDG.<n>D [URa], [URm][, desc[URp]]: URa the shared destination, URa+1 the mbarrier, URa+2 on
// the n coordinates (signed, dimension 0 first); URm:URm+1 the map's generic address; desc[URp] a
// cache policy, which moves no other bytes. One copy per warp that runs it (a uniform instruction),
// as smsp__sass_inst_executed_op_tma_ld counts; its sectors the box rule's for the map's box at
// the coordinates. Anything not known leaves the launch's TMA kinds not counted, saying why.
void LaunchEvaluator::CostTensorCopy(const Instruction& in, size_t index, bool store) {
  const MemoryKind kind = store ? MemoryKind::kGlobalTmaStore : MemoryKind::kGlobalTmaLoad;
  if (sectors_not_counted_[kind]) return;
  const std::vector<Operand>& ops = in.operands;
  const uint32_t rank = in.memory_op.tensor_rank;
  if (rank == 0)
    return TensorCopiesNotCounted(Located(in) +
                                  " is a tensor copy whose operands the emulator does not read");
  const Value low = warp_->uniform[ops[1].uniform_base], high = warp_->uniform[ops[1].uniform_base + 1];
  for (const Value& value : {low, high})
    if (!value.known())
      return TensorCopiesNotCounted(OriginText(kernel_, value.origin) +
                                    " feeds the tensor map's address of " + Located(in));
  if (low.block.any() || high.block.any()) not_affine_ = true;  // another block may copy with another map
  std::array<uint8_t, kTensorMapBytes> bytes{};
  if (const std::optional<std::string> why =
          TensorMapBytes(uint64_t{high.bits} << 32 | low.bits, bytes.data()))
    return TensorCopiesNotCounted(*why + " (" + Located(in) + ")");
  const std::optional<StandInTensorMap> map = ReadStandInTensorMap(bytes.data());
  if (!map)
    return TensorCopiesNotCounted("the tensor map of " + Located(in) +
                                  " is not in the stand-in runtime's layout (a map the driver encoded, or "
                                  "bytes the program wrote): its box is not known");
  if (const std::optional<std::string> why = UncostedTensorMap(*map))
    return TensorCopiesNotCounted(Located(in) + ": " + *why);
  if (map->rank != rank)
    return TensorCopiesNotCounted(Located(in) + " copies a box of rank " + std::to_string(rank) +
                                  " with a tensor map of rank " + std::to_string(map->rank));
  std::array<int32_t, kTensorMapMaxRank> at{};
  for (uint32_t i = 0; i < rank; ++i) {
    const Value coordinate = warp_->uniform[ops[0].uniform_base + 2 + static_cast<int>(i)];
    if (!coordinate.known())
      return TensorCopiesNotCounted(OriginText(kernel_, coordinate.origin) + " feeds coordinate " +
                                    std::to_string(i) + " of " + Located(in));
    // Another block's box may cost other sectors (at an edge): every block is evaluated.
    if (coordinate.block.any()) not_affine_ = true;
    at[i] = static_cast<int32_t>(coordinate.bits);
  }
  TmaSectors cost;
  try {
    cost = TensorBoxSectors(BoxOf(*map, at), store);
  } catch (const Error& error) {
    return TensorCopiesNotCounted("the box of " + Located(in) + ": " + error.what());
  }
  if (!cost.decided()) return TensorCopiesNotCounted("the box of " + Located(in) + ": " + cost.undecided);
  Count(index, kind, cost.sectors, 0);
}

void LaunchEvaluator::Mbarrier(const Instruction& in, size_t index, uint32_t lanes) {
  const std::vector<Operand>& ops = in.operands;
  const bool init = in.modifiers.size() == 2 && in.Is(mod::kExch) && in.Is(mod::k64);
  const bool arrive = in.modifiers.size() == 2 && in.Is(mod::kArrive) && in.Is(mod::kTrans64);
  const bool wait =
      in.modifiers.size() == 3 && in.Is(mod::kPhasechk) && in.Is(mod::kTrans64) && in.Is(mod::kTrywait);
  if ((!init && !arrive && !wait) || ops.size() != 3 || ops[1].kind != OperandKind::kMemory ||
      ((init || arrive) && !(IsRegister(ops[0]) && ops[0].index == ZeroRegister(ops[0].kind))) ||
      (wait && ops[0].kind != OperandKind::kPredicate))
    Stop(in, in.opcode + " is an mbarrier operation the emulator does not understand");
  const Operand& address = ops[1];
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    const LaneAddress read = ReadAddress(address, AddressForm::kOffset, lane);
    const Value& where = read.value;
    if (!where.known()) StopOnUnknown(in, where, "the mbarrier's address");
    if (read.block_dependent) not_affine_ = true;
    if (init) {
      const Value low = Read(ops[2], lane, index);
      const Value high =
          ops[2].kind == OperandKind::kUniformRegister && ops[2].index + 1 < kUniformRegisterZero
              ? warp_->uniform[ops[2].index + 1]
              : Unknown(Origin(index));
      if (!low.known() || !high.known())
        StopOnUnknown(in, low.known() ? high : low, "the mbarrier's arrival count");
      const uint32_t pending = low.bits >> 1;
      if ((low.bits & 1u) != 0 || pending == 0 || pending >= kMbarrierCountLimit ||
          high.bits != pending << 11)
        Stop(in, Located(in) + " initializes an mbarrier with a value the emulator does not decode");
      MbarrierState& state = mbarriers_[where.bits];
      state = MbarrierState{};
      state.count = state.pending = kMbarrierCountLimit - pending;
      continue;
    }
    const auto found = mbarriers_.find(where.bits);
    if (found == mbarriers_.end())
      Stop(in, Located(in) + " uses an mbarrier that no warp of the block evaluated before it initialized");
    MbarrierState& state = found->second;
    if (arrive) {
      const Value bytes = Read(ops[2], lane, index);
      if (!bytes.known() || bytes.bits != 0) {
        state.expects_bytes = true;
        state.copies_at_expect = tensor_copies_;
      }
      if (--state.pending == 0) {
        ++state.phase;
        state.pending = state.count;
      }
      continue;
    }
    const Value parity = Read(ops[2], lane, index);
    if (!parity.known()) StopOnUnknown(in, parity, "the phase it waits for");
    if ((state.phase & 1u) == (parity.bits & 1u))
      Stop(in, Located(in) +
                   " waits for an mbarrier phase that no warp evaluated before it completes (the emulator "
                   "runs a block's warps one after another)");
    if (state.expects_bytes && tensor_copies_ == state.copies_at_expect)
      Stop(in, Located(in) + " waits for transaction bytes that no tensor copy evaluated before it delivers");
    Writes(*warp_, lane, Known(1)).Add(ops[0], Known(1));
  }
}

// ELECT Pd, URd, Ps: Pd holds for the leader among the lanes whose Ps holds, URd gets its lane. One
// candidate is the leader; among several the hardware's choice is not documented, so Pd and URd are
// unknown then.
void LaunchEvaluator::Elect(const Instruction& in, size_t index, uint32_t lanes) {
  const std::vector<Operand>& ops = in.operands;
  if (ops.size() != 3 || !IsPredicate(ops[0]) || ops[1].kind != OperandKind::kUniformRegister ||
      !IsPredicate(ops[2]))
    Stop(in, in.opcode + " is an election the emulator does not understand");
  uint32_t candidates = 0;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    const Value holds = ReadPredicate(ops[2], lane);
    if (!holds.known()) StopOnUnknown(in, holds, "which lanes take part");
    if (holds.bits) candidates |= 1u << lane;
  }
  const bool one = candidates != 0 && (candidates & (candidates - 1)) == 0;
  const int leader = one ? __builtin_ctz(candidates) : -1;
  for (int lane = 0; lane < kWarpSize; ++lane) {
    if (!(lanes >> lane & 1u)) continue;
    Writes out(*warp_, lane, Known(1));
    out.Add(ops[0], candidates == 0 ? Known(0)
                    : one           ? Known(lane == leader ? 1 : 0)
                                    : Unknown(Origin(index)));
  }
  Writes(*warp_, __builtin_ctz(lanes), Known(1))
      .Add(ops[1], one ? Known(static_cast<uint32_t>(leader)) : Unknown(Origin(index)));
}

}  // namespace bankcheck::emulate::internal
