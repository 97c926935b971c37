#include "core/nvdisasm/nvdisasm.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string_view>

#include "bankcheck/core/error.h"
#include "core/platform/environment.h"
#include "core/platform/file_io.h"
#include "core/platform/output_folder.h"
#include "core/platform/source_paths.h"

namespace bankcheck::internal {

namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string BuiltWith() {
#ifdef BANKCHECK_CUDA_BIN_DIR
  return BANKCHECK_CUDA_BIN_DIR;
#else
  return "";
#endif
}

std::string Program() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "" : self.string();
}

// The site-packages folder of `program` when it is the installed bankcheck wheel's program
// (site-packages/bankcheck/bin/<name>), else "": a build folder, an install prefix, a copy of the
// layout. Only that place says where NVIDIA's wheels are; anywhere else two folders up is
// whatever folder holds the build (/tmp/x/build: /tmp). Decided by its path alone.
std::filesystem::path WheelSitePackages(const std::filesystem::path& program) {
  const std::filesystem::path bin = program.parent_path();
  const std::filesystem::path site_packages = bin.parent_path().parent_path();
  const std::string packages = site_packages.filename().string();
  if (!program.is_absolute() || bin.filename() != "bin" || bin.parent_path().filename() != "bankcheck" ||
      (packages != "site-packages" && packages != "dist-packages"))
    return {};
  return site_packages;
}

// Whether pip's RECORD of the bankcheck wheel in `site_packages` (bankcheck-<version>.dist-info/RECORD)
// lists `bankcheck/bin/<name>`: the program was installed by that wheel. Read only once the folders
// on the way are known to be the caller's or root's (WheelTool), so only they can have written it.
bool InstalledByTheWheel(const std::filesystem::path& site_packages, const std::string& name) {
  const std::string listed = "bankcheck/bin/" + name + ",";
  std::error_code error;
  for (std::filesystem::directory_iterator entry(site_packages, error), end; !error && entry != end;
       entry.increment(error)) {
    const std::string folder = entry->path().filename().string();
    if (folder.rfind("bankcheck-", 0) != 0 || folder.size() <= 20 ||
        folder.compare(folder.size() - 10, 10, ".dist-info") != 0)
      continue;
    try {
      const std::string record = ReadTextFile(entry->path() / "RECORD", "");
      for (size_t at = 0; (at = record.find(listed, at)) != std::string::npos; ++at)
        if (at == 0 || record[at - 1] == '\n') return true;
    } catch (const Error&) {
      // No RECORD there, or one that cannot be read: not this wheel's.
    }
  }
  return false;
}

// The nvidia-cuda-<name> wheel's program beside the bankcheck wheel's `program`
// (site-packages/nvidia/cu13/bin/<name>), or "" with what was searched and why it was not used in
// `searched`. Used only when nobody but root and the caller can change it or a folder on the way to
// it (OthersMayChangeFile, output_folder.h): a tool that another user could have put there is never
// run.
std::string WheelTool(const std::string& program, const std::string& name, std::string& searched) {
  const std::filesystem::path site_packages = WheelSitePackages(program);
  if (site_packages.empty()) return "";
  const std::filesystem::path folder = site_packages / "nvidia" / "cu13" / "bin";
  const std::string candidate = (folder / name).string();
  std::error_code absent;
  if (!std::filesystem::exists(std::filesystem::symlink_status(folder / name, absent))) {
    searched += ", " + folder.string();
    return "";
  }
  std::string why = OthersMayChangeFile(folder / name, "run");
  if (why.empty() && !IsExecutableFile(candidate)) why = candidate + " is not an executable file";
  if (why.empty() && !InstalledByTheWheel(site_packages, std::filesystem::path(program).filename().string()))
    why = program + " is not listed in a bankcheck-*.dist-info/RECORD of " + site_packages.string();
  if (why.empty()) return candidate;
  searched += ", " + folder.string() + " (not used: " + why + ")";
  return "";
}

}  // namespace

std::string CudaTool::Describe(const std::string& name) const {
  if (path.empty()) return "no " + name + " found (searched " + found_by + ")";
  return name + " " + path + " (found by " + found_by + ")";
}

CudaTool ResolveCudaTool(const std::string& name, const char* variable, const std::string& path_variable,
                         const std::string& program, const std::string& built_with) {
  if (std::string set = ExecutableFromEnvironment(variable); !set.empty()) return {set, variable};
  std::string searched = std::string(variable);
  if (!built_with.empty()) {
    const std::string candidate = (std::filesystem::path(built_with) / name).string();
    if (built_with[0] == '/' && IsExecutableFile(candidate))
      return {candidate, "the CUDA toolkit bankcheck was built with"};
    searched += ", " + built_with;
  }
  if (std::string wheel = WheelTool(program, name, searched); !wheel.empty())
    return {wheel, "the nvidia-cuda-" + name + " wheel beside this program"};
  size_t start = 0;
  while (start <= path_variable.size()) {
    size_t end = path_variable.find(':', start);
    if (end == std::string::npos) end = path_variable.size();
    const std::string folder = path_variable.substr(start, end - start);
    start = end + 1;
    // An empty or relative entry names the current folder (or one below it): skipped.
    if (folder.empty() || folder[0] != '/') continue;
    const std::string candidate = (std::filesystem::path(folder) / name).string();
    if (IsExecutableFile(candidate)) return {candidate, "PATH"};
  }
  return {"", searched + " and the absolute folders of PATH"};
}

