#pragma once
// What bankcheck measures for one kernel launch.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bankcheck/core/count_sum.h"
#include "bankcheck/core/instruction_counts.h"
#include "bankcheck/core/memory_kind.h"

namespace bankcheck {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  friend bool operator==(const Dim3& a, const Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
  friend bool operator!=(const Dim3& a, const Dim3& b) { return !(a == b); }
};
std::string ToString(const Dim3& d);  // "128x128x1"

// Where a count came from.
enum class Provenance : uint8_t {
  kExact,        // instrumented counters, or derived exactly from counters (docs/counters.md)
  kHardware,     // hardware counters that read high at scale: reported, not compared with baselines
  kNotMeasured,  // no counter gives it (or it was not asked for)
};
const char* ProvenanceName(Provenance provenance);  // "exact", "hardware", "not measured"
std::optional<Provenance> ProvenanceFromName(const std::string& name);

// The counts of one kind of memory instruction (shared loads, stores, ldmatrix, ..., global and
// local loads and stores, ...). Its traffic, `wavefronts`, is counted in the kind's unit
// (TrafficUnit, memory_kind.h): wavefronts for shared-memory kinds (passes through the
// shared-memory data stage), 32-byte sectors for global and local kinds; `ideal_wavefronts` in
// the same unit. The names, and the JSON keys of results and baseline files, keep "wavefronts".
struct KindCounts {
  uint64_t instructions = 0;      // warp-level instructions executed
  uint64_t wavefronts = 0;        // traffic: wavefronts (shared kinds) or 32-byte sectors (global, local)
  uint64_t ideal_wavefronts = 0;  // what the same instructions would cost without conflicts (or excess)
  Provenance ideal_provenance = Provenance::kExact;  // and so that of conflicts() and ways()

  bool ideal_known() const { return ideal_provenance != Provenance::kNotMeasured; }
  // 0 when the ideal is not known.
  uint64_t conflicts() const {
    return ideal_known() && wavefronts > ideal_wavefronts ? wavefronts - ideal_wavefronts : 0;
  }
  // wavefronts / ideal; 1.0 for conflict-free, for no traffic at all, and when the ideal is unknown.
  double ways() const;
  bool any() const { return instructions != 0 || wavefronts != 0; }
  // Adds `other`'s counts; the sum's ideal is only as certain as the less certain of the two.
  // Error(kBadInput) when a sum does not fit in 64 bits (then *this is unchanged).
  KindCounts& operator+=(const KindCounts& other) {
    const uint64_t instruction_sum = AddCounts(instructions, other.instructions, "instruction");
    const uint64_t wavefront_sum = AddCounts(wavefronts, other.wavefronts, "wavefront");
    ideal_wavefronts = AddCounts(ideal_wavefronts, other.ideal_wavefronts, "ideal wavefront");
    instructions = instruction_sum;
    wavefronts = wavefront_sum;
    ideal_provenance =
        std::max(ideal_provenance, other.ideal_provenance);  // kExact < kHardware < kNotMeasured
    return *this;
  }

  friend bool operator==(const KindCounts& a, const KindCounts& b) {
    return a.instructions == b.instructions && a.wavefronts == b.wavefronts &&
           a.ideal_wavefronts == b.ideal_wavefronts && a.ideal_provenance == b.ideal_provenance;
  }
  friend bool operator!=(const KindCounts& a, const KindCounts& b) { return !(a == b); }
};

// The part of `counts` that is exact: all of it, or without the ideal where that came from hardware
// counters (which vary from run to run). What baselines store and compare.
KindCounts ExactCounts(const KindCounts& counts);

// Raw hardware counter readings of one kind. At scale they read a few percent high (other L1
// traffic is counted), so they are reported beside the exact counts, never instead of them.
struct HardwareReadings {
  uint64_t wavefronts = 0;
  uint64_t bank_conflicts = 0;
  friend bool operator==(const HardwareReadings& a, const HardwareReadings& b) {
    return a.wavefronts == b.wavefronts && a.bank_conflicts == b.bank_conflicts;
  }
};

// Which CUPTI interface counted a launch (SessionOptions::counters; docs/counters.md).
enum class CountedBy : uint8_t {
  kSassMetrics,    // the SASS Metrics API: instrumented counters only, summed over the instructions
  kRangeProfiler,  // a counter session: instrumented and hardware counters
  kEmulated,       // no GPU: derived from the kernel's SASS by the evaluator (bankcheck/emulate/emulator.h)
};
const char* CountedByName(CountedBy counted_by);  // "sass metrics", "range profiler", "emulated"
std::optional<CountedBy> CountedByFromName(const std::string& name);

// The shared-memory instructions of one kind at one source line of a launch: its per-instruction
// table added up by line (line_keys.h), as baselines keep them. A line is known by its key, which
// lines inserted or removed elsewhere in its file leave as it is: its file relative to the source
// root, its code (comments dropped, whitespace collapsed) and how many lines above it in the file
// have the same code; a line whose source could not be read has no code and is known by its
// number. `line` is the line's number when it was measured: shown, never compared.
struct LineRecord {
  std::string file;         // relative to the source root ("kernels/transpose.cu"); as measured outside it
  std::string code;         // "tile[threadIdx.y][threadIdx.x] = in[i];"; empty: not read
  uint32_t occurrence = 0;  // lines above with the same code
  uint32_t line = 0;
  MemoryKind kind = MemoryKind::kSharedLoad;
  uint64_t executions = 0;  // warp-level
  uint64_t wavefronts = 0;
  uint64_t ideal_wavefronts = 0;
  std::vector<std::string> opcodes;  // distinct, in the order of their first instruction's offset

