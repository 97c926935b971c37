#include "emulate/internal/sass.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

#include "bankcheck/core/error.h"
#include "emulate/internal/checked_forms.h"
#include "emulate/internal/float_division.h"
#include "emulate/internal/sm90.h"

namespace bankcheck::emulate::internal {
namespace {

[[noreturn]] void Unreadable(const std::string& text, const std::string& why) {
  throw Error(ErrorKind::kBadInput, "cannot read the SASS operand \"" + text + "\": " + why +
                                        " (an nvdisasm listing of an sm_90 cubin is expected)");
}

std::string Trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// Splits at top-level commas (not inside [] or ()).
std::vector<std::string> SplitOperands(const std::string& text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '[' || c == '(' || c == '{') ++depth;
    if (c == ']' || c == ')' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(Trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!Trim(current).empty()) parts.push_back(Trim(current));
  return parts;
}

bool ParseNumber(const std::string& text, int64_t* value) {
  if (text.empty()) return false;
  const bool negative = text[0] == '-';
  const std::string digits = negative ? text.substr(1) : text;
  if (digits.empty()) return false;
  char* end = nullptr;
  const unsigned long long parsed = digits.rfind("0x", 0) == 0 ? std::strtoull(digits.c_str() + 2, &end, 16)
                                                               : std::strtoull(digits.c_str(), &end, 10);
  if (end == nullptr || *end != '\0' || (digits.rfind("0x", 0) == 0 && digits.size() == 2)) return false;
  // Negated as unsigned, modulo 2^64: -0x8000000000000000 has no int64_t to negate.
  *value = static_cast<int64_t>(negative ? 0 - static_cast<uint64_t>(parsed) : static_cast<uint64_t>(parsed));
  return true;
}

// nvdisasm writes a float instruction's integral immediates in decimal ("FADD R6, R3, 10"): the float
// 10, not the bits 0xa. Hex immediates are bit patterns.
void FloatImmediate(Operand& operand) {
  if (operand.kind != OperandKind::kImmediate || operand.is_float) return;
  const std::string& text = operand.text;
  if (text.find("0x") != std::string::npos) return;
  const float value = static_cast<float>(std::strtod(text.c_str(), nullptr));
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  operand.value = bits;
  operand.is_float = true;
}

// "R12", "RZ", "UR4", "URZ", "P0", "PT", "UP1", "UPT", "B0": kind and number; false otherwise.
// Read with plain scans, as every pattern of this file: std::regex recurses per character and
// overflows the stack on a long operand or name.
bool ParseRegisterName(std::string_view name, OperandKind* kind, int* index) {
  std::string_view prefix;
  for (const std::string_view candidate : {"UR", "UP", "R", "P", "B"})
    if (name.substr(0, candidate.size()) == candidate) {
      prefix = candidate;
      break;
    }
  if (prefix.empty()) return false;
  const std::string_view number = name.substr(prefix.size());
  if (number.empty() || number.size() > 3) return false;
  if (prefix == "R") *kind = OperandKind::kRegister;
  if (prefix == "UR") *kind = OperandKind::kUniformRegister;
  if (prefix == "P") *kind = OperandKind::kPredicate;
  if (prefix == "UP") *kind = OperandKind::kUniformPredicate;
  if (prefix == "B") *kind = OperandKind::kBarrier;
  const bool is_register = prefix == "R" || prefix == "UR";
  if (number == "Z") {
    if (!is_register) return false;
    *index = prefix == "R" ? kRegisterZero : kUniformRegisterZero;
  } else if (number == "T") {
    if (is_register || prefix == "B") return false;
    *index = kPredicateTrue;
  } else {
    int value = 0;
    for (const char c : number) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    *index = value;
    const int limit = prefix == "R"    ? kRegisterZero
                      : prefix == "UR" ? kUniformRegisterZero
                      : prefix == "B"  ? 16
                                       : kPredicateTrue;
    if (*index >= limit) return false;
  }
  return true;
}

// The inside of [...] of a memory or constant operand: registers (R, UR, with .64/.U32/.X4 forms)
// and an immediate, joined by '+'.
void ParseAddress(const std::string& whole, const std::string& inside, Operand& operand) {
  std::string part;
  std::vector<std::string> parts;
  for (size_t i = 0; i < inside.size(); ++i) {
    if (inside[i] == '+' && !part.empty()) {
      parts.push_back(Trim(part));
      part.clear();
    } else {
      part += inside[i];
    }
  }
  if (!Trim(part).empty()) parts.push_back(Trim(part));
  for (std::string item : parts) {
    int64_t number = 0;
    if (ParseNumber(item, &number)) {
      // Added modulo 2^64, as the GPU adds an address's parts: a signed sum may overflow.
      operand.offset =
          static_cast<int64_t>(static_cast<uint64_t>(operand.offset) + static_cast<uint64_t>(number));
      continue;
    }
    const size_t dot = item.find('.');
    const std::string name = item.substr(0, dot);
    const std::string suffix = dot == std::string::npos ? "" : item.substr(dot + 1);
    if (!suffix.empty() && suffix != "64" && suffix != "U32")
      Unreadable(whole, "the address part \"" + item + "\" is not understood");
    OperandKind kind{};
    int index = 0;
    if (!ParseRegisterName(name, &kind, &index)) Unreadable(whole, "\"" + item + "\" is not a register");
    if (kind == OperandKind::kRegister && operand.base < 0) {
      operand.base = index;
      operand.pair = suffix == "64";
    } else if (kind == OperandKind::kUniformRegister && operand.uniform_base < 0) {
      operand.uniform_base = index;
    } else {
      Unreadable(whole, "an address of more than one register of a kind");
    }
  }
}

// `(label): a label without ')' in it.
Operand ParseLabel(const std::string& raw, const std::string& text) {
  const std::string_view inside = std::string_view(text).substr(std::min<size_t>(2, text.size()));
  if (text.size() < 4 || text[1] != '(' || text.back() != ')' || inside.find(')') != inside.size() - 1)
    Unreadable(raw, "not a label");
  Operand operand;
  operand.kind = OperandKind::kLabel;
  operand.text = std::string(inside.substr(0, inside.size() - 1));
  return operand;
}

// Registers with a width or type suffix (R2.64, R4.H1): the suffix matters only in addresses.
// False when `text` is no register.
bool ParseRegisterOperand(const std::string& text, Operand& operand) {
  const size_t dot = text.find('.');
  const std::string name = text.substr(0, dot);
  OperandKind kind{};
  int index = 0;
  if (!ParseRegisterName(name, &kind, &index)) return false;
  if (dot != std::string::npos && text.substr(dot + 1) != "64" && text.substr(dot + 1) != "U32" &&
      text.substr(dot + 1) != "reuse") {
    operand.selected = kind == OperandKind::kRegister || kind == OperandKind::kUniformRegister ? index : -1;
    operand.selected_uniform = kind == OperandKind::kUniformRegister;
    return true;  // kOther: a half-register selector and the like, not evaluated
  }
  operand.kind = kind;
  operand.index = index;
  return true;
}

// c[0x<1-4 hex digits>][<address without ']'>]
void ParseConstantOperand(const std::string& raw, const std::string& text, Operand& operand) {
  size_t at = 2;
  if (text.compare(at, 2, "0x") != 0) Unreadable(raw, "not a constant-bank operand");
  at += 2;
  uint32_t bank = 0;
  const size_t digits = at;
  for (; at < text.size() && IsHexDigit(text[at]) && at - digits < 4; ++at)
    bank = bank * 16 + static_cast<uint32_t>(text[at] <= '9' ? text[at] - '0' : text[at] - 'a' + 10);
  if (at == digits || text.compare(at, 2, "][") != 0 || text.back() != ']')
    Unreadable(raw, "not a constant-bank operand");
  const std::string inside = text.substr(at + 2, text.size() - at - 3);
  if (inside.empty() || inside.find(']') != std::string::npos) Unreadable(raw, "not a constant-bank operand");
  operand.kind = OperandKind::kConstant;
  operand.bank = bank;
  Operand address;
  ParseAddress(raw, inside, address);
  operand.value = static_cast<uint64_t>(address.offset);
  operand.base = address.base >= 0 ? address.base : address.uniform_base;
  operand.base_uniform = address.base < 0 && address.uniform_base >= 0;
  if (address.base == kRegisterZero) operand.base = -1;
}

// desc[UR6][R2.64+0x10]: the uniform register holds a memory descriptor (cache policy), not part of
// the address.
void ParseDescribedAddress(const std::string& raw, const std::string& text, Operand& operand) {
  const size_t inner = text.find("][");
  // desc[UR12] alone (UTMALDG's cache policy): no address, kept as text (kOther).
  if (inner == std::string::npos && text.find(']') == text.size() - 1) return;
  if (inner == std::string::npos || text.back() != ']') Unreadable(raw, "not a described address");
  operand.kind = OperandKind::kGlobalMemory;
  OperandKind kind{};
  if (!ParseRegisterName(text.substr(5, inner - 5), &kind, &operand.descriptor) ||
      kind != OperandKind::kUniformRegister)
    Unreadable(raw, "a descriptor that is not a uniform register");
  ParseAddress(raw, text.substr(inner + 2, text.size() - inner - 3), operand);
}

// A floating-point immediate (FFMA's 0.5, HFMA2's halves): kept as a double's text; evaluated where
// an instruction needs it. False when `text` is none.
bool ParseFloatImmediate(const std::string& text, Operand& operand) {
  char* end = nullptr;
  const std::string number_text = operand.negate ? "-" + text : text;
  std::strtod(number_text.c_str(), &end);
  if (end != nullptr && *end == '\0') {
    operand.kind = OperandKind::kImmediate;
    operand.is_float = true;
    operand.negate = false;
    operand.text = number_text;
    const double as_double = std::strtod(number_text.c_str(), nullptr);
    // Beyond float's range the conversion is undefined: the float the listing means is infinite.
    const float as_float = std::fabs(as_double) > std::numeric_limits<float>::max()
                               ? (as_double > 0 ? 1.0f : -1.0f) * std::numeric_limits<float>::infinity()
                               : static_cast<float>(as_double);
    uint32_t bits = 0;
    std::memcpy(&bits, &as_float, sizeof bits);
    operand.value = bits;
    return true;
  }
  if (text == "INF" || text == "+INF" || text == "QNAN" || text == "-QNAN" || text == "+QNAN") {
    operand.kind = OperandKind::kImmediate;
    operand.is_float = true;
    operand.text = text;
    const bool negative = operand.negate || text == "-QNAN";
    operand.value =
        (text.find("INF") != std::string::npos ? 0x7f800000u : 0x7fffffffu) | (negative ? 0x80000000u : 0u);
    operand.negate = false;
    return true;
  }
  return false;
}

Operand ParseOperand(const std::string& raw) {
  Operand operand;
  operand.text = raw;
  std::string text = raw;
  // Operand reuse hints and the like change nothing the evaluator follows.
  for (const char* hint : {".reuse"}) {
    const size_t at = text.find(hint);
    if (at != std::string::npos) text.erase(at, std::strlen(hint));
  }
  if (text.empty()) Unreadable(raw, "empty");
  if (text[0] == '`') return ParseLabel(raw, text);
  if (text[0] == '!' || text[0] == '~') {
    operand.invert = true;
    text = text.substr(1);
  } else if (text[0] == '-' && text.size() > 1 && !std::isdigit(static_cast<unsigned char>(text[1]))) {
    operand.negate = true;
    text = text.substr(1);
  }
  if (text.size() > 2 && text.front() == '|' && text.back() == '|') {
    operand.absolute = true;
    text = text.substr(1, text.size() - 2);
  }
  if (ParseRegisterOperand(text, operand)) return operand;
  if (text.rfind("SR", 0) == 0) {
    operand.kind = OperandKind::kSpecial;
    operand.index = static_cast<int>(sm90::SpecialRegisterOf(text));
    operand.text = text;
    return operand;
  }
  if (text.rfind("c[", 0) == 0) {
    ParseConstantOperand(raw, text, operand);
    return operand;
  }
  if (text[0] == '[') {
    if (text.back() != ']') Unreadable(raw, "an unclosed address");
    operand.kind = OperandKind::kMemory;
    ParseAddress(raw, text.substr(1, text.size() - 2), operand);
    return operand;
  }
  if (text.rfind("desc[", 0) == 0) {
    ParseDescribedAddress(raw, text, operand);
    return operand;
  }
  int64_t number = 0;
  if (ParseNumber(text, &number)) {
    operand.kind = OperandKind::kImmediate;
    operand.value = static_cast<uint32_t>(number);
    return operand;
  }
  ParseFloatImmediate(text, operand);
  return operand;  // else kOther: gdesc, modes
}

}  // namespace

std::string Instruction::Where() const {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%04x", pc);
  return opcode + " at pc " + buffer;
}

std::vector<Operand> ParseOperands(const std::string& text) {
  std::vector<Operand> operands;
  for (std::string part : SplitOperands(text)) {
    // A call's or return's register, with no comma after it, the function its offset is relative
    // to (RET.REL.NODEC R2 `(_Z1kPi), CALL.REL.NOINC R6 `(_Z1kPi)): the register is the operand.
    const size_t function = part.find(" `(");
    OperandKind kind{};
    int index = 0;
    if (function != std::string::npos &&
        ParseRegisterName(std::string_view(part).substr(0, function), &kind, &index) &&
        kind == OperandKind::kRegister)
      part.resize(function);
    operands.push_back(ParseOperand(part));
  }
  return operands;
}

bool IsFollowedCall(const Instruction& in) {
  return in.base == "CALL" && in.info != nullptr &&
         in.modifiers == std::vector<std::string>{"REL", "NOINC"} && in.operands.size() == 1 &&
         in.operands[0].kind == OperandKind::kLabel && in.target >= 0;
}

int ReturnRegister(const Instruction& in) {
  if (in.base != "RET" || in.info == nullptr || in.modifiers != std::vector<std::string>{"REL", "NODEC"} ||
      in.operands.size() != 1)
    return -1;
  const Operand& ra = in.operands[0];
  const bool plain = ra.kind == OperandKind::kRegister && !ra.negate && !ra.invert && !ra.absolute;
  return plain && ra.index != kRegisterZero ? ra.index : -1;
}

bool StopsEmulation(const Instruction& in) {
  if (in.info == nullptr || !in.unreadable.empty()) return true;
  if (in.info->semantics == Semantics::kCall) return !IsFollowedCall(in);
  if (in.info->semantics == Semantics::kReturn) return ReturnRegister(in) < 0;
  return false;
}

namespace {

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  return parts;
}

}  // namespace

