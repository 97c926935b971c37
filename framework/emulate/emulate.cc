// The evaluator: a launch's warps run through the kernel's SASS lane by lane, each 32-bit register,
// uniform register and predicate known or unknown, every executed shared-memory instruction costed
// by the core's bank model (docs/design/emulate.md, docs/emulate.md).

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "bankcheck/bank_model.h"
#include "bankcheck/emulator.h"
#include "bankcheck/error.h"
#include "core/internal/environment.h"
#include "emulate/internal/global_memory.h"
#include "emulate/internal/limits.h"
#include "emulate/internal/sass.h"

namespace bankcheck::emulate {
namespace {

using namespace internal;  // NOLINT(build/namespaces): the evaluator's own types

// Where inlined instructions' lines are attributed (SetProjectSources).
struct ProjectSources {
  std::mutex mutex;
  std::string project_root, build_root;
};
ProjectSources& Sources() {
  static ProjectSources sources;
  return sources;
}

std::string Demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : mangled;
}

// How a lane's value depends on the block index (docs/design/emulate.md, "Blocks"): not at all;
// affinely, the value in block c being bits + step . (c - this block) modulo 2^32; or otherwise.
// Blocks are grouped on it: a value that depends affinely can be recomputed for another block
// without evaluating that block.
struct BlockDependence {
  std::array<uint32_t, 3> step{};
  bool other = false;
  bool any() const { return other || (step[0] | step[1] | step[2]) != 0; }
  friend bool operator==(const BlockDependence& a, const BlockDependence& b) {
    return a.step == b.step && a.other == b.other;
  }
};

BlockDependence NotAffine() {
  BlockDependence dependence;
  dependence.other = true;
  return dependence;
}

// a + b, a - b, a * k: the dependence of a sum or of a multiple by a value that is the same in every
// block.
BlockDependence Plus(const BlockDependence& a, const BlockDependence& b) {
  BlockDependence sum;
  for (int axis = 0; axis < 3; ++axis) sum.step[axis] = a.step[axis] + b.step[axis];
  sum.other = a.other || b.other;
  return sum;
}
BlockDependence Times(const BlockDependence& a, uint32_t k) {
  BlockDependence product = a;
  for (uint32_t& step : product.step) step *= k;
  return product;
}
BlockDependence Negated(const BlockDependence& a) { return Times(a, 0xffffffffu); }

// A 32-bit value of one lane: known, or unknown with where the unknown came from.
struct Value {
  uint32_t bits = 0;
  uint32_t origin = 0;  // 0: known; else an Origin code
  BlockDependence block;
  bool known() const { return origin == 0; }
};

// Where unknowns come from: an instruction (its index + 1), or one of these.
constexpr uint32_t kNeverWritten = 0xffffffffu;
constexpr uint32_t kMissingArgument = 0xfffffffeu;

Value Known(uint32_t bits, BlockDependence block = {}) { return Value{bits, 0, block}; }
// An unknown's dependence on the block does not matter: whatever it feeds is undecided.
Value Unknown(uint32_t origin) { return Value{0, origin, {}}; }

// The result of an operation on `inputs`: unknown when any is (with the first unknown's origin), and
// depending on the block index, not affinely, when any input depends on it. Operations whose
// result is affine in affine inputs say so where they are computed.
template <typename... V>
Value From(uint32_t bits, const V&... inputs) {
  Value result = Known(bits);
  for (const Value* input : {&inputs...}) {
    if (input->block.any()) result.block.other = true;
    if (result.origin == 0 && input->origin != 0) result.origin = input->origin;
  }
  if (result.origin != 0) result.bits = 0;
  return result;
}

// As From, with `block` as the result's dependence when an input depends on the block.
template <typename... V>
Value Affine(uint32_t bits, const BlockDependence& block, const V&... inputs) {
  Value result = From(bits, inputs...);
  if (result.known() && result.block.any()) result.block = block;
  return result;
}

// A comparison of ISETP's and IMNMX's.
enum class Test : uint8_t {
  kLess,
  kLessOrEqual,
  kGreater,
  kGreaterOrEqual,
  kEqual,
  kNotEqual,
  kTrue,
  kFalse
};

bool Compare(Test test, bool is_unsigned, uint32_t a, uint32_t b) {
  const int64_t sa = is_unsigned ? int64_t{a} : int64_t{static_cast<int32_t>(a)};
  const int64_t sb = is_unsigned ? int64_t{b} : int64_t{static_cast<int32_t>(b)};
  switch (test) {
    case Test::kLess:
      return sa < sb;
    case Test::kLessOrEqual:
      return sa <= sb;
    case Test::kGreater:
      return sa > sb;
    case Test::kGreaterOrEqual:
      return sa >= sb;
    case Test::kEqual:
      return sa == sb;
    case Test::kNotEqual:
      return sa != sb;
    case Test::kTrue:
      return true;
    case Test::kFalse:
      break;
  }
  return false;
}

// The conditions under which another block runs exactly as an evaluated one (its representative):
// every comparison of a value that depends affinely on the block comes out the same, and every
// shared address that depends on it moves all lanes by the same multiple of 128 bytes (which
// keeps each lane's bank, the words lanes share and every alignment, so the bank model's cost).
// Values that are not block-dependent are the same in every block; the rest follow.
struct BlockConditions {
  struct Comparison {
    uint32_t a, b;
    std::array<uint32_t, 3> a_step, b_step;
    Test test;
    bool is_unsigned, outcome;
    auto Key() const { return std::tie(a, b, a_step, b_step, test, is_unsigned, outcome); }
    friend bool operator<(const Comparison& x, const Comparison& y) { return x.Key() < y.Key(); }
    friend bool operator==(const Comparison& x, const Comparison& y) { return x.Key() == y.Key(); }
  };
  std::vector<Comparison> comparisons;
  // Per executed shared instruction with block-dependent lanes: the distinct steps of its lanes.
  std::vector<std::vector<std::array<uint32_t, 3>>> address_steps;

  bool empty() const { return comparisons.empty() && address_steps.empty(); }
  size_t size() const { return comparisons.size() + address_steps.size(); }

  void Compact() {
    std::sort(comparisons.begin(), comparisons.end());
    comparisons.erase(std::unique(comparisons.begin(), comparisons.end()), comparisons.end());
    std::sort(address_steps.begin(), address_steps.end());
    address_steps.erase(std::unique(address_steps.begin(), address_steps.end()), address_steps.end());
  }

  // Whether block `to` runs as `from`, the block these conditions were recorded in.
  bool Hold(const Dim3& from, const Dim3& to) const {
    const std::array<uint32_t, 3> d = {to.x - from.x, to.y - from.y, to.z - from.z};
    const auto moved = [&](uint32_t bits, const std::array<uint32_t, 3>& step) {
      return bits + step[0] * d[0] + step[1] * d[1] + step[2] * d[2];
    };
    for (const Comparison& c : comparisons)
      if (Compare(c.test, c.is_unsigned, moved(c.a, c.a_step), moved(c.b, c.b_step)) != c.outcome)
        return false;
    for (const std::vector<std::array<uint32_t, 3>>& steps : address_steps) {
      const uint32_t shift = moved(0, steps.front());
      if (shift % 128 != 0) return false;
      for (const std::array<uint32_t, 3>& step : steps)
        if (moved(0, step) != shift) return false;
    }
    return true;
  }
};

struct Undecidable {
  Undecided undecided;
};

// The kind of a shared-memory instruction (a row of the opcode table's shared classes).
SharedKind KindOf(const Instruction& instruction) {
  switch (instruction.info->semantics) {
    case Semantics::kSharedStore:
      return SharedKind::kStore;
    case Semantics::kSharedMatrixLoad:
      return SharedKind::kLdmatrix;
    case Semantics::kSharedMatrixStore:
      return SharedKind::kStmatrix;
    case Semantics::kSharedCopy:
      return SharedKind::kCpAsync;
    case Semantics::kSharedAtomic:
      return SharedKind::kAtomic;
    default:
      return SharedKind::kLoad;
  }
}

// One warp's state.
struct WarpState {
  std::vector<Value> registers = std::vector<Value>(kRegisters * kWarpSize);
  std::array<Value, kUniformRegisters> uniform{};
  std::array<Value, kPredicates * kWarpSize> predicates{};
  std::array<Value, kPredicates> uniform_predicates{};
  std::array<uint32_t, kWarpSize> pc{};
  std::array<int, kWarpSize> waits_on{};  // the barrier (0-15, 16 for WARPSYNC) a waiting lane waits on
  std::array<uint32_t, 17> barrier{};     // BSSY's masks; [16] WARPSYNC's
  uint32_t present = 0, exited = 0, waiting = 0;

