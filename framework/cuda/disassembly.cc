#include "cuda/internal/disassembly.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "bankcheck/core/error.h"
#include "core/nvdisasm/nvdisasm.h"
#include "core/nvdisasm/tool_cache.h"
#include "core/platform/environment.h"
#include "core/platform/file_io.h"
#include "core/platform/subprocess.h"

namespace bankcheck::internal {
namespace {

constexpr std::string_view kCacheMagic = "bankcheck nvdisasm cache 1\n";

// nvdisasm's listing of `cubin`; empty when nvdisasm cannot be run (or none was found).
std::string RunNvdisasm(const std::string& nvdisasm, const std::vector<char>& cubin) {
  if (nvdisasm.empty()) return "";
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

std::string CacheEntryName(uint32_t crc, size_t size) {
  char name[64];
  std::snprintf(name, sizeof name, "%08x-%zu.listing", crc, size);
  return name;
}

bool Tracing() { return FlagFromEnvironment("BANKCHECK_TRACE_SESSION"); }

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string NvdisasmListing(const std::vector<char>& cubin, uint32_t crc, const std::string& cache) {
  const auto start = std::chrono::steady_clock::now();
  const std::string nvdisasm = FindCudaTool("nvdisasm", "BANKCHECK_NVDISASM").path;
  const std::string identity = ToolIdentity(nvdisasm);
  // Without a path to nvdisasm there is nothing to tell its listings apart by: no cache.
  const bool cached = !cache.empty() && !identity.empty();
  const std::string header = ToolCacheHeader(kCacheMagic, identity, cubin.size());
  const std::string_view bytes(cubin.data(), cubin.size());
  const std::filesystem::path entry = std::filesystem::path(cache) / CacheEntryName(crc, cubin.size());
  if (cached) {
    if (std::optional<std::string> listing = ReadToolCache(entry, header, bytes)) {
      if (Tracing())
        std::fprintf(stderr,
                     "bankcheck trace: nvdisasm listing of cubin %08x (%zu bytes) from the cache: %.3f ms\n",
                     crc, cubin.size(), MillisecondsSince(start));
      return *std::move(listing);
    }
  }
  std::string listing = RunNvdisasm(nvdisasm, cubin);
  if (Tracing())
    std::fprintf(stderr,
                 "bankcheck trace: nvdisasm -gi on cubin %08x (%zu bytes, %zu bytes listed): %.3f ms\n", crc,
                 cubin.size(), listing.size(), MillisecondsSince(start));
  if (cached && !listing.empty()) {
    // Only slower next time when it cannot be written.
    const std::string why = WriteToolCache(entry, header, bytes, listing);
    if (!why.empty() && Tracing())
      std::fprintf(stderr, "bankcheck trace: disassembly cache not written: %s\n", why.c_str());
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
