#include "emulate/internal/opcodes.h"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace bankcheck::emulate::internal {
namespace {

constexpr OpcodeInfo kTable[] = {
#define OPCODE(name, semantics, stage, scope, destinations, registers, memory)                \
  {#name,          Semantics::semantics,        stage, Scope::scope, destinations, registers, \
   Memory::memory, MemoryKindOf(Memory::memory)},
#include "emulate/internal/opcodes.def"
#undef OPCODE
};

struct ModifierName {
  const char* text;
  mod::Bits bit;
};
constexpr ModifierName kModifiers[] = {
#define MODIFIER(name, text) {text, mod::name},
#include "emulate/internal/modifiers.def"
#undef MODIFIER
};

}  // namespace

const OpcodeInfo* FindOpcode(std::string_view opcode) {
  for (const OpcodeInfo& info : kTable)
    if (opcode == info.opcode) return &info;
  return nullptr;
}

const OpcodeInfo* OpcodeTable(size_t* count) {
  *count = std::size(kTable);
  return kTable;
}

DecodedModifiers DecodeModifiers(const OpcodeInfo* info, const std::vector<std::string>& modifiers) {
  DecodedModifiers decoded;
  // Only the 32-bit integer atomics, told by an allow-list of modifiers: a float add (.F32, .F32x2,
  // .F32x4, .F16x2, ...) rounds as the GPU's atomic unit does, which no vector checks, and 64-bit forms
  // are not followed. A modifier not listed (in this list, or in modifiers.def) leaves the atomic not
  // computed.
  constexpr mod::Bits kIntegerAtomic = mod::kE | mod::kAdd | mod::kPopc | mod::kInc | mod::k32 |
                                       mod::kStrong | mod::kGpu | mod::kSys | mod::kSm | mod::kCta |
                                       mod::kU32 | mod::kS32;
  bool integer = true;
  for (const std::string& text : modifiers) {
    mod::Bits bit = 0;
    for (const ModifierName& name : kModifiers)
      if (text == name.text) bit = name.bit;
    decoded.bits |= bit;
    integer = integer && (bit & kIntegerAtomic) != 0;
  }
  const auto has = [&](mod::Bits bits) { return (decoded.bits & bits) != 0; };
  static constexpr std::pair<mod::Bits, Test> kTests[] = {
      {mod::kLt, Test::kLess},    {mod::kLe, Test::kLessOrEqual},
      {mod::kGt, Test::kGreater}, {mod::kGe, Test::kGreaterOrEqual},
      {mod::kEq, Test::kEqual},   {mod::kNe, Test::kNotEqual},
      {mod::kT, Test::kTrue},     {mod::kF, Test::kFalse}};
  for (const auto& [bit, test] : kTests)
    if (has(bit)) {
      decoded.test = test;
      break;
    }
  if (has(mod::kRz | mod::kTrunc))
    decoded.rounding = Rounding::kZero;
  else if (has(mod::kRm | mod::kFloor))
    decoded.rounding = Rounding::kDown;
  else if (has(mod::kRp | mod::kCeil))
    decoded.rounding = Rounding::kUp;
  if (info != nullptr && info->registers > 0)
    decoded.width = static_cast<uint8_t>(info->registers);
  else
    decoded.width = has(mod::k128) ? 4 : has(mod::k64) ? 2 : 1;
  decoded.matrices = has(mod::k4) ? 4 : has(mod::k2) ? 2 : 1;
  decoded.transposed = has(mod::kMt88);
  static constexpr std::pair<mod::Bits, Test> kUnordered[] = {
      {mod::kLtu, Test::kLess},           {mod::kLeu, Test::kLessOrEqual}, {mod::kGtu, Test::kGreater},
      {mod::kGeu, Test::kGreaterOrEqual}, {mod::kEqu, Test::kEqual},       {mod::kNeu, Test::kNotEqual}};
  for (const auto& [bit, test] : kUnordered)
    if (decoded.test == Test::kNone && has(bit)) {
      decoded.test = test;
      decoded.unordered = true;
    }
  if (has(mod::kNan)) decoded.nan_test = DecodedModifiers::NanTest::kNan;
  if (has(mod::kNum)) decoded.nan_test = DecodedModifiers::NanTest::kNumber;
  using Mode = DecodedModifiers::ShuffleMode;
  static constexpr std::pair<mod::Bits, Mode> kModes[] = {{mod::kIdx, Mode::kIndex},
                                                          {mod::kUp, Mode::kUp},
                                                          {mod::kDown, Mode::kDown},
                                                          {mod::kBfly, Mode::kButterfly}};
  for (const auto& [bit, mode] : kModes)
    if (has(bit)) decoded.shuffle = mode;
  if (has(mod::kAdd) && integer)
    decoded.atomic = AtomicOp::kAdd;
  else if (has(mod::kPopc) && has(mod::kInc) && integer)
    decoded.atomic = AtomicOp::kIncrement;
  return decoded;
}

}  // namespace bankcheck::emulate::internal
