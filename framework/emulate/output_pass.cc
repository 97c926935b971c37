// The output pass (bankcheck/emulate/emulator.h's ComputeOutputs; docs/design/emulate.md, "Computing
// outputs"): every block of the grid run with values, one after another, each block's warps interleaved at
// its barriers so that what one warp stores to shared memory before __syncthreads() is there for the others
// after it. Its memory instructions are in output_memory.cc.

#include "emulate/internal/output_pass.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "emulate/internal/cluster.h"
#include "emulate/internal/evaluator.h"

namespace bankcheck::emulate {
namespace internal {
namespace {

constexpr uint64_t kPageBytes = 4096;

// Shared memory beyond the kernel's static and dynamic bytes that a block's addresses may reach: the
// alignment nvcc gives dynamic shared memory after the static (up to 1 KiB), and the bytes sm_90
// reserves below a block's shared memory.
constexpr uint64_t kSharedSlack = 2048;

}  // namespace

struct LaunchStores::Page {
  uint8_t value[kPageBytes];
  uint32_t writer[kPageBytes];  // the block that stored the byte (from 1); 0: none
};

LaunchStores::LaunchStores(uint64_t max_pages) : max_pages_(max_pages) {}
LaunchStores::~LaunchStores() = default;

LaunchStores::Page* LaunchStores::PageOf(uint64_t address, bool create) const {
  const uint64_t number = address / kPageBytes;
  if (number == last_number_) return last_;
  auto found = pages_.find(number);
  if (found == pages_.end()) {
    if (!create) return nullptr;
    auto page = std::make_unique<Page>();
    std::memset(page->writer, 0, sizeof page->writer);
    found = pages_.emplace(number, std::move(page)).first;
  }
  last_number_ = number;
  last_ = found->second.get();
  return last_;
}

bool LaunchStores::Store(uint64_t address, const uint8_t* bytes, uint32_t size, uint64_t block) {
  if (pages_.size() + 2 > max_pages_ &&
      (PageOf(address, false) == nullptr || PageOf(address + size - 1, false) == nullptr))
    return false;
  const auto writer = static_cast<uint32_t>(std::min<uint64_t>(block, UINT32_MAX));
  for (uint32_t i = 0; i < size;) {
    // An aligned access of up to 16 bytes lies in one page: one lookup per access.
    Page* page = PageOf(address + i, true);
    for (uint64_t at = (address + i) % kPageBytes; i < size && at < kPageBytes; ++i, ++at) {
      page->value[at] = bytes[i];
      page->writer[at] = writer;
    }
  }
  return true;
}

LaunchStores::Read LaunchStores::Load(uint64_t address, uint32_t size, uint64_t block, uint8_t* out) const {
  const auto writer = static_cast<uint32_t>(std::min<uint64_t>(block, UINT32_MAX));
  uint32_t stored = 0;
  for (uint32_t i = 0; i < size;) {
    const Page* page = PageOf(address + i, false);
    uint64_t at = (address + i) % kPageBytes;
    if (page == nullptr) {
      i += static_cast<uint32_t>(std::min<uint64_t>(size - i, kPageBytes - at));
      continue;
    }
    for (; i < size && at < kPageBytes; ++i, ++at) {
      if (page->writer[at] == 0) continue;
      if (page->writer[at] != writer && block != kAnyBlock) return Read::kOtherBlock;
      out[i] = page->value[at];
      ++stored;
    }
  }
  if (stored == 0) return Read::kNotStored;
  return stored == size ? Read::kFound : Read::kOtherBlock;
}

bool LaunchStores::Runs(const KnownMemory* found, uint64_t max_runs,
                        std::map<uint64_t, std::vector<uint8_t>>* runs) const {
  std::vector<uint64_t> numbers;
  numbers.reserve(pages_.size());
  for (const auto& [number, page] : pages_) numbers.push_back(number);
  std::sort(numbers.begin(), numbers.end());
  std::vector<uint8_t>* run = nullptr;
  uint64_t next = 0;  // the address that continues `run`
  uint8_t gap[kPageBytes];
  for (const uint64_t number : numbers) {
    const Page& page = *pages_.at(number);
    for (uint64_t at = 0; at < kPageBytes; ++at) {
      if (page.writer[at] == 0) continue;
      const uint64_t address = number * kPageBytes + at;
      if (run != nullptr && address != next) {
        // Less than a page between: within the pages stored to, so the runs hold at most their bytes.
        const uint64_t between = address - next;
        if (found != nullptr && between < kPageBytes &&
            found->Read(next, static_cast<uint32_t>(between), gap))
          run->insert(run->end(), gap, gap + between);
        else
          run = nullptr;
      }
      if (run == nullptr) {
        if (runs->size() == max_runs) return false;
        run = &(*runs)[address];
      }
      run->push_back(page.value[at]);
      next = address + 1;
    }
  }
  return true;
}

Rows ValuesMemory::RunGrid(LaunchEvaluator& evaluator) {
  evaluator_ = &evaluator;
  Meter& meter = evaluator.meter_;
  const Dim3& grid = evaluator.launch_.grid;
  for (uint32_t z = 0; z < grid.z; ++z)
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x) {
        // A block costs one instruction at least: a grid of empty blocks ends too.
        if (!meter.SpendInstructions(1)) StopLaunch(meter.WhyInstructions());
        RunBlock(Dim3{x, y, z});
        if (x + y + z != 0) continue;
        // The first block's cost times the grid's blocks: a launch over the limit stops now, not there.
        const uint64_t blocks = uint64_t{grid.x} * grid.y * grid.z;
        const uint64_t first = meter.instructions_spent();
        if (first > meter.instructions_allowed() / blocks)
          StopLaunch(evaluator.OverOutputLimit(first * blocks));
      }
  return evaluator.rows_;  // every block's: they add up
}

std::string LaunchEvaluator::OverOutputLimit(uint64_t estimate) const {
  const uint64_t allowed = meter_.instructions_allowed();
  return "over the output pass's limit of " + std::to_string(allowed) + " warp instructions" +
         (allowed < limits_.max_warp_instructions
              ? " (what the program's earlier launches left of their budget)"
              : "") +
         ": set " + kOutputLimitVariable + " to more [about " + std::to_string(estimate) + " for the launch]";
}

void ValuesMemory::RunBlock(const Dim3& ctaid) {
  LaunchEvaluator& ev = *evaluator_;
  ++block_;
  ++ev.evaluated_blocks_;
  ev.ctaid_ = ctaid;
  // Emptied, its capacity kept for the next block (rows_ add up over the blocks).
  ev.conditions_.comparisons.clear();
  ev.conditions_.address_steps.clear();
  ev.mbarriers_.clear();
  ev.tensor_copies_ = 0;
  const LaunchToEmulate& launch = ev.launch_;
  const uint64_t shared_bytes = uint64_t{ev.kernel_.info.static_shared_bytes} + launch.dynamic_shared_bytes;
  shared_.assign(shared_bytes + kSharedSlack, 0);
  shared_known_.assign(shared_bytes + kSharedSlack, 0);  // shared memory starts unknown
  local_.clear();
  const uint32_t threads = launch.block.x * launch.block.y * launch.block.z;
  const uint32_t warps = (threads + kWarpSize - 1) / kWarpSize;
  if (warps == 1) {  // its own barriers order nothing: run it through, in place
    ev.warp_->Reset(threads == 32 ? 0xffffffffu : (1u << threads) - 1, ev.kernel_.registers);
    ev.warp_index_ = 0;
    do {
      at_barrier_ = false;
      ev.RunWarp();
    } while (at_barrier_);
    return;
  }
  if (warps_.size() < warps) warps_.resize(warps);
  std::vector<bool> running(warps, true);
  for (uint32_t w = 0; w < warps; ++w) {
    const uint32_t lanes = std::min<uint32_t>(kWarpSize, threads - w * kWarpSize);
    warps_[w].Reset(lanes == 32 ? 0xffffffffu : (1u << lanes) - 1, ev.kernel_.registers);
  }
  // Rounds: every warp still running runs to its next block barrier or its end; a barrier is passed
  // when every warp that has not ended reached it, which a round ensures.
  for (uint32_t left = warps; left > 0;) {
    for (uint32_t w = 0; w < warps; ++w) {
      if (!running[w]) continue;
      ev.warp_ = &warps_[w];
      ev.warp_index_ = w;
      at_barrier_ = false;
      ev.RunWarp();
      ev.warp_ = &ev.own_warp_;
      if (!at_barrier_) {
        running[w] = false;
        --left;
      }
    }
  }
}

void ValuesMemory::Barrier(LaunchEvaluator& evaluator, const Instruction& in, uint32_t mask) {
  // BAR.SYNC 0x0: barrier 0 for every thread of the block (__syncthreads()). A named barrier of part of
  // the block (a thread count, bar.arrive) orders warps in a way the rounds do not follow.
  if (!in.Is(mod::kSync) || in.Is(mod::kArv) || in.operands.size() != 1 ||
      in.operands[0].kind != OperandKind::kImmediate || in.operands[0].value != 0)
    Stop(in, Located(in) + " is a barrier of part of the block, whose order the output pass does not follow");
  const uint32_t lanes = evaluator.Decide(in, mask, "whether it runs");
  const WarpState& warp = *evaluator.warp_;
  if (lanes != (warp.present & ~warp.exited) || warp.waiting != 0)
    Stop(in, Located(in) +
                 " is reached by part of its warp's lanes: the output pass follows block barriers "
                 "that whole warps reach");
  evaluator.Advance(mask);
  at_barrier_ = true;
}

void ValuesMemory::TensorCopyOrMbarrier(const Instruction& in) const {
  Stop(in, in.base + " is not computed by the output pass (" + Located(in) +
               "): the shared memory it orders or writes is not followed");
}

}  // namespace internal

