// Reading an instruction's operands for one lane: registers, uniform registers, predicates,
// immediates and constant bank 0 (the launch configuration and the arguments, sm90.h).

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/platform/span_bounds.h"
#include "emulate/internal/evaluator.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {

Value LaunchEvaluator::ReadConstant(size_t index, uint32_t bank, uint64_t offset, uint32_t bytes) const {
  using bankcheck::internal::SpanWithin;
  if (bank != sm90::kLaunchConfigurationBank) return Unknown(Origin(index));
  if (const std::optional<Value> cluster = ClusterConstant(offset, bytes)) return *cluster;
  // blockDim then gridDim (sm90.h), the arguments from the kernel's parameter base.
  static_assert(sm90::kBlockDimOffset == 0 && sm90::kGridDimOffset == 12);
  if (SpanWithin(offset, bytes, sm90::kLaunchConfigurationEnd) && offset % 4 == 0 && bytes == 4) {
    const uint32_t values[6] = {launch_.block.x, launch_.block.y, launch_.block.z,
                                launch_.grid.x,  launch_.grid.y,  launch_.grid.z};
    return Known(values[offset / 4]);
  }
  if (offset == sm90::kStackPointerOffset && bytes == 4) return Known(sm90::kStandInStackTop);
  const uint32_t base = kernel_.info.param_base;
  // The parameters' generic address (sm90.h): a stand-in the counting pass follows into UTMALDG.
  if (memory_.KnowsParameterWindow() && bytes == 4 && sm90::kParameterWindowOffset + 8 <= base &&
      (offset == sm90::kParameterWindowOffset || offset == sm90::kParameterWindowOffset + 4))
    return Known(offset == sm90::kParameterWindowOffset ? base : sm90::kParameterWindowHighWord);
  if (offset >= base) {
    const uint64_t at_byte = offset - base;
    if (!SpanWithin(at_byte, bytes, launch_.param_bytes.size())) return Unknown(kMissingArgument);
    uint32_t bits = 0;
    std::memcpy(&bits, launch_.param_bytes.data() + at_byte, std::min<uint32_t>(bytes, 4));
    return Known(bits);
  }
  return Unknown(Origin(index));
}

Value LaunchEvaluator::ReadPredicate(const Operand& operand, int lane) const {
  // A listing may name anything where a predicate belongs (VOTE.ANY R1, PT, R200): its number
  // would index past the predicates.
  if (!IsPredicate(operand))
    Stop(*executing_, "\"" + operand.text + "\" of " + Located(*executing_) + " is not a predicate");
  Value value;
  if (operand.index == kPredicateTrue) {
    value = Known(1);
  } else if (operand.kind == OperandKind::kUniformPredicate) {
    value = warp_->uniform_predicates[operand.index];
  } else {
    value = warp_->predicates[operand.index * kWarpSize + lane];
  }
  if (value.known() && operand.invert) value.bits ^= 1u;
  return value;
}

void LaunchEvaluator::StopOnUnknown(const Instruction& at, const Value& value,
                                    const std::string& what) const {
  Stop(at, OriginText(kernel_, value.origin) + " feeds " + what + " of " + Located(at));
}

}  // namespace bankcheck::emulate::internal
