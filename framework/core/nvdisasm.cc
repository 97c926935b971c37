#include "core/internal/nvdisasm.h"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <regex>

#include "core/internal/environment.h"

namespace bankcheck::internal {

std::string FindCudaTool(const std::string& name, const char* variable) {
  if (std::string set = ExecutableFromEnvironment(variable); !set.empty()) return set;
#ifdef BANKCHECK_CUDA_BIN_DIR
  const std::filesystem::path built_with = std::filesystem::path(BANKCHECK_CUDA_BIN_DIR) / name;
  if (::access(built_with.c_str(), X_OK) == 0) return built_with.string();
#endif
  return name;
}

Disassembly ParseNvdisasm(const std::string& listing) {
  // "        .text._Z9transposePKfPf:" opens a function; "/*0220*/  @!P0 LDS.128 R4, [R2] ;" is
  // an instruction (an optional predicate, then the opcode with its modifiers, which may hold
  // lower-case letters: HGMMA.64x64x16.F32). With -gi, the instructions after
  //   //## File "/p/cute/arch/copy_sm80.hpp", line 64 inlined at "/p/gemm.cu", line 137
  //   //## File "/p/gemm.cu", line 137 inlined at "/p/gemm.cu", line 152
  //   //## File "/p/gemm.cu", line 152
  // come from that chain of lines, innermost first (a group of such lines replaces the last).
  static const std::regex function(R"(^\s*\.text\.([^\s:]+):)");
  static const std::regex instruction(
      R"(/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Za-z0-9_.]*)\s*([^;]*);)");
  static const std::regex label(R"(^(\.L_x_[0-9]+):)");
  static const std::regex line_info(R"re(^\s*//## File "([^"]*)", line ([0-9]+))re");
  Disassembly disassembled;
  std::map<uint32_t, DisassembledInstruction>* current = nullptr;
  std::vector<SourceFrame> chain;
  std::vector<std::string> labels;  // read since the last instruction
  bool chain_open = false;          // the last line read was a line-info line: the next one extends the chain
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\n', start);
    if (end == std::string::npos) end = listing.size();
    const std::string line = listing.substr(start, end - start);
    start = end + 1;
    std::smatch match;
    if (std::regex_search(line, match, line_info)) {
      if (!chain_open) chain.clear();
      chain_open = true;
      chain.push_back({match[1], static_cast<uint32_t>(std::stoul(match[2]))});
      continue;
    }
    chain_open = false;
    if (std::regex_search(line, match, function)) {
      current = &disassembled[match[1]];
      chain.clear();
      labels.clear();
    } else if (std::regex_search(line, match, label)) {
      labels.push_back(match[1]);
    } else if (current != nullptr && std::regex_search(line, match, instruction)) {
      std::string guard = match[2];
      while (!guard.empty() && std::isspace(static_cast<unsigned char>(guard.back()))) guard.pop_back();
      std::string operands = match[4];
      while (!operands.empty() && std::isspace(static_cast<unsigned char>(operands.back())))
        operands.pop_back();
      (*current)[static_cast<uint32_t>(std::stoul(match[1], nullptr, 16))] = {
          match[3], chain, std::move(guard), std::move(operands), std::move(labels)};
      labels.clear();
    }
  }
  return disassembled;
}

}  // namespace bankcheck::internal
