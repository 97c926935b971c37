#pragma once
// ptxas's IEEE float division (div.rn.f32, C++'s `a / b` of floats), recognised in the SASS
// (float_division.cc) so that the branch to its slow path is decided and the quotient computed
// (semantics_control.cc). docs/emulate.md, "What is understood", says the rule.

#include <bitset>
#include <cstdint>
#include <optional>
#include <vector>

#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {

// What the evaluator needs at the branch `@!P BRA join` of one recognised division: every lane goes
// to the join, where the quotient register holds a / b, and what the skipped slow path writes is
// unknown.
struct FloatDivision {
  size_t join = 0;              // the branch's target, where both paths meet
  bool join_converges = false;  // the join is a BSYNC: the lanes are together again after it
  int quotient = -1;            // the register that holds a / b at the join
  // Operands that each hold the dividend (the divisor) at the branch: FCHK's and the fast path's, the
  // same value in every correct program; where they differ at run time the quotient is unknown.
  std::vector<Operand> dividends, divisors;
  size_t check = 0;  // FCHK's index: the origin of a quotient not computed
  size_t call = 0;   // the slow path's CALL: the origin of what the slow path writes
  // Whether FCHK's conformance vectors check the quotient (checked_forms.def): else it is unknown.
  bool computed = false;
  // Written by the slow path (its instructions before the join and the subroutine it calls), and
  // the fast path's intermediates still held at the branch: unknown after the join.
  std::bitset<kRegisters> registers;
  std::bitset<kUniformRegisters> uniform_registers;
  std::bitset<kPredicates> predicates, uniform_predicates;
  // The instructions the branch skips (the slow path's and its subroutine's): never evaluated.
  std::vector<size_t> skipped;
};

// Sets Instruction::float_division of each branch of `code` that skips a float division's slow path
// as float_division.cc describes; leaves every other instruction as it is.
void MarkFloatDivisions(std::vector<Instruction>& code);

// The IEEE binary32 quotient of the float bits a / b, rounded to nearest even, subnormals kept (what
// div.rn.f32 computes); nullopt when a, b or the quotient is NaN (payloads are not followed).
std::optional<uint32_t> FloatQuotient(uint32_t a, uint32_t b);

}  // namespace bankcheck::emulate::internal
