#pragma once
// Where a register's value flows in a kernel's SASS, without running it: the instruction that
// defines what a register holds at a point, the instructions that may read what one defines, whether
// an operand keeps its value between two points. Every answer errs one way (more readers, fewer
// definitions found), so a caller that needs a value's every reader gets them all or none: the
// recognisers of compiler sequences (division.cc) rely on it.

#include <cstdint>
#include <optional>
#include <vector>

#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {

// The register numbers the flow functions take: R0-R255 their index, UR0-UR63 kUniform + theirs.
inline constexpr int kUniform = 256;

// The register number of a register or uniform register operand read as it is (no -, ~ or ||), or -1.
inline int RegisterNumber(const Operand& op) {
  if (op.negate || op.invert || op.absolute) return -1;
  if (op.kind == OperandKind::kRegister) return op.index;
  if (op.kind == OperandKind::kUniformRegister) return kUniform + op.index;
  return -1;
}

inline bool IsPlainRegister(const Operand& op) {
  return op.kind == OperandKind::kRegister && !op.negate && !op.invert && !op.absolute;
}
inline bool IsPlainRegister(const Operand& op, int index) { return IsPlainRegister(op) && op.index == index; }
inline bool IsZero(const Operand& op) { return IsPlainRegister(op, kRegisterZero); }

// Registers a destination of `in` spans: the row's or the modifiers' width, a pair for 64-bit results.
int DestinationSpan(const Instruction& in);
// How many leading operands of `in` are destinations (its row's count; 0 without a row).
int Destinations(const Instruction& in);
// How many leading operands `in` may write: Destinations, and one more where the first is a
// predicate before a register (LOP3.LUT P1, R28, ...: the table counts the register's row).
int WrittenOperands(const Instruction& in);
// A branch, an exit or an instruction the evaluator stops at: straight-line code ends there.
bool EndsStraightLine(const Instruction& in);
// Whether `in` may change predicate `p` (uniform: UP`p`) (any operand naming it, or all of them at once).
bool MayWritePredicate(const Instruction& in, int p, bool uniform = false);
// Whether `in` may read register number `reg` (more often than it does, never less).
bool MayRead(const Instruction& in, int reg);
// Whether `in` may write register number `reg` (more often than it does, never less).
bool MayWrite(const Instruction& in, int reg);
// Whether `in` may change what operand `op` reads: a register or uniform register it may write, or
// anything where `op` is neither (a constant of the kernel's parameters never changes).
bool MayWriteOperand(const Instruction& in, const Operand& op);
// Whether `in` certainly writes register `reg`, whatever the lane: unguarded, one of its destinations
// (SHFL's and LOP3's after a predicate too; the whole of a pair or quad only where the form says so).
bool Defines(const Instruction& in, int reg);

class RegisterFlow {
 public:
  // Instructions SomeReaders looks through unless told.
  static constexpr size_t kSomeReadersWindow = 256;

  explicit RegisterFlow(const std::vector<Instruction>& code);

  const Instruction& at(size_t index) const { return code_[index]; }

  // The instruction whose value register `reg` holds when `at` runs, in straight-line code: one whose
  // first destination is `reg`.
  std::optional<size_t> Definition(size_t at, int reg) const;

  // Every instruction that may read what `def` writes to its first operand, on every path from it
  // (through branches, calls and returns), each up to the register's next unguarded definition or an
  // instruction the evaluator stops at; nullopt where a path leaves what can be followed or the walk grows
  // too long.
  std::optional<std::vector<size_t>> AllReaders(size_t def) const;
  // The same for register number `reg` that `def` writes (the high half of a pair, say).
  std::optional<std::vector<size_t>> AllReaders(size_t def, int reg) const;

  // The readers found in straight-line code after `def` within `window` instructions (some of them:
  // those a sequence's next step must be among): of what `def` writes to its first operand, or of
  // register number `reg` that it writes (the high half of a pair, say).
  std::vector<size_t> SomeReaders(size_t def, size_t window = kSomeReadersWindow) const;
  std::vector<size_t> SomeReadersOf(size_t def, int reg, size_t window = kSomeReadersWindow) const;

  // Whether register number `reg` keeps its value from `from` to `to` (straight-line code).
  bool Unchanged(int reg, size_t from, size_t to) const;

  // Whether every path into `at` runs `from` (the path's latest run of it) with none of `operands`
  // written after it: followed backward, through branches and loops, to `from` on each path; false
  // where a path reaches the kernel's entry, a branch's target is unknown or the walk grows too long.
  bool ComesFrom(size_t at, size_t from, const std::vector<Operand>& operands) const;

  // Whether operand `op` reads the same value at `to` as at `from`: a register or uniform register
  // not written in between (straight-line code), or a constant.
  bool Unchanged(const Operand& op, size_t from, size_t to) const;

  // Whether a branch may jump to `at` (straight-line code ends before it).
  bool IsTarget(size_t at) const { return target_[at]; }

 private:
  const std::vector<Instruction>& code_;
  // The guards (GuardBit's) besides its own under which the guarded write at `at` certainly happens.
  uint32_t ImpliedGuards(size_t at) const;

  std::vector<bool> target_;
  std::vector<std::vector<size_t>> predecessors_;
  std::vector<size_t> return_sites_;  // the instructions after the calls, where returns go
  bool indirect_ = false;
};

}  // namespace bankcheck::emulate::internal
