#pragma once
// The CPU bank-conflict model: what one warp-level shared-memory access costs, by the rules in
// shared/research/bank-model.md (Volta and later), and the totals of a whole launch. docs/model.md
// describes the rules, per kind of instruction.
//
// Rules, in short:
//   bank = (byte address / 4) % 32
//   lanes are served in phases of 32 (1-, 2-, 4-byte accesses), 16 (8-byte) or 8 (16-byte) lanes
//   a phase costs the largest number of distinct 4-byte words any one bank holds for it
//   wavefronts = sum over phases; ideal = phases with an active lane; conflicts = the difference
//
// A kernel file declares its access pattern in a few lines:
//
//   c.predict = [] {
//     using bankcheck::Dim3;
//     return bankcheck::PredictLaunch(Dim3{4, 4}, Dim3{32, 32}, {
//         bankcheck::SharedStore("tile[ty][tx]", 4, [](Dim3, Dim3 t) { return 4u * (t.y * 32 + t.x); }),
//         bankcheck::SharedLoad("tile[tx][ty]", 4, [](Dim3, Dim3 t) { return 4u * (t.x * 32 + t.y); }),
//     });
//   };
//
// An address function may take a third argument, the iteration of a loop the instruction sits
// in (give the trip count as `iterations`), and may return std::nullopt for a lane that does not
// execute the instruction.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bankcheck/core/error.h"
#include "bankcheck/core/launch_record.h"
#include "bankcheck/core/memory_kind.h"

namespace bankcheck {

inline constexpr int kWarpSize = 32;
inline constexpr int kSharedBanks = 32;
inline constexpr uint64_t kBankWordBytes = 4;
inline constexpr uint32_t kMatrixRowBytes = 16;  // one row of an 8x8 b16 ldmatrix/stmatrix matrix

// One warp-level shared-memory access: a byte address per lane, which lanes take part, and the
// size each lane accesses.
struct WarpAccess {
  std::array<uint64_t, kWarpSize> addresses{};  // byte addresses; ignored for inactive lanes
  uint32_t active_mask = 0;                     // bit i set: lane i takes part
  uint32_t bytes = 4;                           // 1, 2, 4, 8 or 16

  void SetLane(int lane, uint64_t address) {
    addresses[lane] = address;
    active_mask |= 1u << lane;
  }
  bool active(int lane) const { return (active_mask >> lane) & 1u; }

  // Lanes 0..active_lanes-1 access offset + lane * stride_elements * bytes.
  // Throws Error(kBadInput) if active_lanes > 32 or an address would be negative.
  static WarpAccess Strided(uint32_t bytes, int64_t stride_elements, int active_lanes = kWarpSize,
                            uint64_t offset = 0);
};

// What one warp access costs.
struct WarpCost {
  uint32_t wavefronts = 0;
  uint32_t ideal = 0;      // phases with an active lane
  uint32_t conflicts = 0;  // wavefronts - ideal
  double ways = 1.0;       // wavefronts / ideal; 1.0 when no lane is active

