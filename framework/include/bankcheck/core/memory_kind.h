#pragma once
// The kinds of memory instruction bankcheck counts (shared memory first, where bank conflicts are;
// then global and local memory, whose waste is sectors), and the one table that says, for each,
// how it is named (in records, baselines, reports and the CLI) and which counters measure it.
// Everything that varies by kind reads this table; docs/counters.md explains each row. A kind's
// enumerator names its memory (kShared*, kGlobal*, kLocal*); its `key` ("shared_ld") names it in
// results and baseline files, and never changes.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace bankcheck {

enum class MemoryKind : uint8_t {
  kSharedLoad,       // LDS: ld.shared
  kSharedStore,      // STS: st.shared
  kSharedAtomic,     // ATOMS/REDS: atomics and reductions on shared memory
  kSharedLdmatrix,   // LDSM: ldmatrix
  kSharedStmatrix,   // STSM: stmatrix (sm_90)
  kSharedCpAsync,    // LDGSTS: cp.async, global to shared (its shared-memory writes)
  kSharedWgmma,      // HGMMA operands read from shared memory (sm_90a)
  kSharedDsmem,      // distributed shared memory: accesses to another block's shared memory in a cluster
  kGlobalLoad,       // LDG (and generic LD reaching global memory)
  kGlobalStore,      // STG (and generic ST)
  kGlobalAtomic,     // ATOMG (and generic ATOM)
  kGlobalReduction,  // REDG
  kLocalLoad,        // LDL: a thread's stack (register spills, local arrays)
  kLocalStore,       // STL
  kGlobalCpAsync,    // LDGSTS: cp.async, global to shared (its global-memory reads)
  kGlobalTmaLoad,    // UTMALDG, UBLKCP.S.G: TMA and bulk copies' global reads (launch totals)
  kGlobalTmaStore,   // UTMASTG, UBLKCP.G.S: TMA and bulk copies' global writes (launch totals)
};
inline constexpr size_t kMemoryKindCount = 17;

// Where a kind's accesses go, and so what its traffic is counted in: shared memory in wavefronts
// (bank conflicts), global and local memory in 32-byte sectors.
enum class MemorySpace : uint8_t { kShared, kGlobal, kLocal };

// Where a kind's ideal wavefronts (and so its conflicts) come from.
enum class IdealSource : uint8_t {
  // Hardware wavefronts − hardware conflicts: their over-counts cancel, so the difference is exact
  // (h100-counters.md §2), minus the ideal of `hardware_also_counts` (the LDS/STS hardware pairs
  // also count LDSM/STSM traffic).
  kHardwarePair,
  // Instrumented wavefronts − instrumented conflicts: exact.
  kInstrumentedConflicts,
  // The same hardware pair, but not shown exact for this kind: the ideal is marked hardware-sourced
  // and kept out of baseline equality. The pair costs an extra replay pass, so it is read only
  // when SessionOptions::hardware_ideal names the kind; otherwise the ideal is unknown.
  kHardwarePairOnRequest,
  // The SASS Metrics API's per-instruction ideal (`sass_ideal_metric`), exact where
  // `sass_ideal_exact`; a range-profiler session has no such counter: not measured there. Where
  // `wavefronts_metric` is nullptr too, the traffic is the SASS counter's alone (TrafficMeasured).
  kSassOnly,
  // No ideal counter exists: instructions and traffic only (local memory), or instructions only
  // where `wavefronts_metric` is nullptr (distributed shared memory).
  kNone,
};

