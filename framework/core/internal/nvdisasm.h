#pragma once
// The CUDA toolkit's binary tools (nvdisasm, cuobjdump) and nvdisasm's listing, read once for both
// the SASS backend's attribution (cuda/sass_metrics.cc) and the evaluator (emulate/).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bankcheck/instruction_counts.h"

namespace bankcheck::internal {

// The toolkit program `name` ("nvdisasm", "cuobjdump"): `variable` (BANKCHECK_NVDISASM: an absolute
// path to an executable; Error otherwise) when set, else the toolkit's that bankcheck was built
// with, else `name` itself, found on PATH (on a machine without the toolkit, the
// nvidia-cuda-nvdisasm and nvidia-cuda-cuobjdump wheels put them there).
std::string FindCudaTool(const std::string& name, const char* variable);

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
