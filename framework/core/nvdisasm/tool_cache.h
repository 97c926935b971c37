#pragma once
// A cache of what the CUDA toolkit's tools printed for given input bytes: nvdisasm's listings of the
// SASS backend's cubins (cuda/internal/disassembly.h) and the emulator's listings of its modules
// (emulate/module.cc). nvdisasm and cuobjdump cost about half a second of start-up per run whatever
// the input's size, and a suite's processes read the same modules again and again. Each entry
// holds the whole input it was made from and the identity of the tools that made it (ToolIdentity),
// and is used only for the same bytes and the same tools, so a cached output is what the tools would
// print. A cache only ever makes things faster: an entry that cannot be read is made again, one
// that cannot be written is not an error.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace bankcheck::internal {

// The folder of the cache: BANKCHECK_DISASSEMBLY_CACHE (an absolute path; "off" for none), else
// `default_folder` (kernel suites: a folder under their build folder), else none ("").
// Error(kBadInput) for a relative BANKCHECK_DISASSEMBLY_CACHE.
std::string DisassemblyCacheFolder(const std::string& default_folder);

// What an entry must have been made by: the tool's absolute path, size and modification time
// (another toolkit, or the tool replaced, makes every entry stale). "" when `tool` is not an
// absolute path to a file: then nothing it makes may be cached.
std::string ToolIdentity(const std::string& tool);

// The start of an entry: `magic` (the kind of entry and its format's version, ending in '\n'), the
// tools' identity and the size of the input, whose bytes follow it, then the output.
std::string ToolCacheHeader(std::string_view magic, const std::string& identity, size_t input_size);

// The output `file` holds when it is an entry of `header` for exactly `input`; nullopt otherwise
// (missing, unreadable, made from other bytes or by other tools).
std::optional<std::string> ReadToolCache(const std::filesystem::path& file, const std::string& header,
                                         std::string_view input);

// Stores `output` as the entry of `header` and `input` in `file` (its folder created when missing,
// the file replaced atomically: readers in other processes see the old entry or the new). "" when
// written, else why not.
std::string WriteToolCache(const std::filesystem::path& file, const std::string& header,
                           std::string_view input, std::string_view output);

}  // namespace bankcheck::internal
