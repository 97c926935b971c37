#include "cuda/internal/disassembly.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "bankcheck/error.h"
#include "core/internal/environment.h"
#include "core/internal/file_io.h"
#include "core/internal/source_paths.h"
#include "core/internal/subprocess.h"

namespace bankcheck::internal {
namespace {

constexpr std::string_view kCacheMagic = "bankcheck nvdisasm cache 1\n";

// nvdisasm: BANKCHECK_NVDISASM (an absolute path to an executable; Error otherwise), else the
// toolkit's that bankcheck was built with, else found on PATH.
std::string FindNvdisasm() {
  if (std::string set = ExecutableFromEnvironment("BANKCHECK_NVDISASM"); !set.empty()) return set;
#ifdef BANKCHECK_CUDA_BIN_DIR
  const std::filesystem::path built_with = std::filesystem::path(BANKCHECK_CUDA_BIN_DIR) / "nvdisasm";
  if (::access(built_with.c_str(), X_OK) == 0) return built_with.string();
#endif
  return "nvdisasm";
}

// What a cache entry must have been made by: nvdisasm's path, size and modification time (another
// toolkit, or nvdisasm replaced, makes every entry stale). "" when it cannot be found by path.
std::string NvdisasmIdentity(const std::string& nvdisasm) {
  struct stat info {};
  if (nvdisasm.find('/') == std::string::npos || ::stat(nvdisasm.c_str(), &info) != 0) return "";
  return nvdisasm + " " + std::to_string(info.st_size) + " " + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec);
}

// nvdisasm's listing of `cubin`; empty when nvdisasm cannot be run.
std::string RunNvdisasm(const std::string& nvdisasm, const std::vector<char>& cubin) {
  std::string path_text = (std::filesystem::temp_directory_path() / "bankcheck-cubin-XXXXXX").string();
  char* path = path_text.data();
  // Written through mkstemp's descriptor: reopening the name could follow a link swapped in for it.
  const int fd = ::mkstemp(path);
  if (fd < 0) return "";
  const bool written = WriteAll(fd, std::string_view(cubin.data(), cubin.size()));
  ::close(fd);
  // An argument vector, no shell: neither the path nor BANKCHECK_NVDISASM can become a command.
  // -gi: each instruction's source line with the chain of calls it was inlined through.
  const ProgramRun run = written ? RunProgram(nvdisasm, {"-gi", "-c", path}) : ProgramRun{};
  std::remove(path);
  return run.exit_status == 0 ? run.output : "";
}

// The cache entry's header: what it must match besides the cubin's bytes, which follow it.
std::string CacheHeader(const std::string& identity, size_t cubin_size) {
  return std::string(kCacheMagic) + identity + "\n" + std::to_string(cubin_size) + "\n";
}

std::string CacheEntryName(uint32_t crc, size_t size) {
  char name[64];
  std::snprintf(name, sizeof name, "%08x-%zu.listing", crc, size);
  return name;
}

// The listing an entry holds when it was made from exactly `cubin` by `identity`; nullopt-like ""
// with `found` false otherwise (missing, unreadable, another cubin or nvdisasm).
std::string ReadCacheEntry(const std::filesystem::path& file, const std::string& header,
                           const std::vector<char>& cubin, bool& found) {
  found = false;
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return "";
  std::string entry;
  try {
    entry = ReadTextFile(file, "");
  } catch (const Error&) {
    return "";
  }
  const std::string_view bytes(cubin.data(), cubin.size());
  if (entry.size() < header.size() + bytes.size() || entry.compare(0, header.size(), header) != 0 ||
      std::string_view(entry).substr(header.size(), bytes.size()) != bytes)
    return "";
  found = true;
  return entry.substr(header.size() + bytes.size());
}

bool Tracing() { return FlagFromEnvironment("BANKCHECK_TRACE_SESSION"); }

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Reads the decimal number at the start of `text` into `value` (at most uint32's range); false when
// there is none or it is too large.
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

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsOpcodeChar(char c) {
  return IsUpper(c) || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// `/*0220*/  [@!P0 ]LDS.128 ...`: the offset (4 or more lower-case hex digits) and the opcode (an
// optional predicate skipped; the opcode with its modifiers, which may hold lower-case letters:
// HGMMA.64x64x16.F32). Tried at each "/*" of the line, as a search would.
bool InstructionAt(std::string_view line, uint32_t& offset, std::string& opcode) {
  for (size_t at = line.find("/*"); at != std::string_view::npos; at = line.find("/*", at + 1)) {
    std::string_view rest = line.substr(at + 2);
    size_t used = 0;
    if (!ReadNumber(rest, 16, used, offset) || used < 4 || rest.substr(used, 2) != "*/") continue;
    rest.remove_prefix(used + 2);
    const std::string_view after_offset = TrimFront(rest);
    if (after_offset.size() == rest.size()) continue;  // white space must follow
    rest = after_offset;
    if (!rest.empty() && rest[0] == '@') {  // @P0, @!P0, @UP0, @!UPT
      size_t p = 1;
      if (p < rest.size() && rest[p] == '!') ++p;
      if (p < rest.size() && rest[p] == 'U') ++p;
      if (p >= rest.size() || rest[p] != 'P') continue;
      const size_t digits = ++p;
      while (p < rest.size() && (rest[p] == 'T' || (rest[p] >= '0' && rest[p] <= '9'))) ++p;
      if (p == digits) continue;
      const std::string_view after_predicate = TrimFront(rest.substr(p));
      if (after_predicate.size() == rest.size() - p) continue;
      rest = after_predicate;
    }
    if (rest.empty() || !IsUpper(rest[0])) continue;
    size_t end = 1;
    while (end < rest.size() && IsOpcodeChar(rest[end])) ++end;
    opcode = std::string(rest.substr(0, end));
    return true;
  }
  return false;
}

}  // namespace

Disassembly ParseNvdisasm(const std::string& listing) {
  // "        .text._Z9transposePKfPf:" opens a function; "/*0220*/  @!P0 LDS.128 R4, [R2] ;" is
  // an instruction. With -gi, the instructions after
  //   //## File "/p/cute/arch/copy_sm80.hpp", line 64 inlined at "/p/gemm.cu", line 137
  //   //## File "/p/gemm.cu", line 137 inlined at "/p/gemm.cu", line 152
  //   //## File "/p/gemm.cu", line 152
  // come from that chain of lines, innermost first (a group of such lines replaces the last).
  // Read with plain string scans: a listing may be megabytes, and std::regex took most of the
  // parse's time (and recurses per character on long lines).
  Disassembly disassembled;
  std::map<uint32_t, DisassembledInstruction>* current = nullptr;
  std::vector<SourceFrame> chain;
  bool chain_open = false;  // the last line read was a line-info line: the next one extends the chain
  const std::string_view text(listing);
  size_t start = 0;
  std::string name, opcode;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    SourceFrame frame;
    if (LineInfoFrame(line, frame)) {
      if (!chain_open) chain.clear();
      chain_open = true;
      chain.push_back(std::move(frame));
      continue;
    }
    chain_open = false;
    uint32_t offset = 0;
    if (FunctionStart(line, name)) {
      current = &disassembled[name];
      chain.clear();
    } else if (current != nullptr && InstructionAt(line, offset, opcode)) {
      (*current)[offset] = {opcode, chain};
    }
  }
  return disassembled;
}

std::string DisassemblyCacheFolder(const std::string& default_folder) {
  const char* set = std::getenv("BANKCHECK_DISASSEMBLY_CACHE");
  if (set != nullptr && std::string_view(set) == "off") return "";
  if (std::string folder = AbsolutePathFromEnvironment("BANKCHECK_DISASSEMBLY_CACHE"); !folder.empty())
    return folder;
  return default_folder;
}

std::string NvdisasmListing(const std::vector<char>& cubin, uint32_t crc, const std::string& cache) {
  const auto start = std::chrono::steady_clock::now();
  const std::string nvdisasm = FindNvdisasm();
  const std::string identity = NvdisasmIdentity(nvdisasm);
  // Without a path to nvdisasm there is nothing to tell its listings apart by: no cache.
  const bool cached = !cache.empty() && !identity.empty();
  const std::string header = CacheHeader(identity, cubin.size());
  const std::filesystem::path entry = std::filesystem::path(cache) / CacheEntryName(crc, cubin.size());
  if (cached) {
    bool found = false;
    std::string listing = ReadCacheEntry(entry, header, cubin, found);
    if (found) {
      if (Tracing())
        std::fprintf(stderr,
                     "bankcheck trace: nvdisasm listing of cubin %08x (%zu bytes) from the cache: %.3f ms\n",
                     crc, cubin.size(), MillisecondsSince(start));
      return listing;
    }
  }
  std::string listing = RunNvdisasm(nvdisasm, cubin);
  if (Tracing())
    std::fprintf(stderr,
                 "bankcheck trace: nvdisasm -gi on cubin %08x (%zu bytes, %zu bytes listed): %.3f ms\n", crc,
                 cubin.size(), listing.size(), MillisecondsSince(start));
  if (cached && !listing.empty()) {
    try {
      CreateOutputFolders(cache);
      WriteFileAtomically(entry, header + std::string(cubin.data(), cubin.size()) + listing);
    } catch (const Error& e) {
      // Only slower next time.
      if (Tracing()) std::fprintf(stderr, "bankcheck trace: disassembly cache not written: %s\n", e.what());
    }
  }
  return listing;
}

// One cubin's listing, made once by whichever thread comes first; the others wait for it.
struct ListingPrefetcher::Job {
  std::shared_ptr<const std::vector<char>> cubin;
  uint32_t crc = 0;
  std::string cache;
  std::once_flag made;
  std::string listing;