  // `used`: how many registers the kernel names (only those are reset: a launch resets every warp).
  void Reset(uint32_t lanes, int used) {
    std::fill(registers.begin(), registers.begin() + used * kWarpSize, Unknown(kNeverWritten));
    uniform.fill(Unknown(kNeverWritten));
    predicates.fill(Unknown(kNeverWritten));
    uniform_predicates.fill(Unknown(kNeverWritten));
    pc.fill(0);
    waits_on.fill(-1);
    barrier.fill(0);
    present = lanes;
    exited = waiting = 0;
  }
};

struct Row {
  uint64_t executions = 0, wavefronts = 0, ideal = 0;
};

struct Write {
  OperandKind kind;
  int index;
  Value value;
};

class Evaluator {
 public:
  Evaluator(const Kernel& kernel, const LaunchToEmulate& launch, const EmulationLimits& limits)
      : kernel_(kernel),
        launch_(launch),
        limits_(limits),
        meter_(limits),
        kernel_writes_global_(launch.memory != nullptr && MayWriteGlobal(kernel)) {}

  // Every block's counts by instruction index; throws Undecidable. A block that provably runs as an
  // evaluated one (BlockConditions) is counted with it instead of being evaluated.
  std::map<size_t, Row> Run() {
    struct Group {
      Dim3 representative;
      BlockConditions conditions;
      std::map<size_t, Row> rows;
      uint64_t blocks = 1;
    };
    std::vector<Group> groups;
    std::map<size_t, Row> total;
    bool grouping = limits_.group_blocks;
    size_t last = 0;
    const uint64_t grid_blocks = uint64_t{launch_.grid.x} * launch_.grid.y * launch_.grid.z;
    uint64_t visited = 0;  // blocks counted so far, in the order below
    // Placing a block checks it against groups: each check costs 1 + the group's conditions.
    const auto holds = [&](const Group& group, const Dim3& block) {
      if (!meter_.SpendChecks(1 + group.conditions.size())) StopLaunch(meter_.WhyChecks());
      return group.conditions.Hold(group.representative, block);
    };
    for (uint32_t z = 0; z < launch_.grid.z; ++z)
      for (uint32_t y = 0; y < launch_.grid.y; ++y)
        for (uint32_t x = 0; x < launch_.grid.x; ++x, ++visited) {
          const Dim3 block{x, y, z};
          if (grouping && !groups.empty()) {
            if (groups[last].conditions.empty()) {
              // No condition: every block runs as this group's; the rest of the grid joins it at once.
              groups[last].blocks += grid_blocks - visited;
              z = launch_.grid.z - 1;
              y = launch_.grid.y - 1;
              x = launch_.grid.x - 1;
              continue;
            }
            bool placed = holds(groups[last], block);
            for (size_t i = 0; i < groups.size() && !placed; ++i)
              if (i != last && holds(groups[i], block)) {
                last = i;
                placed = true;
              }
            if (placed) {
              ++groups[last].blocks;
              continue;
            }
          }
          rows_.clear();
          conditions_ = BlockConditions{};
          ++evaluated_blocks_;
          RunBlock(block);
          if (grouping && !not_affine_ && groups.size() < kMaxGroups) {
            conditions_.Compact();
            groups.push_back(Group{block, std::move(conditions_), std::move(rows_), 1});
            last = groups.size() - 1;
          } else {
            // A block-dependence the conditions cannot follow, or too many kinds of block: the
            // blocks already grouped stay so, the rest are evaluated one by one.
            grouping = false;
            Add(total, rows_, 1);
          }
        }
    for (const Group& group : groups) Add(total, group.rows, group.blocks);
    return total;
  }

  uint64_t evaluated_blocks() const { return evaluated_blocks_; }

 private:
  // Past this many groups, blocks are evaluated one by one: checking a block against every group
  // would cost more than evaluating it.
  static constexpr size_t kMaxGroups = 32;

  // Conditions kept for the block being evaluated: past this many (a loop that compares a
  // block-dependent value on every turn), blocks stop being grouped, so that memory stays bounded:
  // every block from then on is evaluated (the instruction budget bounds that).
  static constexpr size_t kMaxConditions = size_t{1} << 16;
  bool RoomForConditions() {
    if (not_affine_) return false;
    if (conditions_.size() < kMaxConditions) return true;
    conditions_.Compact();
    if (conditions_.size() < kMaxConditions / 2) return true;
    not_affine_ = true;
    conditions_ = BlockConditions{};
    return false;
  }

  static void Add(std::map<size_t, Row>& total, const std::map<size_t, Row>& rows, uint64_t blocks) {
    const auto add = [](uint64_t& sum, uint64_t count, uint64_t times) {
      uint64_t product = 0;
      if (__builtin_mul_overflow(count, times, &product) || __builtin_add_overflow(sum, product, &sum))
        StopLaunch("an emulated count does not fit in 64 bits (a grid too large to count)");
    };
    for (const auto& [index, row] : rows) {
      Row& into = total[index];
      add(into.executions, row.executions, blocks);
      add(into.wavefronts, row.wavefronts, blocks);
      add(into.ideal, row.ideal, blocks);
    }
  }

  // ---- undecided ----
  [[noreturn]] void Stop(const Instruction& at, const std::string& reason) const {
    Undecided undecided;
    undecided.reason = reason;
    undecided.pc = at.pc;
    undecided.opcode = at.opcode;
    if (!at.inline_chain.empty()) {
      InstructionCounts located;
      std::string project_root, build_root;
      {
        std::lock_guard<std::mutex> lock(Sources().mutex);
        project_root = Sources().project_root;
        build_root = Sources().build_root;
      }
      AttributeToChain(located, at.inline_chain, project_root, build_root);
      undecided.file = located.file;
      undecided.line = located.line;
    }
    throw Undecidable{undecided};
  }

  // A limit of the launch as a whole: no instruction to blame.
  [[noreturn]] static void StopLaunch(const std::string& reason) {
    Undecided undecided;
    undecided.reason = reason;
    throw Undecidable{undecided};
  }

  std::string Located(const Instruction& instruction) const {
    if (instruction.inline_chain.empty()) return instruction.Where();
    const SourceFrame& frame = instruction.inline_chain.back();
    return instruction.Where() + ", " + frame.file + ":" + std::to_string(frame.line);
  }

  // What an unknown's origin was, for a reader.
  std::string OriginText(uint32_t origin) const {
    if (origin == kNeverWritten) return "a register read before any instruction wrote it";
    if (origin == kMissingArgument) return "argument bytes the launch did not give";
    const Instruction& source = kernel_.code.at(origin - 1);
    const Semantics semantics = source.info != nullptr ? source.info->semantics : Semantics::kData;
    switch (semantics) {
      case Semantics::kLoad:
        return "a load from memory (" + Located(source) + ")";
      case Semantics::kSharedLoad:
      case Semantics::kSharedMatrixLoad:
        return "a load from shared memory (" + Located(source) + ")";
      case Semantics::kSharedAtomic:
        return "a shared atomic's result (" + Located(source) + ")";
      case Semantics::kLoadConstant:
        return "a constant that is neither the launch configuration nor an argument (" + Located(source) +
               ")";
      case Semantics::kSpecialRegister:
        return "a special register whose value is not known before the launch runs (" + Located(source) + ")";
      case Semantics::kIsetp:
        return "a 64-bit comparison the emulator does not evaluate (" + Located(source) + ")";
      default:
        return "a value the emulator does not compute (" + Located(source) + ")";
    }
  }

  [[noreturn]] void StopOnUnknown(const Instruction& at, const Value& value, const std::string& what) const {
    Stop(at, OriginText(value.origin) + " feeds " + what + " of " + Located(at));
  }

  // ---- operands ----
  uint32_t Origin(size_t index) const { return static_cast<uint32_t>(index + 1); }

  Value ReadConstant(const Instruction& at, size_t index, uint32_t bank, uint64_t offset,
                     uint32_t bytes) const {
    if (bank != 0) return Unknown(Origin(index));
    // sm_90's constant bank 0: blockDim at 0x0, gridDim at 0xc (checked against the SASS of
    // kernels that read them), the arguments from the kernel's parameter base.
    if (offset + bytes <= 0x18 && offset % 4 == 0 && bytes == 4) {
      const uint32_t values[6] = {launch_.block.x, launch_.block.y, launch_.block.z,
                                  launch_.grid.x,  launch_.grid.y,  launch_.grid.z};
      return Known(values[offset / 4]);
    }
    const uint32_t base = kernel_.info.param_base;
    if (offset >= base) {
      const uint64_t at_byte = offset - base;
      if (at_byte + bytes > launch_.param_bytes.size()) return Unknown(kMissingArgument);
      uint32_t bits = 0;
      std::memcpy(&bits, launch_.param_bytes.data() + at_byte, std::min<uint32_t>(bytes, 4));
      return Known(bits);
    }
    (void)at;
    return Unknown(Origin(index));
  }