struct MemoryKindInfo {
  MemoryKind kind;
  const char* key;          // "shared_ld": the record's block name in results and baselines
  const char* label;        // "ld": short name in tables and hardware-reading keys
  const char* op;           // "lds": `bankcheck predict --op`
  const char* title;        // "shared loads (LDS)": for people
  const char* sass;         // "LDS": the SASS mnemonic, for tables where the full opcode is not known
  const char* instruction;  // "load": one instruction of the kind, in bank maps and model messages
  MemorySpace space;
  const char* instructions_metric;
  const char* wavefronts_metric;  // instrumented (sectors for global and local); nullptr: not measurable
  const char* conflicts_metric;   // instrumented; nullptr: none exists
  const char* hardware_wavefronts_metric;  // nullptr: none read
  const char* hardware_conflicts_metric;   // nullptr: none read
  IdealSource ideal;
  std::optional<MemoryKind> hardware_also_counts;
  // Whether the SASS Metrics API's per-instruction ideal (the default way to count) has been checked
  // equal to ncu's Source page for this kind, instruction by instruction: only then do records
  // counted through SASS metrics carry it (docs/counters.md).
  bool sass_ideal_exact;
  // The SASS Metrics API's per-instruction counters of the kind's traffic and its ideal (nullptr:
  // none); an instruction's kinds are those whose instruction counter it incremented (an LDGSTS
  // has two: its shared-memory writes and its global reads).
  const char* sass_traffic_metric;
  const char* sass_ideal_metric;
  // The first baseline format version (baseline.h) whose launches hold the kind: a launch read
  // from an older baseline or results file did not count it (LaunchRecord::not_counted).
  int first_baseline_version;
  // Whether the emulator (bankcheck/emulate/emulator.h) counts the kind; emulated launches mark the others
  // not counted.
  bool emulated;
  // For a kind the range profiler does not count (wavefronts_metric nullptr, RangeProfilerCounts):
  // ncu's launch metric equal to the traffic counted through SASS metrics, which only the ncu
  // cross-check reads (NcuTrafficMetric); nullptr: none known, or wavefronts_metric is it.
  const char* ncu_only_traffic_metric = nullptr;
};

// "wavefronts" for shared memory, "sectors" for global and local memory: what `KindCounts::
// wavefronts` counts for the kind.
const char* TrafficUnit(MemoryKind kind);
// "conflicts" for shared memory (bank conflicts), "excess" for global and local memory (sectors
// beyond the ideal): what `KindCounts::conflicts()` counts for the kind.
const char* ExcessName(MemoryKind kind);

// Whether a record counted through SASS metrics (`sass`; the emulator counts as they do) or the range
// profiler holds the kind's traffic. The range profiler: its launch counter (`wavefronts_metric`).
// SASS metrics: a per-instruction counter (`sass_traffic_metric`) summing to that launch counter,
// or, for a kSassOnly kind without a launch counter, summing alone. Otherwise instructions only
// (distributed shared memory); a kind whose traffic only one way counts is not counted the other
// way at all (RangeProfilerCounts, SassMetricsCount).
bool TrafficMeasured(const MemoryKindInfo& info, bool sass);
// Whether a session counting through SASS metrics counts the kind: not a kind whose traffic only a
// launch counter gives (TMA's global sectors: no SASS per-instruction counter sees them).
bool SassMetricsCount(const MemoryKindInfo& info);
// Whether a range-profiler session counts the kind: not a kind whose traffic only the SASS Metrics
// API counts (none now: LDGSTS's global reads have a launch counter), whose instructions alone
// would read as no traffic.
bool RangeProfilerCounts(const MemoryKindInfo& info);
// ncu's launch metric equal to the kind's traffic, for comparing a record with ncu (benchmarks/
// ncu_compare.py): `wavefronts_metric`, else `ncu_only_traffic_metric`; nullptr: none.
const char* NcuTrafficMetric(const MemoryKindInfo& info);

const std::array<MemoryKindInfo, kMemoryKindCount>& MemoryKinds();
const MemoryKindInfo& InfoOf(MemoryKind kind);
inline size_t IndexOf(MemoryKind kind) { return static_cast<size_t>(kind); }
// By key ("shared_ldsm"), label ("ldsm") or op ("ldsm"); nullopt when no kind has that name.
std::optional<MemoryKind> MemoryKindFromKey(const std::string& key);
std::optional<MemoryKind> MemoryKindFromOp(const std::string& op);

// A value per kind, indexed by MemoryKind.
template <typename T>
struct PerKind {
  std::array<T, kMemoryKindCount> values{};
  T& operator[](MemoryKind kind) { return values[IndexOf(kind)]; }
  const T& operator[](MemoryKind kind) const { return values[IndexOf(kind)]; }
  friend bool operator==(const PerKind& a, const PerKind& b) { return a.values == b.values; }
  friend bool operator!=(const PerKind& a, const PerKind& b) { return !(a == b); }
};

}  // namespace bankcheck
