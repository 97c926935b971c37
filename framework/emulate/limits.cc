#include "emulate/internal/limits.h"

#include <algorithm>
#include <mutex>

namespace bankcheck::emulate {

struct EmulationBudget::State {
  std::mutex mutex;
  uint64_t instructions_total, checks_total;
  uint64_t instructions_left, checks_left;

  // Up to `wanted` of what is left, taken.
  uint64_t Take(uint64_t& left, uint64_t wanted) {
    std::lock_guard<std::mutex> lock(mutex);
    const uint64_t taken = std::min(left, wanted);
    left -= taken;
    return taken;
  }
  void Give(uint64_t& left, uint64_t unused) {
    std::lock_guard<std::mutex> lock(mutex);
    left += unused;
  }
};

EmulationBudget::EmulationBudget(uint64_t warp_instructions, uint64_t group_checks)
    : state_(new State{{}, warp_instructions, group_checks, warp_instructions, group_checks}) {}
EmulationBudget::~EmulationBudget() = default;
uint64_t EmulationBudget::warp_instructions() const { return state_->instructions_total; }
uint64_t EmulationBudget::group_checks() const { return state_->checks_total; }

namespace internal {

std::optional<std::string> InvalidConfiguration(const Dim3& grid, const Dim3& block) {
  const std::string shape = ToString(grid) + " blocks of " + ToString(block) + " threads";
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
    return "an empty grid or block (" + shape + ")";
  if (grid.x > kMaxGridX || grid.y > kMaxGridYZ || grid.z > kMaxGridYZ)
    return "a grid over sm_90's " + std::to_string(kMaxGridX) + " x " + std::to_string(kMaxGridYZ) + " x " +
           std::to_string(kMaxGridYZ) + " (" + shape + ")";
  if (block.x > kMaxBlockXY || block.y > kMaxBlockXY || block.z > kMaxBlockZ)
    return "a block over sm_90's " + std::to_string(kMaxBlockXY) + " x " + std::to_string(kMaxBlockXY) +
           " x " + std::to_string(kMaxBlockZ) + " (" + shape + ")";
  if (uint64_t{block.x} * block.y * block.z > kMaxBlockThreads)
    return "a block of " + std::to_string(uint64_t{block.x} * block.y * block.z) + " threads, over sm_90's " +
           std::to_string(kMaxBlockThreads) + " (" + shape + ")";
  return std::nullopt;
}

std::optional<std::string> InvalidCluster(const Dim3& grid, const Dim3& cluster, uint32_t max_blocks) {
  const std::string shape = "a grid of " + ToString(grid) + " blocks in clusters of " + ToString(cluster);
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0) return "an empty cluster (" + shape + ")";
  if (grid.x % cluster.x != 0 || grid.y % cluster.y != 0 || grid.z % cluster.z != 0)
    return "a grid that is not a whole number of clusters (" + shape + ")";
  const uint64_t blocks = uint64_t{cluster.x} * cluster.y * cluster.z;
  if (blocks > max_blocks)
    return "a cluster of " + std::to_string(blocks) + " blocks, over the " + std::to_string(max_blocks) +
           " this kernel may have (" + shape +
           "; 16 with cudaFuncAttributeNonPortableClusterSizeAllowed, at most)";
  return std::nullopt;
}

Meter::Meter(const EmulationLimits& limits) : budget_(limits.budget) {
  instructions_.limit = instructions_.allowed = limits.max_warp_instructions;
  checks_.limit = checks_.allowed = limits.max_group_checks;
  if (budget_ != nullptr) {
    EmulationBudget::State& state = budget_->state();
    instructions_.allowed = state.Take(state.instructions_left, instructions_.limit);
    checks_.allowed = state.Take(state.checks_left, checks_.limit);
  }
}

Meter::~Meter() {
  if (budget_ == nullptr) return;
  EmulationBudget::State& state = budget_->state();
  state.Give(state.instructions_left,
             instructions_.allowed - std::min(instructions_.spent, instructions_.allowed));
  state.Give(state.checks_left, checks_.allowed - std::min(checks_.spent, checks_.allowed));
}

std::string Meter::Why(const Account& account, const char* what, const char* limit,
                       uint64_t shared_total) const {
  if (account.allowed < account.limit) {
    return "over the shared emulation budget of " + std::to_string(shared_total) + " " + what +
           " (EmulationLimits::budget: the emulated program's launches together; earlier launches left " +
           std::to_string(account.allowed) + "): split the cases over more programs or make them smaller";
  }
  return "over the emulation budget of " + std::to_string(account.limit) + " " + what + " (" + limit +
         "): make the launch smaller";
}

std::string Meter::WhyInstructions() const {
  return Why(instructions_, "warp instructions", "EmulationLimits::max_warp_instructions",
             budget_ != nullptr ? budget_->warp_instructions() : 0);
}

std::string Meter::WhyChecks() const {
  return Why(checks_, "checks of blocks against the groups of blocks evaluated once",
             "EmulationLimits::max_group_checks", budget_ != nullptr ? budget_->group_checks() : 0);
}

}  // namespace internal
}  // namespace bankcheck::emulate