CudaTool FindCudaTool(const std::string& name, const char* variable) {
  static std::mutex mutex;
  static std::map<std::string, CudaTool>* const resolved = new std::map<std::string, CudaTool>;
  // Once per process and environment: a test (or a program) that changes the variable or PATH
  // gets the tool they now name.
  const char* set = std::getenv(variable);
  const char* path = std::getenv("PATH");
  const std::string key = name + '\0' + (set != nullptr ? set : "") + '\0' + (path != nullptr ? path : "");
  std::lock_guard<std::mutex> lock(mutex);
  const auto found = resolved->find(key);
  if (found != resolved->end()) return found->second;
  CudaTool tool = ResolveCudaTool(name, variable, path != nullptr ? path : "", Program(), BuiltWith());
  if (FlagFromEnvironment("BANKCHECK_TRACE_SESSION"))
    std::fprintf(stderr, "bankcheck trace: %s\n", tool.Describe(name).c_str());
  return resolved->emplace(key, tool).first->second;
}

namespace {

// Reads the number at the start of `text` (decimal, or lower-case hexadecimal for base 16) into
// `value`; false when there is none or it is beyond uint32's range. `used`: the digits read.
bool ReadNumber(std::string_view text, int base, size_t& used, uint32_t& value) {
  uint64_t v = 0;
  used = 0;
  for (; used < text.size(); ++used) {
    const char c = text[used];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (base == 16 && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (digit < 0) break;
    v = v * base + digit;
    if (v > UINT32_MAX) return false;
  }
  value = static_cast<uint32_t>(v);
  return used > 0;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view TrimFront(std::string_view text) {
  size_t at = 0;
  while (at < text.size() && IsSpace(text[at])) ++at;
  return text.substr(at);
}

std::string_view TrimBack(std::string_view text) {
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// `//## File "<file>", line <n>[ inlined at ...]`: the first frame; false for other lines.
bool LineInfoFrame(std::string_view line, SourceFrame& frame) {
  constexpr std::string_view kFile = "//## File \"", kLine = "\", line ";
  line = TrimFront(line);
  if (line.substr(0, kFile.size()) != kFile) return false;
  line.remove_prefix(kFile.size());
  const size_t quote = line.find('"');
  if (quote == std::string_view::npos || line.substr(quote, kLine.size()) != kLine) return false;
  size_t used = 0;
  uint32_t number = 0;
  if (!ReadNumber(line.substr(quote + kLine.size()), 10, used, number)) return false;
  frame = {NormalizedSourcePath(line.substr(0, quote)), number};
  return true;
}

// `.text.<name>:` opening a function (the name up to white space or ':', which must follow it).
bool FunctionStart(std::string_view line, std::string& name) {
  constexpr std::string_view kText = ".text.";
  line = TrimFront(line);
  if (line.substr(0, kText.size()) != kText) return false;
  line.remove_prefix(kText.size());
  size_t end = 0;
  while (end < line.size() && !IsSpace(line[end]) && line[end] != ':') ++end;
  if (end == 0 || end >= line.size() || line[end] != ':') return false;
  name = std::string(line.substr(0, end));
  return true;
}

// `.L_x_<n>:` at the start of the line: a label naming the next instruction's offset; or
// `$<name>:`, a subroutine ptxas placed in the kernel's section (`$__internal_0_$__cuda_sm3x_div_rn_
// noftz_f32_slowpath:`, which CALL.REL.NOINC names).
bool LabelAt(std::string_view line, std::string& label) {
  constexpr std::string_view kLabel = ".L_x_";
  if (!line.empty() && line[0] == '$') {
    size_t end = 1;
    while (end < line.size() && !IsSpace(line[end]) && line[end] != ':') ++end;
    if (end == 1 || end >= line.size() || line[end] != ':') return false;
    label = std::string(line.substr(0, end));
    return true;
  }
  if (line.substr(0, kLabel.size()) != kLabel) return false;
  size_t end = kLabel.size();
  while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
  if (end == kLabel.size() || end >= line.size() || line[end] != ':') return false;
  label = std::string(line.substr(0, end));
  return true;
}

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsOpcodeChar(char c) {
  return IsUpper(c) || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// `/*0220*/  [@!P0 ]LDS.128 R4, [R9+UR4] ;`: the offset (4 or more lower-case hex digits), the
// guard (@P0, @!P0, @UP0, @!UPT), the opcode with its modifiers (which may hold lower-case letters:
// HGMMA.64x64x16.F32) and the operands up to the ';' that must end them. Tried at each "/*" of the
// line, as a search would.
bool InstructionAt(std::string_view line, uint32_t& offset, DisassembledInstruction& instruction) {
  for (size_t at = line.find("/*"); at != std::string_view::npos; at = line.find("/*", at + 1)) {
    std::string_view rest = line.substr(at + 2);
    size_t used = 0;
    if (!ReadNumber(rest, 16, used, offset) || used < 4 || rest.substr(used, 2) != "*/") continue;
    rest.remove_prefix(used + 2);
    const std::string_view after_offset = TrimFront(rest);
    if (after_offset.size() == rest.size()) continue;  // white space must follow
    rest = after_offset;
    std::string_view guard;
    if (!rest.empty() && rest[0] == '@') {
      size_t p = 1;
      if (p < rest.size() && rest[p] == '!') ++p;
      if (p < rest.size() && rest[p] == 'U') ++p;
      if (p >= rest.size() || rest[p] != 'P') continue;
      const size_t digits = ++p;
      while (p < rest.size() && (rest[p] == 'T' || (rest[p] >= '0' && rest[p] <= '9'))) ++p;
      if (p == digits) continue;
      const std::string_view after_guard = TrimFront(rest.substr(p));
      if (after_guard.size() == rest.size() - p) continue;  // white space must follow
      guard = rest.substr(0, p);
      rest = after_guard;
    }
    if (rest.empty() || !IsUpper(rest[0])) continue;
    size_t end = 1;
    while (end < rest.size() && IsOpcodeChar(rest[end])) ++end;
    const size_t semicolon = rest.find(';', end);
    if (semicolon == std::string_view::npos) continue;
    instruction.opcode = std::string(rest.substr(0, end));
    instruction.guard = std::string(guard);
    instruction.operands = std::string(TrimBack(TrimFront(rest.substr(end, semicolon - end))));
    return true;
  }
  return false;
}

}  // namespace

namespace {
// The current folder as getcwd() spells it, and as $PWD does where that names the same folder.
std::vector<std::string> WorkingFolderSpellings() {
  std::vector<std::string> spellings;
  std::error_code error;
  const std::filesystem::path current = std::filesystem::current_path(error);
  if (!error) spellings.push_back(current.string());
  struct stat here {};
  if (::stat(".", &here) != 0) return spellings;
  if (std::string pwd = PwdNaming(here); !pwd.empty() && (spellings.empty() || pwd != spellings[0]))
    spellings.push_back(pwd);
  return spellings;
}
}  // namespace

Disassembly ParseNvdisasm(const std::string& listing) {
  // "        .text._Z9transposePKfPf:" opens a function; "/*0220*/  @!P0 LDS.128 R4, [R2] ;" is
  // an instruction, ".L_x_15:" a label of the next one. With -gi, the instructions after
  //   //## File "/p/cute/arch/copy_sm80.hpp", line 64 inlined at "/p/gemm.cu", line 137
  //   //## File "/p/gemm.cu", line 137 inlined at "/p/gemm.cu", line 152
  //   //## File "/p/gemm.cu", line 152
  // come from that chain of lines, innermost first (a group of such lines replaces the last).
  // Read with plain string scans: a listing may be megabytes, and std::regex took most of the
  // parse's time (and recurses per character on long lines).
  Disassembly disassembled;
  // Sources compiled at run time, named as the program named them (RunTimeSourceName), each file
  // looked up once. The compiler names the folder as getcwd() does, or, as GCC does, as $PWD spells
  // it where that is the same folder (a checkout reached through a link): both are tried.
  const std::vector<std::string> working_folders = WorkingFolderSpellings();
  std::map<std::string, std::string, std::less<>> source_names;
  std::map<uint32_t, DisassembledInstruction>* current = nullptr;
  std::vector<SourceFrame> chain;
  std::vector<std::string> labels;  // read since the last instruction
  bool chain_open = false;          // the last line read was a line-info line: the next one extends the chain
  const std::string_view text(listing);
  size_t start = 0;
  std::string name;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    SourceFrame frame;
    if (LineInfoFrame(line, frame)) {
      auto named = source_names.find(frame.file);
      if (named == source_names.end()) {
        std::error_code error;
        const bool exists = std::filesystem::exists(frame.file, error);
        std::string program_named = frame.file;
        for (size_t i = 0; i < working_folders.size() && program_named == frame.file; ++i)
          program_named = RunTimeSourceName(frame.file, working_folders[i], exists);
        named = source_names.emplace(frame.file, std::move(program_named)).first;
      }
      frame.file = named->second;
      if (!chain_open) chain.clear();
      chain_open = true;
      chain.push_back(std::move(frame));
      continue;
    }
    chain_open = false;
    uint32_t offset = 0;
    DisassembledInstruction instruction;
    if (FunctionStart(line, name)) {
      current = &disassembled[name];
      chain.clear();
      labels.clear();
    } else if (LabelAt(line, name)) {
      labels.push_back(name);
    } else if (current != nullptr && InstructionAt(line, offset, instruction)) {
      instruction.inline_chain = chain;
      instruction.labels = std::move(labels);
      labels.clear();
      (*current)[offset] = std::move(instruction);
    }
  }
  return disassembled;
}

}  // namespace bankcheck::internal