  // Wavefronts per ideal wavefront; 1 when the ideal is 0.
  double ways() const {
    return ideal_wavefronts == 0 ? 1.0
                                 : static_cast<double>(wavefronts) / static_cast<double>(ideal_wavefronts);
  }
  uint64_t conflicts() const { return wavefronts > ideal_wavefronts ? wavefronts - ideal_wavefronts : 0; }
};

struct LaunchRecord {
  std::string kernel;          // demangled, for people
  std::string mangled_kernel;  // for matching
  // A CUDA graph launch, measured as one range: its kernel nodes (demangled), in the graph's node
  // order; `kernel` names them all, grid and block are the first node's. Empty for a kernel launch.
  std::vector<std::string> graph_kernels;
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;

  CountedBy counted_by = CountedBy::kSassMetrics;
  PerKind<KindCounts> kinds;           // every kind; zero for kinds the launch did not execute
  PerKind<HardwareReadings> hardware;  // kRangeProfiler: for kinds whose hardware pair was read
  PerKind<bool> unsupported;           // kinds this device's counters cannot measure at all
  // Kinds this record did not count at all: an emulated launch (the kinds the emulator does not
  // count), or one read from a baseline or results file older than the kind (the table's
  // first_baseline_version). Such a kind is neither shown nor compared (IsCompared).
  PerKind<bool> not_counted;

  KindCounts& loads() { return kinds[MemoryKind::kSharedLoad]; }
  const KindCounts& loads() const { return kinds[MemoryKind::kSharedLoad]; }
  KindCounts& stores() { return kinds[MemoryKind::kSharedStore]; }
  const KindCounts& stores() const { return kinds[MemoryKind::kSharedStore]; }

  // Per-instruction counts of this launch's kernel (SessionOptions::attribute_instructions), most
  // excess first; empty when not attributed. They sum over `attributed_launches` launches of the
  // kernel in the measured code (every record of those launches holds the same table): per-launch
  // when the kernel was launched once.
  std::vector<InstructionCounts> instructions;
  uint32_t attributed_launches = 0;
  // The table added up by source line and kind, keyed (AttachLineRecords, line_keys.h), in key
  // order; what baselines keep of it. nullopt: no line data (not attributed, or a baseline recorded
  // before baselines kept lines): the launch compares by its totals only.
  std::optional<std::vector<LineRecord>> lines;

  // Metrics the user asked for by name, with their values.
  std::map<std::string, double> extra_metrics;
  // Where the program launched it, for `bankcheck run`'s case names (docs/run.md): the launching
  // thread's NVTX push/pop ranges, outermost first, joined by '/' ("" outside any, or when NVTX is
  // not followed), and the launch's index among the process's kernel and graph launches since
  // counting was set up, from 0. Not kept in results or baseline files: there the case name says it.
  std::string nvtx_range;
  uint64_t process_launch = 0;

  // Anything worth a reader's attention (e.g. ideal wavefronts differing from the instruction
  // count although the accesses were believed to be 4 bytes or narrower).
  std::vector<std::string> notes;

