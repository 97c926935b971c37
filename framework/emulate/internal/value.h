#pragma once
// The evaluator's value lattice: a lane's 32-bit value, known or unknown (with where the unknown
// came from), and how it depends on the block index (docs/design/emulate.md, "Blocks").

#include <array>
#include <cstdint>

#include "emulate/internal/opcodes.h"

namespace bankcheck::emulate::internal {

// How a lane's value depends on the block index (docs/design/emulate.md, "Blocks"): not at all;
// affinely, the value in block c being bits + step . (c - this block) modulo 2^32; or otherwise.
// Blocks are grouped on it: a value that depends affinely can be recomputed for another block
// without evaluating that block.
struct BlockDependence {
  std::array<uint32_t, 3> step{};
  bool other = false;
  bool any() const { return other || (step[0] | step[1] | step[2]) != 0; }
  friend bool operator==(const BlockDependence& a, const BlockDependence& b) {
    return a.step == b.step && a.other == b.other;
  }
};

inline BlockDependence NotAffine() {
  BlockDependence dependence;
  dependence.other = true;
  return dependence;
}

// a + b, a - b, a * k: the dependence of a sum or of a multiple by a value that is the same in every
// block.
// Built whole, not step by step: a result written in parts and read back whole stalls the CPU (these
// run for every lane of every instruction).
inline BlockDependence Plus(const BlockDependence& a, const BlockDependence& b) {
  return BlockDependence{{a.step[0] + b.step[0], a.step[1] + b.step[1], a.step[2] + b.step[2]},
                         a.other || b.other};
}
inline BlockDependence Times(const BlockDependence& a, uint32_t k) {
  return BlockDependence{{a.step[0] * k, a.step[1] * k, a.step[2] * k}, a.other};
}
inline BlockDependence Negated(const BlockDependence& a) { return Times(a, 0xffffffffu); }

// A 32-bit value of one lane: known, or unknown with where the unknown came from.
struct Value {
  uint32_t bits = 0;
  uint32_t origin = 0;  // 0: known; else an Origin code
  BlockDependence block;
  bool known() const { return origin == 0; }
};

// Where unknowns come from: an instruction (its index + 1), or one of these.
inline constexpr uint32_t kNeverWritten = 0xffffffffu;
inline constexpr uint32_t kMissingArgument = 0xfffffffeu;

inline Value Known(uint32_t bits, BlockDependence block = {}) { return Value{bits, 0, block}; }
// An unknown's dependence on the block does not matter: whatever it feeds is undecided.
inline Value Unknown(uint32_t origin) { return Value{0, origin, {}}; }

// The result of an operation on `inputs`: unknown when any is (with the first unknown's origin), and
// depending on the block index, not affinely, when any input depends on it. Operations whose
// result is affine in affine inputs say so where they are computed.
// Always inlined, as Affine: called for every lane of every instruction, a call would return the
// value through memory, and the caller's wider read of it stalls on the narrower writes.
template <typename... V>
[[gnu::always_inline]] inline Value From(uint32_t bits, const V&... inputs) {
  Value result = Known(bits);
  result.block.other = (inputs.block.any() || ...);
  ((result.origin = result.origin != 0 ? result.origin : inputs.origin), ...);
  if (result.origin != 0) result.bits = 0;
  return result;
}

// As From, with `block` as the result's dependence when an input depends on the block.
template <typename... V>
[[gnu::always_inline]] inline Value Affine(uint32_t bits, const BlockDependence& block, const V&... inputs) {
  Value result = From(bits, inputs...);
  if (result.known() && result.block.any()) result.block = block;
  return result;
}

inline bool Compare(Test test, bool is_unsigned, uint32_t a, uint32_t b) {
  const int64_t sa = is_unsigned ? int64_t{a} : int64_t{static_cast<int32_t>(a)};
  const int64_t sb = is_unsigned ? int64_t{b} : int64_t{static_cast<int32_t>(b)};
  switch (test) {
    case Test::kLess:
      return sa < sb;
    case Test::kLessOrEqual:
      return sa <= sb;
    case Test::kGreater:
      return sa > sb;
    case Test::kGreaterOrEqual:
      return sa >= sb;
    case Test::kEqual:
      return sa == sb;
    case Test::kNotEqual:
      return sa != sb;
    case Test::kTrue:
      return true;
    case Test::kFalse:
    case Test::kNone:
      break;
  }
  return false;
}

}  // namespace bankcheck::emulate::internal
