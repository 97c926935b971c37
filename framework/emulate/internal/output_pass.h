#pragma once
// The output pass's state (bankcheck/emulator.h's ComputeOutputs; docs/design/emulate.md, "Computing
// outputs"): the bytes the launch stored, the block's shared memory with values, its warps parked
// while another runs. The counting pass has none of it: its counts never depend on values it could
// not know.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "bankcheck/emulator.h"
#include "emulate/internal/warp.h"

namespace bankcheck::emulate::internal {

// The bytes a launch stored to global memory, and which block stored each: a load reads them over the
// memory the launch found, but only within the block that stored them (another block's order is not
// followed).
class LaunchStores {
 public:
  LaunchStores();
  ~LaunchStores();
  LaunchStores(LaunchStores&&) noexcept;
  LaunchStores& operator=(LaunchStores&&) noexcept;

  void Store(uint64_t address, const uint8_t* bytes, uint32_t size, uint64_t block);
  enum class Read { kFound, kNotStored, kOtherBlock };
  // kFound: every byte of [address, + size) was stored, by `block`: copied to `out`. kNotStored: none
  // was. kOtherBlock: another block stored one, or only some were stored.
  Read Load(uint64_t address, uint32_t size, uint64_t block, uint8_t* out) const;
  // The stored bytes in runs of consecutive addresses, by start.
  std::map<uint64_t, std::vector<uint8_t>> Runs() const;
  bool empty() const;

 private:
  struct Page;
  Page* PageOf(uint64_t address, bool create) const;
  mutable std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;  // by address / page size
  mutable Page* last_ = nullptr;                                       // the page touched last
  mutable uint64_t last_number_ = UINT64_MAX;
};

struct OutputPass {
  LaunchStores stores;
  uint64_t block = 0;  // the serial number of the block running, from 1
  // The block's shared memory: each byte's value and whether it is known (1) or not (0).
  std::vector<uint8_t> shared, shared_known;
  // The block's warps; the one running is swapped into the evaluator's WarpState.
  std::vector<WarpState> warps;
  bool at_barrier = false;  // the running warp reached a block barrier (BAR.SYNC)
};

}  // namespace bankcheck::emulate::internal
