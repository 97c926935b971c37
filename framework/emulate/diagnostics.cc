#include "emulate/internal/diagnostics.h"

#include <mutex>
#include <sstream>
#include <string>

#include "bankcheck/core/instruction_counts.h"
#include "emulate/internal/checked_forms.h"
#include "emulate/internal/mufu_tables.h"

namespace bankcheck::emulate::internal {
namespace {

// Where inlined instructions' lines are attributed (SetProjectSources).
struct ProjectSources {
  std::mutex mutex;
  std::string project_root, build_root;
};
ProjectSources& Sources() {
  static ProjectSources sources;
  return sources;
}

}  // namespace

void ProjectRoots(std::string* project_root, std::string* build_root) {
  std::lock_guard<std::mutex> lock(Sources().mutex);
  *project_root = Sources().project_root;
  *build_root = Sources().build_root;
}

void Stop(const Instruction& at, const std::string& reason) {
  Undecided undecided;
  undecided.reason = reason;
  undecided.pc = at.pc;
  undecided.opcode = at.opcode;
  if (!at.inline_chain.empty()) {
    InstructionCounts located;
    std::string project_root, build_root;
    ProjectRoots(&project_root, &build_root);
    AttributeToChain(located, at.inline_chain, project_root, build_root);
    undecided.file = located.file;
    undecided.line = located.line;
  }
  throw Undecidable{undecided};
}

void StopLaunch(const std::string& reason) {
  Undecided undecided;
  undecided.reason = reason;
  throw Undecidable{undecided};
}

std::string NotUnderstood(const Instruction& instruction) {
  for (const Operand& operand : instruction.operands) {
    if (operand.kind != OperandKind::kLabel || instruction.target >= 0) continue;
    // A call out of the kernel (an absolute call to a symbol the linker resolves).
    if (operand.text.rfind("__cudaCDP", 0) == 0)
      return instruction.opcode + " calls " + operand.text +
             ": a kernel launched from the device (dynamic parallelism) is not emulated (the GPU counts the "
             "child grid in the parent's record, which the emulator would miss)";
    return instruction.opcode + " calls " + operand.text +
           ", a function outside the kernel: calls out of the kernel's listing are not emulated";
  }
  if (instruction.base == "CALL" && instruction.info != nullptr && instruction.unreadable.empty() &&
      !instruction.operands.empty() && instruction.operands[0].kind == OperandKind::kRegister)
    return instruction.opcode + " calls through R" + std::to_string(instruction.operands[0].index) +
           " (a function pointer): the callee is not followed";
  if ((instruction.base == "CALL" || instruction.base == "RET") && instruction.info != nullptr)
    return instruction.opcode +
           " is an instruction the emulator does not follow (it follows CALL.REL.NOINC into a function "
           "of the kernel's listing and RET.REL.NODEC Ra)";
  return instruction.opcode +
         " is an instruction the emulator does not understand (docs/emulate.md lists those it does)";
}

std::string Located(const Instruction& instruction) {
  if (instruction.inline_chain.empty()) return instruction.Where();
  const SourceFrame& frame = instruction.inline_chain.back();
  return instruction.Where() + ", " + frame.file + ":" + std::to_string(frame.line);
}

std::string OriginText(const Kernel& kernel, uint32_t origin) {
  if (origin == kNeverWritten) return "a register read before any instruction wrote it";
  if (origin == kMissingArgument) return "argument bytes the launch did not give";
  const Instruction& source = kernel.code.at(origin - 1);
  if (source.unchecked_form)
    return "form " + FormOf(source.base, source.modifiers, source.info) + " (" + Located(source) +
           "), not among the forms checked against the GPU (checked_forms.def),";
  const Semantics semantics = source.info != nullptr ? source.info->semantics : Semantics::kData;
  switch (semantics) {
    case Semantics::kLoad:
      return "a load from memory (" + Located(source) + ")";
    case Semantics::kSharedLoad:
    case Semantics::kSharedMatrixLoad:
      return "a load from shared memory (" + Located(source) + ")";
    case Semantics::kSharedAtomic:
      return "a shared atomic's result (" + Located(source) + ")";
    case Semantics::kLoadConstant:
      return "a constant that is neither the launch configuration nor an argument (" + Located(source) + ")";
    case Semantics::kSpecialRegister:
    case Semantics::kSpecialRegisterPair:
      return "a special register whose value is not known before the launch runs (" + Located(source) + ")";
    case Semantics::kIsetp:
      return "a 64-bit comparison the emulator does not evaluate (" + Located(source) + ")";
    case Semantics::kSpecialFunction:  // MUFU.EX2 and the others without a model: unchecked forms, above
      if (const std::optional<MufuFunction> f = ModelledMufu(source); f && !BuiltInMufuTable(*f).ok())
        return BuiltInMufuTable(*f).why() + " (" + Located(source) + ")";
      return "a value the emulator does not compute (" + Located(source) + ")";
    default:
      return "a value the emulator does not compute (" + Located(source) + ")";
  }
}

}  // namespace bankcheck::emulate::internal

namespace bankcheck::emulate {

std::string Undecided::Describe() const {
  const std::string where = file + ":" + std::to_string(line);
  // A reason that names the instruction's line already (Located) is not followed by it again.
  if (file.empty() || reason.find(where) != std::string::npos) return reason;
  return reason + " (" + where + ")";
}

std::string Undecided::DescribeIn(const std::string& kernel) const {
  std::ostringstream where;
  if (!opcode.empty()) where << opcode << " at pc 0x" << std::hex << pc << " of ";
  return Describe() + " [" + where.str() + kernel + "]";
}

void SetProjectSources(const std::string& project_root, const std::string& build_root) {
  std::lock_guard<std::mutex> lock(internal::Sources().mutex);
  internal::Sources().project_root = project_root;
  internal::Sources().build_root = build_root;
}

}  // namespace bankcheck::emulate