std::map<std::string, Kernel, std::less<>> ReadKernels(const std::string& nvdisasm_listing,
                                                       const std::string& elf_listing) {
  std::map<std::string, Kernel, std::less<>> kernels;
  const bankcheck::internal::Disassembly disassembly = bankcheck::internal::ParseNvdisasm(nvdisasm_listing);
  for (const auto& [function, instructions] : disassembly) {
    Kernel& kernel = kernels[function];
    kernel.info.mangled = function;
    std::map<std::string, size_t> label_index;
    for (const auto& [pc, disassembled] : instructions) {
      Instruction instruction;
      instruction.pc = pc;
      instruction.opcode = disassembled.opcode;
      std::vector<std::string> parts = Split(disassembled.opcode, '.');
      instruction.base = parts.empty() ? "" : parts[0];
      instruction.modifiers.assign(parts.begin() + (parts.empty() ? 0 : 1), parts.end());
      instruction.info = FindOpcode(instruction.base);
      instruction.decoded = DecodeModifiers(instruction.info, instruction.modifiers);
      instruction.unchecked_form =
          instruction.info != nullptr && IsComputingFamily(instruction.info->semantics) &&
          !HasConformanceVectors(FormOf(instruction.base, instruction.modifiers, instruction.info));
      instruction.inline_chain = disassembled.inline_chain;
      if (!disassembled.guard.empty()) {
        std::string guard = disassembled.guard.substr(1);  // after '@'
        instruction.guard_negated = guard[0] == '!';
        if (instruction.guard_negated) guard = guard.substr(1);
        OperandKind kind{};
        if (!ParseRegisterName(guard, &kind, &instruction.guard) ||
            (kind != OperandKind::kPredicate && kind != OperandKind::kUniformPredicate))
          Unreadable(disassembled.guard, "not a guard predicate");
        instruction.guard_uniform = kind == OperandKind::kUniformPredicate;
      }
      try {
        instruction.operands = ParseOperands(disassembled.operands);
        if (instruction.info != nullptr && TakesFloatImmediates(instruction.info->semantics))
          for (Operand& operand : instruction.operands) FloatImmediate(operand);
      } catch (const Error& error) {
        // Not evaluated: the launch is undecided if a lane runs it.
        instruction.unreadable = error.what();
        instruction.operands.clear();
      }
      instruction.memory_op = DecodeMemoryOp(instruction);
      for (const std::string& label : disassembled.labels) label_index[label] = kernel.code.size();
      kernel.index_of_pc[pc] = kernel.code.size();
      kernel.code.push_back(std::move(instruction));
    }
    for (Instruction& instruction : kernel.code)
      for (const Operand& operand : instruction.operands)
        if (operand.kind == OperandKind::kLabel) {
          const auto found = label_index.find(operand.text);
          if (found != label_index.end()) instruction.target = static_cast<int>(found->second);
        }
    MarkDivisionReciprocals(kernel.code);
    MarkFloatDivisions(kernel.code);
    // Registers a warp's state must hold: the highest named, plus the widest access (4 registers).
    for (const Instruction& instruction : kernel.code)
      for (const Operand& operand : instruction.operands) {
        int highest = -1;
        if (operand.kind == OperandKind::kRegister && operand.index != kRegisterZero) highest = operand.index;
        if ((operand.kind == OperandKind::kMemory || operand.kind == OperandKind::kGlobalMemory ||
             operand.kind == OperandKind::kConstant) &&
            operand.base >= 0 && operand.base != kRegisterZero && !operand.base_uniform)
          highest = operand.base;
        kernel.registers = std::max(kernel.registers, std::min(highest + 4, kRegisterZero));
      }
  }
  ReadKernelMetadata(elf_listing, kernels);
  return kernels;
}

}  // namespace bankcheck::emulate::internal
