#pragma once
// The evaluator of one launch (docs/design/emulate.md): the grid's blocks grouped or evaluated
// (block_groups.h), each block's warps run through the kernel's SASS (warp.cc), each instruction by
// its handler family (semantics_*.cc) on the warp's lanes, every executed shared-memory instruction
// costed by the core's bank model (shared_cost.cc). Throws Undecidable (diagnostics.h).

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankcheck/emulate/emulator.h"
#include "emulate/internal/block_groups.h"
#include "emulate/internal/diagnostics.h"
#include "emulate/internal/global_memory.h"
#include "emulate/internal/limits.h"
#include "emulate/internal/memory_model.h"
#include "emulate/internal/sass.h"
#include "emulate/internal/value.h"
#include "emulate/internal/warp.h"

namespace bankcheck::emulate::internal {

// The kernel of `module` that `launch` runs: Error(kBadInput) when there is none, it has no code, or
// the GPU refuses the launch's shape (emulate.cc).
const Kernel& KernelToEmulate(const Module& module, const LaunchToEmulate& launch);

class LaunchEvaluator;

// FSETP's and DSETP's test of x and y (semantics_fp32.cc): an ordered test is false when x or y is
// NaN, an unordered one (LTU ... NEU) true; NAN and NUM test only that. nullopt: the instruction
// names no test.
std::optional<bool> FloatTest(const Instruction& in, double x, double y);
// A test combined with predicate c as the instruction's .AND, .OR or .XOR says.
bool CombinePredicate(const Instruction& in, bool test, const Value& c);
// REDUX's value (semantics_predicate.cc): the reduction of values[l] over the lanes l of `lanes`
// (not empty) as redux.sync defines it (PTX ISA): .SUM modulo 2^32, .MIN and .MAX signed with .S32
// and unsigned without, .OR, .XOR, and AND (no modifier). nullopt for any other form.
std::optional<uint32_t> WarpReduce(const Instruction& in, const uint32_t* values, uint32_t lanes);
// MATCH.ANY's value in `lane` (semantics_predicate.cc): the lanes l of `lanes` whose values[l]
// equals values[lane], as match.any.sync defines it (PTX ISA).
uint32_t MatchAny(const uint64_t* values, uint32_t lanes, int lane);
// FRND's value (semantics_round.cc): a binary32 or binary64 rounded to an integral value of its
// format as IEEE roundToIntegral does, in the direction `rounding` names (to nearest even, toward
// zero, down, up): ±0, ±inf and integral values unchanged, a NaN quieted (its sign and payload
// kept). Under `ftz` a subnormal is first the zero of its sign.
uint32_t RoundToIntegral32(uint32_t bits, Rounding rounding, bool ftz);
uint64_t RoundToIntegral64(uint64_t bits, Rounding rounding);
// FFMA's value in any of the four rounding directions (semantics_fp32.cc): fma(a, b, c) of binary32
// bits, the exact a * b + c rounded once as `rounding` says, done by hand (RoundExact), never through
// the host's rounding mode; subnormals kept, an overflow an infinity only where the direction goes
// that way (toward zero, or down for a positive value, it is the largest finite value), every NaN
// result 0x7fffffff (a NaN operand, inf * 0, inf - inf). An exact zero is -0 where both terms are -0,
// or where the direction is down and they are not both +0 (IEEE 754). FADD a, b is fma(a, 1, b).
uint32_t FusedMultiplyAdd32(uint32_t a, uint32_t b, uint32_t c, Rounding rounding);
// .SAT (semantics_fp32.cc): a binary32 result clamped to [+0, 1], a NaN and -0 giving +0 (the
// vectors of form_fadd_sat and form_ffma_sat).
uint32_t Saturated32(uint32_t bits);
// The exact value sum + error (sum the double nearest it, error the exact rest: TwoSum's pair, sum not
// zero) rounded as `rounding` says to a binary format of 8 exponent bits and `fraction_bits` stored
// fraction bits (23: binary32, 7: bfloat16), its bits returned (the sign at bit 8 + fraction_bits):
// subnormals kept, an overflow an infinity or the largest finite value as the direction says
// (semantics_fp32.cc).
uint32_t RoundExact(double sum, double error, int fraction_bits, Rounding rounding);
// HFMA2.BF16_V2's value on one bfloat16 of each pair (semantics_float.cc): fma(a, b, c) rounded once to
// nearest even, subnormals kept (as fma.rn.bf16x2 defines it). nullopt where no GPU vector shows the
// result: an operand NaN or infinite, or a zero result, exact or rounded (form_hfma2_bf16's vectors
// have none of them).
std::optional<uint16_t> Bf16Fma(uint16_t a, uint16_t b, uint16_t c);
// F2I.S64's value (semantics_float.cc): a binary32 rounded to an integer as `rounding` says, saturated
// to the 64-bit signed range; a NaN gives 0x8000000000000000 (form_f2i_s64_trunc's vectors).
uint64_t FloatToInt64(uint32_t bits, Rounding rounding);
// I2F's value (semantics_float.cc): an integer of magnitude `magnitude` (up to 2^63, and its sign)
// as a binary32 rounded as `rounding` says, by hand.
uint32_t IntToFloat(uint64_t magnitude, bool negative, Rounding rounding);
// P2R's value (semantics_predicate.cc): `predicates` (bit i: P<i>) where `mask` has a bit, `a` elsewhere.
constexpr uint32_t PackPredicates(uint32_t predicates, uint32_t a, uint32_t mask) {
  return (predicates & mask) | (a & ~mask);
}

// A lane's address, as LaunchEvaluator::ReadAddress (the one reader) reads it.
struct LaneAddress {
  uint64_t bits = 0;  // AddressForm::kOffset: 32 bits
  // Known, or the first unknown part (with its origin). Its dependence on the block is the address's;
  // a wide address's is its low word's (modulo 2^32 it moves as the whole address does).
  Value value;
  bool block_dependent = false;  // any register of the address depends on the block
};
// The record of a launch whose blocks `evaluator` ran, from its counts by instruction (emulate.cc):
// what a SASS-metrics record of the launch holds, each row in the kind it was counted in.
LaunchRecord CountedRecord(const Kernel& kernel, const LaunchToEmulate& launch, const Rows& rows,
                           const LaunchEvaluator& evaluator);

class LaunchEvaluator {
 public:
  // `memory`: what memory instructions do beyond their costs (memory_model.h): CountingMemory for
  // Emulate, ValuesMemory (output_pass.h) for ComputeOutputs.
  LaunchEvaluator(const Kernel& kernel, const LaunchToEmulate& launch, const EmulationLimits& limits,
                  MemoryModel& memory)
      : kernel_(kernel),
        launch_(launch),
        limits_(limits),
        meter_(limits),
        kernel_writes_global_(launch.memory != nullptr && MayWriteGlobal(kernel)),
        memory_(memory) {}

