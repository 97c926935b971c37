// The recorder of the instruction conformance vectors (docs/emulate.md, "Checked against the GPU"):
// built with the real CUDA runtime, run on an sm_90 GPU. Every form of forms.h runs once on inputs
// drawn for it (edges first, then random bits, from a fixed seed), and its inputs and outputs are
// written, as bits, with the device, driver and runtime that computed them:
//
//   bankcheck_conformance_record <vectors file>
//
// The file (text; '#' lines are comments):
//   device <name> | driver <version> | runtime <version> | sm <major>.<minor>   (one line each)
//   form <kernel> <opcode> <outputs> <vectors>
//   <in0> <in1> <in2> <out0> ... <out[outputs-1]>     (one line per thread, 8 hex digits each)
// A form's words of out past `outputs` were 0 on the GPU: the recorder leaves out a form that wrote
// one (and every form from one whose launch failed), says so and exits 1.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "emulate/conformance/forms.h"
#include "emulate/conformance/mma_inputs.h"
#include "emulate/conformance/random.h"

namespace bankcheck::conformance {
namespace {

constexpr uint32_t kFloatEdges[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fc12345,
    0xffc00001, 0x7f800001, 0xff812345, 0x00000001, 0x007fffff, 0x80000001, 0x807fffff, 0x00800000,
    0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800001, 0x3f000000, 0x40200000, 0x40600000, 0xc0200000,
    0x3effffff, 0x4b800000, 0x4f000000, 0xcf000000, 0x4f800000, 0xcf000001, 0x4effffff, 0x34000000};
constexpr uint32_t kIntEdges[] = {0,          1,          2,          0xffffffff, 0xfffffffe, 0x80000000,
                                  0x7fffffff, 0x80000001, 0x0000ffff, 0x00010000, 0x00007fff, 0x00008000,
                                  0xaaaaaaaa, 0x55555555, 31,         32,         33,         63,
                                  64,         0xffff0000, 0x01000000, 0x00ffffff, 0x01000001, 0x7fffff80};
// ±0, ±denormal, ±1, a NaN and +inf: every ordered pair of them (kZeros).
constexpr uint32_t kZeroEdges[] = {0x00000000, 0x80000000, 0x00000001, 0x80000001,
                                   0x3f800000, 0xbf800000, 0x7fc00000, 0x7f800000};
constexpr uint16_t kHalfEdges[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7e01,
                                   0xfe00, 0x7c01, 0x0001, 0x03ff, 0x8001, 0x0400, 0x7bff, 0xfbff,
                                   0x3c01, 0x3800, 0x4100, 0xc100, 0x3bff, 0x5bff, 0x1000, 0x0200};
// Doubles' high words: ±0, ±1, ±inf, NaNs, denormals, the smallest and largest normals, 2^52, 2^31.
constexpr uint32_t kDoubleEdges[] = {0x00000000, 0x80000000, 0x3ff00000, 0xbff00000, 0x7ff00000, 0xfff00000,
                                     0x7ff80000, 0x7ff40000, 0xfff80001, 0x00000001, 0x000fffff, 0x80000001,
                                     0x00100000, 0x80100000, 0x7fefffff, 0xffefffff, 0x3ff00001, 0x3fe00000,
                                     0x40000000, 0x43300000, 0x41e00000, 0xc1e00000, 0x3ca00000, 0x3fefffff};
constexpr uint32_t kLowEdges[] = {0, 1, 0xffffffff, 0x80000000};
// Floats to round (kRound): ±0, ±inf, NaN payloads, subnormals, the smallest normals, ±0.5 ±1.5 ±2.5
// ±3.5 4.5 and their neighbours, ±0.25 ±0.75, around 1, 2^22 and 2^23 (8388607.5, the largest with a
// fraction), 2^24, 2^31, FLT_MAX.
constexpr uint32_t kRoundEdges[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fc12345, 0xffc00001, 0x7f800001,
    0xff812345, 0x00000001, 0x007fffff, 0x80000001, 0x807fffff, 0x00800000, 0x80800000, 0x3f000000,
    0xbf000000, 0x3fc00000, 0xbfc00000, 0x40200000, 0xc0200000, 0x40600000, 0xc0600000, 0x40900000,
    0x3effffff, 0x3f000001, 0xbeffffff, 0xbf000001, 0x3f800000, 0xbf800000, 0x3f7fffff, 0xbf7fffff,
    0x3f800001, 0xbf800001, 0x3e800000, 0xbe800000, 0x3f400000, 0xbf400000, 0x401fffff, 0x40200001,
    0x4affffff, 0xcaffffff, 0x4afffffe, 0x4b000000, 0xcb000000, 0x4b000001, 0x4b800000, 0x4effffff,
    0x7f7fffff, 0xff7fffff, 0x4a7fffff, 0xca7ffffd};
// Doubles to round (kDoubleRound), as kRoundEdges: 2^52 - 0.5 the largest with a fraction, and
// 2^31 - 1 and 2^31 - 0.5.
constexpr uint64_t kDoubleRoundEdges[] = {
    0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
    0x7ff8000000012345, 0xfff4000000000001, 0x7ff0000000000001, 0x0000000000000001, 0x800fffffffffffff,
    0x0010000000000000, 0x8010000000000000, 0x3fe0000000000000, 0xbfe0000000000000, 0x3ff8000000000000,
    0xbff8000000000000, 0x4004000000000000, 0xc004000000000000, 0x400c000000000000, 0xc00c000000000000,
    0x3fdfffffffffffff, 0x3fe0000000000001, 0xbfdfffffffffffff, 0x3fefffffffffffff, 0xbfefffffffffffff,
    0x3ff0000000000000, 0xbff0000000000000, 0x3ff0000000000001, 0x3fd0000000000000, 0xbfe8000000000000,
    0x432fffffffffffff, 0xc32fffffffffffff, 0x432ffffffffffffe, 0x4330000000000000, 0xc330000000000000,
    0x4330000000000001, 0x41dfffffffc00000, 0x41dfffffffe00000, 0x7fefffffffffffff, 0xffefffffffffffff};
constexpr size_t kFloatCount = sizeof kFloatEdges / sizeof kFloatEdges[0];
constexpr size_t kZeroCount = sizeof kZeroEdges / sizeof kZeroEdges[0];
constexpr size_t kHalfCount = sizeof kHalfEdges / sizeof kHalfEdges[0];
constexpr size_t kDoubleCount = sizeof kDoubleEdges / sizeof kDoubleEdges[0];
constexpr size_t kIntCount = sizeof kIntEdges / sizeof kIntEdges[0];
constexpr size_t kRoundCount = sizeof kRoundEdges / sizeof kRoundEdges[0];
constexpr size_t kDoubleRoundCount = sizeof kDoubleRoundEdges / sizeof kDoubleRoundEdges[0];

// A float near 1 in magnitude (exponents 120 to 134), so that sums and products round.
uint32_t NearOne(uint64_t& state) {
  const uint64_t r = Next(state);
  return static_cast<uint32_t>((r >> 63) << 31 | ((120 + (r >> 32) % 15) << 23) | (r & 0x7fffff));
}

// A half near 1 in magnitude (exponents 12 to 18), and a word of two halves: an edge in one half,
// either, or none.
uint32_t HalfNearOne(uint64_t& state) {
  const uint64_t r = Next(state);
  return static_cast<uint32_t>((r >> 63) << 15 | ((12 + (r >> 32) % 7) << 10) | (r & 0x3ff));
}
uint32_t Halves(uint32_t t, uint32_t i, uint64_t& state) {
  const uint32_t edge = kHalfEdges[(t * 7 + i * 5 + t / kHalfCount) % kHalfCount];
  const uint32_t other = t < 96 ? kHalfEdges[(t + i * 11) % kHalfCount] : HalfNearOne(state);
  if (t >= 160) return HalfNearOne(state) << 16 | HalfNearOne(state);
  return (t + i) % 2 ? other << 16 | edge : edge << 16 | other;
}

// A double's high word near 1 in magnitude (exponents 1015 to 1030).
uint32_t DoubleNearOne(uint64_t& state) {
  const uint64_t r = Next(state);
  return static_cast<uint32_t>((r >> 63) << 31 | ((1015 + (r >> 32) % 16) << 20) | (r & 0xfffff));
}

// A value near an integer (kRound, kDoubleRound) of the binary format of `fraction_bits` stored fraction
// bits (23, 52) and exponent bias `bias`: magnitude 0.5 to 2^(fraction_bits + 1), either sign; of those
// with a fraction, one in three exactly halfway between two integers and one in three integral.
uint64_t NearInteger(uint64_t& state, int bias, int fraction_bits) {
  const uint64_t r = Next(state), bits = Next(state);
  const int exponent = bias - 1 + static_cast<int>(r % static_cast<uint64_t>(fraction_bits + 2));
  const int dropped = fraction_bits - (exponent - bias);  // the fraction bits below one
  uint64_t fraction = bits & ((uint64_t{1} << fraction_bits) - 1);
  if (dropped >= 1 && dropped <= fraction_bits) {
    const uint64_t below = (uint64_t{1} << dropped) - 1;
    if (r / 64 % 3 == 0) fraction = (fraction & ~below) | uint64_t{1} << (dropped - 1);
    if (r / 64 % 3 == 1) fraction &= ~below;
  }
  const int sign = fraction_bits == 23 ? 31 : 63;
  return (r >> 63) << sign | static_cast<uint64_t>(exponent) << fraction_bits | fraction;
}

// The inputs to round (kRound, kDoubleRound): edges for the first 96 threads, near integers to thread
// 224, random bits after.
void DrawRound(Inputs kind, uint32_t t, uint64_t& state, uint32_t* word) {
  if (kind == Inputs::kRound) {
    for (uint32_t i = 0; i < kInputs; ++i)
      if (t < 224)
        word[i] = t < 96 ? kRoundEdges[(3 * t + i) % kRoundCount]
                         : static_cast<uint32_t>(NearInteger(state, 127, 23));
    return;
  }
  if (t >= 224) return;
  const uint64_t x = t < 96 ? kDoubleRoundEdges[t % kDoubleRoundCount] : NearInteger(state, 1023, 52);
  const uint64_t y =
      t < 96 ? kDoubleRoundEdges[(5 * t + 1) % kDoubleRoundCount] : NearInteger(state, 1023, 52);
  word[0] = static_cast<uint32_t>(x >> 32);
  word[1] = static_cast<uint32_t>(y >> 32);
  word[2] = static_cast<uint32_t>(x);
}

// The inputs of the kinds of other precisions (kZeros, kHalf, kDouble).
void DrawOther(Inputs kind, uint32_t t, uint64_t r, uint64_t& state, uint32_t* word) {
  switch (kind) {
    case Inputs::kZeros:
      if (t < kZeroCount * kZeroCount) {
        word[0] = kZeroEdges[t % kZeroCount];
        word[1] = kZeroEdges[t / kZeroCount];
      } else if (t < 128) {
        word[0] = kFloatEdges[t % kFloatCount];
        word[1] = kZeroEdges[(t / 2) % 2];
      } else {
        word[0] = NearOne(state);
        word[1] = (t % 2) ? NearOne(state) : kZeroEdges[t % kZeroCount];
      }
      return;
    case Inputs::kHalf:
      for (uint32_t i = 0; i < kInputs; ++i) word[i] = Halves(t, i, state);
      return;
    default:  // kDouble
      if (t < 128) {
        word[0] = kDoubleEdges[t % kDoubleCount];
        word[1] = kDoubleEdges[(t / kDoubleCount + t) % kDoubleCount];
        word[2] = (t & 1) ? kLowEdges[r % 4] : 0;
      } else {
        word[0] = DoubleNearOne(state);
        word[1] = (t % 4 == 0) ? kDoubleEdges[r % kDoubleCount] : DoubleNearOne(state);
      }
      return;
  }
}

// The three inputs of thread t: the first threads pair edges, the rest are random.
void Draw(Inputs kind, uint32_t t, uint64_t& state, uint32_t* word) {
  const uint64_t r = Next(state);
  for (uint32_t i = 0; i < kInputs; ++i) word[i] = static_cast<uint32_t>(Next(state));
  switch (kind) {
    case Inputs::kZeros:
    case Inputs::kHalf:
    case Inputs::kDouble:
      DrawOther(kind, t, r, state, word);
      return;
    case Inputs::kRound:
    case Inputs::kDoubleRound:
      DrawRound(kind, t, state, word);
      return;
    case Inputs::kFloat:
      if (t < 128) {
        word[0] = kFloatEdges[t % kFloatCount];
        word[1] = kFloatEdges[(t / kFloatCount + t) % kFloatCount];
        word[2] = (t & 1) ? kFloatEdges[r % kFloatCount] : NearOne(state);
      } else if (t < 224) {
        for (uint32_t i = 0; i < kInputs; ++i) word[i] = NearOne(state);
      }
      return;
    case Inputs::kRange:
      // Each of a, b, c over the whole range: the edges, then denormals of either sign, then the
      // random bits drawn above (every exponent as likely).
      if (t < kFloatCount) {
        for (uint32_t i = 0; i < kInputs; ++i) word[i] = kFloatEdges[(t + 11 * i) % kFloatCount];
      } else if (t < 96) {
        for (uint32_t i = 0; i < kInputs; ++i) word[i] &= 0x807fffffu;
      }
      return;
    case Inputs::kInt:
    case Inputs::kShift:
    case Inputs::kDivisor:
      if (t < 128) {
        word[0] = kIntEdges[t % kIntCount];
        word[1] = kIntEdges[(t / kIntCount + t) % kIntCount];
        word[2] = (t & 1) ? kIntEdges[r % kIntCount] : word[2];
      }
      if (kind == Inputs::kShift && (t % 4) != 3) word[1] = static_cast<uint32_t>(r % 71);
      if (kind == Inputs::kDivisor && t >= 128) word[1] = (t % 3 == 0) ? 1u << (r % 32) : word[1] >> (r % 32);
      return;
    case Inputs::kLane:
      word[1] = static_cast<uint32_t>(r % 41);
      return;
    case Inputs::kWarpInt:
      if (t < 128) {
        word[0] = kIntEdges[t % kIntCount];
        word[2] = kIntEdges[(t / kIntCount + t) % kIntCount];
      }
      word[1] = static_cast<uint32_t>(r % 41);
      return;
    case Inputs::kNone:
    default:  // the tensor-core tiles are drawn whole (DrawMmaTiles)
      word[0] = word[1] = word[2] = 0;
      return;
  }
}

int Fail(const char* what, cudaError_t error) {
  std::fprintf(stderr, "bankcheck_conformance_record: %s: %s\n", what, cudaGetErrorString(error));
  return 1;
}

int Record(const char* path) {
  cudaDeviceProp properties{};
  int driver = 0, runtime = 0;
  cudaError_t error = cudaGetDeviceProperties(&properties, 0);
  if (error != cudaSuccess) return Fail("cudaGetDeviceProperties", error);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  if (properties.major != 9 || properties.minor != 0) {
    std::fprintf(stderr, "bankcheck_conformance_record: the GPU is sm_%d%d, not sm_90\n", properties.major,
                 properties.minor);
    return 1;
  }
  uint32_t *in = nullptr, *out = nullptr;
  if ((error = cudaMalloc(reinterpret_cast<void**>(&in), kThreads * kInputs * 4)) != cudaSuccess ||
      (error = cudaMalloc(reinterpret_cast<void**>(&out), kThreads * kOutputs * 4)) != cudaSuccess)
    return Fail("cudaMalloc", error);
  FILE* file = std::fopen(path, "w");
  if (file == nullptr) {
    std::perror(path);
    return 1;
  }
  std::fprintf(
      file,
      "# bankcheck instruction conformance vectors: written by bankcheck_conformance_record on the GPU "
      "(framework/emulate/conformance/record.cc says the format)\n");
  std::fprintf(file, "device %s\ndriver %d\nruntime %d\nsm %d.%d\n", properties.name, driver, runtime,
               properties.major, properties.minor);
  size_t count = 0;
  const Form* forms = Forms(&count);
  size_t total = 0, recorded = 0, left_out = 0;
  for (size_t f = 0; f < count; ++f) {
    uint64_t state = 0x62616e6b636865ull ^ (uint64_t{f + 1} * 0x100000001b3ull);
    std::vector<uint32_t> host_in(kThreads * kInputs), host_out(kThreads * kOutputs);
    if (IsMma(forms[f].inputs))
      DrawMmaTiles(forms[f].inputs, state, host_in.data());
    else
      for (uint32_t t = 0; t < kThreads; ++t) Draw(forms[f].inputs, t, state, &host_in[t * kInputs]);
    // An error ends the recording, the forms recorded before it kept (the file is closed below).
    const char* step = "cudaMemcpy";
    if ((error = cudaMemcpy(in, host_in.data(), host_in.size() * 4, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (error = cudaMemset(out, 0, host_out.size() * 4)) != cudaSuccess ||
        (step = forms[f].name, error = static_cast<cudaError_t>(LaunchForm(f, in, out))) != cudaSuccess ||
        (error = cudaDeviceSynchronize()) != cudaSuccess ||
        (step = "cudaMemcpy", error = cudaMemcpy(host_out.data(), out, host_out.size() * 4,
                                                 cudaMemcpyDeviceToHost)) != cudaSuccess) {
      Fail(step, error);
      left_out += count - f;
      break;
    }
    // A form that wrote past its outputs is left out (the replay then says it has no vectors); the
    // others are still recorded.
    bool past = false;
    for (uint32_t t = 0; t < kThreads; ++t)
      for (uint32_t i = forms[f].outputs; i < kOutputs; ++i) past = past || host_out[t * kOutputs + i] != 0;
    if (past) {
      std::fprintf(stderr, "bankcheck_conformance_record: %s wrote past its %u outputs: left out\n",
                   forms[f].name, forms[f].outputs);
      ++left_out;
      continue;
    }
    std::fprintf(file, "form %s %s %u %u\n", forms[f].name, forms[f].opcode, forms[f].outputs, kThreads);
    for (uint32_t t = 0; t < kThreads; ++t) {
      for (uint32_t i = 0; i < kInputs; ++i)
        std::fprintf(file, "%s%08x", i ? " " : "", host_in[t * kInputs + i]);
      for (uint32_t i = 0; i < forms[f].outputs; ++i) std::fprintf(file, " %08x", host_out[t * kOutputs + i]);
      std::fprintf(file, "\n");
    }
    ++recorded;
    total += kThreads;
  }
  if (std::fclose(file) != 0) {
    std::perror(path);
    return 1;
  }
  std::printf("recorded %zu forms, %zu vectors on %s (driver %d, runtime %d) into %s; left out %zu\n",
              recorded, total, properties.name, driver, runtime, path, left_out);
  return left_out == 0 ? 0 : 1;
}

}  // namespace
}  // namespace bankcheck::conformance

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bankcheck_conformance_record <vectors file>\n");
    return 2;
  }
  return bankcheck::conformance::Record(argv[1]);
}