ComputedOutputs ComputeOutputs(const Module& module, const LaunchToEmulate& launch,
                               const EmulationLimits& limits) {
  using internal::LaunchEvaluator;
  const internal::Kernel& kernel = internal::KernelToEmulate(module, launch);
  ComputedOutputs outputs;
  const auto not_computed = [&](const std::string& why) {
    outputs.not_computed = Undecided{};
    outputs.not_computed->reason = why;
    return outputs;
  };
  if (launch.memory == nullptr) return not_computed("the launch's device memory is not followed");
  Dim3 cluster;
  if (const std::optional<std::string> why =
          internal::EffectiveCluster(kernel.info, launch.cluster, &cluster))
    return not_computed(*why);
  if (cluster != Dim3{})
    return not_computed("a launch in thread-block clusters: the output pass runs one block at a time");
  internal::ValuesMemory pass;
  LaunchEvaluator evaluator(kernel, launch, limits, pass);
  internal::Rows rows;
  try {
    rows = evaluator.Run();
  } catch (const internal::Undecidable& undecidable) {
    outputs.not_computed = undecidable.undecided;
    // Past the limit in a block that cost more than the first: the output pass's limit, named.
    if (evaluator.over_instruction_limit()) {
      outputs.not_computed = Undecided{};
      outputs.not_computed->reason = evaluator.OverOutputLimit(evaluator.warp_instructions());
    }
  }
  outputs.warp_instructions = evaluator.warp_instructions();
  if (outputs.not_computed) return outputs;
  if (!pass.stores.Runs(launch.memory.get(), internal::LaunchStores::kMaxRuns, &outputs.written)) {
    outputs.written.clear();
    return not_computed("the launch stores more than " + std::to_string(internal::LaunchStores::kMaxRuns) +
                        " separate runs of bytes (bytes it did not know between them), over the output "
                        "pass's limit");
  }
  outputs.record = internal::CountedRecord(kernel, launch, rows, evaluator);
  return outputs;
}

}  // namespace bankcheck::emulate
