// FlashInfer's rotary position embedding (flashinfer/pos_enc.cuh of the flashinfer-python 0.7.4
// wheel, Apache-2.0; optional: corpus/CMakeLists.txt) from a cos/sin cache:
// BatchQKApplyRotaryPosIdsCosSinCacheHeadParallelismKernel, the kernel its launcher
// (BatchQKApplyRotaryPosIdsCosSinCache) picks for few tokens, a block of bdx x bdy threads per bdy
// tokens and head. 16 tokens at positions pos_ids, 4 query and 2 key heads of 64, rotary_dim 64:
//   flashinfer_rope_cos_sin_cache  non-interleaved (halves rotated), f32 (16 x 8 threads), and
//                                  interleaved (pairs rotated), f16 (8 x 16 threads).
// Launched directly with the launcher's grid and block (the launcher first sizes resident blocks
// with cudaOccupancyMaxActiveBlocksPerMultiprocessor, not emulated: docs/emulate.md). The cache
// and inputs are multiples of 1/64 and 1/16 in [-1, 1] and [-4, 4], so every product and the sum of
// two are exact in float: the reference is exact, rounded to T as the kernel's store rounds.
// Without FlashInfer's headers, or with a CCCL without cuda::fast_mod_div (flashinfer_support.h),
// the same cases register and skip with the reason.

#include "flashinfer_support.h"

#if BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE
#include <flashinfer/pos_enc.cuh>
#endif

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bankcheck::corpus::flashinfer_cases {
namespace {

#if BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE
constexpr uint32_t kTokens = 16, kQoHeads = 4, kKvHeads = 2, kHeadDim = 64, kMaxPos = 32;

// The rotated row x (head_dim elements) at cache row cs (rotary_dim = head_dim: cos in the first
// half, sin in the second), as vec_apply_llama_rope_cos_sin(_interleave_reuse_half) computes it.
std::vector<float> HostRope(const float* x, const float* cs, bool interleave) {
  constexpr uint32_t kHalf = kHeadDim / 2;
  std::vector<float> y(kHeadDim);
  for (uint32_t e = 0; e < kHeadDim; ++e) {
    if (interleave) {
      const float other = e % 2 == 0 ? -x[e + 1] : x[e - 1];
      y[e] = x[e] * cs[e / 2] + other * cs[kHalf + e / 2];
    } else {
      const uint32_t j = e % kHalf;
      const float other = e < kHalf ? -x[e + kHalf] : x[e - kHalf];
      y[e] = x[e] * cs[j] + other * cs[kHalf + j];
    }
  }
  return y;
}
#endif

template <typename T, bool kInterleave>
void AddRopeCase() {
  const std::string type = TypeName<T>();
  const std::string layout = kInterleave ? "interleave" : "halves";
  AddCase("flashinfer_rope_cos_sin_cache/" + type + "_" + layout + "/16x6x64",
          "flashinfer BatchQKApplyRotaryPosIdsCosSinCacheHeadParallelismKernel (" + layout + ", " + type +
              "): 16 tokens, 4 query and 2 key heads of 64",
          [](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE
            // Multiples of 1/64 in [-1, 1] (cos/sin) times sixteenths of at most 4: exact products.
            // Padded by a row: the interleaved kernel loads a whole vector of cos and of sin where it
            // uses half of each (pos_enc.cuh's "HACK" comment), past the last position's row.
            std::vector<float> cache(size_t{kMaxPos + 1} * kHeadDim);
            std::mt19937 rng(0x20BEu);
            std::uniform_int_distribution<int32_t> dist(-64, 64);
            for (auto& c : cache) c = static_cast<float>(dist(rng)) / 64.0f;
            std::vector<int32_t> pos_ids(kTokens);
            for (uint32_t t = 0; t < kTokens; ++t) pos_ids[t] = static_cast<int32_t>((t * 7 + 3) % kMaxPos);
            const std::vector<float> q = SixteenthsIn(size_t{kTokens} * kQoHeads * kHeadDim, 0x20B1u, -4, 4);
            const std::vector<float> k = SixteenthsIn(size_t{kTokens} * kKvHeads * kHeadDim, 0x20B2u, -4, 4);
            std::vector<float> q_expected, k_expected;
            for (uint32_t t = 0; t < kTokens; ++t) {
              const float* cs = cache.data() + size_t(pos_ids[t]) * kHeadDim;
              for (uint32_t h = 0; h < kQoHeads; ++h) {
                const auto y = HostRope(q.data() + (t * kQoHeads + h) * kHeadDim, cs, kInterleave);
                q_expected.insert(q_expected.end(), y.begin(), y.end());
              }
              for (uint32_t h = 0; h < kKvHeads; ++h) {
                const auto y = HostRope(k.data() + (t * kKvHeads + h) * kHeadDim, cs, kInterleave);
                k_expected.insert(k_expected.end(), y.begin(), y.end());
              }
            }
            // The launcher's configuration (BatchQKApplyRotaryPosIdsCosSinCache, few tokens).
            constexpr uint32_t kVec = std::max<uint32_t>(16 / sizeof(T), kHeadDim / 32);
            constexpr uint32_t kBdx = kHeadDim / kVec;
            constexpr uint32_t kBdy = std::max(128u, kBdx) / kBdx;
            DeviceBuffer<float> d_cache(cache);
            DeviceBuffer<int32_t> d_pos(pos_ids);
            DeviceBuffer<T> d_q(FromFloats<T>(q)), d_k(FromFloats<T>(k));
            DeviceBuffer<T> d_q_rope(q.size()), d_k_rope(k.size());
            d_q_rope.Fill(0xFF);
            d_k_rope.Fill(0xFF);
            ctx.Measure([&] {
              flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheHeadParallelismKernel<kInterleave, kHeadDim,
                                                                                   kVec, kBdx, T, int32_t>
                  <<<dim3(flashinfer::ceil_div(kTokens, kBdy), kQoHeads + kKvHeads), dim3(kBdx, kBdy)>>>(
                      d_q.get(), d_k.get(), d_q_rope.get(), d_k_rope.get(), d_cache.get(), d_pos.get(),
                      kTokens, kQoHeads, kKvHeads, kHeadDim, size_t{kQoHeads} * kHeadDim, kHeadDim,
                      size_t{kKvHeads} * kHeadDim, kHeadDim, size_t{kQoHeads} * kHeadDim, kHeadDim,
                      size_t{kKvHeads} * kHeadDim, kHeadDim);
            });
            BANKCHECK_CUDA_CHECK(cudaGetLastError());
            ExpectVectorsEqual(d_q_rope.ToHost(), FromFloats<T>(q_expected), "q_rope");
            ExpectVectorsEqual(d_k_rope.ToHost(), FromFloats<T>(k_expected), "k_rope");
#else
            (void)ctx;
            GTEST_SKIP() << PageHeadersMissing();
#endif
          });
}

void RegisterFlashInferPosEncCases() {
  AddRopeCase<float, false>();
  AddRopeCase<Half, true>();
}

BANKCHECK_REGISTER_CASES(RegisterFlashInferPosEncCases);

}  // namespace
}  // namespace bankcheck::corpus::flashinfer_cases
