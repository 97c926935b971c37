#pragma once
// The listing of a cubin's instructions, `nvdisasm -gi -c` (docs/attribution.md; ParseNvdisasm in
// core/internal/nvdisasm.h reads it).
// nvdisasm costs about half a second of start-up per run whatever the cubin's size (0.4-0.8 s of
// CPU on an empty sm_90 input), so its listings are kept in a disassembly cache when one is set:
// each entry holds the whole cubin it was made from and is used only for the same bytes and the
// same nvdisasm, so a cached listing is the listing nvdisasm would print.

#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::internal {

// The folder of the disassembly cache: BANKCHECK_DISASSEMBLY_CACHE (an absolute path; "off" for
// none), else `default_folder` (kernel suites: <build folder>/bankcheck-cache/nvdisasm), else none
// (""). Error(kBadInput) for a relative BANKCHECK_DISASSEMBLY_CACHE.
std::string DisassemblyCacheFolder(const std::string& default_folder);

// The listing of `cubin` (`nvdisasm -gi -c`), from the cache folder `cache` when it holds an entry
// for these bytes made by this nvdisasm, else by running nvdisasm (FindCudaTool: BANKCHECK_NVDISASM,
// the toolkit bankcheck was built with, then PATH) and storing it there (created when missing; a cache that
// cannot be written is not an error). "" when nvdisasm cannot be run. With BANKCHECK_TRACE_SESSION,
// prints where the time went on stderr.
std::string NvdisasmListing(const std::vector<char>& cubin, uint32_t crc, const std::string& cache);

}  // namespace bankcheck::internal
