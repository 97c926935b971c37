// PredictLaunch: a launch's counts predicted from its shared accesses' address functions, every
// warp of every block costed by the bank model (bank_model.h).

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/core/bank_map.h"
#include "bankcheck/core/bank_model.h"
#include "bankcheck/core/error.h"
#include "core/model/internal/access_rules.h"

namespace bankcheck {
namespace {

using internal::IsMatrixKind;
using internal::IsValidAccessSize;

constexpr uint32_t kMaxThreadsPerBlock = 1024;

std::string FormatDim3(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// A cp.async lane's global source: its source function's, or lane * bytes without one.
uint64_t SourceAddress(const SharedAccess& copy, const Dim3& block, const Dim3& thread, uint32_t iteration,
                       int lane) {
  if (!copy.source) return uint64_t{copy.bytes} * static_cast<uint64_t>(lane);
  const std::optional<uint64_t> source = copy.source(block, thread, iteration);
  if (!source) {
    throw Error(
        ErrorKind::kBadInput,
        "lane " + std::to_string(lane) + " has a shared destination but its source function gave no address");
  }
  return *source;
}

void CheckLaunch(const Dim3& grid, const Dim3& block, const std::vector<SharedAccess>& accesses) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    throw Error(ErrorKind::kBadInput, "grid " + FormatDim3(grid) + " or block " + FormatDim3(block) +
                                          " has a zero dimension; a launch needs at least one thread");
  }
  const uint64_t threads_per_block = uint64_t{block.x} * block.y * block.z;
  if (threads_per_block > kMaxThreadsPerBlock) {
    throw Error(ErrorKind::kBadInput, "block " + FormatDim3(block) + " has " +
                                          std::to_string(threads_per_block) +
                                          " threads; CUDA allows at most 1024");
  }
  for (const SharedAccess& a : accesses) {
    if (!a.address)
      throw Error(ErrorKind::kBadInput, "shared access '" + a.name + "' has no address function");
    if (!IsValidAccessSize(a.bytes)) {
      throw Error(ErrorKind::kBadInput, "shared access '" + a.name + "': size " + std::to_string(a.bytes) +
                                            " bytes is not supported; use 1, 2, 4, 8 or 16");
    }
    if (IndexOf(a.kind) >= kMemoryKindCount) {
      throw Error(ErrorKind::kBadInput, "shared access '" + a.name + "' has no valid kind (" +
                                            std::to_string(IndexOf(a.kind)) + ")");
    }
    if (a.source && a.kind != MemoryKind::kSharedCpAsync) {
      throw Error(ErrorKind::kBadInput, std::string(InfoOf(a.kind).instruction) + " '" + a.name +
                                            "' has a source address function; only a cp.async has a source");
    }
    if (IsMatrixKind(a.kind) && a.bytes != kMatrixRowBytes) {
      throw Error(ErrorKind::kBadInput, std::string(InfoOf(a.kind).instruction) + " '" + a.name + "': size " +
                                            std::to_string(a.bytes) +
                                            " bytes; ldmatrix/stmatrix rows are 16 bytes");
    }
  }
}

// Thread indices by linear id, x fastest, as CUDA numbers the threads of a block.
std::vector<Dim3> ThreadIndices(const Dim3& block) {
  std::vector<Dim3> thread_index(uint64_t{block.x} * block.y * block.z);
  for (uint32_t z = 0, id = 0; z < block.z; ++z) {
    for (uint32_t y = 0; y < block.y; ++y) {
      for (uint32_t x = 0; x < block.x; ++x) thread_index[id++] = Dim3{x, y, z};
    }
  }
  return thread_index;
}

// One warp's execution of one access: where it is, for the messages and the worst instruction.
struct WarpPlace {
  const SharedAccess* instruction = nullptr;
  Dim3 block;
  uint32_t warp = 0;
  uint32_t iteration = 0;
};

// The addresses of the warp's lanes (the first `lanes` threads from `threads`); no active lane when
// every address function declined.
WarpCopy GatherWarp(const WarpPlace& place, const Dim3* threads, int lanes) {
  const SharedAccess& instruction = *place.instruction;
  WarpCopy access;
  access.destination.bytes = instruction.bytes;
  for (int lane = 0; lane < lanes; ++lane) {
    const Dim3& thread = threads[lane];
    const std::optional<uint64_t> address = instruction.address(place.block, thread, place.iteration);
    if (!address) continue;
    access.destination.SetLane(lane, *address);
    if (instruction.kind == MemoryKind::kSharedCpAsync)
      access.sources[lane] = SourceAddress(instruction, place.block, thread, place.iteration, lane);
  }
  return access;
}

struct Worst {
  bool found = false;
  uint32_t conflicts = 0;
  WarpCopy access;  // the destination alone but for a cp.async
  WarpPlace place;
};

std::string BankMapOfWorst(const Worst& worst, uint64_t threads_per_block) {
  const SharedAccess& instruction = *worst.place.instruction;
  std::ostringstream where;
  where << "worst instruction: " << InfoOf(instruction.kind).instruction << " '" << instruction.name
        << "' in block " << FormatDim3(worst.place.block) << ", warp " << worst.place.warp << " (threads "
        << worst.place.warp * kWarpSize << "-"
        << std::min<uint64_t>(threads_per_block, uint64_t{worst.place.warp + 1} * kWarpSize) - 1 << ")";
  if (instruction.iterations > 1) where << ", iteration " << worst.place.iteration;
  where << "\n";
  return where.str() + RenderBankMapText(ExplainInstruction(instruction.kind, worst.access));
}

}  // namespace

