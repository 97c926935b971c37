// A cubin's kernel metadata from cuobjdump -elf's listing: parameters (EIATTR_KPARAM_INFO), the
// parameter base in constant bank 0 (EIATTR_PARAM_CBANK) and static shared memory (the
// .nv.shared.<kernel> section sizes).

#include <algorithm>
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

}  // namespace

void ReadKernelMetadata(const std::string& elf_listing, std::map<std::string, Kernel, std::less<>>& kernels) {
  // cuobjdump -elf: the section table's .nv.shared.<kernel> sizes, and each .nv.info.<kernel>
  // section's EIATTR_KPARAM_INFO (ordinal, offset, size), EIATTR_PARAM_CBANK (size << 16 | base)
  // and the cluster attributes (EIATTR_EXPLICIT_CLUSTER, EIATTR_CTA_PER_CLUSTER: x y z).
  Kernel* current = nullptr;
  bool cbank_next = false, cluster_next = false;
  std::istringstream lines(elf_listing);
  for (std::string line; std::getline(lines, line);) {
    std::string name;
    uint32_t number = 0;
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
    if (cbank_next && CbankValue(line, &number)) {
      current->info.param_base = number & 0xffff;
      cbank_next = false;
      continue;
    }
    ParamSlot slot;
    if (ParamInfo(line, &slot)) current->info.params.push_back(slot);
  }
  for (auto& [name, kernel] : kernels)
    std::sort(kernel.info.params.begin(), kernel.info.params.end(),
              [](const ParamSlot& a, const ParamSlot& b) { return a.ordinal < b.ordinal; });
  for (auto& [name, kernel] : kernels)
    std::sort(kernel.info.params.begin(), kernel.info.params.end(),
              [](const ParamSlot& a, const ParamSlot& b) { return a.ordinal < b.ordinal; });
}

}  // namespace bankcheck::emulate::internal
