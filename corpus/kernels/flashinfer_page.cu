// FlashInfer's paged key-value cache appends (flashinfer/page.cuh of the flashinfer-python 0.7.4
// wheel, Apache-2.0; optional: corpus/CMakeLists.txt), 3 requests over a cache of 8 pages whose page
// table (indices) is a permutation:
//   flashinfer_append_paged_kv_decode  AppendPagedKVCacheDecode, through its launcher: one new key
//                                      and value per request, f16, NHD layout, 4 heads of 64, pages
//                                      of 16 entries; a block (8x4 threads) a request.
//   flashinfer_append_paged_kv         AppendPagedKVCacheKernel: 20 new keys and values at given
//                                      (request, position)s, bf16, HND layout, 2 heads of 128, pages
//                                      of 8; launched directly with its launcher's block (16x2
//                                      threads) and 4 blocks, which stride over the 20 entries (the
//                                      launcher sizes the grid from
//                                      cudaOccupancyMaxActiveBlocksPerMultiprocessor and the SM count,
//                                      neither emulated: docs/emulate.md).
// The caches start as random bits and are checked whole: the appended entries where the reference
// (a CPU copy through the same page table) puts them, every other byte unchanged. Exact (copies).
// Without FlashInfer's headers, or with a CCCL without cuda::fast_mod_div (flashinfer_support.h),
// the same cases register and skip with the reason.

#include "flashinfer_support.h"

#if BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE
#include <flashinfer/page.cuh>
#endif

