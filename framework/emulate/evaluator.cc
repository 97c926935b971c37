// One launch evaluated: its grid walked by block groups (block_groups.h), each evaluated block's
// warps run one after another (warp.cc).

#include "emulate/internal/evaluator.h"

#include <utility>

namespace bankcheck::emulate::internal {
namespace {

// Conditions kept for the block being evaluated: past this many (a loop that compares a
// block-dependent value on every turn), blocks stop being grouped, so that memory stays bounded:
// every block from then on is evaluated (the instruction budget bounds that).
constexpr size_t kMaxConditions = size_t{1} << 16;

}  // namespace

Rows CountingMemory::RunGrid(LaunchEvaluator& evaluator) {
  return CountGrid(evaluator.launch_.grid, evaluator.limits_.group_blocks, evaluator.meter_,
                   [&evaluator](const Dim3& block) { return evaluator.RunBlock(block); });
}

void CountingMemory::Barrier(LaunchEvaluator& evaluator, const Instruction&, uint32_t mask) {
  evaluator.Advance(mask);
}

EvaluatedBlock LaunchEvaluator::RunBlock(const Dim3& ctaid) {
  rows_.clear();
  conditions_ = BlockConditions{};
  ++evaluated_blocks_;
  ctaid_ = ctaid;
  mbarriers_.clear();
  tensor_copies_ = 0;
  const uint32_t threads = launch_.block.x * launch_.block.y * launch_.block.z;
  const uint32_t warps = (threads + kWarpSize - 1) / kWarpSize;
  for (uint32_t w = 0; w < warps; ++w) {
    warp_index_ = w;
    const uint32_t lanes = std::min<uint32_t>(kWarpSize, threads - w * kWarpSize);
    warp_->Reset(lanes == 32 ? 0xffffffffu : (1u << lanes) - 1, kernel_.registers);
    RunWarp();
  }
  EvaluatedBlock evaluated;
  evaluated.rows = std::move(rows_);
  evaluated.conditions = std::move(conditions_);
  evaluated.groupable = !not_affine_;
  return evaluated;
}

bool LaunchEvaluator::RoomForConditions() {
  if (not_affine_) return false;
  if (conditions_.size() < kMaxConditions) return true;
  conditions_.Compact();
  if (conditions_.size() < kMaxConditions / 2) return true;
  not_affine_ = true;
  conditions_ = BlockConditions{};
  return false;
}

std::optional<bool> LaunchEvaluator::CompareInGroup(Test test, bool is_unsigned, const Value& a,
                                                    const Value& b) {
  const bool outcome = Compare(test, is_unsigned, a.bits, b.bits);
  if (!a.known() || !b.known() || !(a.block.any() || b.block.any())) return outcome;
  if (a.block.other || b.block.other) return std::nullopt;
  if (!RoomForConditions()) return outcome;  // every block is evaluated: the outcome is this block's
  conditions_.comparisons.push_back({a.bits, b.bits, a.block.step, b.block.step, test, is_unsigned, outcome});
  return outcome;
}

}  // namespace bankcheck::emulate::internal
