#pragma once
// Why a launch is undecided, in words a reader can act on: the instruction to blame with its source
// line, and where an unknown value came from.

#include <cstdint>
#include <string>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/sass.h"
#include "emulate/internal/value.h"

namespace bankcheck::emulate::internal {

// Thrown by the evaluator; Emulate turns it into Emulation::undecided.
struct Undecidable {
  Undecided undecided;
};

// The launch is undecided because of `at` (its source line attributed as SetProjectSources says).
[[noreturn]] void Stop(const Instruction& at, const std::string& reason);
// A limit of the launch as a whole: no instruction to blame.
[[noreturn]] void StopLaunch(const std::string& reason);

// "LDS at pc 0x01a0, kernels/x.cu:42" (the source line when the listing has line info).
std::string Located(const Instruction& instruction);

// Why an instruction without a row in the opcode table stops the launch. A call names its callee:
// the device runtime's entry points (__cudaCDP2*: a kernel launched from the device) say so.
std::string NotUnderstood(const Instruction& instruction);

// What an unknown's origin (Value::origin) was, for a reader.
std::string OriginText(const Kernel& kernel, uint32_t origin);

// The origin of unknowns an instruction makes: its index + 1.
inline uint32_t Origin(size_t index) { return static_cast<uint32_t>(index + 1); }

// The project and build roots SetProjectSources gave, read under its lock.
void ProjectRoots(std::string* project_root, std::string* build_root);

}  // namespace bankcheck::emulate::internal
