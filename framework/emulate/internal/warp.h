#pragma once
// One warp's state as the evaluator keeps it (registers, uniform registers and predicates, each
// lane's pc and convergence barriers), and the writes one lane's instruction makes.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bankcheck/core/bank_model.h"
#include "emulate/internal/sass.h"
#include "emulate/internal/value.h"

namespace bankcheck::emulate::internal {

// The barrier index WARPSYNC's mask is kept at, after BSSY's 16.
inline constexpr int kWarpSyncBarrier = 16;
// WarpState::sync_members before any WARPSYNC, and after one whose lanes read different masks.
inline constexpr uint64_t kNoWarpSync = uint64_t{1} << 32, kMixedWarpSync = uint64_t{1} << 33;
// How deep calls may nest in a lane (CALL.REL.NOINC): one more is undecided. The emulator's own
// bound, so that a warp's state stays bounded; the GPU's is its stack size.
inline constexpr int kMaxCallDepth = 64;

struct WarpState {
  std::vector<Value> registers = std::vector<Value>(kRegisters * kWarpSize);
  std::array<Value, kUniformRegisters> uniform{};
  std::array<Value, kPredicates * kWarpSize> predicates{};
  std::array<Value, kPredicates> uniform_predicates{};
  std::array<uint32_t, kWarpSize> pc{};
  std::array<int, kWarpSize> waits_on{};                 // the barrier a waiting lane waits on
  std::array<uint32_t, kWarpSyncBarrier + 1> barrier{};  // BSSY's masks; then WARPSYNC's
  // The lanes each lane has run with, at every pc, since they last converged: a warp starts
  // converged, a branch or a guarded BSYNC/WARPSYNC splits the lanes at it by where they go, and
  // the release of a BSYNC or WARPSYNC joins the lanes it releases. Lanes the scheduler runs
  // together only because their pcs met (no convergence barrier) are not together here: the GPU
  // need not run them as one (BRA.DIV reads this).
  std::array<uint32_t, kWarpSize> together{};
  uint32_t present = 0, exited = 0, waiting = 0;
  // The member mask of the warp's last WARPSYNC where every lane that ran it read the same one;
  // kMixedWarpSync where they did not (WARPSYNC.EXCLUSIVE of CUB's logical warps: each group of
  // lanes then runs alone, which the evaluator does not follow), kNoWarpSync before any.
  uint64_t sync_members = kNoWarpSync;
  // Calls: each lane's activation (0 the kernel's; each CALL a new one for the lanes that make it),
  // how many calls deep it is, and the activations its calls left, kMaxCallDepth a lane (allocated
  // at the warp's first call). `frames` counts the calls made: while 0, every lane is in the kernel's.
  std::array<uint32_t, kWarpSize> frame{};
  std::array<uint32_t, kWarpSize> depth{};
  std::vector<uint32_t> callers;
  uint32_t frames = 0;

  // `used`: how many registers the kernel names (only those are reset: a launch resets every warp).
  void Reset(uint32_t lanes, int used) {
    std::fill(registers.begin(), registers.begin() + used * kWarpSize, Unknown(kNeverWritten));
    uniform.fill(Unknown(kNeverWritten));
    predicates.fill(Unknown(kNeverWritten));
    uniform_predicates.fill(Unknown(kNeverWritten));
    pc.fill(0);
    waits_on.fill(-1);
    barrier.fill(0);
    together.fill(lanes);
    present = lanes;
    exited = waiting = 0;
    sync_members = kNoWarpSync;
    frame.fill(0);
    depth.fill(0);
    frames = 0;
  }
};

// Where one lane's instruction writes its registers and predicates: straight into the warp's state,
// under the lane's guard (an unknown guard makes what it writes unknown; a guard that depends on
// the block makes it depend on the block, not affinely). Every handler reads all its sources
// before its first write, so no source sees a destination written by its own instruction.
class Writes {
 public:
  Writes(WarpState& warp, int lane, const Value& guard) : warp_(warp), lane_(lane), guard_(guard) {}

