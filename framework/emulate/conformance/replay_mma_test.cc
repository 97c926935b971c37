// The tensor-core forms' replay on exact products (docs/emulate.md, "Checked against the GPU").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "emulate/conformance/forms.h"
#include "emulate/conformance/replay_support.h"
#include "emulate/internal/checked_forms.h"
#include "emulate/internal/tensor_core.h"

namespace bankcheck::conformance {
namespace {

// The tensor-core forms through nvcc's SASS on small integers (every product and sum exact, so the
// rounding does not matter): each warp's D is its A tile times its B tile plus its C tile (forms.cu's
// MmaTiles), element by element. Checks the registers, lanes and halves the emulator gathers; the
// GPU's vectors check the maps themselves and the rounding. Computed once their forms are in
// checked_forms.def; before, not computed with the reason naming the form.
TEST(ConformanceTest, TensorCoreFormsMultiplyTheirTiles) {
  BANKCHECK_NEED_SASS();
  using emulate::internal::MmaElement;
  const auto value = [](uint32_t tile, uint32_t i, uint32_t j) {
    return static_cast<int>((tile * 7 + i * 3 + j * 5) % 9) - 4;
  };
  const auto half = [](int v) {  // f16 of an integer of magnitude below 2048
    if (v == 0) return 0u;
    const uint32_t m = static_cast<uint32_t>(v < 0 ? -v : v);
    const uint32_t e = static_cast<uint32_t>(31 - __builtin_clz(m));
    return (v < 0 ? 0x8000u : 0u) | (e + 15) << 10 | ((m << (10 - e)) & 0x3ffu);
  };
  const auto bf16 = [&](int v) {
    const float f = static_cast<float>(v);
    uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    return bits >> 16;
  };
  const auto f32 = [](int v) {
    const float f = static_cast<float>(v);
    uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    return bits;
  };
  size_t count = 0;
  struct Case {
    const char* name;
    MmaElement type;
    bool f16_output, zero_c;
  };
  for (const Case& form : {Case{"form_hmma_16816_f32", MmaElement::kF16, false, false},
                           Case{"form_hmma_16816_f32_zero", MmaElement::kF16, false, true},
                           Case{"form_hmma_16816_f32_bf16", MmaElement::kBf16, false, false},
                           Case{"form_hmma_1688_f32_tf32", MmaElement::kTf32, false, false},
                           Case{"form_hmma_16816_f16", MmaElement::kF16, true, false}}) {
    const uint32_t k = emulate::internal::MmaK(form.type);
    std::vector<uint32_t> in(kThreads * kInputs), out(kThreads * kOutputs);
    const auto element = [&](int v) {
      return form.type == MmaElement::kTf32 ? f32(v) : form.type == MmaElement::kBf16 ? bf16(v) : half(v);
    };
    const auto put = [&](uint32_t base, const emulate::internal::FragmentSlot& s, uint32_t regs,
                         uint32_t bits) {
      uint32_t& word = in[base + regs * s.lane + s.reg];
      word = form.type == MmaElement::kTf32 && base < 384 ? bits : word | bits << (16 * s.half);
    };
    for (uint32_t tile = 0; tile < 3; ++tile) {
      for (uint32_t r = 0; r < 16; ++r) {
        for (uint32_t i = 0; i < k && tile < 2; ++i)
          put(tile * 128, emulate::internal::MmaASlot(form.type, r, i), 4, element(value(tile, r, i)));
        for (uint32_t c = 0; c < 8; ++c) {
          if (r < k && tile < 2)
            put(256 + tile * 64, emulate::internal::MmaBSlot(form.type, r, c), 2,
                element(value(tile + 2, r, c)));
          const int cv = value(tile + 4, r, c);
          put(384 + tile * 128, emulate::internal::MmaCSlot(form.f16_output, r, c), 4,
              form.f16_output ? half(cv) : f32(cv));
        }
      }
    }
    std::string why;
    const std::string opcode = Forms(&count)[FormIndex(form.name)].opcode;
    if (!emulate::internal::HasConformanceVectors(opcode)) {
      EXPECT_FALSE(Replay(FormIndex(form.name), in, &out, &why))
          << form.name << " computed outside the table";
      EXPECT_THAT(why, ::testing::HasSubstr("form " + opcode + " (")) << form.name;
      continue;
    }
    ASSERT_TRUE(Replay(FormIndex(form.name), in, &out, &why)) << form.name << ": " << why;
    for (uint32_t w = 0; w < kThreads / 32; ++w) {
      for (uint32_t r = 0; r < 16; ++r) {
        for (uint32_t c = 0; c < 8; ++c) {
          int sum = form.zero_c ? 0 : value(w % 3 + 4, r, c);
          for (uint32_t i = 0; i < k; ++i) sum += value(w % 2, r, i) * value(w / 2 % 2 + 2, i, c);
          const emulate::internal::FragmentSlot s = emulate::internal::MmaCSlot(form.f16_output, r, c);
          const uint32_t word = out[(w * 32 + s.lane) * kOutputs + s.reg];
          const uint32_t got = form.f16_output ? word >> (16 * s.half) & 0xffffu : word;
          const float expected = static_cast<float>(sum);
          uint32_t bits = 0;
          std::memcpy(&bits, &expected, 4);
          EXPECT_EQ(got, form.f16_output ? half(sum) : bits)
              << form.name << " warp " << w << " row " << r << " column " << c;
        }
      }
    }
  }
}

}  // namespace
}  // namespace bankcheck::conformance