  // True when the hardware readings differ from the exact values.
  bool hardware_differs() const;
};

// "CUDA graph [a(int*), b(float*)]": the name of a graph launch's record.
std::string GraphLaunchName(const std::vector<std::string>& kernels);

// Whether a graph launch whose kernel nodes run `node_kernels` (mangled names, in node order) is
// recorded one record per node: when every node runs a kernel no other node runs, as the GPU's
// per-kernel SASS counts can then be told apart; otherwise one record of the whole graph
// (GraphLaunchName).
bool RecordsGraphByNode(const std::vector<std::string>& node_kernels);

// Counter values of one launch, by metric name (as in MemoryKinds()).
using MetricValues = std::map<std::string, double>;

// Every kind's counts from the metric values of one launch, by the rules of MemoryKinds(): the
// instrumented instruction and wavefront counts, and the ideal from the kind's IdealSource (see
// docs/counters.md). A kind whose metrics are missing from `values` gets Provenance::kNotMeasured
// for what they would give (its instructions and wavefronts stay 0: check `unsupported`).
void SetKindCounts(const MetricValues& values, LaunchRecord& record);

// Every kind's counts from the sums of a launch's per-instruction counters (CUPTI's SASS Metrics
// API: instructions, wavefronts and ideal wavefronts of each kind's instructions), by the rules of
// docs/counters.md: the ideal is exact for the kinds whose counter-session ideal is exact, and not
// measured for the others; kinds marked in `unsupported` have no counter on this device.
void SetSassCounts(const PerKind<KindCounts>& sums, const PerKind<bool>& unsupported, LaunchRecord& record);

// Adds notes to `record` for what a reader should know: ideal wavefronts that differ from the
// instruction count (expected for 8- and 16-byte accesses, suspicious otherwise), and hardware
// readings that differ from the exact counts.
void AddConsistencyNotes(LaunchRecord& record);

// "ld: 8 instructions, 16 wavefronts, 8 ideal, 8 conflicts (2-way)"; "ideal not measured" in place
// of ideal and conflicts when the ideal is unknown, "from hardware counters" when it came from them.
std::string Describe(MemoryKind kind, const KindCounts& counts);
// Whether a reader is shown `kind` for a launch: loads and stores always, every other kind when
// the launch executed it or the device cannot measure it; never a kind the launch did not count.
bool IsShown(const LaunchRecord& record, MemoryKind kind);
// Whether `kind` compares between two versions of a launch: when both counted it (a missing side,
// nullptr, counted nothing of any kind). The one rule every comparison of totals and lines uses.
bool IsCompared(const LaunchRecord* before, const LaunchRecord* after, MemoryKind kind);
// Marks not counted the kinds a launch read from a baseline format `version` (or the results
// format of that generation) does not hold.
void MarkKindsNewerThan(int baseline_version, LaunchRecord& record);
// Marks not counted the kinds the emulator does not count (MemoryKindInfo::emulated).
void MarkKindsNotEmulated(LaunchRecord& record);
// Every kind's counts of an emulated launch (bankcheck/emulate/emulator.h) from its sums by kind: as
// SetSassCounts gives them, except the kinds no per-instruction counter sees (SassMetricsCount: TMA's
// global traffic), which the emulator counts as a range-profiler session does, instructions and
// traffic with no ideal; the kinds the emulator does not count are marked so (MarkKindsNotEmulated).
// The record says it was emulated.
void SetEmulatedCounts(const PerKind<KindCounts>& sums, LaunchRecord& record);
// The kinds IsShown, in MemoryKinds() order.
std::vector<MemoryKind> ShownKinds(const LaunchRecord& record);
// The same over several launches: every kind any of them shows.
std::vector<MemoryKind> ShownKinds(const std::vector<LaunchRecord>& records);
// The counts of one kind added up over launches; the ideal is as exact as the least exact launch's.
KindCounts SumCounts(const std::vector<LaunchRecord>& records, MemoryKind kind);
// "ld: 8 instructions, ... | st: ..." over ShownKinds(); "<label> not measurable on this device" for
// a kind the device cannot measure.
std::string DescribeKinds(const LaunchRecord& record);
// One line for a person: "kernel <<<grid, block>>> " and DescribeKinds().
std::string Summary(const LaunchRecord& record);
// GoogleTest prints a LaunchRecord in any failure message as its Summary().
void PrintTo(const LaunchRecord& record, std::ostream* out);

}  // namespace bankcheck
