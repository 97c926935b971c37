// PredictLaunch: a launch's counts predicted from its shared accesses' address functions, every
// warp of every block costed by the bank model (bank_model.h).

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bankcheck/bank_map.h"
#include "bankcheck/bank_model.h"
#include "bankcheck/error.h"
#include "core/internal/access_rules.h"

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

}  // namespace

PredictedCounts PredictLaunch(const Dim3& grid, const Dim3& block,
                              const std::vector<SharedAccess>& accesses) {
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
    if (IndexOf(a.kind) >= kSharedKindCount) {
      throw Error(ErrorKind::kBadInput, "shared access '" + a.name + "' has no valid kind (" +
                                            std::to_string(IndexOf(a.kind)) + ")");
    }
    if (a.source && a.kind != SharedKind::kCpAsync) {
      throw Error(ErrorKind::kBadInput, std::string(InfoOf(a.kind).instruction) + " '" + a.name +
                                            "' has a source address function; only a cp.async has a source");
    }
    if (IsMatrixKind(a.kind) && a.bytes != kMatrixRowBytes) {
      throw Error(ErrorKind::kBadInput, std::string(InfoOf(a.kind).instruction) + " '" + a.name + "': size " +
                                            std::to_string(a.bytes) +
                                            " bytes; ldmatrix/stmatrix rows are 16 bytes");
    }
  }

  // Thread indices by linear id, x fastest, as CUDA numbers the threads of a block.
  std::vector<Dim3> thread_index(threads_per_block);
  for (uint32_t z = 0, id = 0; z < block.z; ++z) {
    for (uint32_t y = 0; y < block.y; ++y) {
      for (uint32_t x = 0; x < block.x; ++x) thread_index[id++] = Dim3{x, y, z};
    }
  }
  const auto warps_per_block = static_cast<uint32_t>((threads_per_block + kWarpSize - 1) / kWarpSize);

  PredictedCounts predicted;
  struct Worst {
    bool found = false;
    uint32_t conflicts = 0;
    WarpCopy access;  // the destination alone but for a cp.async
    const SharedAccess* instruction = nullptr;
    Dim3 block;
    uint32_t warp = 0;
    uint32_t iteration = 0;
  } worst;

  Dim3 block_index;
  for (block_index.z = 0; block_index.z < grid.z; ++block_index.z) {
    for (block_index.y = 0; block_index.y < grid.y; ++block_index.y) {
      for (block_index.x = 0; block_index.x < grid.x; ++block_index.x) {
        for (uint32_t warp = 0; warp < warps_per_block; ++warp) {
          const uint32_t first_thread = warp * kWarpSize;
          const auto lanes =
              static_cast<int>(std::min<uint64_t>(kWarpSize, threads_per_block - first_thread));
          for (const SharedAccess& instruction : accesses) {
            SharedCounts& counts = predicted[instruction.kind];
            for (uint32_t iteration = 0; iteration < instruction.iterations; ++iteration) {
              WarpCopy access;
              access.destination.bytes = instruction.bytes;
              WarpCost cost;
              try {
                for (int lane = 0; lane < lanes; ++lane) {
                  const Dim3& thread = thread_index[first_thread + lane];
                  const std::optional<uint64_t> address = instruction.address(block_index, thread, iteration);
                  if (!address) continue;
                  access.destination.SetLane(lane, *address);
                  if (instruction.kind == SharedKind::kCpAsync)
                    access.sources[lane] = SourceAddress(instruction, block_index, thread, iteration, lane);
                }
                if (access.destination.active_mask == 0) continue;
                cost = CostInstruction(instruction.kind, access);
              } catch (const Error& e) {
                throw Error(e.kind(), std::string(InfoOf(instruction.kind).instruction) + " '" +
                                          instruction.name + "' in block " + FormatDim3(block_index) +
                                          ", warp " + std::to_string(warp) + ", iteration " +
                                          std::to_string(iteration) + ": " + e.what());
              }
              ++counts.instructions;
              counts.wavefronts += cost.wavefronts;
              counts.ideal_wavefronts += cost.ideal;
              if (!worst.found || cost.conflicts > worst.conflicts) {
                worst.found = true;
                worst.conflicts = cost.conflicts;
                worst.access = access;
                worst.instruction = &instruction;
                worst.block = block_index;
                worst.warp = warp;
                worst.iteration = iteration;
              }
            }
          }
        }
      }
    }
  }

  if (worst.found) {
    std::ostringstream where;
    where << "worst instruction: " << InfoOf(worst.instruction->kind).instruction << " '"
          << worst.instruction->name << "' in block " << FormatDim3(worst.block) << ", warp " << worst.warp
          << " (threads " << worst.warp * kWarpSize << "-"
          << std::min<uint64_t>(threads_per_block, uint64_t{worst.warp + 1} * kWarpSize) - 1 << ")";
    if (worst.instruction->iterations > 1) where << ", iteration " << worst.iteration;
    where << "\n";
    predicted.bank_map =
        where.str() + RenderBankMapText(ExplainInstruction(worst.instruction->kind, worst.access));
  }
  return predicted;
}

}  // namespace bankcheck
