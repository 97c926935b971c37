#pragma once
// The kinds of shared-memory instruction bankcheck counts, and the one table that says, for each,
// how it is named (in records, baselines, reports and the CLI) and which counters measure it.
// Everything that varies by kind reads this table; docs/counters.md explains each row.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace bankcheck {

enum class SharedKind : uint8_t {
  kLoad,      // LDS: ld.shared
  kStore,     // STS: st.shared
  kAtomic,    // ATOMS/REDS: atomics and reductions on shared memory
  kLdmatrix,  // LDSM: ldmatrix
  kStmatrix,  // STSM: stmatrix (sm_90)
  kCpAsync,   // LDGSTS: cp.async, global to shared (its shared-memory writes)
  kWgmma,     // HGMMA operands read from shared memory (sm_90a)
  kDsmem,     // distributed shared memory: accesses to another block's shared memory in a cluster
};
inline constexpr size_t kSharedKindCount = 8;

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
  // No wavefront counter exists: instructions only.
  kNone,
};

struct SharedKindInfo {
  SharedKind kind;
  const char* key;          // "shared_ld": the record's block name in results and baselines
  const char* label;        // "ld": short name in tables and hardware-reading keys
  const char* op;           // "lds": `bankcheck predict --op`
  const char* title;        // "shared loads (LDS)": for people
  const char* sass;         // "LDS": the SASS mnemonic, for tables where the full opcode is not known
  const char* instruction;  // "load": one instruction of the kind, in bank maps and model messages
  const char* instructions_metric;
  const char* wavefronts_metric;           // instrumented; nullptr: not measurable
  const char* conflicts_metric;            // instrumented; nullptr: none exists
  const char* hardware_wavefronts_metric;  // nullptr: none read
  const char* hardware_conflicts_metric;   // nullptr: none read
  IdealSource ideal;
  std::optional<SharedKind> hardware_also_counts;
  // Whether the SASS Metrics API's per-instruction ideal (the default way to count) has been checked
  // equal to ncu's Source page for this kind, instruction by instruction: only then do records
  // counted through SASS metrics carry it (docs/counters.md).
  bool sass_ideal_exact;
};

const std::array<SharedKindInfo, kSharedKindCount>& SharedKinds();
const SharedKindInfo& InfoOf(SharedKind kind);
inline size_t IndexOf(SharedKind kind) { return static_cast<size_t>(kind); }
// By key ("shared_ldsm"), label ("ldsm") or op ("ldsm"); nullopt when no kind has that name.
std::optional<SharedKind> SharedKindFromKey(const std::string& key);
std::optional<SharedKind> SharedKindFromOp(const std::string& op);

// A value per kind, indexed by SharedKind.
template <typename T>
struct PerKind {
  std::array<T, kSharedKindCount> values{};
  T& operator[](SharedKind kind) { return values[IndexOf(kind)]; }
  const T& operator[](SharedKind kind) const { return values[IndexOf(kind)]; }
  friend bool operator==(const PerKind& a, const PerKind& b) { return a.values == b.values; }
  friend bool operator!=(const PerKind& a, const PerKind& b) { return !(a == b); }
};

}  // namespace bankcheck
