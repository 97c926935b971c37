#pragma once
// The forms checked against the GPU (docs/emulate.md, "Checked against the GPU"): the output pass
// computes the value of an instruction of a computing family only when its form is one of
// internal/checked_forms.def, each of whose conformance vectors (conformance/vectors.txt) the
// emulator replays bit for bit (bankcheck_conformance checks the table against the file). Any other
// form's destinations are unknown there, the reason naming the form.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/internal/opcodes.h"

namespace bankcheck::emulate::internal {

// Whether the output pass computes values of this family (integer, predicate, float and conversion
// arithmetic, shuffles and votes): those are gated by the table. Moves, constants, special registers,
// memory (its atomics have allow-lists of their own, opcodes.cc), control and the families that
// compute nothing (kData) are not.
bool IsComputingFamily(Semantics semantics);

// An instruction's form: its opcode with the modifiers that matter to its value. A uniform opcode
// is its lane form's (UIADD3.X is IADD3.X, VOTEU.ALL VOTE.ALL: one handler computes both), and
// IMAD's .MOV, .IADD and .SHL are dropped (nvdisasm's names for a*b+c with RZ, 1 or a power of two
// as operands: the same value). `info`: the opcode's row (nullptr: none).
std::string FormOf(std::string_view base, const std::vector<std::string>& modifiers, const OpcodeInfo* info);

// Whether `form` (FormOf's) is in the table.
bool HasConformanceVectors(std::string_view form);

// The table, in its order (for the conformance test).
const char* const* CheckedForms(size_t* count);

}  // namespace bankcheck::emulate::internal
