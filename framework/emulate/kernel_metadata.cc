// A cubin's kernel metadata from cuobjdump -elf's listing: parameters (EIATTR_KPARAM_INFO), the
// parameter base in constant bank 0 (EIATTR_PARAM_CBANK), static shared memory (the
// .nv.shared.<kernel> section sizes), and what cudaFuncGetAttributes answers: registers
// (EIATTR_REGCOUNT), local memory (EIATTR_FRAME_SIZE), the most threads (EIATTR_MAX_THREADS,
// EIATTR_REQNTID), the virtual architecture and the module's __constant__ bytes.

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/internal/sass.h"

namespace bankcheck::emulate::internal {
namespace {

// Scans of cuobjdump -elf's lines, in place of patterns (see ParseRegisterName).
struct Cursor {
  std::string_view text;
  size_t at = 0;

  bool Done() const { return at >= text.size(); }
  // White space; `required`: at least one character of it.
  bool Spaces(bool required) {
    const size_t start = at;
    while (at < text.size() && IsSpaceChar(text[at])) ++at;
    return !required || at > start;
  }
  bool Literal(std::string_view word) {
    if (text.substr(at, word.size()) != word) return false;
    at += word.size();
    return true;
  }
  // 1 to `most` lower-case hexadecimal digits.
  bool Hex(size_t most, uint32_t* value) {
    const size_t start = at;
    uint64_t v = 0;
    while (at < text.size() && IsHexDigit(text[at]) && at - start < most) {
      v = v * 16 + static_cast<uint64_t>(text[at] <= '9' ? text[at] - '0' : text[at] - 'a' + 10);
      ++at;
    }
    *value = static_cast<uint32_t>(v);
    return at > start;
  }
  // Characters up to white space or the end.
  std::string_view Word() {
    const size_t start = at;
    while (at < text.size() && !IsSpaceChar(text[at])) ++at;
    return text.substr(start, at - start);
  }
};

// A section header line of NOBITS type named .nv.shared.<kernel>: "22 e180 1480 0 4 NOBITS ...
// .nv.shared.<kernel>": the kernel and the size (the third column).
bool SharedSection(std::string_view line, std::string* kernel, uint32_t* size) {
  Cursor cursor{line};
  std::vector<std::string_view> words;
  while (cursor.Spaces(false), !cursor.Done()) words.push_back(cursor.Word());
  constexpr std::string_view kPrefix = ".nv.shared.";
  if (words.size() < 7 || words[5] != "NOBITS") return false;
  for (size_t i = 0; i < 5; ++i) {
    Cursor column{words[i]};
    uint32_t value = 0;
    if (!column.Hex(i == 2 ? 8 : std::string_view::npos, &value) || !column.Done()) return false;
    if (i == 2) *size = value;
  }
  const std::string_view last = words.back();
  if (last.size() <= kPrefix.size() || last.substr(0, kPrefix.size()) != kPrefix) return false;
  *kernel = std::string(last.substr(kPrefix.size()));
  return true;
}

// ".nv.info.<kernel>" alone on its line (trailing white space allowed).
bool InfoSection(std::string_view line, std::string* kernel) {
  Cursor cursor{line};
  if (!cursor.Literal(".nv.info.")) return false;
  const std::string_view name = cursor.Word();
  cursor.Spaces(false);
  if (name.empty() || !cursor.Done()) return false;
  *kernel = std::string(name);
  return true;
}

// "Value:\t0x1d 0x180210": the second number.
bool CbankValue(std::string_view line, uint32_t* value) {
  for (size_t at = line.find("Value:"); at != std::string_view::npos; at = line.find("Value:", at + 1)) {
    Cursor cursor{line, at + 6};
    uint32_t first = 0;
    cursor.Spaces(false);
    if (cursor.Literal("0x") && cursor.Hex(std::string_view::npos, &first) && cursor.Spaces(true) &&
        cursor.Literal("0x") && cursor.Hex(8, value))
      return true;
  }
  return false;
}

// "Value:\t0x2 0x1 0x1" (EIATTR_CTA_PER_CLUSTER): the cluster's x, y and z.
bool ClusterValue(std::string_view line, Dim3* cluster) {
  const size_t at = line.find("Value:");
  if (at == std::string_view::npos) return false;
  Cursor cursor{line, at + 6};
  uint32_t* dims[3] = {&cluster->x, &cluster->y, &cluster->z};
  for (int i = 0; i < 3; ++i) {
    cursor.Spaces(false);
    if (!cursor.Literal("0x") || !cursor.Hex(8, dims[i])) return false;
  }
  return true;
}

// "Ordinal : 0x3\tOffset  : 0x14\tSize    : 0x4" anywhere in the line.
bool ParamInfo(std::string_view line, ParamSlot* slot) {
  for (size_t at = line.find("Ordinal"); at != std::string_view::npos; at = line.find("Ordinal", at + 1)) {
    Cursor cursor{line, at};
    const auto field = [&](std::string_view name, uint32_t* value, bool last) {
      if (!cursor.Literal(name)) return false;
      cursor.Spaces(false);
      if (!cursor.Literal(":")) return false;
      cursor.Spaces(false);
      if (!cursor.Literal("0x") || !cursor.Hex(8, value)) return false;
      return last || cursor.Spaces(true);
    };
    if (field("Ordinal", &slot->ordinal, false) && field("Offset", &slot->offset, false) &&
        field("Size", &slot->size, true))
      return true;
  }
  return false;
}

// "Value:\tfunction: <kernel>(0xe)\t<label>: <number>" (EIATTR_REGCOUNT: "register count: 12",
// decimal; EIATTR_FRAME_SIZE: "frame size: 0x0"): the kernel and the number.
bool FunctionValue(std::string_view line, std::string_view label, std::string* kernel, uint32_t* value) {
  const size_t function = line.find("function: "), at = line.find(label);
  if (function == std::string_view::npos || at == std::string_view::npos) return false;
  const size_t open = line.find('(', function);
  if (open == std::string_view::npos || open > at) return false;
  *kernel = std::string(line.substr(function + 10, open - function - 10));
  Cursor cursor{line, at + label.size()};
  cursor.Spaces(false);
  if (cursor.Literal("0x")) return cursor.Hex(8, value);
  uint64_t number = 0;
  const size_t start = cursor.at;
  while (!cursor.Done() && line[cursor.at] >= '0' && line[cursor.at] <= '9' && cursor.at - start < 9)
    number = number * 10 + static_cast<uint64_t>(line[cursor.at++] - '0');
  *value = static_cast<uint32_t>(number);
  return cursor.at > start;
}

// The module-wide facts of a listing: "CUDA Virtual SM: sm_90" and the .nv.constant3 section's size
// ("10 c20 190 0 4 PROGBITS 2 0 0 .nv.constant3": the third column).
void ModuleValue(std::string_view line, uint32_t* virtual_arch, uint32_t* constants) {
  constexpr std::string_view kVirtual = "CUDA Virtual SM: sm_";
  const size_t at = line.find(kVirtual);
  if (at != std::string_view::npos) {
    *virtual_arch = 0;
    for (size_t i = at + kVirtual.size(); i < line.size() && line[i] >= '0' && line[i] <= '9' && i < at + 24;
         ++i)
      *virtual_arch = *virtual_arch * 10 + static_cast<uint32_t>(line[i] - '0');
    return;
  }
  Cursor cursor{line};
  std::vector<std::string_view> words;
  while (cursor.Spaces(false), !cursor.Done()) words.push_back(cursor.Word());
  if (words.size() < 7 || words.back() != ".nv.constant3" || words[5] != "PROGBITS") return;
  Cursor size{words[2]};
  uint32_t value = 0;
  if (size.Hex(8, &value) && size.Done()) *constants = value;
}

}  // namespace

void ReadKernelMetadata(const std::string& elf_listing, std::map<std::string, Kernel, std::less<>>& kernels) {
  // cuobjdump -elf: the section table's .nv.shared.<kernel> sizes, and each .nv.info.<kernel>
  // section's EIATTR_KPARAM_INFO (ordinal, offset, size), EIATTR_PARAM_CBANK (size << 16 | base)
  // and the cluster attributes (EIATTR_EXPLICIT_CLUSTER, EIATTR_CTA_PER_CLUSTER: x y z).
  Kernel* current = nullptr;
  bool cbank_next = false, cluster_next = false, threads_next = false;
  uint32_t virtual_arch = 0, constants = 0;
  std::istringstream lines(elf_listing);
  for (std::string line; std::getline(lines, line);) {
    std::string name;
    uint32_t number = 0;
    ModuleValue(line, &virtual_arch, &constants);
    // EIATTR_REGCOUNT and EIATTR_FRAME_SIZE are in the module's .nv.info, naming their kernel.
    const bool registers = FunctionValue(line, "register count: ", &name, &number);
    if (registers || FunctionValue(line, "frame size: ", &name, &number)) {
      const auto found = kernels.find(name);
      if (found != kernels.end() && registers) found->second.info.registers = static_cast<int32_t>(number);
      if (found != kernels.end() && !registers) found->second.info.frame_bytes = number;
      continue;
    }
    if (SharedSection(line, &name, &number)) {
      const auto found = kernels.find(name);
      if (found != kernels.end()) found->second.info.static_shared_bytes = number;
      continue;
    }
    if (InfoSection(line, &name)) {
      const auto found = kernels.find(name);
      current = found == kernels.end() ? nullptr : &found->second;
      continue;
    }
    if (!line.empty() && line[0] == '.') current = nullptr;  // another section
    if (current == nullptr) continue;
    if (line.find("EIATTR_PARAM_CBANK") != std::string::npos) {
      cbank_next = true;
      continue;
    }
    if (line.find("EIATTR_EXPLICIT_CLUSTER") != std::string::npos) current->info.explicit_cluster = true;
    if (line.find("EIATTR_CTA_PER_CLUSTER") != std::string::npos) {
      cluster_next = true;
      continue;
    }
    if (cluster_next && ClusterValue(line, &current->info.compiled_cluster)) {
      cluster_next = false;
      continue;
    }
    if (line.find("EIATTR_MAX_THREADS") != std::string::npos ||
        line.find("EIATTR_REQNTID") != std::string::npos) {
      threads_next = true;
      continue;
    }
    Dim3 threads;
    if (threads_next && ClusterValue(line, &threads)) {
      const uint64_t product = uint64_t{threads.x} * threads.y * threads.z;
      if (current->info.max_threads == 0 || product < current->info.max_threads)
        current->info.max_threads = static_cast<uint32_t>(std::min<uint64_t>(product, UINT32_MAX));
      threads_next = false;
      continue;
    }
    if (cbank_next && CbankValue(line, &number)) {
      current->info.param_base = number & 0xffff;
      cbank_next = false;
      continue;
    }
    ParamSlot slot;
    if (ParamInfo(line, &slot)) current->info.params.push_back(slot);
  }
  for (auto& [name, kernel] : kernels) {
    kernel.info.virtual_arch = virtual_arch;
    kernel.info.module_constants = constants;
  }
  for (auto& [name, kernel] : kernels)
    std::sort(kernel.info.params.begin(), kernel.info.params.end(),
              [](const ParamSlot& a, const ParamSlot& b) { return a.ordinal < b.ordinal; });
}

}  // namespace bankcheck::emulate::internal