#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::corpus::flashinfer_cases {
namespace {

#if BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE
constexpr uint32_t kPages = 8;
// The page table: request r owns indices[indptr[r] .. indptr[r + 1]).
const std::vector<int32_t> kIndptr = {0, 2, 3, 6};
const std::vector<int32_t> kIndices = {5, 2, 7, 0, 3, 6};

// Offset of (page, head, entry, feature) in a cache of the layout (NHD: page, entry, head, feature;
// HND: page, head, entry, feature).
size_t CacheOffset(bool nhd, uint32_t heads, uint32_t page_size, uint32_t head_dim, size_t page, size_t head,
                   size_t entry, size_t feature) {
  const size_t page_base = page * heads * page_size * head_dim;
  return nhd ? page_base + (entry * heads + head) * head_dim + feature
             : page_base + (head * page_size + entry) * head_dim + feature;
}

// A case's random inputs: both caches' initial bits (the entries not appended keep them) and the
// `entries` keys and values of heads x head_dim to append, from seeds first_seed .. first_seed + 3.
struct AppendInputs {
  std::vector<uint16_t> initial_k, initial_v, key, value;
};

AppendInputs RandomAppendInputs(uint32_t heads, uint32_t page_size, uint32_t head_dim, uint32_t entries,
                                uint32_t first_seed) {
  const size_t cache_elements = size_t{kPages} * heads * page_size * head_dim;
  const size_t new_elements = size_t{entries} * heads * head_dim;
  return {kernels::RandomBits<uint16_t>(cache_elements, first_seed),
          kernels::RandomBits<uint16_t>(cache_elements, first_seed + 1),
          kernels::RandomBits<uint16_t>(new_elements, first_seed + 2),
          kernels::RandomBits<uint16_t>(new_elements, first_seed + 3)};
}

// Checks both caches after `launch(k_cache, v_cache)` ran once, measured, on caches of random bits.
template <typename Launch>
void CheckAppend(CaseContext& ctx, const std::vector<uint16_t>& expected_k,
                 const std::vector<uint16_t>& expected_v, const std::vector<uint16_t>& initial_k,
                 const std::vector<uint16_t>& initial_v, Launch&& launch) {
  DeviceBuffer<uint16_t> d_k(initial_k);
  DeviceBuffer<uint16_t> d_v(initial_v);
  ctx.Measure([&] { launch(d_k.get(), d_v.get()); });
  BANKCHECK_CUDA_CHECK(cudaGetLastError());
  ExpectVectorsEqual(d_k.ToHost(), expected_k, "key cache");
  ExpectVectorsEqual(d_v.ToHost(), expected_v, "value cache");
}
#endif

void AddDecodeCase() {
  AddCase("flashinfer_append_paged_kv_decode/f16_nhd/3x4x64",
          "flashinfer::AppendPagedKVCacheDecode: a key and a value per request appended to a paged cache "
          "(f16, NHD, 4 heads of 64, pages of 16, 3 requests); a block of 8x4 threads a request",
          [](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE
            constexpr uint32_t kHeads = 4, kHeadDim = 64, kPageSize = 16, kBatch = 3;
            const std::vector<int32_t> last_page_len = {5, 16, 1};
            const AppendInputs in = RandomAppendInputs(kHeads, kPageSize, kHeadDim, kBatch, 0xCA1u);
            std::vector<uint16_t> expected_k = in.initial_k, expected_v = in.initial_v;
            for (uint32_t r = 0; r < kBatch; ++r) {
              // The new entry is the last of the request's last page.
              const size_t page = static_cast<size_t>(kIndices[static_cast<size_t>(kIndptr[r + 1] - 1)]);
              const size_t entry = static_cast<size_t>(last_page_len[r] - 1);
              for (uint32_t h = 0; h < kHeads; ++h)
                for (uint32_t f = 0; f < kHeadDim; ++f) {
                  const size_t at = CacheOffset(true, kHeads, kPageSize, kHeadDim, page, h, entry, f);
                  expected_k[at] = in.key[(r * kHeads + h) * kHeadDim + f];
                  expected_v[at] = in.value[(r * kHeads + h) * kHeadDim + f];
                }
            }
            DeviceBuffer<int32_t> d_indptr(kIndptr), d_indices(kIndices), d_last(last_page_len);
            DeviceBuffer<uint16_t> d_key(in.key), d_value(in.value);
            CheckAppend(ctx, expected_k, expected_v, in.initial_k, in.initial_v,
                        [&](uint16_t* k_cache, uint16_t* v_cache) {
                          flashinfer::paged_kv_t<__half, int32_t> paged_kv(
                              kHeads, kPageSize, kHeadDim, kBatch, flashinfer::QKVLayout::kNHD,
                              reinterpret_cast<__half*>(k_cache), reinterpret_cast<__half*>(v_cache),
                              d_indices.get(), d_indptr.get(), d_last.get());
                          BANKCHECK_CUDA_CHECK(flashinfer::AppendPagedKVCacheDecode(
                              paged_kv, reinterpret_cast<__half*>(d_key.get()),
                              reinterpret_cast<__half*>(d_value.get()), nullptr));
                        });
#else
        (void)ctx;
        GTEST_SKIP() << PageHeadersMissing();
#endif
          });
}

void AddAppendCase() {
  AddCase("flashinfer_append_paged_kv/bf16_hnd/20x2x128",
          "flashinfer::AppendPagedKVCacheKernel: 20 keys and values appended at given positions of 3 "
          "requests (bf16, HND, 2 heads of 128, pages of 8); 4 blocks of 16x2 threads",
          [](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER_PAGE
            constexpr uint32_t kHeads = 2, kHeadDim = 128, kPageSize = 8, kBatch = 3, kNnz = 20;
            constexpr uint32_t kVecSize = 8, kBdx = kHeadDim / kVecSize;  // as AppendPagedKVCache sets them
            // Request r's positions: its pages hold (indptr[r + 1] - indptr[r]) * 8 entries.
            std::vector<int32_t> batch_indices, positions;
            const int32_t taken[kBatch][8] = {
                {0, 3, 9, 15, 4, 11, 13, -1}, {7, 0, 2, 5, -1, -1, -1, -1}, {1, 23, 8, 16, 17, 5, 22, 12}};
            for (int32_t r = 0; r < static_cast<int32_t>(kBatch); ++r)
              for (const int32_t p : taken[r])
                if (p >= 0) {
                  batch_indices.push_back(r);
                  positions.push_back(p);
                }
            // The twentieth: request 2 once more, at 19 (positions of a request are distinct).
            batch_indices.push_back(2);
            positions.push_back(19);
            if (batch_indices.size() != kNnz)
              GTEST_FAIL() << "the case's positions are " << batch_indices.size();
            const std::vector<int32_t> last_page_len = {8, 8, 8};  // unused by the kernel
            const AppendInputs in = RandomAppendInputs(kHeads, kPageSize, kHeadDim, kNnz, 0xAB1u);
            std::vector<uint16_t> expected_k = in.initial_k, expected_v = in.initial_v;
            for (uint32_t i = 0; i < kNnz; ++i) {
              const size_t slot =
                  static_cast<size_t>(kIndptr[static_cast<size_t>(batch_indices[i])]) * kPageSize +
                  static_cast<size_t>(positions[i]);
              const size_t page = static_cast<size_t>(kIndices[slot / kPageSize]);
              for (uint32_t h = 0; h < kHeads; ++h)
                for (uint32_t f = 0; f < kHeadDim; ++f) {
                  const size_t at =
                      CacheOffset(false, kHeads, kPageSize, kHeadDim, page, h, slot % kPageSize, f);
                  expected_k[at] = in.key[(i * kHeads + h) * kHeadDim + f];
                  expected_v[at] = in.value[(i * kHeads + h) * kHeadDim + f];
                }
            }
            DeviceBuffer<int32_t> d_indptr(kIndptr), d_indices(kIndices), d_last(last_page_len);
            DeviceBuffer<int32_t> d_batch(batch_indices), d_positions(positions);
            DeviceBuffer<uint16_t> d_key(in.key), d_value(in.value);
            CheckAppend(
                ctx, expected_k, expected_v, in.initial_k, in.initial_v,
                [&](uint16_t* k_cache, uint16_t* v_cache) {
                  flashinfer::paged_kv_t<__nv_bfloat16, int32_t> paged_kv(
                      kHeads, kPageSize, kHeadDim, kBatch, flashinfer::QKVLayout::kHND,
                      reinterpret_cast<__nv_bfloat16*>(k_cache), reinterpret_cast<__nv_bfloat16*>(v_cache),
                      d_indices.get(), d_indptr.get(), d_last.get());
                  // The appended keys and values: [nnz, heads, head_dim], contiguous.
                  flashinfer::AppendPagedKVCacheKernel<kHeadDim, kVecSize, __nv_bfloat16, int32_t>
                      <<<4, dim3(kBdx, kHeads)>>>(
                          paged_kv, reinterpret_cast<__nv_bfloat16*>(d_key.get()),
                          reinterpret_cast<__nv_bfloat16*>(d_value.get()), d_batch.get(), d_positions.get(),
                          kNnz, size_t{kHeads} * kHeadDim, kHeadDim, size_t{kHeads} * kHeadDim, kHeadDim);
                });
#else
        (void)ctx;
        GTEST_SKIP() << PageHeadersMissing();
#endif
          });
}

void RegisterFlashInferPageCases() {
  AddDecodeCase();
  AddAppendCase();
}

BANKCHECK_REGISTER_CASES(RegisterFlashInferPageCases);

}  // namespace
}  // namespace bankcheck::corpus::flashinfer_cases
