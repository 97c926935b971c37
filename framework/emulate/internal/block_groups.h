#pragma once
// Block grouping (docs/design/emulate.md, "Blocks"): a block that provably runs as an evaluated one
// is counted with it instead of being evaluated. The conditions an evaluated block records, and the
// walk over the grid that places every block in a group or evaluates it.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "bankcheck/core/launch_record.h"
#include "emulate/internal/limits.h"
#include "emulate/internal/value.h"

namespace bankcheck::emulate::internal {

// The conditions under which another block runs exactly as an evaluated one (its representative):
// every comparison of a value that depends affinely on the block comes out the same, and every
// shared address that depends on it moves all lanes by the same multiple of 128 bytes (which
// keeps each lane's bank, the words lanes share and every alignment, so the bank model's cost).
// Values that are not block-dependent are the same in every block; the rest follow.
struct BlockConditions {
  struct Comparison {
    uint32_t a, b;
    std::array<uint32_t, 3> a_step, b_step;
    Test test;
    bool is_unsigned, outcome;
    auto Key() const { return std::tie(a, b, a_step, b_step, test, is_unsigned, outcome); }
    friend bool operator<(const Comparison& x, const Comparison& y) { return x.Key() < y.Key(); }
    friend bool operator==(const Comparison& x, const Comparison& y) { return x.Key() == y.Key(); }
  };
  std::vector<Comparison> comparisons;
  // Per executed shared instruction with block-dependent lanes: the distinct steps of its lanes.
  std::vector<std::vector<std::array<uint32_t, 3>>> address_steps;

  bool empty() const { return comparisons.empty() && address_steps.empty(); }
  size_t size() const { return comparisons.size() + address_steps.size(); }

  // Sorts the conditions and drops repeats.
  void Compact();
  // Whether block `to` runs as `from`, the block these conditions were recorded in.
  bool Hold(const Dim3& from, const Dim3& to) const;
};

// One instruction's counts in one kind over the blocks counted so far.
struct Row {
  uint64_t executions = 0, wavefronts = 0, ideal = 0;
};
// By instruction index and the kind counted: an instruction counts in one kind, an LDGSTS in two (its
// shared-memory writes, shared_ldgsts, and its global reads, global_ldgsts).
using RowKey = std::pair<size_t, MemoryKind>;
using Rows = std::map<RowKey, Row>;

// What evaluating one block gave: its rows, and the conditions under which another block runs as it
// did; `groupable` false when a dependence on the block could not be followed (every block from
// then on is evaluated).
struct EvaluatedBlock {
  Rows rows;
  BlockConditions conditions;
  bool groupable = true;
};

// Every block of `grid` counted: placed in a group whose conditions hold for it (each check spent
// from `meter`), else evaluated by `evaluate`. Throws Undecidable when the meter runs out or a count
// overflows.
Rows CountGrid(const Dim3& grid, bool group_blocks, Meter& meter,
               const std::function<EvaluatedBlock(const Dim3&)>& evaluate);

}  // namespace bankcheck::emulate::internal
