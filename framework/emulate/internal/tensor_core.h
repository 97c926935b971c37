#pragma once
// The tensor core of sm_90 (HMMA, mma.sync): where each matrix element sits in a warp's fragment
// registers (the PTX ISA's maps for m16n8k16 and m16n8k8), and the arithmetic of one element of
// d = a * b + c, bit for bit as the Hopper tensor core computes it (tensor_core.cc). The conformance
// recorder lays out its inputs with the same maps (conformance/mma_inputs.cc), so this header is
// constexpr only.

#include <cstdint>

namespace bankcheck::emulate::internal {

// The element types of the multiplicands: f16 and bf16 two to a register (the lower k in the low
// half), tf32 one to a register (an f32 whose 13 low fraction bits the tensor core ignores).
enum class MmaElement : uint8_t { kF16, kBf16, kTf32 };

// Where an element is: `lane` of the warp, its `reg`-th register of the operand, `half` of it.
struct FragmentSlot {
  uint32_t lane, reg, half;
};

// The A operand (16 rows by k, row-major) of m16n8k16 (f16, bf16: 4 registers) or m16n8k8 (tf32:
// 4 registers, no halves). Lane 4 * g + t holds rows g and g + 8.
constexpr FragmentSlot MmaASlot(MmaElement type, uint32_t row, uint32_t k) {
  if (type == MmaElement::kTf32) return {row % 8 * 4 + k % 4, row / 8 + 2 * (k / 4), 0};
  return {row % 8 * 4 + k % 8 / 2, row / 8 + 2 * (k / 8), k % 2};
}
// The B operand (k by 8 columns, column-major): 2 registers.
constexpr FragmentSlot MmaBSlot(MmaElement type, uint32_t k, uint32_t col) {
  if (type == MmaElement::kTf32) return {col * 4 + k % 4, k / 4, 0};
  return {col * 4 + k % 8 / 2, k / 8, k % 2};
}
// C and D (16 by 8): f32, 4 registers; f16, 2 registers of two halves.
constexpr FragmentSlot MmaCSlot(bool f16, uint32_t row, uint32_t col) {
  if (f16) return {row % 8 * 4 + col / 2, row / 8, col % 2};
  return {row % 8 * 4 + col / 2, row / 8 * 2 + col % 2, 0};
}
// The k of a shape: 16 for f16 and bf16, 8 for tf32.
constexpr uint32_t MmaK(MmaElement type) { return type == MmaElement::kTf32 ? 8 : 16; }

// One element of d = a * b + c as the Hopper tensor core computes it: a[0..k) and b[0..k) the
// elements' bits (f16 and bf16 in the low 16 bits, tf32 as f32 bits), c an f32 (f16 under
// `f16_output`, in its low 16 bits); returns d's bits. All k products are exact and fused in one
// group with c (Khattak & Mikaitis; MMA-Sim): each product and c is aligned to the largest
// exponent among them and truncated to 25 bits below it, the truncated terms added exactly, and
// the sum rounded toward zero to f32 (to nearest even to f16). Subnormals are kept. A NaN operand,
// inf * 0 or inf - inf gives the NaN 0x7fffffff (f16: 0x7fff), an infinity otherwise gives itself.
uint32_t TensorCoreDot(MmaElement type, const uint32_t* a, const uint32_t* b, uint32_t k, uint32_t c,
                       bool f16_output);

}  // namespace bankcheck::emulate::internal