  // Every block's counts by instruction index, the grid run as the memory model runs it.
  Rows Run() { return memory_.RunGrid(*this); }
  uint64_t warp_instructions() const { return meter_.instructions_spent(); }
  // Whether the launch spent more warp instructions than its limits allow.
  bool over_instruction_limit() const { return meter_.instructions_spent() > meter_.instructions_allowed(); }
  // Why the output pass stops at its limit, `estimate` warp instructions being the launch's cost.
  std::string OverOutputLimit(uint64_t estimate) const;
  uint64_t evaluated_blocks() const { return evaluated_blocks_; }
  // The global or local kinds this launch could not count (sector_cost.cc), and why.
  const PerKind<bool>& sectors_not_counted() const { return sectors_not_counted_; }
  const std::vector<std::string>& sector_notes() const { return sector_notes_; }

 private:
  // The memory models run blocks and warps and read and write lanes' registers (memory_model.h).
  friend class CountingMemory;
  friend class ValuesMemory;

  // ---- a block (evaluator.cc) ----
  EvaluatedBlock RunBlock(const Dim3& ctaid);
  // Whether another block condition may be kept (false: every block is evaluated from now on).
  bool RoomForConditions();
  // a `test` b, recorded as a condition of the block's group when a or b depends on the block:
  // the outcome is then the same in every block of the group. nullopt when that dependence cannot
  // be followed (the caller's result is then block-dependent, not affine).
  std::optional<bool> CompareInGroup(Test test, bool is_unsigned, const Value& a, const Value& b);