  const std::string& Listing() {
    std::call_once(made, [this] { listing = NvdisasmListing(*cubin, crc, cache); });
    return listing;
  }
};

ListingPrefetcher::~ListingPrefetcher() {
  std::vector<std::thread> threads;
  {
    MutexLock lock(mutex_);
    stopping_ = true;
    queue_.clear();
    threads.swap(threads_);
  }
  for (std::thread& thread : threads) thread.join();
}

void ListingPrefetcher::Start(std::shared_ptr<const std::vector<char>> cubin, uint32_t crc,
                              std::string cache) {
  auto job = std::make_shared<Job>();
  job->cubin = std::move(cubin);
  job->crc = crc;
  job->cache = std::move(cache);
  MutexLock lock(mutex_);
  if (stopping_ || !jobs_.emplace(crc, job).second) return;
  queue_.push_back(std::move(job));
  if (working_ >= workers_) return;
  try {
    threads_.emplace_back([this] { Work(); });
    ++working_;
  } catch (const std::system_error&) {
    // No thread to be had: Take makes the listing itself.
  }
}

void ListingPrefetcher::Work() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      MutexLock lock(mutex_);
      if (queue_.empty() || stopping_) {
        --working_;
        return;
      }
      job = std::move(queue_.front());
      queue_.erase(queue_.begin());
    }
    job->Listing();
  }
}

std::optional<std::string> ListingPrefetcher::Take(uint32_t crc) {
  std::shared_ptr<Job> job;
  {
    MutexLock lock(mutex_);
    const auto found = jobs_.find(crc);
    if (found == jobs_.end()) return std::nullopt;
    job = std::move(found->second);
    jobs_.erase(found);
  }
  return job->Listing();
}

}  // namespace bankcheck::internal