  void Add(OperandKind kind, int index, const Value& value) {
    Value* slot = nullptr;
    switch (kind) {
      case OperandKind::kRegister:
        if (index < kRegisterZero) slot = &warp_.registers[index * kWarpSize + lane_];
        break;
      case OperandKind::kUniformRegister:
        if (index < kUniformRegisterZero) slot = &warp_.uniform[index];
        break;
      case OperandKind::kPredicate:
        if (index < kPredicateTrue) slot = &warp_.predicates[index * kWarpSize + lane_];
        break;
      case OperandKind::kUniformPredicate:
        if (index < kPredicateTrue) slot = &warp_.uniform_predicates[index];
        break;
      default:
        break;
    }
    if (slot == nullptr) return;
    if (!guard_.known()) {
      *slot = Unknown(guard_.origin);
      return;
    }
    // Field by field: `value` was most often just built field by field, and a copy as a whole would
    // read it back wider than it was written (a store-forwarding stall on every lane's write).
    slot->bits = value.bits;
    slot->origin = value.origin;
    if (guard_.block.any()) {
      slot->block = NotAffine();
      return;
    }
    slot->block.step[0] = value.block.step[0];
    slot->block.step[1] = value.block.step[1];
    slot->block.step[2] = value.block.step[2];
    slot->block.other = value.block.other;
  }
  void Add(const Operand& destination, const Value& value) {
    Add(destination.kind, destination.index, value);
  }
  // Registers d and d+1 of a 64-bit result (low first), known or not as `like`; RZ takes one.
  void AddPair(const Operand& destination, uint64_t bits, const Value& like);
  // `count` leading destinations of `in`, `width` registers each, made unknown from `origin`.
  void AddUnknown(const Instruction& in, int count, int width, uint32_t origin);

 private:
  WarpState& warp_;
  int lane_;
  Value guard_;
};

inline bool IsPredicate(const Operand& operand) {
  return operand.kind == OperandKind::kPredicate || operand.kind == OperandKind::kUniformPredicate;
}
inline bool IsRegister(const Operand& operand) {
  return operand.kind == OperandKind::kRegister || operand.kind == OperandKind::kUniformRegister;
}
// RZ or URZ, as the operand's kind says.
inline int ZeroRegister(OperandKind kind) {
  return kind == OperandKind::kRegister ? kRegisterZero : kUniformRegisterZero;
}

// The registers a load of `op.bytes` bytes (1 to 16) writes, low first, from the bytes it read: a sub-word
// signed form (.S8, .S16) sign-extended.
// Inline: the output pass calls it for every lane of every load.
inline std::array<uint32_t, 4> LoadedWords(const MemoryOp& op, const uint8_t* bytes) {
  std::array<uint32_t, 4> words{};
  // A word, the most common load, copied at a size the compiler knows: no call per lane.
  if (op.bytes == 4)
    std::memcpy(words.data(), bytes, 4);
  else
    std::memcpy(words.data(), bytes, op.bytes);
  if (op.bytes < 4 && op.sign_extends) {
    const uint32_t sign = 1u << (8 * op.bytes - 1);
    if (words[0] & sign) words[0] |= ~((sign << 1) - 1);
  }
  return words;
}

// The one writer of a load's (or an atomic's old value's) registers: `op.registers` of them from
// `destination` on, from the bytes it read (LoadedWords), depending on the block as `block` says; or,
// where `bytes` is nullptr, unknown from `origin`. RZ takes none.
inline void WriteLoaded(Writes& out, const MemoryOp& op, const Operand& destination, const uint8_t* bytes,
                        uint32_t origin, const BlockDependence& block = {}) {
  if (destination.index == ZeroRegister(destination.kind)) return;
  std::array<uint32_t, 4> words{};
  if (bytes != nullptr) words = LoadedWords(op, bytes);
  for (int part = 0; part < op.registers; ++part)
    out.Add(destination.kind, destination.index + part,
            bytes != nullptr ? Known(words[static_cast<size_t>(part)], block) : Unknown(origin));
}

inline void Writes::AddPair(const Operand& destination, uint64_t bits, const Value& like) {
  Value low = like, high = like;
  low.bits = like.known() ? static_cast<uint32_t>(bits) : 0;
  high.bits = like.known() ? static_cast<uint32_t>(bits >> 32) : 0;
  Add(destination, low);
  if (destination.index != ZeroRegister(destination.kind)) Add(destination.kind, destination.index + 1, high);
}

inline void Writes::AddUnknown(const Instruction& in, int count, int width, uint32_t origin) {
  int written = 0;
  for (const Operand& operand : in.operands) {
    if (written == count) break;
    if (!IsRegister(operand) && !IsPredicate(operand)) break;
    ++written;
    if (!IsRegister(operand)) {
      Add(operand, Unknown(origin));
      continue;
    }
    if (operand.index == ZeroRegister(operand.kind)) continue;
    for (int part = 0; part < width; ++part) Add(operand.kind, operand.index + part, Unknown(origin));
  }
}

}  // namespace bankcheck::emulate::internal