  // ---- operands (operands.cc) ----
  Value ReadConstant(size_t index, uint32_t bank, uint64_t offset, uint32_t bytes) const;
  // Inline (below): called for every operand of every lane, a call would return the value through
  // memory, and the caller's wider read of it stalls on the narrower writes.
  [[gnu::always_inline]] Value ReadRaw(const Operand& operand, int lane, size_t index) const;
  // An integer source: negation (two's complement), inversion and absolute value applied.
  [[gnu::always_inline]] Value Read(const Operand& operand, int lane, size_t index) const;
  // Registers d and d+1 as one 64-bit value (low first); immediates as they are.
  [[gnu::always_inline]] Value ReadPair(const Operand& operand, int lane, size_t index, uint64_t* bits) const;
  [[gnu::always_inline]] Value ReadRegisterPair(OperandKind kind, int first, int lane, size_t index,
                                                uint64_t* bits) const;
  Value ReadPredicate(const Operand& operand, int lane) const;
  // A float source: |x| and -x applied to the sign bit (semantics_fp32.cc).
  [[gnu::always_inline]] Value FloatSource(const Operand& operand, int lane, size_t index) const;
  [[noreturn]] void StopOnUnknown(const Instruction& at, const Value& value, const std::string& what) const;

  // The one reader of a lane's address (MemoryOp's AddressForm): kOffset the offset plus its register
  // and uniform register (32 bits), affine in the block as they are; kWide a 64-bit register pair plus
  // the offset.
  [[gnu::always_inline]] LaneAddress ReadAddress(const Operand& address, AddressForm form, int lane) const;

  // ---- the warp (warp.cc) ----
  void RunWarp();
  void Release();
  void Advance(uint32_t mask);
  // The lanes of `mask` whose guard is true; Stop when a guard is unknown (`what` says why it matters).
  uint32_t Decide(const Instruction& in, uint32_t mask, std::string_view what);
  void Execute(uint32_t index, uint32_t mask);
  void Dispatch(const Instruction& in, uint32_t index, uint32_t mask);
  Value Guard(const Instruction& in, int lane);
  // Runs `compute(lane, writes)` for each lane of `mask` whose guard may hold (once for a uniform
  // instruction), its writes made under the guard.
  template <typename Compute>
  void ForEachLane(const Instruction& in, uint32_t mask, Compute&& compute);
  // The guard a lane's writes are made under: an unknown one from the instruction of an unchecked
  // form (unchecked_origin_), so that every value it writes is unknown with it as the origin.
  Value WriteGuard(const Value& guard) const {
    return unchecked_origin_ != 0 ? Unknown(unchecked_origin_) : guard;
  }