  friend bool operator==(const WarpCost& a, const WarpCost& b) {
    return a.wavefronts == b.wavefronts && a.ideal == b.ideal && a.conflicts == b.conflicts;
  }
  friend bool operator!=(const WarpCost& a, const WarpCost& b) { return !(a == b); }
};

// Lanes served together for an access of `bytes` bytes: 32, 16 or 8.
int LanesPerPhase(uint32_t bytes);

// Throws Error(kBadInput) unless the size is 1, 2, 4, 8 or 16 and every active lane's address is
// a multiple of it.
void ValidateWarpAccess(const WarpAccess& access);

// The hot path: validates and costs one access. Allocates nothing.
WarpCost CostWarpAccess(const WarpAccess& access);

// One bank within one phase: who uses it and for which words.
struct BankUse {
  std::vector<int> lanes;       // active lanes touching the bank, ascending
  std::vector<uint64_t> words;  // distinct 4-byte word indices (byte address / 4), ascending
};

struct PhaseExplanation {
  int first_lane = 0;
  int lane_count = 0;
  int active_lanes = 0;
  uint32_t wavefronts = 0;  // 0 for a phase without active lanes
  // A load's phase served in the previous phase's wavefront (ArePairedLoadPhases): wavefronts 0.
  bool served_with_previous = false;
  int worst_bank = -1;  // the lowest bank with the most distinct words; -1 if idle
  std::array<BankUse, kSharedBanks> banks;
};

// The same cost with the per-phase, per-bank breakdown behind it (for bank maps; allocates).
struct WarpExplanation {
  WarpAccess access;
  WarpCost cost;
  std::vector<PhaseExplanation> phases;
  int worst_phase = -1;  // the first phase with the most wavefronts; -1 if no lane is active
  int worst_bank = -1;   // that phase's worst bank
};

WarpExplanation ExplainWarpAccess(const WarpAccess& access);

// One warp-level cp.async (LDGSTS): each active lane of `destination` copies destination.bytes
// bytes from its global source address to its shared address.
struct WarpCopy {
  WarpAccess destination;
  std::array<uint64_t, kWarpSize> sources{};  // global byte addresses; ignored for inactive lanes
};

// A 16-byte cp.async has a copy rule of its own, in phases of 8 lanes (docs/model.md, "cp.async").
inline constexpr uint32_t kCopyChunkBytes = 16;
inline constexpr int kCopyPhaseLanes = 8;
inline constexpr uint32_t kCopyPhaseMask = (1u << kCopyPhaseLanes) - 1u;

// The lanes of a 16-byte cp.async phase (8 lanes, or fewer active) copy one 128-byte row: their
// shared destinations are distinct 16-byte chunks of one 128-byte-aligned row, and their global
// sources distinct 16-byte pieces of one 128-byte span (8 active lanes: contiguous 128 bytes, in
// any order). Addresses aligned to 16 bytes; lane_mask bits 0-7. A hypothesis fitted to the H100's
// measurements (docs/model.md, "cp.async").
bool IsRowCopy(const uint64_t* destinations, const uint64_t* sources, uint32_t lane_mask);

// What a cp.async costs. 4 and 8 bytes: CostWarpAccess(destination), the bank rule (measured on
// the H100). 16 bytes: lanes in phases of 8; a phase costs 1 wavefront when its lanes copy one row
// (IsRowCopy), otherwise one per active lane; ideal = phases with an active lane.
// Throws Error(kBadInput) as ValidateWarpAccess does, or when a source is not aligned to the size.
WarpCost CostWarpCopy(const WarpCopy& copy);

// ExplainWarpAccess of the destination, each phase costed as CostWarpCopy costs it.
WarpExplanation ExplainWarpCopy(const WarpCopy& copy);

// Whether an 8- or 16-byte load's lanes first..first+2*LanesPerPhase(bytes)-1 (two consecutive
// phases; `first` a multiple of that) are served in one wavefront instead of two: every one of them
// is active, every lane reads the address of lane n^1 (or every lane that of lane n^2), and their
// distinct words lie in distinct banks. Measured on the H100 (docs/model.md, "Paired wide loads"):
// an LDS.128 whose 32 lanes all read one address costs 2 wavefronts and 2 ideal, not 4; a store
// (STS) of the same addresses costs 4.
bool ArePairedLoadPhases(const WarpAccess& access, int first);

// Why CostInstruction of a load or store of 8 or 16 bytes may not be the GPU's count; nullopt when
// it is within what was measured (benchmarks/wide_access_probe.sh): a phase with some of its lanes
// off (the H100 counted fewer wavefronts or ideal than the phases give, in ways no rule tried here
// fits; a phase all off is measured), or a load's pair of phases whose lanes pair up on words that
// share a bank (its ideal).
// Other kinds and sizes: nullopt. The emulator leaves such launches undecided.
std::optional<std::string> UnmeasuredWideAccess(MemoryKind kind, const WarpAccess& access);

// What one warp instruction of `kind` costs, the one entry point for every kind: CostWarpCopy for
// cp.async; CostWarpAccess of the destination for the others, a load's paired phases
// (ArePairedLoadPhases) counted as one wavefront and one ideal wavefront.
WarpCost CostInstruction(MemoryKind kind, const WarpCopy& instruction);

// The same, with the breakdown: the second phase of a paired pair is marked served_with_previous
// and costs 0.
WarpExplanation ExplainInstruction(MemoryKind kind, const WarpCopy& instruction);

// ---------------------------------------------------------------------------------------------
// Launch level.

// What the model predicts for a launch, per kind, with the bank map a failure message can show.
struct PredictedCounts {
  PerKind<KindCounts> kinds;
  std::string bank_map;  // human-readable explanation of the worst access; may be empty

