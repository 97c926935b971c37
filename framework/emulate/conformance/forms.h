#pragma once
// The instruction forms checked against the GPU (docs/emulate.md, "Checked against the GPU"): one
// kernel per sm_90 SASS form, written so that nvcc emits that form. Thread t of a launch of one block
// of kThreads threads reads in[3t..3t+2] and writes out[4t..4t+3]; what it computes is the kernel's
// (forms.cu). Plain C++ declarations: the recorder (real cudart) and the replay test (the stand-in
// runtime) both include it.

#include <cstddef>
#include <cstdint>

namespace bankcheck::conformance {

constexpr uint32_t kThreads = 256;
constexpr uint32_t kInputs = 3;   // words read per thread
constexpr uint32_t kOutputs = 4;  // words written per thread

// What a form's inputs are drawn from (the recorder's generator).
enum class Inputs : uint8_t {
  kFloat,    // floats: edges (±0, ±inf, NaN payloads, denormals, FLT_MAX, ...) and random bits
  kInt,      // integers: edges (0, ±1, INT_MIN, INT_MAX, ...) and random bits
  kShift,    // a, c integers; b a shift count (0 to 70, and random)
  kLane,     // a random; b a lane or delta (0 to 40); c random
  kDivisor,  // a random; b a divisor (0, 1, powers of two, random)
  kNone,     // ignored (constants)
  kZeros,    // floats: every pair of ±0, ±denormal, ±1, NaN and ±inf first, then as kFloat
  kHalf,     // half pairs: edges (±0, ±inf, NaN payloads, denormals, 65504, ...) in either half, random
  kDouble,   // a, b: a double's high word (edges, then near 1); c: the low words (0 or edges, random)
  kWarpInt,  // a, c integers as kInt; b 0 to 40 as kLane (the warp reductions' partial member masks)
  kRange,    // floats of every exponent: the float edges, denormals, then random bits (MUFU's inputs)
  // Floats to round to integral values: edges (±0, ±inf, NaN payloads, denormals, halves and their
  // neighbours, around 2^23), values near integers (halfway, integral, other), random bits.
  kRound,
  // As kRound, of doubles: x = {lo c, hi a} (edges around 2^52, near integers, random), y = {lo c, hi b}.
  kDoubleRound,
  // Tensor-core tiles (mma_inputs.cc): the launch's 768 words are two A tiles, two B tiles and three
  // C tiles of fragments (forms.cu's MmaTiles), of f16, bf16 or tf32 elements with f32 C tiles, or
  // f16 elements and f16 C tiles: edges, cancellations, alignment shifts, subnormals, NaN and inf.
  kMmaF16,
  kMmaBf16,
  kMmaTf32,
  kMmaF16Accumulator,
};

// Whether a form's inputs are tensor-core tiles that the whole launch reads (mma_inputs.cc).
constexpr bool IsMma(Inputs inputs) {
  return inputs == Inputs::kMmaF16 || inputs == Inputs::kMmaBf16 || inputs == Inputs::kMmaTf32 ||
         inputs == Inputs::kMmaF16Accumulator;
}
// Whether a form's lanes compute together (shuffles, votes, reductions, lane masks: kLane and
// kWarpInt; tensor-core tiles): its vectors replay only as the whole launch, never a thread alone.
constexpr bool ReadsTheWarp(Inputs inputs) {
  return inputs == Inputs::kLane || inputs == Inputs::kWarpInt || IsMma(inputs);
}

struct Form {
  const char* name;    // the kernel's (extern "C") name
  const char* opcode;  // the SASS form it claims: an instruction of the kernel has exactly this opcode
  Inputs inputs;
  uint32_t outputs;  // the words of out[4t..4t+3] it computes (from the first); the others stay 0
};

// Every form, in the order the vectors file lists them.
const Form* Forms(size_t* count);
// Launches form `index`'s kernel: one block of `threads` (at most kThreads) threads on device
// pointers in and out (threads * kInputs and threads * kOutputs words). Returns the launch's error.
int LaunchForm(size_t index, const uint32_t* in, uint32_t* out, uint32_t threads = kThreads);
// The host stub of form `index`'s kernel (to find its SASS through the runtime that registered it).
const void* FormStub(size_t index);

}  // namespace bankcheck::conformance