  Value ReadRaw(const Operand& operand, int lane, size_t index) const {
    switch (operand.kind) {
      case OperandKind::kRegister:
        return operand.index == kRegisterZero ? Known(0) : warp_.registers[operand.index * kWarpSize + lane];
      case OperandKind::kUniformRegister:
        return operand.index == kUniformRegisterZero ? Known(0) : warp_.uniform[operand.index];
      case OperandKind::kImmediate:
        return Known(static_cast<uint32_t>(operand.value));
      case OperandKind::kConstant: {
        uint64_t offset = operand.value;
        Value base = Known(0);
        if (operand.base >= 0) {
          base = operand.base_uniform ? warp_.uniform[operand.base]
                                      : warp_.registers[operand.base * kWarpSize + lane];
          if (!base.known()) return base;
          offset += base.bits;
        }
        Value value = ReadConstant(kernel_.code[index], index, operand.bank, offset, 4);
        if (base.block.any()) value.block = NotAffine();
        return value;
      }
      case OperandKind::kPredicate:
      case OperandKind::kUniformPredicate:
        return ReadPredicate(operand, lane);
      default:
        return Unknown(Origin(index));
    }
  }

  // An integer source: negation (two's complement), inversion and absolute value applied.
  Value Read(const Operand& operand, int lane, size_t index) const {
    Value value = ReadRaw(operand, lane, index);
    if (!value.known()) return value;
    if (operand.absolute) {
      value.bits = static_cast<uint32_t>(std::abs(static_cast<int64_t>(static_cast<int32_t>(value.bits))));
      if (value.block.any()) value.block = NotAffine();
    }
    // -x and ~x = -x - 1: affine, with the step negated.
    if (operand.negate) {
      value.bits = 0u - value.bits;
      value.block = Negated(value.block);
    }
    if (operand.invert) {
      value.bits = ~value.bits;
      value.block = Negated(value.block);
    }
    return value;
  }

  // Registers d and d+1 as one 64-bit value (low first).
  Value ReadPair(const Operand& operand, int lane, size_t index, uint64_t* bits) const {
    if (operand.kind == OperandKind::kImmediate) {
      *bits = operand.value;
      return Known(0);
    }
    if (operand.kind != OperandKind::kRegister && operand.kind != OperandKind::kUniformRegister) {
      *bits = 0;
      return Unknown(Origin(index));
    }
    const bool zero =
        operand.index == (operand.kind == OperandKind::kRegister ? kRegisterZero : kUniformRegisterZero);
    if (zero) {
      *bits = 0;
      return Known(0);
    }
    Operand high = operand;
    high.index = operand.index + 1;
    const Value low_value = ReadRaw(operand, lane, index);
    const Value high_value = ReadRaw(high, lane, index);
    *bits = (uint64_t{high_value.bits} << 32) | low_value.bits;
    return From(0, low_value, high_value);
  }

  Value ReadPredicate(const Operand& operand, int lane) const {
    // A listing may name anything where a predicate belongs (VOTE.ANY R1, PT, R200): its number
    // would index past the predicates.
    if (!IsPredicate(operand))
      Stop(*executing_, "\"" + operand.text + "\" of " + Located(*executing_) + " is not a predicate");
    Value value;
    if (operand.index == kPredicateTrue) {
      value = Known(1);
    } else if (operand.kind == OperandKind::kUniformPredicate) {
      value = warp_.uniform_predicates[operand.index];
    } else {
      value = warp_.predicates[operand.index * kWarpSize + lane];
    }
    if (value.known() && operand.invert) value.bits ^= 1u;
    return value;
  }

  static bool IsPredicate(const Operand& operand) {
    return operand.kind == OperandKind::kPredicate || operand.kind == OperandKind::kUniformPredicate;
  }
  static bool IsRegister(const Operand& operand) {
    return operand.kind == OperandKind::kRegister || operand.kind == OperandKind::kUniformRegister;
  }

  // How many 32-bit registers an instruction's destination spans, by its width modifier.
  static int Width(const Instruction& instruction) {
    if (instruction.info != nullptr && instruction.info->registers > 0) return instruction.info->registers;
    if (instruction.Has("128")) return 4;
    if (instruction.Has("64") || instruction.base == "DADD" || instruction.base == "DMUL" ||
        instruction.base == "DFMA")
      return 2;
    return 1;
  }

  // ---- one instruction, one lane: the registers and predicates it writes ----
  // a `test` b, recorded as a condition of the block's group when a or b depends on the block:
  // the outcome is then the same in every block of the group. nullopt when that dependence cannot
  // be followed (the caller's result is then block-dependent, not affine).
  std::optional<bool> CompareInGroup(Test test, bool is_unsigned, const Value& a, const Value& b) {
    const bool outcome = Compare(test, is_unsigned, a.bits, b.bits);
    if (!a.known() || !b.known() || !(a.block.any() || b.block.any())) return outcome;
    if (a.block.other || b.block.other) return std::nullopt;
    if (!RoomForConditions()) return outcome;  // every block is evaluated: the outcome is this block's
    conditions_.comparisons.push_back(
        {a.bits, b.bits, a.block.step, b.block.step, test, is_unsigned, outcome});
    return outcome;
  }

  static std::optional<Test> TestOf(const Instruction& in) {
    static constexpr std::pair<const char*, Test> kTests[] = {
        {"LT", Test::kLess},    {"LE", Test::kLessOrEqual},
        {"GT", Test::kGreater}, {"GE", Test::kGreaterOrEqual},
        {"EQ", Test::kEqual},   {"NE", Test::kNotEqual},
        {"T", Test::kTrue},     {"F", Test::kFalse}};
    for (const auto& [name, test] : kTests)
      if (in.Has(name)) return test;
    return std::nullopt;
  }