  KindCounts& operator[](MemoryKind kind) { return kinds[kind]; }
  const KindCounts& operator[](MemoryKind kind) const { return kinds[kind]; }
};

// A lane's byte address for one execution of an instruction, or nullopt when the lane does not
// execute it. Arguments: block index, thread index, loop iteration (0 when not in a loop).
using LaneAddressFunction =
    std::function<std::optional<uint64_t>(const Dim3& block, const Dim3& thread, uint32_t iteration)>;

// One shared-memory instruction of a kernel, as the threads of a launch execute it.
struct SharedAccess {
  std::string name;  // what the source says, e.g. "tile[tx][ty]"; shown in bank maps
  MemoryKind kind = MemoryKind::kSharedLoad;
  uint32_t bytes = 4;
  uint32_t iterations = 1;  // how many times each thread executes it (a loop's trip count)
  LaneAddressFunction address;
  // cp.async only: the lane's global source address. Empty: lane i of a warp reads i * bytes, a
  // contiguous source.
  LaneAddressFunction source;
};

namespace internal {
template <typename Int>
uint64_t CheckedAddress(Int address) {
  static_assert(std::is_integral_v<Int>, "an address function returns an integer byte address");
  if constexpr (std::is_signed_v<Int>) {
    if (address < 0) throw Error(ErrorKind::kBadInput, "an address function returned a negative address");
  }
  return static_cast<uint64_t>(address);
}

// Accepts a callable taking (block, thread) or (block, thread, iteration), returning an integer
// byte address or std::optional of one.
template <typename F>
LaneAddressFunction ToLaneAddressFunction(F&& f) {
  using Fn = std::decay_t<F>;
  if constexpr (std::is_invocable_v<Fn&, const Dim3&, const Dim3&, uint32_t>) {
    return [f = Fn(std::forward<F>(f))](const Dim3& b, const Dim3& t, uint32_t i) -> std::optional<uint64_t> {
      auto address = f(b, t, i);
      if constexpr (std::is_integral_v<decltype(address)>) {
        return CheckedAddress(address);
      } else {
        if (!address) return std::nullopt;
        return CheckedAddress(*address);
      }
    };
  } else {
    static_assert(std::is_invocable_v<Fn&, const Dim3&, const Dim3&>,
                  "an address function takes (Dim3 block, Dim3 thread[, uint32_t iteration])");
    return ToLaneAddressFunction(
        [f = Fn(std::forward<F>(f))](const Dim3& b, const Dim3& t, uint32_t) { return f(b, t); });
  }
}
}  // namespace internal

// How each kind is costed (docs/model.md, "Instruction kinds"):
//   loads, stores, shared atomics, 4- and 8-byte cp.async: each active lane accesses `bytes` at
//     its address, costed by the rule above for that size. (Shared-atomic conflicts have no exact
//     counter to check it against.)
//   16-byte cp.async: CostWarpCopy, which takes the global source addresses too.
//   ldmatrix, stmatrix: each 8x8 b16 matrix is 8 rows of 16 bytes, one row address per lane
//     (lanes 0-7 for .x1, 0-15 for .x2, all 32 for .x4): exactly a 16-byte access of the row
//     addresses, one phase of 8 lanes per matrix; ideal = matrices.
// The rest (wgmma operands, distributed shared memory) have no model rule; PredictLaunch still
// costs an access of theirs by its size.

// Any kind: `address` gives each lane's byte address (for ldmatrix/stmatrix, its row's).
template <typename F>
SharedAccess SharedAccessOf(MemoryKind kind, std::string name, uint32_t bytes, F&& address,
                            uint32_t iterations = 1) {
  return SharedAccess{std::move(name),
                      kind,
                      bytes,
                      iterations,
                      internal::ToLaneAddressFunction(std::forward<F>(address)),
                      {}};
}

template <typename F>
SharedAccess SharedLoad(std::string name, uint32_t bytes, F&& address, uint32_t iterations = 1) {
  return SharedAccessOf(MemoryKind::kSharedLoad, std::move(name), bytes, std::forward<F>(address),
                        iterations);
}

template <typename F>
SharedAccess SharedStore(std::string name, uint32_t bytes, F&& address, uint32_t iterations = 1) {
  return SharedAccessOf(MemoryKind::kSharedStore, std::move(name), bytes, std::forward<F>(address),
                        iterations);
}

// An atomic or reduction on shared memory (ATOMS/REDS) of `bytes` bytes per lane.
template <typename F>
SharedAccess SharedAtomic(std::string name, uint32_t bytes, F&& address, uint32_t iterations = 1) {
  return SharedAccessOf(MemoryKind::kSharedAtomic, std::move(name), bytes, std::forward<F>(address),
                        iterations);
}

// cp.async (LDGSTS) of `bytes` bytes per lane: `address` is the lane's shared destination, and
// the source is taken as contiguous (lane i of a warp reads i * bytes).
template <typename F>
SharedAccess CpAsync(std::string name, uint32_t bytes, F&& address, uint32_t iterations = 1) {
  return SharedAccessOf(MemoryKind::kSharedCpAsync, std::move(name), bytes, std::forward<F>(address),
                        iterations);
}

// cp.async with its global source: `source` gives the lane's global byte address, as `address`
// gives its shared one (a 16-byte copy's cost depends on both: CostWarpCopy).
template <typename F, typename G, typename = std::enable_if_t<!std::is_arithmetic_v<std::decay_t<G>>>>
SharedAccess CpAsync(std::string name, uint32_t bytes, F&& address, G&& source, uint32_t iterations = 1) {
  SharedAccess access = CpAsync(std::move(name), bytes, std::forward<F>(address), iterations);
  access.source = internal::ToLaneAddressFunction(std::forward<G>(source));
  return access;
}

// ldmatrix: each lane that supplies a row returns the byte address of its 16-byte row, the others
// std::nullopt (.x1: lanes 0-7 supply rows, .x2: lanes 0-15, .x4: all 32).
template <typename F>
SharedAccess Ldmatrix(std::string name, F&& row_address, uint32_t iterations = 1) {
  return SharedAccessOf(MemoryKind::kSharedLdmatrix, std::move(name), kMatrixRowBytes,
                        std::forward<F>(row_address), iterations);
}

// stmatrix: as Ldmatrix.
template <typename F>
SharedAccess Stmatrix(std::string name, F&& row_address, uint32_t iterations = 1) {
  return SharedAccessOf(MemoryKind::kSharedStmatrix, std::move(name), kMatrixRowBytes,
                        std::forward<F>(row_address), iterations);
}

// Walks every warp of every block (warps are 32 consecutive linear thread ids of a block,
// x fastest; a partial last warp has inactive lanes) through every access, in order, and adds
// each access's counts to predicted[access.kind]. `instructions` counts warp instructions with at
// least one active lane; ideal_provenance stays kExact.
// bank_map is the text bank map of the instruction with the most conflicts (the first one found
// on a tie; the first instruction when none conflicts), with a line saying where it ran.
// A cp.async is costed by CostWarpCopy with its sources (the default source when it has no
// source function).
// Throws Error(kBadInput) for an empty grid or block, a block over 1024 threads, a missing
// address function, a source function on anything but a cp.async, a source function that gives
// no address for an active lane, an ldmatrix/stmatrix whose size is not 16 bytes, or an access
// the model rejects (with the access, block and warp named).
PredictedCounts PredictLaunch(const Dim3& grid, const Dim3& block, const std::vector<SharedAccess>& accesses);

}  // namespace bankcheck