  // ---- instruction semantics, one function per handler family, on the warp's lanes of `mask` ----
  void Integer(const Instruction& in, size_t index, uint32_t mask);  // semantics_integer.cc
  void MultiplyAdd(const Instruction& in, size_t index, int lane, Writes& out);
  void AddThree(const Instruction& in, size_t index, int lane, Writes& out);
  void ShiftAdd(const Instruction& in, size_t index, int lane, Writes& out);
  void FunnelShift(const Instruction& in, size_t index, int lane, Writes& out);
  void LogicOp3(const Instruction& in, size_t index, int lane, Writes& out);
  void MaskExtendOrAddMinMax(const Instruction& in, size_t index, int lane, Writes& out);
  void MinMaxOfThree(const Instruction& in, size_t index, int lane, Writes& out);
  void NarrowOrDotProduct(const Instruction& in, size_t index, int lane, Writes& out);
  void FloatAndConversion(const Instruction& in, size_t index, uint32_t mask);  // semantics_float.cc
  void HalfArithmetic(const Instruction& in, size_t index, int lane, Writes& out) const;
  void HalfToFloat(const Instruction& in, size_t index, int lane, Writes& out) const;
  void Bf16Arithmetic(const Instruction& in, size_t index, int lane, Writes& out) const;
  void FloatToByte(const Instruction& in, size_t index, int lane, Writes& out) const;
  void IntegerToFloat(const Instruction& in, size_t index, int lane, Writes& out) const;
  void FloatToInteger(const Instruction& in, size_t index, int lane, Writes& out) const;
  void SpecialFunction(const Instruction& in, size_t index, int lane, Writes& out) const;
  void FloatArithmetic(const Instruction& in, size_t index, uint32_t mask);  // semantics_fp32.cc
  void FloatCompare(const Instruction& in, size_t index, int lane, Writes& out) const;
  // F2F, F2FP, DADD, DMUL, DFMA, DSETP (semantics_wide.cc).
  void OtherPrecision(const Instruction& in, size_t index, uint32_t mask);
  // A double source (a register pair, |x| and -x applied); nullopt, with `value` unknown, for any
  // other operand.
  std::optional<double> WideSource(const Operand& operand, int lane, size_t index, Value* value) const;
  void RoundToIntegral(const Instruction& in, size_t index, uint32_t mask);    // FRND (semantics_round.cc)
  void Predicates(const Instruction& in, size_t index, uint32_t mask);         // semantics_predicate.cc
  void Isetp(const Instruction& in, size_t index, int lane, Writes& out);      // semantics_predicate.cc
  void WarpMatch(const Instruction& in, size_t index, uint32_t mask);          // semantics_predicate.cc
  void Vote(const Instruction& in, size_t index, uint32_t mask);               // semantics_predicate.cc
  void WarpReduction(const Instruction& in, size_t index, uint32_t mask);      // semantics_predicate.cc
  void Moves(const Instruction& in, size_t index, uint32_t mask);              // semantics_move.cc
  void RegisterToUniform(const Instruction& in, size_t index, uint32_t mask);  // semantics_move.cc
  void Shuffle(const Instruction& in, size_t index, uint32_t mask);            // semantics_move.cc
  void MatrixMultiply(const Instruction& in, size_t index, uint32_t mask);     // HMMA (semantics_mma.cc)
  // P2R, in Predicates (semantics_predicate.cc).
  void PredicatesToRegister(const Instruction& in, size_t index, int lane, Writes& out);
  Value SpecialRegister(const Operand& source, int lane, size_t index) const;  // semantics_move.cc
  void MemoryAccess(const Instruction& in, size_t index, uint32_t mask);       // semantics_memory.cc
  void Control(const Instruction& in, uint32_t index, uint32_t mask);          // semantics_control.cc
  // BRA.DIV Rm, target (semantics_control.cc): falls through where the GPU surely does, else Stop.
  void BranchIfDiverged(const Instruction& in, uint32_t index, uint32_t mask);
  // The branch past a float division's slow path (semantics_control.cc): every lane to the join.
  void SkipDivisionSlowPath(const Instruction& in, uint32_t index, uint32_t mask);
  // CALL.REL.NOINC and RET.REL.NODEC (semantics_control.cc): the lanes enter the callee, and each
  // returns where its return address says; every other form stops before (StopsEmulation).
  void Call(const Instruction& in, uint32_t mask);
  void Return(const Instruction& in, uint32_t index, uint32_t mask);
  // Stops where the lanes of `mask`, at instruction `index`, run in different activations.
  void OneActivation(uint32_t index, uint32_t mask);
  // The lanes of `mask` go two ways, those of `side` one of them: each is no longer together
  // (WarpState::together) with the lanes that went the other way, nor with any lane not at it.
  void Split(uint32_t mask, uint32_t side);
  // UTMALDG, the mbarriers (SYNCS) and ELECT (semantics_async.cc).
  void Asynchronous(const Instruction& in, size_t index, uint32_t mask);
  // A tensor copy's global sectors (global_tma_ld; `store`: global_tma_st) by the core's box rule
  // (TensorBoxSectors, memory_sectors.h) from its stand-in tensor map (internal/tensor_map.h) and
  // coordinates; anything not known leaves the TMA kinds not counted (TensorCopiesNotCounted).
  void CostTensorCopy(const Instruction& in, size_t index, bool store);
  // The bytes of the tensor map at generic `address` into `out` (kTensorMapBytes): the kernel's
  // parameters (a __grid_constant__ map, sm90.h's parameter window) or known global memory the
  // kernel cannot have changed; why they are not known otherwise.
  std::optional<std::string> TensorMapBytes(uint64_t address, uint8_t* out) const;
  void Mbarrier(const Instruction& in, size_t index, uint32_t lanes);
  void Elect(const Instruction& in, size_t index, uint32_t lanes);

  // ---- thread-block clusters (cluster.cc) ----
  // Bank 0's words that describe the launch's clusters; nullopt for any other.
  std::optional<Value> ClusterConstant(uint64_t offset, uint32_t bytes) const;
  // A generic access (LD, ST, ATOM): another block's shared memory counts a distributed shared
  // access; the block's own, or one that cannot be told in a cluster launch, stops the launch.
  void GenericAccess(const Instruction& in, size_t index, uint32_t mask);