  void Compute(const Instruction& in, size_t index, int lane, std::vector<Write>& out) {
    const std::vector<Operand>& ops = in.operands;
    const auto write = [&](const Operand& destination, Value value) {
      out.push_back({destination.kind, destination.index, value});
    };
    const auto write_pair = [&](const Operand& destination, uint64_t bits, Value like) {
      Value low = like, high = like;
      low.bits = like.known() ? static_cast<uint32_t>(bits) : 0;
      high.bits = like.known() ? static_cast<uint32_t>(bits >> 32) : 0;
      write(destination, low);
      Operand next = destination;
      const int zero = destination.kind == OperandKind::kRegister ? kRegisterZero : kUniformRegisterZero;
      if (destination.index != zero) {
        next.index = destination.index + 1;
        write(next, high);
      }
    };
    const auto unknown_destinations = [&](int count, int width, uint32_t origin) {
      int written = 0;
      for (const Operand& operand : ops) {
        if (written == count) break;
        if (!IsRegister(operand) && !IsPredicate(operand)) break;
        ++written;
        for (int part = 0; part < (IsRegister(operand) ? width : 1); ++part) {
          Operand destination = operand;
          const int zero = operand.kind == OperandKind::kRegister ? kRegisterZero : kUniformRegisterZero;
          if (IsRegister(operand) && operand.index == zero) break;
          destination.index = operand.index + part;
          write(destination, Unknown(origin));
        }
      }
    };
    const Semantics semantics = in.info->semantics;
    const bool is_unsigned = in.Has("U32");
    switch (semantics) {
      case Semantics::kMove: {
        write(ops.at(0), Read(ops.at(1), lane, index));
        return;
      }
      case Semantics::kImad: {
        size_t next = 1;
        const Operand* carry_out = nullptr;
        if (ops.size() > 1 && IsPredicate(ops[1])) carry_out = &ops[next++];
        const Value a = Read(ops.at(next), lane, index);
        const Value b = Read(ops.at(next + 1), lane, index);
        const Operand& c_operand = ops.at(next + 2);
        Value carry_in = Known(0);
        if (in.Has("X") && ops.size() > next + 3) carry_in = ReadPredicate(ops[next + 3], lane);
        if (in.Has("WIDE") || in.Has("HI")) {
          uint64_t c_bits = 0;
          Value c = ReadPair(c_operand, lane, index, &c_bits);
          if (c_operand.negate) c_bits = 0 - c_bits;
          const uint64_t product =
              is_unsigned ? uint64_t{a.bits} * b.bits
                          : static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(a.bits)) *
                                                  static_cast<int32_t>(b.bits));
          const uint64_t sum = product + c_bits;  // a*b + c, modulo 2^64
          const uint32_t carry = sum < product ? 1u : 0u;
          const Value inputs = From(0, a, b, c, carry_in);
          if (in.Has("HI")) {
            write(ops[0], From(static_cast<uint32_t>(sum >> 32), inputs));  // the high word of a*b + c
          } else {
            write_pair(ops[0], sum, inputs);
          }
          if (carry_out != nullptr) write(*carry_out, From(carry, inputs));
          return;
        }
        const Value c = Read(c_operand, lane, index);
        const uint64_t sum = uint64_t{a.bits * b.bits} + c.bits + (carry_in.known() ? carry_in.bits : 0);
        // a*b + c is affine when at most one factor depends on the block.
        BlockDependence block = NotAffine();
        if (!(a.block.any() && b.block.any()) && !carry_in.block.any())
          block = Plus(Plus(Times(a.block, b.bits), Times(b.block, a.bits)), c.block);
        write(ops[0], Affine(static_cast<uint32_t>(sum), block, a, b, c, carry_in));
        if (carry_out != nullptr)
          write(*carry_out, From(static_cast<uint32_t>(sum >> 32) & 1u, a, b, c, carry_in));
        return;
      }
      case Semantics::kIadd3: {
        size_t next = 1;
        std::vector<const Operand*> carry_outs;
        while (next < ops.size() && IsPredicate(ops[next]) && carry_outs.size() < 2)
          carry_outs.push_back(&ops[next++]);
        Value inputs = Known(0);
        BlockDependence block;  // of the sum: the terms' steps, negated as the terms are
        uint64_t sum = 0;
        for (int term = 0; term < 3; ++term) {
          const Operand& operand = ops.at(next + term);
          const Value raw = ReadRaw(operand, lane, index);
          inputs = From(0, inputs, raw);
          uint64_t value = raw.bits;
          block = Plus(block, operand.negate || operand.invert ? Negated(raw.block) : raw.block);
          if (operand.negate) value = uint64_t{static_cast<uint32_t>(~raw.bits)} + 1;
          if (operand.invert) value = static_cast<uint32_t>(~raw.bits);
          sum += value;
        }
        for (size_t i = next + 3; i < ops.size(); ++i)
          if (IsPredicate(ops[i])) {
            const Value carry = ReadPredicate(ops[i], lane);
            inputs = From(0, inputs, carry);
            if (carry.block.any()) block = NotAffine();
            sum += carry.bits;
          }
        write(ops[0], Affine(static_cast<uint32_t>(sum), block, inputs));
        for (size_t i = 0; i < carry_outs.size(); ++i)
          write(*carry_outs[i], From(static_cast<uint32_t>(sum >> (32 + i)) & 1u, inputs));
        return;
      }
      case Semantics::kViadd: {
        const Value a = Read(ops.at(1), lane, index), b = Read(ops.at(2), lane, index);
        write(ops[0], Affine(a.bits + b.bits, Plus(a.block, b.block), a, b));
        return;
      }
      case Semantics::kLea: {
        size_t next = 1;
        const Operand* carry_out = nullptr;
        if (IsPredicate(ops.at(1))) carry_out = &ops[next++];
        std::vector<const Operand*> sources;
        std::vector<const Operand*> carries;
        for (size_t i = next; i < ops.size(); ++i)
          (IsPredicate(ops[i]) ? carries : sources).push_back(&ops[i]);
        const Value a = Read(*sources.at(0), lane, index);
        const Value b = Read(*sources.at(1), lane, index);
        Value inputs = From(0, a, b);
        BlockDependence block = NotAffine();
        uint64_t shifted = 0;
        uint32_t shift = 0;
        if (in.Has("HI")) {
          Value c = Known(in.Has("SX32") ? static_cast<uint32_t>(static_cast<int32_t>(a.bits) >> 31) : 0);
          size_t shift_at = 2;
          if (!in.Has("SX32")) {
            c = Read(*sources.at(2), lane, index);
            shift_at = 3;
          }
          const Value s = Read(*sources.at(shift_at), lane, index);
          inputs = From(0, inputs, c, s);
          shift = s.bits & 63u;
          const uint64_t wide = (uint64_t{c.bits} << 32) | a.bits;
          shifted = shift == 0 ? c.bits : static_cast<uint32_t>((wide << shift) >> 32);
        } else {
          const Value s = Read(*sources.at(2), lane, index);
          inputs = From(0, inputs, s);
          shift = s.bits & 63u;
          shifted = shift >= 32 ? 0 : static_cast<uint32_t>(uint64_t{a.bits} << shift);
          // (a << s) + b with s the same in every block: affine.
          if (!s.block.any()) block = Plus(Times(a.block, shift >= 32 ? 0 : 1u << shift), b.block);
        }
        uint64_t sum = shifted + b.bits;
        if (in.Has("X"))
          for (const Operand* carry : carries) {
            const Value bit = ReadPredicate(*carry, lane);
            inputs = From(0, inputs, bit);
            if (bit.block.any()) block = NotAffine();
            sum += bit.bits;
          }
        write(ops[0], Affine(static_cast<uint32_t>(sum), block, inputs));
        if (carry_out != nullptr) write(*carry_out, From(static_cast<uint32_t>(sum >> 32) & 1u, inputs));
        return;
      }
      case Semantics::kShf: {
        const Value low = Read(ops.at(1), lane, index), s = Read(ops.at(2), lane, index),
                    high = Read(ops.at(3), lane, index);
        const bool wide = in.Has("U64") || in.Has("S64");
        uint32_t shift = s.bits;
        if (in.Has("W")) {
          shift &= wide ? 63u : 31u;
        } else {
          shift = std::min<uint32_t>(shift, wide ? 64u : 32u);
        }
        const uint64_t value = (uint64_t{high.bits} << 32) | low.bits;
        uint64_t result = 0;
        if (in.Has("L")) {
          result = shift >= 64 ? 0 : value << shift;
        } else if (in.Has("S32") || in.Has("S64")) {
          result = static_cast<uint64_t>(static_cast<int64_t>(value) >> std::min<uint32_t>(shift, 63));
        } else {
          result = shift >= 64 ? 0 : value >> shift;
        }
        // The low word of a left shift by a count the same in every block is low << count: affine.
        BlockDependence block = NotAffine();
        if (in.Has("L") && !in.Has("HI") && !s.block.any() && shift < 32)
          block = Times(low.block, 1u << shift);
        write(ops[0],
              Affine(static_cast<uint32_t>(in.Has("HI") ? result >> 32 : result), block, low, s, high));
        return;
      }
      case Semantics::kLop3: {
        size_t next = 0;
        const Operand* predicate_out = nullptr;
        const Operand* register_out = nullptr;
        if (IsPredicate(ops.at(0))) {
          predicate_out = &ops[0];
          register_out = &ops.at(1);
          next = 2;
        } else if (IsPredicate(ops.at(1))) {
          register_out = &ops[0];
          predicate_out = &ops[1];
          next = 2;
        } else {
          register_out = &ops[0];
          next = 1;
        }
        const Value a = Read(ops.at(next), lane, index), b = Read(ops.at(next + 1), lane, index),
                    c = Read(ops.at(next + 2), lane, index), lut = Read(ops.at(next + 3), lane, index);
        uint32_t result = 0;
        for (int bit = 0; bit < 32; ++bit) {
          const uint32_t selector =
              (((a.bits >> bit) & 1u) << 2) | (((b.bits >> bit) & 1u) << 1) | ((c.bits >> bit) & 1u);
          result |= ((lut.bits >> selector) & 1u) << bit;
        }
        write(*register_out, From(result, a, b, c, lut));
        if (predicate_out != nullptr) write(*predicate_out, From(result != 0 ? 1u : 0u, a, b, c, lut));
        return;
      }
      case Semantics::kPlop3: {
        const Value a = ReadPredicate(ops.at(2), lane), b = ReadPredicate(ops.at(3), lane),
                    c = ReadPredicate(ops.at(4), lane);
        const uint32_t selector = (a.bits << 2) | (b.bits << 1) | c.bits;
        const uint32_t lut1 = static_cast<uint32_t>(ops.at(5).value),
                       lut2 = static_cast<uint32_t>(ops.at(6).value);
        write(ops[0], From((lut1 >> selector) & 1u, a, b, c));
        write(ops[1], From((lut2 >> selector) & 1u, a, b, c));
        return;
      }
      case Semantics::kIsetp: {
        if (in.Has("EX")) {
          write(ops.at(0), Unknown(Origin(index)));
          write(ops.at(1), Unknown(Origin(index)));
          return;
        }
        const Value a = Read(ops.at(2), lane, index), b = Read(ops.at(3), lane, index);
        const Value c = ReadPredicate(ops.at(4), lane);
        const std::optional<Test> kind_of = TestOf(in);
        if (!kind_of) Stop(in, "the comparison of " + in.Where() + " is not understood");
        const Test kind = *kind_of;
        const std::optional<bool> outcome = CompareInGroup(kind, is_unsigned, a, b);
        const bool test = outcome.value_or(Compare(kind, is_unsigned, a.bits, b.bits));
        const auto combine = [&](bool t) {
          if (in.Has("AND")) return t && c.bits;
          if (in.Has("OR")) return t || c.bits;
          return static_cast<bool>(t != static_cast<bool>(c.bits));  // XOR
        };
        // The same in every block of the group unless the comparison or c could not be followed.
        const BlockDependence block = outcome ? c.block : NotAffine();
        write(ops[0], Affine(combine(test) ? 1u : 0u, block, a, b, c));
        write(ops[1], Affine(combine(!test) ? 1u : 0u, block, a, b, c));
        return;
      }
      case Semantics::kSel: {
        const Value a = Read(ops.at(1), lane, index), b = Read(ops.at(2), lane, index);
        const Value p = ReadPredicate(ops.at(3), lane);
        if (!p.known()) {
          write(ops[0], p);
          return;
        }
        Value chosen = p.bits ? a : b;
        if (p.block.any()) chosen.block = NotAffine();
        write(ops[0], chosen);
        return;
      }
      case Semantics::kMinMax: {
        const Value a = Read(ops.at(1), lane, index), b = Read(ops.at(2), lane, index);
        const Value p = ReadPredicate(ops.at(3), lane);
        const std::optional<bool> less = CompareInGroup(Test::kLess, is_unsigned, a, b);
        const bool a_less = less.value_or(Compare(Test::kLess, is_unsigned, a.bits, b.bits));
        const Value& chosen = (p.bits != 0) == a_less ? a : b;  // the minimum when p, else the maximum
        const BlockDependence block = less && !p.block.any() ? chosen.block : NotAffine();
        write(ops[0], Affine(chosen.bits, block, a, b, p));
        return;
      }
      case Semantics::kRegisterToPredicates: {
        if (ops.size() != 3 || ops[0].text != "PR" || ops[1].kind != OperandKind::kRegister ||
            ops[2].kind != OperandKind::kImmediate)
          Stop(in, in.opcode + " is a form the emulator does not understand");
        const Value a = Read(ops[1], lane, index);
        for (int bit = 0; bit < kPredicateTrue; ++bit)
          if (ops[2].value >> bit & 1u)
            out.push_back({OperandKind::kPredicate, bit, From((a.bits >> bit) & 1u, a)});
        return;
      }
      case Semantics::kPopc: {
        const Value a = Read(ops.at(1), lane, index);
        write(ops[0], From(static_cast<uint32_t>(__builtin_popcount(a.bits)), a));
        return;
      }
      case Semantics::kFlo: {
        Value a = Read(ops.at(1), lane, index);
        uint32_t bits = a.bits;
        if (!is_unsigned && static_cast<int32_t>(bits) < 0) bits = ~bits;
        uint32_t position = bits == 0 ? 0xffffffffu : 31u - static_cast<uint32_t>(__builtin_clz(bits));
        if (in.Has("SH") && bits != 0) position = 31u - position;
        write(ops[0], From(position, a));
        return;
      }
      case Semantics::kBrev: {
        const Value a = Read(ops.at(1), lane, index);
        uint32_t reversed = 0;
        for (int bit = 0; bit < 32; ++bit) reversed |= ((a.bits >> bit) & 1u) << (31 - bit);
        write(ops[0], From(reversed, a));
        return;
      }
      case Semantics::kPrmt: {
        if (in.modifiers.size() > 0) {
          write(ops[0], Unknown(Origin(index)));
          return;
        }
        const Value a = Read(ops.at(1), lane, index), selector = Read(ops.at(2), lane, index),
                    b = Read(ops.at(3), lane, index);
        const uint64_t bytes = (uint64_t{b.bits} << 32) | a.bits;
        uint32_t result = 0;
        for (int i = 0; i < 4; ++i) {
          const uint32_t nibble = (selector.bits >> (4 * i)) & 0xfu;
          uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (nibble & 7u))) & 0xffu;
          if (nibble & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
          result |= byte << (8 * i);
        }
        write(ops[0], From(result, a, selector, b));
        return;
      }
      case Semantics::kSpecialRegister: {
        const Operand& source = ops.at(1);
        if (in.base == "CS2R") {
          if (source.text == "SRZ") {
            write_pair(ops[0], 0, Known(0));
          } else {
            unknown_destinations(1, in.Has("32") ? 1 : 2, Origin(index));
          }
          return;
        }
        write(ops[0], SpecialRegister(source.text, lane, index));
        return;
      }
      case Semantics::kLoadConstant: {
        const Operand& source = ops.at(1);
        if (source.kind != OperandKind::kConstant) {
          unknown_destinations(1, Width(in), Origin(index));
          return;
        }
        uint64_t offset = source.value;
        Value base = Known(0);
        if (source.base >= 0) {
          base = source.base_uniform ? warp_.uniform[source.base]
                                     : warp_.registers[source.base * kWarpSize + lane];
          offset += base.bits;
        }
        uint32_t bytes = 4;
        if (in.Has("U8") || in.Has("S8")) bytes = 1;
        if (in.Has("U16") || in.Has("S16")) bytes = 2;
        const int width = Width(in);
        for (int part = 0; part < width; ++part) {
          Value value = ReadConstant(in, index, source.bank, offset + 4u * part, bytes);
          if (value.known() && bytes < 4) {
            const uint32_t mask = (1u << (8 * bytes)) - 1;
            value.bits &= mask;
            if ((in.Has("S8") || in.Has("S16")) && (value.bits >> (8 * bytes - 1))) value.bits |= ~mask;
          }
          Operand destination = ops[0];
          destination.index += part;
          write(destination, From(value.bits, value, base));
        }
        return;
      }
      case Semantics::kHalfConstant: {
        uint16_t low = 0, high = 0;
        const bool constant = ops.size() == 5 && ops[1].kind == OperandKind::kRegister &&
                              ops[1].index == kRegisterZero && ops[2].kind == OperandKind::kRegister &&
                              ops[2].index == kRegisterZero && HalfOf(ops[3], &low) && HalfOf(ops[4], &high);
        write(ops.at(0), constant ? Known((uint32_t{high} << 16) | low) : Unknown(Origin(index)));
        return;
      }
      case Semantics::kIntToFloat: {
        const Value a = Read(ops.at(1), lane, index);
        if (in.Has("F64") || in.Has("F16") || in.Has("S64") || in.Has("U64") || in.Has("S16") ||
            in.Has("U16") || in.Has("S8") || in.Has("U8")) {
          unknown_destinations(1, in.Has("F64") ? 2 : 1, Origin(index));
          return;
        }
        write(ops[0], From(IntToFloat(a.bits, in.Has("U32"), RoundingOf(in)), a));
        return;
      }
      case Semantics::kFloatToInt: {
        const Value a = Read(ops.at(1), lane, index);
        uint32_t result = 0;
        if (in.Has("F64") || in.Has("S64") || in.Has("U64") || !FloatToInt(a.bits, in, &result)) {
          unknown_destinations(1, (in.Has("S64") || in.Has("U64")) ? 2 : 1, Origin(index));
          return;
        }
        write(ops[0], From(result, a));
        return;
      }
      case Semantics::kReciprocal: {
        if (!in.division_reciprocal) {
          unknown_destinations(1, 1, Origin(index));
          return;
        }
        const Value a = Read(ops.at(1), lane, index);
        float x = 0;
        std::memcpy(&x, &a.bits, sizeof x);
        const float reciprocal = 1.0f / x;
        uint32_t bits = 0;
        std::memcpy(&bits, &reciprocal, sizeof bits);
        write(ops[0], From(bits, a));
        return;
      }
      case Semantics::kData:
        unknown_destinations(in.info->destinations, Width(in), Origin(index));
        return;
      case Semantics::kLoad:
      case Semantics::kSharedLoad:
      case Semantics::kSharedAtomic: {
        if (semantics == Semantics::kLoad && launch_.memory != nullptr && LoadKnown(in, lane, index, out)) return;
        // ATOMG/ATOM with RZ destinations write nothing; a 64-bit atomic writes two registers.
        unknown_destinations(1, Width(in), Origin(index));
        return;
      }
      case Semantics::kSharedMatrixLoad:
        unknown_destinations(1, MatrixCount(in), Origin(index));  // a register per matrix
        return;
      default:
        return;
    }
  }

  // An LDG of bytes the launch's known memory holds (global_memory.h): their values, which depend
  // on the block (not affinely) when the address does.
  bool LoadKnown(const Instruction& in, int lane, size_t index, std::vector<Write>& out) const {
    const Operand* address = nullptr;
    for (const Operand& operand : in.operands)
      if (operand.kind == OperandKind::kGlobalMemory) address = &operand;
    if (address == nullptr || in.operands.empty() || in.operands[0].kind != OperandKind::kRegister ||
        (address->uniform_base >= 0 && address->uniform_base != kUniformRegisterZero) ||
        (address->base >= 0 && address->text.find(".64") == std::string::npos))
      return false;
    Operand pair;
    pair.kind = OperandKind::kRegister;
    pair.index = address->base >= 0 ? address->base : kRegisterZero;
    uint64_t base = 0;
    const Value where = ReadPair(pair, lane, index, &base);
    if (!where.known()) return false;
    const std::optional<std::array<uint32_t, 4>> words =
        KnownLoad(in, *launch_.memory, base + static_cast<uint64_t>(address->offset), kernel_writes_global_);
    if (!words) return false;
    const BlockDependence block = where.block.any() ? NotAffine() : BlockDependence{};
    const Operand& destination = in.operands[0];
    for (int part = 0; part < Width(in) && destination.index != kRegisterZero; ++part)
      out.push_back({destination.kind, destination.index + part, Known((*words)[part], block)});
    return true;
  }

  static bool HalfOf(const Operand& operand, uint16_t* half) {
    if (operand.kind != OperandKind::kImmediate) return false;
    const double value =
        operand.is_float ? std::strtod(operand.text.c_str(), nullptr) : static_cast<double>(operand.value);
    if (operand.is_float &&
        (operand.text.find("INF") != std::string::npos || operand.text.find("NAN") != std::string::npos))
      return false;
    if (value == 0) {
      *half = std::signbit(value) ? 0x8000 : 0;
      return true;
    }
    const uint16_t sign = value < 0 ? 0x8000 : 0;
    const double magnitude = std::fabs(value);
    int exponent = 0;
    const double fraction =
        std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent, fraction in [0.5, 1)
    // Normal halves: exponent - 1 in [-14, 15], 11 significant bits; subnormals: multiples of 2^-24.
    if (exponent - 1 > 15) return false;
    if (exponent - 1 >= -14) {
      const double significand = std::ldexp(fraction, 11);  // in [1024, 2048)
      if (significand != std::floor(significand)) return false;
      *half = static_cast<uint16_t>(sign | ((exponent - 1 + 15) << 10) |
                                    (static_cast<uint32_t>(significand) - 1024));
      return true;
    }
    const double units = std::ldexp(magnitude, 24);
    if (units != std::floor(units) || units >= 1024) return false;
    *half = static_cast<uint16_t>(sign | static_cast<uint32_t>(units));
    return true;
  }

  enum class Rounding { kNearest, kZero, kDown, kUp };
  static Rounding RoundingOf(const Instruction& in) {
    if (in.Has("RZ") || in.Has("TRUNC")) return Rounding::kZero;
    if (in.Has("RM") || in.Has("FLOOR")) return Rounding::kDown;
    if (in.Has("RP") || in.Has("CEIL")) return Rounding::kUp;
    return Rounding::kNearest;
  }

  // A 32-bit integer as a float, rounded as asked (done by hand: the host's rounding mode is not
  // the instruction's).
  static uint32_t IntToFloat(uint32_t bits, bool is_unsigned, Rounding rounding) {
    const bool negative = !is_unsigned && static_cast<int32_t>(bits) < 0;
    uint64_t magnitude =
        negative ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits)))
                 : bits;
    if (magnitude == 0) return 0;
    int exponent = 63 - __builtin_clzll(magnitude);  // value in [2^exponent, 2^(exponent+1))
    uint64_t mantissa = magnitude;
    if (exponent > 23) {
      const int drop = exponent - 23;
      const uint64_t remainder = magnitude & ((uint64_t{1} << drop) - 1);
      const uint64_t half = uint64_t{1} << (drop - 1);
      mantissa = magnitude >> drop;
      bool up = false;
      switch (rounding) {
        case Rounding::kNearest:
          up = remainder > half || (remainder == half && (mantissa & 1u));
          break;
        case Rounding::kZero:
          break;
        case Rounding::kDown:
          up = negative && remainder != 0;
          break;
        case Rounding::kUp:
          up = !negative && remainder != 0;
          break;
      }
      if (up && ++mantissa == (uint64_t{1} << 24)) {
        mantissa >>= 1;
        ++exponent;
      }
    } else {
      mantissa <<= (23 - exponent);
    }
    return (negative ? 0x80000000u : 0u) | (static_cast<uint32_t>(exponent + 127) << 23) |
           static_cast<uint32_t>(mantissa & 0x7fffffu);
  }

  static bool FloatToInt(uint32_t bits, const Instruction& in, uint32_t* result) {
    float x = 0;
    std::memcpy(&x, &bits, sizeof x);
    if (in.Has("FTZ") && std::fpclassify(x) == FP_SUBNORMAL) x = 0;
    const bool is_unsigned = in.Has("U32");
    if (std::isnan(x)) {
      *result = is_unsigned ? 0 : 0x80000000u;  // sm_90 gives the most negative for S32
      return !is_unsigned ? false : true;
    }
    double rounded = x;
    switch (RoundingOf(in)) {
      case Rounding::kZero:
        rounded = std::trunc(rounded);
        break;
      case Rounding::kDown:
        rounded = std::floor(rounded);
        break;
      case Rounding::kUp:
        rounded = std::ceil(rounded);
        break;
      case Rounding::kNearest:
        rounded = std::nearbyint(rounded);
        break;
    }
    if (is_unsigned) {
      *result = rounded <= 0 ? 0u : rounded >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(rounded);
    } else {
      *result = rounded <= -2147483648.0  ? 0x80000000u
                : rounded >= 2147483647.0 ? 0x7fffffffu
                                          : static_cast<uint32_t>(static_cast<int32_t>(rounded));
    }
    return true;
  }

  Value SpecialRegister(const std::string& name, int lane, size_t index) const {
    const uint32_t linear = warp_index_ * kWarpSize + static_cast<uint32_t>(lane);
    const Dim3& b = launch_.block;
    if (name == "SR_TID.X") return Known(linear % b.x);
    if (name == "SR_TID.Y") return Known((linear / b.x) % b.y);
    if (name == "SR_TID.Z") return Known(linear / (b.x * b.y));
    if (name.size() == 10 && name.compare(0, 9, "SR_CTAID.") == 0 && name[9] >= 'X' && name[9] <= 'Z') {
      const int axis = name[9] - 'X';
      BlockDependence block;
      block.step[axis] = 1;
      return Known(axis == 0 ? ctaid_.x : axis == 1 ? ctaid_.y : ctaid_.z, block);
    }
    if (name == "SR_LANEID") return Known(static_cast<uint32_t>(lane));
    // A launch without clusters: each block is the only one (rank 0) of its cluster.
    if (name == "SR_CgaCtaId") return Known(0);
    const uint32_t bit = 1u << lane;
    if (name == "SR_LANEMASK_EQ") return Known(bit);
    if (name == "SR_LANEMASK_LT") return Known(bit - 1);
    if (name == "SR_LANEMASK_LE") return Known(bit | (bit - 1));
    if (name == "SR_LANEMASK_GT") return Known(~(bit | (bit - 1)));
    if (name == "SR_LANEMASK_GE") return Known(~(bit - 1));
    return Unknown(Origin(index));
  }

  // ---- a warp ----
  void Apply(const std::vector<Write>& writes, int lane, const Value& guard) {
    for (Write write : writes) {
      if (!guard.known()) write.value = Unknown(guard.origin);
      if (guard.block.any()) write.value.block = NotAffine();
      switch (write.kind) {
        case OperandKind::kRegister:
          if (write.index != kRegisterZero && write.index < kRegisterZero)
            warp_.registers[write.index * kWarpSize + lane] = write.value;
          break;
        case OperandKind::kUniformRegister:
          if (write.index < kUniformRegisterZero) warp_.uniform[write.index] = write.value;
          break;
        case OperandKind::kPredicate:
          if (write.index < kPredicateTrue) warp_.predicates[write.index * kWarpSize + lane] = write.value;
          break;
        case OperandKind::kUniformPredicate:
          if (write.index < kPredicateTrue) warp_.uniform_predicates[write.index] = write.value;
          break;
        default:
          break;
      }
    }
  }

  // A lane's guard. Predicates that hold in every block of a group (BlockConditions) carry no
  // dependence; one that does makes every block evaluated.
  Value Guard(const Instruction& in, int lane) {
    if (in.guard == kPredicateTrue) return Known(in.guard_negated ? 0 : 1);
    Value value =
        in.guard_uniform ? warp_.uniform_predicates[in.guard] : warp_.predicates[in.guard * kWarpSize + lane];
    if (value.known() && in.guard_negated) value.bits ^= 1u;
    if (value.block.any()) not_affine_ = true;
    return value;
  }

  static int FirstLane(uint32_t mask) { return __builtin_ctz(mask); }

  void Release() {
    for (int b = 0; b <= 16; ++b) {
      uint32_t waiters = 0;
      for (int lane = 0; lane < kWarpSize; ++lane)
        if ((warp_.waiting >> lane & 1u) && warp_.waits_on[lane] == b) waiters |= 1u << lane;
      if (waiters == 0) continue;
      const uint32_t required =
          (b == 16 ? warp_.barrier[16] : warp_.barrier[b]) & warp_.present & ~warp_.exited;
      if ((required & ~waiters) != 0) continue;
      warp_.waiting &= ~waiters;
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (waiters >> lane & 1u) {
          ++warp_.pc[lane];
          warp_.waits_on[lane] = -1;
        }
    }
  }

  void RunWarp() {
    const size_t size = kernel_.code.size();
    while (true) {
      const uint32_t runnable = warp_.present & ~warp_.exited & ~warp_.waiting;
      if (runnable == 0) {
        if (warp_.waiting == 0) return;
        const uint32_t before = warp_.waiting;
        Release();
        if (warp_.waiting == before) {
          const Instruction& at = kernel_.code.at(warp_.pc[FirstLane(warp_.waiting)]);
          Stop(at, "lanes wait at " + Located(at) + " for lanes that never arrive");
        }
        continue;
      }
      uint32_t index = UINT32_MAX;
      for (int lane = 0; lane < kWarpSize; ++lane)
        if (runnable >> lane & 1u) index = std::min(index, warp_.pc[lane]);
      uint32_t mask = 0;
      for (int lane = 0; lane < kWarpSize; ++lane)
        if ((runnable >> lane & 1u) && warp_.pc[lane] == index) mask |= 1u << lane;
      if (index >= size) {
        Stop(kernel_.code.back(), "the code runs past the kernel's last instruction");
      }
      if (!meter_.SpendInstructions(1)) Stop(kernel_.code[index], meter_.WhyInstructions());
      Execute(index, mask);
    }
  }

  void Advance(uint32_t mask) {
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (mask >> lane & 1u) ++warp_.pc[lane];
  }

  // The lanes of `mask` whose guard is true; Stop when a guard is unknown (`what` says why it matters).
  uint32_t Decide(const Instruction& in, uint32_t mask, const std::string& what) {
    uint32_t taken = 0;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!(mask >> lane & 1u)) continue;
      const Value guard = Guard(in, lane);
      if (!guard.known()) StopOnUnknown(in, guard, what);
      if (guard.bits) taken |= 1u << lane;
    }
    return taken;
  }

  void Execute(uint32_t index, uint32_t mask) {
    const Instruction& in = kernel_.code[index];
    executing_ = &in;
    try {
      ExecuteOperands(in, index, mask);
    } catch (const std::out_of_range&) {
      // An operand the instruction's form needs is missing (ops.at): a listing the emulator cannot read.
      Stop(in, in.opcode + " has fewer operands than the emulator reads for it (" + Located(in) + ")");
    }
  }

  void ExecuteOperands(const Instruction& in, uint32_t index, uint32_t mask) {
    if (!in.unreadable.empty()) Stop(in, in.unreadable);
    if (in.info == nullptr)
      Stop(in, in.opcode +
                   " is an instruction the emulator does not understand (docs/emulate.md lists those it "
                   "does)");
    switch (in.info->semantics) {
      case Semantics::kLaterStage:
        if (Decide(in, mask, "whether it runs") != 0)
          Stop(in, in.base + " (stage " + std::to_string(in.info->stage) +
                       " of docs/emulate.md) is not emulated yet");
        Advance(mask);
        return;
      case Semantics::kNop:
        Advance(mask);
        return;
      case Semantics::kBarrier:
        if (!(in.Has("SYNC") || in.Has("ARV")) || in.Has("RED"))
          Stop(in, in.opcode + " is a barrier form the emulator does not understand");
        Advance(mask);
        return;
      case Semantics::kBranch: {
        if (in.target < 0 || (!in.modifiers.empty() && !(in.modifiers.size() == 1 && in.Has("U"))))
          Stop(in, in.opcode + " is a branch the emulator does not follow");
        const uint32_t taken = Decide(in, mask, "the condition");
        for (int lane = 0; lane < kWarpSize; ++lane) {
          if (!(mask >> lane & 1u)) continue;
          warp_.pc[lane] = (taken >> lane & 1u) ? static_cast<uint32_t>(in.target) : index + 1;
        }
        return;
      }
      case Semantics::kExit: {
        const uint32_t leaving = Decide(in, mask, "whether lanes exit");
        warp_.exited |= leaving;
        Advance(mask & ~leaving);
        Release();
        return;
      }
      case Semantics::kSyncStart: {
        if (in.operands.empty() || in.operands[0].kind != OperandKind::kBarrier)
          Stop(in, in.opcode + " names no convergence barrier");
        const uint32_t lanes = Decide(in, mask, "whether it runs");
        if (lanes != 0) warp_.barrier[in.operands[0].index] = lanes;
        Advance(mask);
        return;
      }
      case Semantics::kSyncWait:
      case Semantics::kWarpSync: {
        const uint32_t lanes = Decide(in, mask, "whether it runs");
        int barrier = 16;
        if (in.info->semantics == Semantics::kSyncWait) {
          if (in.operands.empty() || in.operands[0].kind != OperandKind::kBarrier)
            Stop(in, in.opcode + " names no convergence barrier");
          barrier = in.operands[0].index;
        } else {
          uint32_t warp_mask = 0xffffffffu;
          if (!in.Has("ALL")) {
            if (in.operands.empty()) Stop(in, in.opcode + " has no mask");
            const Value value = Read(in.operands[0], FirstLane(mask), index);
            if (!value.known()) StopOnUnknown(in, value, "the mask");
            if (value.block.any()) not_affine_ = true;
            warp_mask = value.bits;
          }
          warp_.barrier[16] = warp_mask;
        }
        Advance(mask & ~lanes);
        for (int lane = 0; lane < kWarpSize; ++lane)
          if (lanes >> lane & 1u) {
            warp_.waiting |= 1u << lane;
            warp_.waits_on[lane] = barrier;
          }
        Release();
        return;
      }
      case Semantics::kSharedLoad:
      case Semantics::kSharedStore:
      case Semantics::kSharedMatrixLoad:
      case Semantics::kSharedMatrixStore:
      case Semantics::kSharedCopy:
      case Semantics::kSharedAtomic: {
        const uint32_t lanes = Decide(in, mask, "whether it runs");
        if (lanes != 0) CostShared(in, index, lanes);
        ComputeLanes(in, index, mask);  // a load's or an atomic's destinations become unknown
        Advance(mask);
        return;
      }
      case Semantics::kVote: {
        Vote(in, mask);
        Advance(mask);
        return;
      }
      case Semantics::kRegisterToUniform: {
        Value agreed;
        bool first = true;
        for (int lane = 0; lane < kWarpSize; ++lane) {
          if (!(mask >> lane & 1u)) continue;
          const Value guard = Guard(in, lane);
          if (guard.known() && !guard.bits) continue;
          Value value = Read(in.operands.at(1), lane, index);
          if (!guard.known()) value = Unknown(guard.origin);
          if (first)
            agreed = value;
          else if (value.known() && agreed.known() && value.bits != agreed.bits)
            agreed = Unknown(Origin(index));
          else if (!(value.known() && agreed.known() && value.block == agreed.block))
            agreed = From(agreed.bits, agreed, value);
          first = false;
        }
        if (!first) Apply({{in.operands.at(0).kind, in.operands.at(0).index, agreed}}, 0, Known(1));
        Advance(mask);
        return;
      }
      default:
        ComputeLanes(in, index, mask);
        Advance(mask);
        return;
    }
  }

  void ComputeLanes(const Instruction& in, size_t index, uint32_t mask) {
    std::vector<Write>& writes = scratch_;
    if (in.info->uniform) {
      // Uniform instructions run once for the warp, on uniform registers and constants.
      const int lane = FirstLane(mask);
      const Value guard = Guard(in, lane);
      if (guard.known() && !guard.bits) return;
      writes.clear();
      Compute(in, index, lane, writes);
      Apply(writes, lane, guard);
      return;
    }
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!(mask >> lane & 1u)) continue;
      const Value guard = Guard(in, lane);
      if (guard.known() && !guard.bits) continue;
      writes.clear();
      Compute(in, index, lane, writes);
      Apply(writes, lane, guard);
    }
  }

  void Vote(const Instruction& in, uint32_t mask) {
    // VOTE.ANY/ALL/EQ Rd, Pd, Ps: Rd the ballot of Ps over the lanes that run it, Pd the vote.
    const std::vector<Operand>& ops = in.operands;
    uint32_t ballot = 0, voters = 0;
    Value inputs = Known(0);
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!(mask >> lane & 1u)) continue;
      const Value guard = Guard(in, lane);
      inputs = From(0, inputs, guard);
      if (guard.known() && !guard.bits) continue;
      const Value p = ReadPredicate(ops.at(2), lane);
      inputs = From(0, inputs, p);
      voters |= 1u << lane;
      if (p.bits) ballot |= 1u << lane;
    }
    bool vote = false;
    if (in.Has("ANY"))
      vote = ballot != 0;
    else if (in.Has("ALL"))
      vote = ballot == voters;
    else if (in.Has("EQ"))
      vote = ballot == 0 || ballot == voters;
    else
      Stop(in, in.opcode + " is a vote the emulator does not understand");
    const Value register_value = From(ballot, inputs), predicate_value = From(vote ? 1u : 0u, inputs);
    if (in.info->uniform) {
      Apply({{ops.at(0).kind, ops.at(0).index, register_value},
             {ops.at(1).kind, ops.at(1).index, predicate_value}},
            0, Known(1));
      return;
    }
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (voters >> lane & 1u)
        Apply({{ops.at(0).kind, ops.at(0).index, register_value},
               {ops.at(1).kind, ops.at(1).index, predicate_value}},
              lane, Known(1));
  }

  // LDSM/STSM .x1, .x2, .x4: the matrices, each 8 rows whose addresses lanes 8m..8m+7 give.
  static int MatrixCount(const Instruction& in) { return in.Has("4") ? 4 : in.Has("2") ? 2 : 1; }

  static uint32_t AccessBytes(const Instruction& in) {
    if (in.info->semantics == Semantics::kSharedMatrixLoad ||
        in.info->semantics == Semantics::kSharedMatrixStore)
      return kMatrixRowBytes;
    if (in.Has("U8") || in.Has("S8")) return 1;
    if (in.Has("U16") || in.Has("S16")) return 2;
    if (in.Has("64")) return 8;
    if (in.Has("128")) return 16;
    return 4;
  }

  void CostShared(const Instruction& in, size_t index, uint32_t lanes) {
    const SharedKind kind = KindOf(in);
    const Operand* address = nullptr;
    for (const Operand& operand : in.operands)
      if (operand.kind == OperandKind::kMemory) address = &operand;
    if (address == nullptr) Stop(in, in.opcode + " has no address operand");
    if (kind == SharedKind::kLdmatrix || kind == SharedKind::kStmatrix) {
      // Every lane runs ldmatrix/stmatrix (.sync.aligned); the first 8 per matrix give the rows.
      const int rows = 8 * MatrixCount(in);
      const uint32_t row_lanes = rows == kWarpSize ? 0xffffffffu : (1u << rows) - 1;
      if ((row_lanes & ~lanes) != 0) Stop(in, Located(in) + " runs with lanes that give its rows off");
      lanes = row_lanes;
    }
    WarpCopy instruction;
    if (kind == SharedKind::kCpAsync) ReadSources(in, lanes, instruction.sources);
    WarpAccess& access = instruction.destination;
    access.bytes = AccessBytes(in);
    std::vector<std::array<uint32_t, 3>> steps;  // of lanes whose address depends on the block
    bool some_lane_still = false;                // a lane whose address is the same in every block
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!(lanes >> lane & 1u)) continue;
      Value sum = Known(static_cast<uint32_t>(address->offset));
      if (address->base >= 0 && address->base != kRegisterZero) {
        const Value base = warp_.registers[address->base * kWarpSize + lane];
        sum = Affine(sum.bits + base.bits, Plus(sum.block, base.block), sum, base);
      }
      if (address->uniform_base >= 0 && address->uniform_base != kUniformRegisterZero) {
        const Value base = warp_.uniform[address->uniform_base];
        sum = Affine(sum.bits + base.bits, Plus(sum.block, base.block), sum, base);
      }
      if (!sum.known()) StopOnUnknown(in, sum, "the address");
      if (sum.block.other) not_affine_ = true;
      // Only block-dependent addresses are collected: most accesses allocate nothing here.
      if (!sum.block.any())
        some_lane_still = true;
      else if (std::find(steps.begin(), steps.end(), sum.block.step) == steps.end())
        steps.push_back(sum.block.step);
      access.SetLane(lane, sum.bits);
    }
    if (!steps.empty()) {
      // A lane whose address is the same in every block has step 0: the others must then stay too.
      if (some_lane_still && std::find(steps.begin(), steps.end(), std::array<uint32_t, 3>{}) == steps.end())
        steps.push_back({});
      if (RoomForConditions()) conditions_.address_steps.push_back(std::move(steps));
    }
    WarpCost cost;
    try {
      // Before the cost: a misaligned lane faults (ValidateWarpAccess), which says more.
      if (const std::optional<std::string> why = UnmeasuredWideAccess(kind, access)) {
        ValidateWarpAccess(access);
        Stop(in, "the access of " + Located(in) + ": " + *why);
      }
      cost = CostInstruction(kind, instruction);
    } catch (const Error& error) {
      Stop(in, std::string("the access of ") + Located(in) + " faults on the GPU: " + error.what());
    }
    Row& row = rows_[index];
    ++row.executions;
    row.wavefronts += cost.wavefronts;
    row.ideal += cost.ideal;
  }

  // A cp.async's global source per lane: its 64-bit register pair plus the offset. The 16-byte
  // copy's cost depends on it (IsRowCopy); a source that depends on the block makes every block
  // evaluated (its 64-bit arithmetic is not followed).
  void ReadSources(const Instruction& in, uint32_t lanes, std::array<uint64_t, kWarpSize>& sources) {
    const Operand* global = nullptr;
    for (const Operand& operand : in.operands)
      if (operand.kind == OperandKind::kGlobalMemory) global = &operand;
    if (global == nullptr || in.operands.size() != 2 || in.Has("ZFILL"))
      Stop(in, in.opcode + " is a cp.async form the emulator does not understand");
    const size_t index = static_cast<size_t>(&in - kernel_.code.data());
    for (int lane = 0; lane < kWarpSize; ++lane) {
      if (!(lanes >> lane & 1u)) continue;
      uint64_t base = 0;
      Value value = Known(0);
      if (global->base >= 0 && global->base != kRegisterZero) {
        Operand pair;
        pair.kind = OperandKind::kRegister;
        pair.index = global->base;
        value = ReadPair(pair, lane, index, &base);
      }
      if (!value.known()) StopOnUnknown(in, value, "the global source address");
      if (value.block.any()) not_affine_ = true;
      sources[lane] = base + static_cast<uint64_t>(global->offset);
    }
  }

  void RunBlock(const Dim3& ctaid) {
    ctaid_ = ctaid;
    const uint32_t threads = launch_.block.x * launch_.block.y * launch_.block.z;
    const uint32_t warps = (threads + kWarpSize - 1) / kWarpSize;
    for (uint32_t w = 0; w < warps; ++w) {
      warp_index_ = w;
      const uint32_t lanes = std::min<uint32_t>(kWarpSize, threads - w * kWarpSize);
      warp_.Reset(lanes == 32 ? 0xffffffffu : (1u << lanes) - 1, kernel_.registers);
      RunWarp();
    }
  }

  const Kernel& kernel_;
  const LaunchToEmulate& launch_;
  const EmulationLimits& limits_;
  WarpState warp_;
  Dim3 ctaid_;
  uint32_t warp_index_ = 0;
  Meter meter_;
  uint64_t evaluated_blocks_ = 0;
  // Set when a guard, branch, mask or shared address depends on the block in a way BlockConditions
  // cannot follow: then every block is evaluated.
  bool not_affine_ = false;
  const Instruction* executing_ = nullptr;  // for the reasons of operand reads
  BlockConditions conditions_;              // of the block being evaluated
  std::map<size_t, Row> rows_;              // of the block being evaluated
  std::vector<Write> scratch_;
  const bool kernel_writes_global_;  // so only its read-only loads read known memory (global_memory.h)
};

}  // namespace

