#pragma once
// Per-line baselines (docs: README "Baselines"): each launch's per-instruction table added up by
// source line and kind, each line known by a key that lines inserted or removed elsewhere in its file
// leave as it is. The key is computed once, where the launch is measured and its sources are on
// hand (the kernel suite), and kept in results and baseline files, so that `compare`, `report` and
// `update-baselines` read no source.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "bankcheck/core/launch_record.h"

namespace bankcheck {

// The key text of one source line.
struct SourceLineKey {
  // The line's code: its characters outside comments (a `// bankcheck:` annotation among them),
  // each run of whitespace as one space, without leading and trailing space, cut to
  // kMaxLineCodeBytes (limits.h); empty for a line of no code.
  std::string code;
  uint32_t occurrence = 0;  // the lines above it with the same code
};

// The key of every line of a source text (LexSource's lines: "\n", "\r\n" or "\r" end a line):
// element i is line i + 1's. Linear in the text's length.
std::vector<SourceLineKey> SourceLineKeys(std::string_view text);

// The keys of a file as line info names it; nullptr when it cannot be read (not on this machine, a
// library's header outside the sources, too large).
using LineKeysOfFile = std::function<const std::vector<SourceLineKey>*(const std::string& file)>;

// Sets `lines` of every record that has its per-instruction table (attributed_launches > 0) to the
// table added up by key and kind: executions, wavefronts and ideal summed, opcodes in the order of
// their first instruction's offset, the line number of the key's first instruction. Each file is
// named relative to `source_root` when under it (WithoutRoot, source_paths.h). Instructions
// without line info are left out. A line whose file `keys_of` cannot read, or whose number its
// file does not have, gets no code (known by its number). Records without a table get nullopt.
void AttachLineRecords(std::vector<LaunchRecord>& records, const std::string& source_root,
                       const LineKeysOfFile& keys_of);

// What two launches' lines are matched by: file, code, occurrence (the number for a line with no
// code) and kind.
using LineKey = std::tuple<std::string, std::string, uint32_t, MemoryKind>;
LineKey KeyOf(const LineRecord& line);

}  // namespace bankcheck
