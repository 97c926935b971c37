#pragma once
// Which access costs what: shared-memory counts per SASS instruction of a kernel, from CUPTI's
// SASS Metrics API (docs/attribution.md). Host-only: records, tables and sums; the GPU side that
// fills them is in counter_session.h (SessionOptions::attribute_instructions).

#include <cstdint>
#include <string>
#include <vector>

#include "bankcheck/core/memory_kind.h"

namespace bankcheck {

// A place in the source: a file (as the kernel's line info names it) and a 1-based line.
struct SourceFrame {
  std::string file;
  uint32_t line = 0;
  friend bool operator==(const SourceFrame& a, const SourceFrame& b) {
    return a.file == b.file && a.line == b.line;
  }
  friend bool operator!=(const SourceFrame& a, const SourceFrame& b) { return !(a == b); }
};

// One shared-memory SASS instruction of a kernel, summed over the launches of that kernel that
// were attributed (LaunchRecord::attributed_launches).
struct InstructionCounts {
  uint32_t pc_offset = 0;  // byte offset of the instruction in the kernel's SASS
  // "LDS.128", "LDSM.16.M88.4", "ATOMS.POPC.INC.32" (nvdisasm); the kind's plain SASS name ("LDS")
  // when nvdisasm was not found.
  std::string opcode;
  MemoryKind kind = MemoryKind::kSharedLoad;
  // The line the instruction is attributed to, from the kernel's line info (-lineinfo); empty and 0
  // without it. For code inlined from functions it is the innermost frame of `inline_chain` inside
  // the project's sources (AttributedFrame): the access in a project's own helper, the user's call
  // for a library's (a CuTe copy atom).
  std::string file;
  uint32_t line = 0;
  // Where the instruction's code was written and the calls it was inlined through, innermost first
  // (cute/arch/copy_sm80.hpp:64, then the helper's line, then the kernel's); empty when it was not
  // inlined (its one frame is file:line).
  std::vector<SourceFrame> inline_chain;
  uint64_t executions = 0;  // warp-level executions
  uint64_t wavefronts = 0;
  uint64_t ideal_wavefronts = 0;

  // Wavefronts beyond the ideal: what the instruction's bank conflicts cost.
  uint64_t excess() const { return wavefronts > ideal_wavefronts ? wavefronts - ideal_wavefronts : 0; }

  friend bool operator==(const InstructionCounts& a, const InstructionCounts& b) {
    return a.pc_offset == b.pc_offset && a.opcode == b.opcode && a.kind == b.kind && a.file == b.file &&
           a.line == b.line && a.inline_chain == b.inline_chain && a.executions == b.executions &&
           a.wavefronts == b.wavefronts && a.ideal_wavefronts == b.ideal_wavefronts;
  }
  friend bool operator!=(const InstructionCounts& a, const InstructionCounts& b) { return !(a == b); }
};

// The frame of `chain` (innermost first, not empty) an instruction is attributed to: the innermost
// frame whose file is under `project_root` and not under `excluded_root` (a build folder inside the
// project, which holds fetched libraries). That is the line that does the access when a project's
// own helper does it (SGEMM_CUDA's loadFromGmem), and the project's call when only a library's
// frames are inside it (a CuTe copy()). No frame in the project, or an empty `project_root`: the
// outermost frame, the kernel's own line (a library's kernel gets its own line, as without
// inlining). Roots are compared at path-component boundaries.
const SourceFrame& AttributedFrame(const std::vector<SourceFrame>& chain, const std::string& project_root,
                                   const std::string& excluded_root);

// Sets `instruction`'s file and line from `chain` (nvdisasm -gi's, innermost first, not empty) by
// AttributedFrame, and its inline_chain to `chain` when it holds more than one frame, cut to its
// kMaxInlineFrames innermost frames (limits.h), as results files are read.
void AttributeToChain(InstructionCounts& instruction, std::vector<SourceFrame> chain,
                      const std::string& project_root, const std::string& excluded_root);

// The innermost frame of an inlined instruction when it is not its attributed line ("where the
// library wrote the access"); nullptr when not inlined or the same line (code inlined from the
// project's own helper is attributed to its innermost frame).
const SourceFrame* InlinedFrom(const InstructionCounts& instruction);

// Most excess first; ties by executions (descending), then by offset, so the order is stable.
void SortByExcess(std::vector<InstructionCounts>& instructions);

// "kernels/transpose.cu:31" ("<no line info>" without line info), and for inlined code the line it
// was inlined from after it: "kernels/gemm.cu:152 (cute/arch/copy_sm80.hpp:64)". `source_root`,
// when not empty and a prefix of a file's path, is cut off so that logs show paths relative to the
// project.
std::string SourceLocation(const InstructionCounts& instruction, const std::string& source_root = "");

// The table a failure message, the report and `bankcheck lines` show: at most `limit`
// instructions (0: all) in the given order, one line each, columns aligned:
//   kernels/transpose.cu:31  +0x0220  LDS  65,536 exec  16,777,216 wf  524,288 ideal  +16,252,928
// and a last line "... N more instructions" when some were left out. A column is padded to at most
// kMaxColumnWidth (limits.h); a longer cell (a long path) is printed whole and unpadded.
std::string FormatInstructionTable(const std::vector<InstructionCounts>& instructions, size_t limit,
                                   const std::string& source_root = "");

// The counts of one kind added up over instructions: executions, wavefronts and ideal, with an
// exact ideal (the SASS metrics are instrumented).
struct InstructionTotals {
  uint64_t executions = 0;
  uint64_t wavefronts = 0;
  uint64_t ideal_wavefronts = 0;
  friend bool operator==(const InstructionTotals& a, const InstructionTotals& b) {
    return a.executions == b.executions && a.wavefronts == b.wavefronts &&
           a.ideal_wavefronts == b.ideal_wavefronts;
  }
};
PerKind<InstructionTotals> TotalsByKind(const std::vector<InstructionCounts>& instructions);

// BANKCHECK_SOURCE_ROOT (an absolute path, else Error), else "": the prefix SourceLocation cuts off
// in tables.
std::string SourceRootFromEnvironment();

}  // namespace bankcheck
