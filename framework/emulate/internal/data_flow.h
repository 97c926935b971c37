#pragma once
// Following registers through a kernel's SASS before it runs, for the recognisers of ptxas's
// sequences whose values the evaluator computes as a whole (division.cc: the integer division's
// reciprocal; float_division.cc: the IEEE float division). Every answer errs one way: "may read"
// and "may write" more often than the instruction does, "defines" and "unchanged" only when sure.

#include <cstddef>
#include <optional>
#include <vector>

#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {

// A register operand read as it is (no -, ~ or |x|), and that register.
bool IsPlainRegister(const Operand& op);
bool IsPlainRegister(const Operand& op, int index);
inline bool IsZero(const Operand& op) { return IsPlainRegister(op, kRegisterZero); }

// Registers a destination of `in` spans: the row's or the modifiers' width, a pair for 64-bit results.
int DestinationSpan(const Instruction& in);
// How many leading operands of `in` are destinations (its row's count; 0 without a row).
int Destinations(const Instruction& in);
// Whether `in` may read register `reg` (more often than it does, never less).
bool MayRead(const Instruction& in, int reg);
// Whether `in` may write register `reg` (more often than it does, never less).
bool MayWrite(const Instruction& in, int reg);
// Whether `in` may change predicate `p` (any operand naming it, or all of them at once).
bool MayWritePredicate(const Instruction& in, int p);
// Whether `in` certainly writes register `reg`, whatever the lane: unguarded, its first destination.
bool Defines(const Instruction& in, int reg);
// A branch, an exit or an instruction not in the table: straight-line code ends there.
bool EndsStraightLine(const Instruction& in);

// A kernel's code with the instructions branches reach marked: straight-line code ends before them.
class StraightLineCode {
 public:
  explicit StraightLineCode(const std::vector<Instruction>& code);

  // The instruction whose value register `reg` holds when `at` runs, in straight-line code.
  std::optional<size_t> Definition(size_t at, int reg) const;
  // The readers found in straight-line code after `def` of its first operand (up to `window`
  // instructions), up to and including the first that may write it again.
  std::vector<size_t> SomeReaders(size_t def, size_t window) const;
  // Whether register `reg` keeps its value from `from` to `to` (straight-line code).
  bool Unchanged(int reg, size_t from, size_t to) const;
  // Whether operand `op` reads the same value at `to` as at `from`: a register or uniform register
  // not written in between, or a constant.
  bool Unchanged(const Operand& op, size_t from, size_t to) const;
  bool IsTarget(size_t at) const { return target_[at]; }

 protected:
  const std::vector<Instruction>& code_;

 private:
  std::vector<bool> target_;
};

}  // namespace bankcheck::emulate::internal
