#pragma once
// What one emulated launch may spend (bankcheck/emulate/emulator.h's EmulationLimits and EmulationBudget),
// counted in one place: the evaluator counts its warp instructions and its checks of blocks against
// their groups here, and stops the launch, undecided, with the reason this gives.

#include <cstdint>
#include <optional>
#include <string>

#include "bankcheck/emulate/emulator.h"

namespace bankcheck::emulate::internal {

// sm_90's launch limits (the CUDA programming guide's table of compute capabilities; what
// cudaGetDeviceProperties reports on an H100, and the stand-in runtime reports).
inline constexpr uint32_t kMaxGridX = 2147483647u, kMaxGridYZ = 65535u;
inline constexpr uint32_t kMaxBlockXY = 1024u, kMaxBlockZ = 64u, kMaxBlockThreads = 1024u;
// Dynamic shared memory without cudaFuncAttributeMaxDynamicSharedMemorySize (less the static), and
// static + dynamic with it.
inline constexpr uint64_t kDefaultDynamicShared = 48 * 1024, kMaxSharedOptIn = 227 * 1024;

// Why the GPU refuses a launch of this shape (cudart 13.0: cudaErrorInvalidValue): an empty grid or
// block, a dimension over its limit, a block of more than 1024 threads. nullopt when it runs.
std::optional<std::string> InvalidConfiguration(const Dim3& grid, const Dim3& block);

// Why the GPU refuses a launch with this cluster (cudaErrorInvalidClusterSize, measured on an H200
// with cudart 13.0): an empty cluster dimension, a grid dimension that is not a multiple of the
// cluster's, or more than `max_blocks` blocks in a cluster (8; 16 for a kernel with
// cudaFuncAttributeNonPortableClusterSizeAllowed: sm90::kMaxPortableClusterBlocks,
// kMaxClusterBlocks). nullopt when it runs.
std::optional<std::string> InvalidCluster(const Dim3& grid, const Dim3& cluster, uint32_t max_blocks);

// The output pass (bankcheck/emulate/emulator.h's ComputeOutputs), which runs every block: a launch's warp
// instructions by default (a few tenths of a second of one core; BANKCHECK_EMULATE_OUTPUT_LIMIT sets
// it), and the launches of a program together, as many launches' worth. Past them its outputs are
// "not computed", with the limit named.
inline constexpr uint64_t kOutputWarpInstructions = 250'000;
inline constexpr uint64_t kOutputBudgetLaunches = 40;
inline constexpr char kOutputLimitVariable[] = "BANKCHECK_EMULATE_OUTPUT_LIMIT";

class Meter {
 public:
  // Reserves the launch's limits from `limits.budget` (when set): what earlier launches left.
  explicit Meter(const EmulationLimits& limits);
  // Gives back to the budget what the launch did not spend.
  ~Meter();
  Meter(const Meter&) = delete;
  Meter& operator=(const Meter&) = delete;

  // Counts `n` more; false when the launch has spent more than it may (WhyInstructions and
  // WhyChecks say why).
  bool SpendInstructions(uint64_t n) { return Spend(instructions_, n); }
  bool SpendChecks(uint64_t n) { return Spend(checks_, n); }

  // Why the launch stopped: "over the emulation budget of ...", naming the limit to raise.
  std::string WhyInstructions() const;
  std::string WhyChecks() const;
  uint64_t instructions_spent() const { return instructions_.spent; }
  uint64_t instructions_allowed() const { return instructions_.allowed; }

 private:
  struct Account {
    uint64_t limit = 0;    // the launch's own limit
    uint64_t allowed = 0;  // the limit, or less when the shared budget had less left
    uint64_t spent = 0;
  };
  static bool Spend(Account& account, uint64_t n) {
    account.spent = n > UINT64_MAX - account.spent ? UINT64_MAX : account.spent + n;
    return account.spent <= account.allowed;
  }
  std::string Why(const Account& account, const char* what, const char* limit, uint64_t shared_total) const;

  EmulationBudget* budget_;
  Account instructions_, checks_;
};

}  // namespace bankcheck::emulate::internal
