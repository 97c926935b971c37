#pragma once
// The listing of a cubin's instructions, `nvdisasm -gi -c` (docs/attribution.md; ParseNvdisasm in
// core/nvdisasm/nvdisasm.h reads it).
// nvdisasm costs about half a second of start-up per run whatever the cubin's size (0.4-0.8 s of
// CPU on an empty sm_90 input), so its listings are kept in a disassembly cache when one is set:
// each entry holds the whole cubin it was made from and is used only for the same bytes and the
// same nvdisasm, so a cached listing is the listing nvdisasm would print.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/nvdisasm/tool_cache.h"  // DisassemblyCacheFolder
#include "cuda/internal/thread_annotations.h"

namespace bankcheck::internal {

// The listing of `cubin` (`nvdisasm -gi -c`), from the cache folder `cache` when it holds an entry
// for these bytes made by this nvdisasm, else by running nvdisasm (FindCudaTool: BANKCHECK_NVDISASM,
// the toolkit bankcheck was built with, the wheel beside the program, then PATH's absolute folders) and
// storing it there (created when missing; a cache that cannot be written is not an error). "" when nvdisasm
// cannot be run. With BANKCHECK_TRACE_SESSION, prints where the time went on stderr.
std::string NvdisasmListing(const std::vector<char>& cubin, uint32_t crc, const std::string& cache);

// Listings made before they are needed, on up to `workers` background threads: a kernel suite
// queues each of its project's modules as CUDA loads it (all at once when loading is eager), so
// that the nvdisasm start-up of every module is paid in parallel, beside the first cases, instead
// of one after another as each case first needs its module's lines. Take(crc) returns the listing of
// a queued cubin: made by the caller itself when no worker has begun it, waited for when one has.
// The destructor waits for the workers; the process-wide one is never destroyed.
class ListingPrefetcher {
 public:
  explicit ListingPrefetcher(unsigned workers) : workers_(workers) {}
  ~ListingPrefetcher();
  ListingPrefetcher(const ListingPrefetcher&) = delete;
  ListingPrefetcher& operator=(const ListingPrefetcher&) = delete;

  // Queues NvdisasmListing(*cubin, crc, cache); a CRC already queued is left as it is.
  void Start(std::shared_ptr<const std::vector<char>> cubin, uint32_t crc, std::string cache)
      BANKCHECK_EXCLUDES(mutex_);
  // The listing of the cubin queued under `crc`, which leaves the queue; nullopt when none is.
  std::optional<std::string> Take(uint32_t crc) BANKCHECK_EXCLUDES(mutex_);

 private:
  struct Job;
  void Work() BANKCHECK_EXCLUDES(mutex_);

  const unsigned workers_;
  Mutex mutex_;
  std::map<uint32_t, std::shared_ptr<Job>> jobs_ BANKCHECK_GUARDED_BY(mutex_);
  std::vector<std::shared_ptr<Job>> queue_ BANKCHECK_GUARDED_BY(mutex_);  // oldest first
  std::vector<std::thread> threads_ BANKCHECK_GUARDED_BY(mutex_);
  unsigned working_ BANKCHECK_GUARDED_BY(mutex_) = 0;
  bool stopping_ BANKCHECK_GUARDED_BY(mutex_) = false;
};

}  // namespace bankcheck::internal