PredictedCounts PredictLaunch(const Dim3& grid, const Dim3& block,
                              const std::vector<SharedAccess>& accesses) {
  CheckLaunch(grid, block, accesses);
  const std::vector<Dim3> thread_index = ThreadIndices(block);
  const uint64_t threads_per_block = thread_index.size();
  const auto warps_per_block = static_cast<uint32_t>((threads_per_block + kWarpSize - 1) / kWarpSize);

  PredictedCounts predicted;
  Worst worst;
  WarpPlace place;
  for (place.block.z = 0; place.block.z < grid.z; ++place.block.z) {
    for (place.block.y = 0; place.block.y < grid.y; ++place.block.y) {
      for (place.block.x = 0; place.block.x < grid.x; ++place.block.x) {
        for (place.warp = 0; place.warp < warps_per_block; ++place.warp) {
          const uint32_t first_thread = place.warp * kWarpSize;
          const auto lanes =
              static_cast<int>(std::min<uint64_t>(kWarpSize, threads_per_block - first_thread));
          for (const SharedAccess& instruction : accesses) {
            place.instruction = &instruction;
            KindCounts& counts = predicted[instruction.kind];
            for (place.iteration = 0; place.iteration < instruction.iterations; ++place.iteration) {
              WarpCopy access;
              WarpCost cost;
              try {
                access = GatherWarp(place, &thread_index[first_thread], lanes);
                if (access.destination.active_mask == 0) continue;
                cost = CostInstruction(instruction.kind, access);
              } catch (const Error& e) {
                throw Error(e.kind(), std::string(InfoOf(instruction.kind).instruction) + " '" +
                                          instruction.name + "' in block " + FormatDim3(place.block) +
                                          ", warp " + std::to_string(place.warp) + ", iteration " +
                                          std::to_string(place.iteration) + ": " + e.what());
              }
              ++counts.instructions;
              counts.wavefronts += cost.wavefronts;
              counts.ideal_wavefronts += cost.ideal;
              if (!worst.found || cost.conflicts > worst.conflicts)
                worst = {true, cost.conflicts, access, place};
            }
          }
        }
      }
    }
  }
  if (worst.found) predicted.bank_map = BankMapOfWorst(worst, threads_per_block);
  return predicted;
}

}  // namespace bankcheck
