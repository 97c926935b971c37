#include "emulate/internal/checked_forms.h"

#include <algorithm>
#include <iterator>

namespace bankcheck::emulate::internal {
namespace {

constexpr const char* kForms[] = {
#define CHECKED_FORM(form) form,
#include "emulate/internal/checked_forms.def"
#undef CHECKED_FORM
};

}  // namespace

bool IsComputingFamily(Semantics semantics) {
  switch (semantics) {
    case Semantics::kImad:
    case Semantics::kIadd3:
    case Semantics::kViadd:
    case Semantics::kLea:
    case Semantics::kShf:
    case Semantics::kLop3:
    case Semantics::kPlop3:
    case Semantics::kIsetp:
    case Semantics::kSel:
    case Semantics::kMinMax:
    case Semantics::kPopc:
    case Semantics::kFlo:
    case Semantics::kBrev:
    case Semantics::kPrmt:
    case Semantics::kAbs:
    case Semantics::kHalfConstant:
    case Semantics::kHalfArithmetic:
    case Semantics::kIntToFloat:
    case Semantics::kFloatToInt:
    case Semantics::kSpecialFunction:
    case Semantics::kVote:
    case Semantics::kWarpReduction:
    case Semantics::kPredicatesToRegister:
    case Semantics::kWarpMatch:
    case Semantics::kFloatAdd:
    case Semantics::kFloatMultiply:
    case Semantics::kFloatFma:
    case Semantics::kFloatMinMax:
    case Semantics::kFloatCompare:
    case Semantics::kShuffle:
    case Semantics::kBitMask:
    case Semantics::kSignExtend:
    case Semantics::kAddMinMax:
    case Semantics::kNarrow:
    case Semantics::kDotProduct:
    case Semantics::kFloatConvert:
    case Semantics::kFloatPack:
    case Semantics::kRound:
    case Semantics::kDoubleArithmetic:
    case Semantics::kDoubleCompare:
    case Semantics::kMatrixMultiply:
    case Semantics::kUnchecked:
      return true;
    default:
      return false;
  }
}

std::string FormOf(std::string_view base, const std::vector<std::string>& modifiers, const OpcodeInfo* info) {
  std::string form(base);
  if (form == "VOTEU")
    form = "VOTE";
  else if (info != nullptr && info->uniform() && form.size() > 1 && form[0] == 'U' &&
           FindOpcode(form.substr(1)) != nullptr)
    form.erase(0, 1);
  const bool imad = form == "IMAD";
  for (const std::string& modifier : modifiers) {
    if (imad && (modifier == "MOV" || modifier == "IADD" || modifier == "SHL")) continue;
    form += "." + modifier;
  }
  return form;
}

bool HasConformanceVectors(std::string_view form) {
  return std::find(std::begin(kForms), std::end(kForms), form) != std::end(kForms);
}

const char* const* CheckedForms(size_t* count) {
  *count = std::size(kForms);
  return kForms;
}

}  // namespace bankcheck::emulate::internal