std::string Undecided::Describe() const {
  const std::string where = file + ":" + std::to_string(line);
  // A reason that names the instruction's line already (Located) is not followed by it again.
  if (file.empty() || reason.find(where) != std::string::npos) return reason;
  return reason + " (" + where + ")";
}

void SetProjectSources(const std::string& project_root, const std::string& build_root) {
  std::lock_guard<std::mutex> lock(Sources().mutex);
  Sources().project_root = project_root;
  Sources().build_root = build_root;
}

Emulation Emulate(const Module& module, const LaunchToEmulate& launch, const EmulationLimits& limits) {
  const auto found = module.data().kernels.find(launch.mangled);
  if (found == module.data().kernels.end())
    throw Error(ErrorKind::kBadInput,
                "the module has no kernel " + launch.mangled +
                    ": emulate a launch with the module its kernel was registered from");
  const Kernel& kernel = found->second;
  if (const std::optional<std::string> invalid = InvalidConfiguration(launch.grid, launch.block))
    throw Error(ErrorKind::kBadInput, *invalid + ": the GPU refuses such a launch, nothing to emulate");
  if (kernel.code.empty())
    throw Error(ErrorKind::kBadInput, "the kernel " + launch.mangled + " has no instructions in the module");

  Emulation emulation;
  std::map<size_t, Row> rows;
  Evaluator evaluator(kernel, launch, limits);
  try {
    rows = evaluator.Run();
    emulation.evaluated_blocks = evaluator.evaluated_blocks();
  } catch (const Undecidable& undecidable) {
    emulation.undecided = undecidable.undecided;
    emulation.evaluated_blocks = evaluator.evaluated_blocks();
    return emulation;
  }

  LaunchRecord record;
  record.kernel = Demangle(launch.mangled);
  record.mangled_kernel = launch.mangled;
  record.grid = launch.grid;
  record.block = launch.block;
  record.dynamic_shared_bytes = launch.dynamic_shared_bytes;
  std::string project_root = AbsolutePathFromEnvironment("BANKCHECK_SOURCE_ROOT"), build_root;
  {
    std::lock_guard<std::mutex> lock(Sources().mutex);
    if (project_root.empty()) project_root = Sources().project_root;
    build_root = Sources().build_root;
  }
  PerKind<SharedCounts> sums;
  for (const auto& [index, row] : rows) {
    const Instruction& instruction = kernel.code[index];
    InstructionCounts counts;
    counts.pc_offset = instruction.pc;
    counts.opcode = instruction.opcode;
    counts.kind = KindOf(instruction);
    counts.executions = row.executions;
    counts.wavefronts = row.wavefronts;
    counts.ideal_wavefronts = row.ideal;
    if (!instruction.inline_chain.empty())
      AttributeToChain(counts, instruction.inline_chain, project_root, build_root);
    SharedCounts& sum = sums[counts.kind];
    sum += SharedCounts{row.executions, row.wavefronts, row.ideal, Provenance::kExact};
    record.instructions.push_back(std::move(counts));
  }
  SortByExcess(record.instructions);
  record.attributed_launches = 1;
  SetSassCounts(sums, PerKind<bool>{}, record);
  record.counted_by = CountedBy::kEmulated;
  emulation.record = std::move(record);
  return emulation;
}

}  // namespace bankcheck::emulate