  // ---- shared-memory costing (shared_cost.cc) ----
  void CostShared(const Instruction& in, size_t index, uint32_t lanes);
  void ReadSources(const Instruction& in, uint32_t lanes, std::array<uint64_t, kWarpSize>& sources);
  // An HGMMA run by `lanes`, costed by the measured rule (sm90::WgmmaOperandWavefronts); Stop for a
  // form no measurement covers. Returns how many accumulator registers it writes per lane.
  int CostWgmma(const Instruction& in, size_t index, uint32_t lanes);

  // The one place a memory instruction's cost is counted: one execution of instruction `index` in
  // `kind`, its wavefronts (shared) or sectors (global, local) and their ideal (sector_cost.cc).
  void Count(size_t index, MemoryKind kind, uint64_t wavefronts, uint64_t ideal);

  // ---- global and local sectors (sector_cost.cc) ----
  // A global, local or generic access run by the lanes of `mask` whose guards hold: its sectors by
  // the core's rule (memory_sectors.h) where every such lane's address is known, else its memory's
  // kinds not counted for the launch.
  void CostSectors(const Instruction& in, size_t index, uint32_t mask);
  // A cp.async's global reads (global_ldgsts): its active lanes' sources, as the core's copy rule
  // reads them beside the shared side (CopySourceSectors, memory_sectors.h).
  void CostCopySources(const Instruction& in, size_t index, const WarpCopy& copy);
  // Marks the launch's kinds of `space` that are counted per instruction not counted, noting why
  // (the first reason); the TMA kinds, launch totals from the tensor map, have their own reasons.
  void NotCounted(MemorySpace space, const std::string& why);
  void TensorCopiesNotCounted(const std::string& why);

  const Kernel& kernel_;
  const LaunchToEmulate& launch_;
  const EmulationLimits& limits_;
  // The warp running: own_warp_, or one of the output pass's parked warps (ValuesMemory::warps), pointed
  // to rather than swapped in (a WarpState is kilobytes of arrays, and the pass switches warps at
  // every block barrier).
  WarpState own_warp_;
  WarpState* warp_ = &own_warp_;
  Dim3 ctaid_;
  uint32_t warp_index_ = 0;
  Meter meter_;
  uint64_t evaluated_blocks_ = 0;
  // Set when a guard, branch, mask or shared address depends on the block in a way BlockConditions
  // cannot follow: then every block is evaluated.
  bool not_affine_ = false;
  const Instruction* executing_ = nullptr;  // for the reasons of operand reads
  BlockConditions conditions_;              // of the block being evaluated
  Rows rows_;                               // of the block being evaluated
  const bool kernel_writes_global_;         // so only its read-only loads read known memory (global_memory.h)
  // The block's mbarriers by shared address, and the tensor copies (UTMALDG) its warps have run.
  struct MbarrierState {
    uint32_t count = 0, pending = 0, phase = 0;
    bool expects_bytes = false;     // an arrival of this phase expected transaction bytes
    uint64_t copies_at_expect = 0;  // tensor_copies_ then
  };
  std::map<uint32_t, MbarrierState> mbarriers_;
  PerKind<bool> sectors_not_counted_;
  std::vector<std::string> sector_notes_;  // one per memory space (and TMA's kinds), the first reason
  uint64_t tensor_copies_ = 0;
  MemoryModel& memory_;
  // The output pass: the origin (Origin) of the instruction running when its form has no GPU
  // conformance vectors (Instruction::unchecked_form), else 0.
  uint32_t unchecked_origin_ = 0;
};

template <typename Compute>
void LaunchEvaluator::ForEachLane(const Instruction& in, uint32_t mask, Compute&& compute) {
  // Uniform instructions run once for the warp (its lowest lane), on uniform registers and constants.
  if (in.info->uniform()) mask &= 0u - mask;
  if (in.guard == kPredicateTrue) {
    // @PT (most instructions): every lane's guard is the same known one, read once.
    if (in.guard_negated) return;
    const Value guard = WriteGuard(Known(1));
    for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
      const int lane = __builtin_ctz(lanes);
      Writes writes(*warp_, lane, guard);
      compute(lane, writes);
    }
    return;
  }
  for (uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const int lane = __builtin_ctz(lanes);
    const Value guard = Guard(in, lane);
    if (guard.known() && !guard.bits) continue;
    Writes writes(*warp_, lane, WriteGuard(guard));
    compute(lane, writes);
  }
}

