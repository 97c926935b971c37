#pragma once
// One warp's state as the evaluator keeps it (registers, uniform registers and predicates, each
// lane's pc and convergence barriers), and the writes one lane's instruction makes.

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "bankcheck/bank_model.h"
#include "emulate/internal/sass.h"
#include "emulate/internal/value.h"

namespace bankcheck::emulate::internal {

// The barrier index WARPSYNC's mask is kept at, after BSSY's 16.
inline constexpr int kWarpSyncBarrier = 16;

struct WarpState {
  std::vector<Value> registers = std::vector<Value>(kRegisters * kWarpSize);
  std::array<Value, kUniformRegisters> uniform{};
  std::array<Value, kPredicates * kWarpSize> predicates{};
  std::array<Value, kPredicates> uniform_predicates{};
  std::array<uint32_t, kWarpSize> pc{};
  std::array<int, kWarpSize> waits_on{};                 // the barrier a waiting lane waits on
  std::array<uint32_t, kWarpSyncBarrier + 1> barrier{};  // BSSY's masks; then WARPSYNC's
  uint32_t present = 0, exited = 0, waiting = 0;

  // `used`: how many registers the kernel names (only those are reset: a launch resets every warp).
  void Reset(uint32_t lanes, int used) {
    std::fill(registers.begin(), registers.begin() + used * kWarpSize, Unknown(kNeverWritten));
    uniform.fill(Unknown(kNeverWritten));
    predicates.fill(Unknown(kNeverWritten));
    uniform_predicates.fill(Unknown(kNeverWritten));
    pc.fill(0);
    waits_on.fill(-1);
    barrier.fill(0);
    present = lanes;
    exited = waiting = 0;
  }
};

// A register or predicate one lane's instruction writes.
struct Write {
  OperandKind kind;
  int index;
  Value value;
};

// The writes of one lane's instruction, applied after all its reads (fixed room: no allocation per
// lane; the widest instruction writes two destinations of four registers).
class Writes {
 public:
  void Add(OperandKind kind, int index, const Value& value) {
    if (count_ == items_.size()) throw std::length_error("an instruction writes more than 16 registers");
    items_[count_++] = Write{kind, index, value};
  }
  void Add(const Operand& destination, const Value& value) {
    Add(destination.kind, destination.index, value);
  }
  // Registers d and d+1 of a 64-bit result (low first), known or not as `like`; RZ takes one.
  void AddPair(const Operand& destination, uint64_t bits, const Value& like);
  // `count` leading destinations of `in`, `width` registers each, made unknown from `origin`.
  void AddUnknown(const Instruction& in, int count, int width, uint32_t origin);

  void Clear() { count_ = 0; }
  const Write* begin() const { return items_.data(); }
  const Write* end() const { return items_.data() + count_; }

 private:
  std::array<Write, 16> items_;
  size_t count_ = 0;
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
