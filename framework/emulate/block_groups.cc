#include "emulate/internal/block_groups.h"

#include <algorithm>
#include <string>

#include "emulate/internal/diagnostics.h"

namespace bankcheck::emulate::internal {
namespace {

// Past this many groups, blocks are evaluated one by one: checking a block against every group
// would cost more than evaluating it.
constexpr size_t kMaxGroups = 32;

void Add(Rows& total, const Rows& rows, uint64_t blocks) {
  const auto add = [](uint64_t& sum, uint64_t count, uint64_t times) {
    uint64_t product = 0;
    if (__builtin_mul_overflow(count, times, &product) || __builtin_add_overflow(sum, product, &sum))
      StopLaunch("an emulated count does not fit in 64 bits (a grid too large to count)");
  };
  for (const auto& [key, row] : rows) {
    Row& into = total[key];
    add(into.executions, row.executions, blocks);
    add(into.wavefronts, row.wavefronts, blocks);
    add(into.ideal, row.ideal, blocks);
  }
}

}  // namespace

void BlockConditions::Compact() {
  std::sort(comparisons.begin(), comparisons.end());
  comparisons.erase(std::unique(comparisons.begin(), comparisons.end()), comparisons.end());
  std::sort(address_steps.begin(), address_steps.end());
  address_steps.erase(std::unique(address_steps.begin(), address_steps.end()), address_steps.end());
}

bool BlockConditions::Hold(const Dim3& from, const Dim3& to) const {
  const std::array<uint32_t, 3> d = {to.x - from.x, to.y - from.y, to.z - from.z};
  const auto moved = [&](uint32_t bits, const std::array<uint32_t, 3>& step) {
    return bits + step[0] * d[0] + step[1] * d[1] + step[2] * d[2];
  };
  for (const Comparison& c : comparisons)
    if (Compare(c.test, c.is_unsigned, moved(c.a, c.a_step), moved(c.b, c.b_step)) != c.outcome) return false;
  for (const std::vector<std::array<uint32_t, 3>>& steps : address_steps) {
    const uint32_t shift = moved(0, steps.front());
    if (shift % 128 != 0) return false;
    for (const std::array<uint32_t, 3>& step : steps)
      if (moved(0, step) != shift) return false;
  }
  return true;
}

Rows CountGrid(const Dim3& grid, bool group_blocks, Meter& meter,
               const std::function<EvaluatedBlock(const Dim3&)>& evaluate) {
  struct Group {
    Dim3 representative;
    BlockConditions conditions;
    Rows rows;
    uint64_t blocks = 1;
  };
  std::vector<Group> groups;
  Rows total;
  bool grouping = group_blocks;
  size_t last = 0;
  const uint64_t grid_blocks = uint64_t{grid.x} * grid.y * grid.z;
  uint64_t visited = 0;  // blocks counted so far, in the order below
  // Placing a block checks it against groups: each check costs 1 + the group's conditions.
  const auto holds = [&](const Group& group, const Dim3& block) {
    if (!meter.SpendChecks(1 + group.conditions.size())) StopLaunch(meter.WhyChecks());
    return group.conditions.Hold(group.representative, block);
  };
  for (uint32_t z = 0; z < grid.z; ++z)
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x, ++visited) {
        const Dim3 block{x, y, z};
        if (grouping && !groups.empty()) {
          if (groups[last].conditions.empty()) {
            // No condition: every block runs as this group's; the rest of the grid joins it at once.
            groups[last].blocks += grid_blocks - visited;
            z = grid.z - 1;
            y = grid.y - 1;
            x = grid.x - 1;
            continue;
          }
          bool placed = holds(groups[last], block);
          for (size_t i = 0; i < groups.size() && !placed; ++i)
            if (i != last && holds(groups[i], block)) {
              last = i;
              placed = true;
            }
          if (placed) {
            ++groups[last].blocks;
            continue;
          }
        }
        EvaluatedBlock evaluated = evaluate(block);
        if (grouping && evaluated.groupable && groups.size() < kMaxGroups) {
          evaluated.conditions.Compact();
          groups.push_back(Group{block, std::move(evaluated.conditions), std::move(evaluated.rows), 1});
          last = groups.size() - 1;
        } else {
          // A block-dependence the conditions cannot follow, or too many kinds of block: the
          // blocks already grouped stay so, the rest are evaluated one by one.
          grouping = false;
          Add(total, evaluated.rows, 1);
        }
      }
  for (const Group& group : groups) Add(total, group.rows, group.blocks);
  return total;
}

}  // namespace bankcheck::emulate::internal