inline Value LaunchEvaluator::ReadRaw(const Operand& operand, int lane, size_t index) const {
  switch (operand.kind) {
    case OperandKind::kRegister:
      return operand.index == kRegisterZero ? Known(0) : warp_->registers[operand.index * kWarpSize + lane];
    case OperandKind::kUniformRegister:
      return operand.index == kUniformRegisterZero ? Known(0) : warp_->uniform[operand.index];
    case OperandKind::kImmediate:
      return Known(static_cast<uint32_t>(operand.value));
    case OperandKind::kConstant: {
      uint64_t offset = operand.value;
      Value base = Known(0);
      if (operand.base >= 0) {
        base = operand.base_uniform ? warp_->uniform[operand.base]
                                    : warp_->registers[operand.base * kWarpSize + lane];
        if (!base.known()) return base;
        offset += base.bits;
      }
      Value value = ReadConstant(index, operand.bank, offset, 4);
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

inline Value LaunchEvaluator::Read(const Operand& operand, int lane, size_t index) const {
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

inline Value LaunchEvaluator::FloatSource(const Operand& operand, int lane, size_t index) const {
  Value value = ReadRaw(operand, lane, index);
  if (!value.known()) return value;
  if (operand.absolute) value.bits &= 0x7fffffffu;
  if (operand.negate) value.bits ^= 0x80000000u;
  return value;
}

inline Value LaunchEvaluator::ReadRegisterPair(OperandKind kind, int first, int lane, size_t index,
                                               uint64_t* bits) const {
  (void)index;
  if (first == ZeroRegister(kind)) {
    *bits = 0;
    return Known(0);
  }
  const auto read = [&](int number) {
    if (number == ZeroRegister(kind)) return Known(0);
    return kind == OperandKind::kRegister ? warp_->registers[number * kWarpSize + lane]
                                          : warp_->uniform[number];
  };
  const Value low = read(first), high = read(first + 1);
  *bits = (uint64_t{high.bits} << 32) | low.bits;
  return From(0, low, high);
}

inline LaneAddress LaunchEvaluator::ReadAddress(const Operand& address, AddressForm form, int lane) const {
  LaneAddress read;
  if (form == AddressForm::kWide) {
    const int base = address.base < 0 ? kRegisterZero : address.base;
    const auto part = [&](int number) {
      return number == kRegisterZero ? Known(0) : warp_->registers[number * kWarpSize + lane];
    };
    const Value low = part(base), high = base == kRegisterZero ? Known(0) : part(base + 1);
    read.value = !low.known() ? low : !high.known() ? high : low;
    read.block_dependent = low.block.any() || high.block.any();
    if (read.value.known())
      read.bits = ((uint64_t{high.bits} << 32) | low.bits) + static_cast<uint64_t>(address.offset);
    return read;
  }
  Value sum = Known(static_cast<uint32_t>(address.offset));
  if (address.base >= 0 && address.base != kRegisterZero) {
    const Value base = warp_->registers[address.base * kWarpSize + lane];
    sum = Affine(sum.bits + base.bits, Plus(sum.block, base.block), sum, base);
  }
  if (address.uniform_base >= 0 && address.uniform_base != kUniformRegisterZero) {
    const Value base = warp_->uniform[address.uniform_base];
    sum = Affine(sum.bits + base.bits, Plus(sum.block, base.block), sum, base);
  }
  read.value = sum;
  read.bits = sum.bits;
  read.block_dependent = sum.block.any();
  return read;
}

inline Value LaunchEvaluator::ReadPair(const Operand& operand, int lane, size_t index, uint64_t* bits) const {
  if (operand.kind == OperandKind::kImmediate) {
    *bits = operand.value;
    return Known(0);
  }
  if (!IsRegister(operand)) {
    *bits = 0;
    return Unknown(Origin(index));
  }
  return ReadRegisterPair(operand.kind, operand.index, lane, index, bits);
}

}  // namespace bankcheck::emulate::internal
