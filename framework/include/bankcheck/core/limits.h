#pragma once
// The limits on what bankcheck reads, in one place (docs/security.md, "Limits"). Results files,
// baselines and benchmark output may come from a pull request, so every reader refuses input
// beyond these with Error(kBadInput) naming the file, the limit and what to do, instead of running
// for hours or exhausting memory. Each limit is far above what a real suite writes (bankcheck's
// own: 174 cases, one launch or a few each, results files of about 1 MB).

#include <cstddef>
#include <cstdint>

namespace bankcheck {

// The largest file bankcheck reads (results, fragments, baselines, benchmark JSON): 64 MiB. A
// parsed JSON document takes several times its text in memory, so this also bounds memory.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{64} << 20;

// How deeply JSON arrays and objects may nest. bankcheck's own files nest 7 levels.
inline constexpr int kMaxJsonDepth = 64;

// Elements of one JSON array or object (refused while parsing, before the readers' own counts):
// the most launches of one file, which is also twice the most cases.
inline constexpr size_t kMaxJsonElements = 200'000;

// Cases in one results or baseline file, and in the results that merge-results combines.
inline constexpr size_t kMaxCases = 100'000;

// The longest case name (bytes), in results and baseline files, and the longest case selection
// (case_selection.h). Names are matched against glob patterns in steps of name length times
// pattern length; bankcheck's own names are under 60 bytes.
inline constexpr size_t kMaxCaseNameBytes = 4096;

// Launches of one case, and of all cases of one file together.
inline constexpr size_t kMaxLaunchesPerCase = 100'000;
inline constexpr size_t kMaxLaunchesPerFile = 200'000;

// The largest annotated ways (a results file's "expected"); a warp has 32 threads, so this is generous.
inline constexpr double kMaxExpectedWays = 1e6;

// Frames of one instruction's inline chain (a results file's "inline_chain"). bankcheck's CuTe GEMM's
// deepest chain has 12; longer chains are cut to their innermost frames when written.
inline constexpr size_t kMaxInlineFrames = 256;

// The code of a line's key (LineRecord::code) is cut to this many bytes: a source line may be of any
// length, a baseline's entry is read in review.
inline constexpr size_t kMaxLineCodeBytes = 240;

// Terminal tables (`bankcheck lines`, baseline comparisons, the benchmarks' plot): a column is padded to at
// most this many characters, so one long name cannot pad every row; a longer cell is printed whole.
inline constexpr size_t kMaxColumnWidth = 120;

}  // namespace bankcheck
