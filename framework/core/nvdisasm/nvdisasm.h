#pragma once
// The CUDA toolkit's binary tools (nvdisasm, cuobjdump) and nvdisasm's listing, read once for both
// the SASS backend's attribution (cuda/sass_metrics.cc) and the evaluator (emulate/).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/core/instruction_counts.h"

namespace bankcheck::internal {

// A toolkit program (nvdisasm, cuobjdump), resolved to an absolute path.
struct CudaTool {
  std::string path;  // absolute; empty when none was found
  // Where it came from ("BANKCHECK_NVDISASM", "the CUDA toolkit bankcheck was built with", "the
  // nvidia-cuda-nvdisasm wheel beside this program", "PATH"); when none was found, what was searched.
  std::string found_by;
  // "nvdisasm /usr/local/cuda/bin/nvdisasm (found by PATH)", for errors and notes.
  std::string Describe(const std::string& name) const;
};

// The toolkit program `name` ("nvdisasm", "cuobjdump"), resolved once per process to an absolute
// path, in this order: `variable` (BANKCHECK_NVDISASM: an absolute path to an executable; Error
// otherwise); the toolkit bankcheck was built with; the nvidia-cuda-<name> wheel's nvidia/cu13/bin
// in the site-packages folder holding this program, only when this program is the installed
// bankcheck wheel's (site-packages/bankcheck/bin/<program>, listed in the wheel's RECORD) and
// nobody but root and the caller can change that tool or a folder on the way to it (OthersMayChange,
// output_folder.h: a build folder in /tmp must not run a tool planted in /tmp/nvidia/cu13/bin); the
// absolute folders of PATH. Empty and relative PATH entries are skipped: they name the current
// folder, which whoever controls it could fill (docs/security.md). The program is never looked up
// by name when run. With BANKCHECK_TRACE_SESSION=1 the choice is noted on stderr.
CudaTool FindCudaTool(const std::string& name, const char* variable);

// The search itself (tests): `path_variable` stands for PATH, `program` for this program's path
// (/proc/self/exe's), `built_with` for the toolkit's bin folder ("" for none).
CudaTool ResolveCudaTool(const std::string& name, const char* variable, const std::string& path_variable,
                         const std::string& program, const std::string& built_with);

// An instruction as `nvdisasm -gi` lists it: its opcode and its source line's inline chain,
// innermost first (empty without line info), its guard predicate and its operands as written.
struct DisassembledInstruction {
  std::string opcode;  // "LDS.128"
  std::vector<SourceFrame> inline_chain;
  std::string guard;                // "@!P0", "@UP1"; empty when unguarded
  std::string operands;             // "R4, [R9+UR4]": the text between the opcode and ';', trimmed
  std::vector<std::string> labels;  // labels that name this instruction's offset (".L_x_15")
};
// By function (mangled) and offset.
using Disassembly = std::map<std::string, std::map<uint32_t, DisassembledInstruction>>;

// Every instruction of every function in a cubin, from `nvdisasm_output` (`nvdisasm -gi -c`'s
// listing of it). Lines it cannot read (a number out of range, a line of another shape) are
// skipped, never an error: the listing may come from a cache file (cuda/internal/disassembly.h).
Disassembly ParseNvdisasm(const std::string& nvdisasm_output);

}  // namespace bankcheck::internal
