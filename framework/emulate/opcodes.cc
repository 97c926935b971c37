#include "emulate/internal/opcodes.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "bankcheck/core/bank_model.h"

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
  uint64_t bit;
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
  for (const std::string& text : modifiers)
    for (const ModifierName& name : kModifiers)
      if (text == name.text) decoded.bits |= name.bit;
  const auto has = [&](uint64_t bits) { return (decoded.bits & bits) != 0; };
  static constexpr std::pair<uint64_t, Test> kTests[] = {
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
  const bool matrix =
      info != nullptr && (info->memory == Memory::kSharedLdmatrix || info->memory == Memory::kSharedStmatrix);
  if (matrix)
    decoded.access_bytes = kMatrixRowBytes;
  else if (has(mod::kU8 | mod::kS8))
    decoded.access_bytes = 1;
  else if (has(mod::kU16 | mod::kS16))
    decoded.access_bytes = 2;
  else if (has(mod::k64))
    decoded.access_bytes = 8;
  else if (has(mod::k128))
    decoded.access_bytes = 16;
  decoded.matrices = has(mod::k4) ? 4 : has(mod::k2) ? 2 : 1;
  const auto named = [&](std::string_view text) {
    return std::find(modifiers.begin(), modifiers.end(), text) != modifiers.end();
  };
  decoded.transposed = named("MT88");
  static constexpr std::pair<std::string_view, Test> kUnordered[] = {
      {"LTU", Test::kLess},           {"LEU", Test::kLessOrEqual}, {"GTU", Test::kGreater},
      {"GEU", Test::kGreaterOrEqual}, {"EQU", Test::kEqual},       {"NEU", Test::kNotEqual}};
  for (const auto& [text, test] : kUnordered)
    if (decoded.test == Test::kNone && named(text)) {
      decoded.test = test;
      decoded.unordered = true;
    }
  if (named("NAN")) decoded.nan_test = DecodedModifiers::NanTest::kNan;
  if (named("NUM")) decoded.nan_test = DecodedModifiers::NanTest::kNumber;
  using Mode = DecodedModifiers::ShuffleMode;
  static constexpr std::pair<std::string_view, Mode> kModes[] = {
      {"IDX", Mode::kIndex}, {"UP", Mode::kUp}, {"DOWN", Mode::kDown}, {"BFLY", Mode::kButterfly}};
  for (const auto& [text, mode] : kModes)
    if (named(text)) decoded.shuffle = mode;
  // Only the 32-bit integer forms, told by an allow-list of modifiers: a float add (.F32, .F32x2,
  // .F32x4, .F16x2, ...) rounds as the GPU's atomic unit does, which no vector checks, and 64-bit forms
  // are not followed. A modifier not listed leaves the atomic not computed.
  static constexpr std::string_view kIntegerAtomic[] = {"E",   "ADD", "POPC", "INC", "32",  "STRONG",
                                                        "GPU", "SYS", "SM",   "CTA", "U32", "S32"};
  const bool integer = std::all_of(modifiers.begin(), modifiers.end(), [](const std::string& modifier) {
    return std::find(std::begin(kIntegerAtomic), std::end(kIntegerAtomic), modifier) !=
           std::end(kIntegerAtomic);
  });
  if (named("ADD") && integer)
    decoded.atomic = AtomicOp::kAdd;
  else if (named("POPC") && named("INC") && integer)
    decoded.atomic = AtomicOp::kIncrement;
  return decoded;
}

}  // namespace bankcheck::emulate::internal
