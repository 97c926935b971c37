// FlashInfer's bit packing (flashinfer/quantization.cuh of the flashinfer-python 0.7.4 wheel,
// Apache-2.0; optional: corpus/CMakeLists.txt), through its own launchers:
//   flashinfer_packbits          PackBits: booleans packed eight to a byte, big and little bit
//                                order, 256 threads a block, each loading 8 booleans through
//                                cub::BlockLoad (BLOCK_LOAD_VECTORIZE); 3,000 booleans (2 blocks,
//                                the second partial).
//   flashinfer_segment_packbits  SegmentPackBits: the same per segment of a ragged array (int32
//                                indptr), a block a segment; segments of 700, 13, 2,100 and 0.
// References: the packing on the CPU, exact (integer kernels). Without FlashInfer's headers the
// same cases register and skip with the reason.

#include "flashinfer_support.h"

#if BANKCHECK_CORPUS_HAS_FLASHINFER
#include <flashinfer/quantization.cuh>
#endif

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bankcheck::corpus::flashinfer_cases {
namespace {

#if BANKCHECK_CORPUS_HAS_FLASHINFER
std::vector<uint8_t> RandomBooleans(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> values(n);
  for (auto& v : values) v = static_cast<uint8_t>(rng() & 1u);
  return values;
}

// The bit order of PackBits' bytes: the first boolean in the most significant bit where `big`.
flashinfer::quantization::BitOrder BitOrderOf(bool big) {
  return big ? flashinfer::quantization::BitOrder::kBig : flashinfer::quantization::BitOrder::kLittle;
}

// The bytes PackBits writes for `bits[begin, end)`: the last byte's missing bits are 0.
void HostPack(const std::vector<uint8_t>& bits, size_t begin, size_t end, bool big,
              std::vector<uint8_t>& out) {
  for (size_t i = begin; i < end; i += 8) {
    uint8_t byte = 0;
    for (size_t j = 0; j < 8 && i + j < end; ++j)
      if (bits[i + j]) byte |= static_cast<uint8_t>(big ? 0x80u >> j : 1u << j);
    out.push_back(byte);
  }
}
#endif

void AddPackBitsCase(bool big) {
  const std::string order = big ? "big" : "little";
  AddCase("flashinfer_packbits/" + order + "/3000",
          "flashinfer::quantization::PackBits of 3000 booleans, " + order +
              " bit order; 2 blocks of 256 threads (cub::BlockLoad VECTORIZE)",
          [big](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER
            constexpr size_t kN = 3000;
            const std::vector<uint8_t> in = RandomBooleans(kN, big ? 0xB175u : 0xB176u);
            std::vector<uint8_t> expected;
            HostPack(in, 0, kN, big, expected);
            CheckLaunch(ctx, in, expected, "packed bytes", [big](const uint8_t* d_in, uint8_t* d_out) {
              BANKCHECK_CUDA_CHECK(flashinfer::quantization::PackBits(
                  reinterpret_cast<bool*>(const_cast<uint8_t*>(d_in)), d_out, static_cast<int64_t>(kN),
                  BitOrderOf(big), nullptr));
            });
#else
        (void)ctx;
        (void)big;
        GTEST_SKIP() << kFlashInferMissing;
#endif
          });
}

void AddSegmentPackBitsCase(bool big) {
  const std::string order = big ? "big" : "little";
  AddCase("flashinfer_segment_packbits/" + order + "/4_segments",
          "flashinfer::quantization::SegmentPackBits of 4 segments (700, 13, 2100, 0 booleans), " + order +
              " bit order; a block of 256 threads a segment",
          [big](CaseContext& ctx) {
#if BANKCHECK_CORPUS_HAS_FLASHINFER
            const std::vector<int32_t> lengths = {700, 13, 2100, 0};
            std::vector<int32_t> in_indptr = {0}, out_indptr = {0};
            for (const int32_t n : lengths) {
              in_indptr.push_back(in_indptr.back() + n);
              out_indptr.push_back(out_indptr.back() + (n + 7) / 8);
            }
            const std::vector<uint8_t> in =
                RandomBooleans(static_cast<size_t>(in_indptr.back()), 0x5E6u + big);
            std::vector<uint8_t> expected;
            for (size_t s = 0; s < lengths.size(); ++s)
              HostPack(in, static_cast<size_t>(in_indptr[s]), static_cast<size_t>(in_indptr[s + 1]), big,
                       expected);
            DeviceBuffer<int32_t> d_in_indptr(in_indptr);
            DeviceBuffer<int32_t> d_out_indptr(out_indptr);
            CheckLaunch(ctx, in, expected, "packed bytes", [&](const uint8_t* d_in, uint8_t* d_out) {
              BANKCHECK_CUDA_CHECK(flashinfer::quantization::SegmentPackBits(
                  reinterpret_cast<bool*>(const_cast<uint8_t*>(d_in)), d_out, d_in_indptr.get(),
                  d_out_indptr.get(), static_cast<uint32_t>(lengths.size()), BitOrderOf(big), nullptr));
            });
#else
        (void)ctx;
        (void)big;
        GTEST_SKIP() << kFlashInferMissing;
#endif
          });
}

void RegisterFlashInferQuantizationCases() {
  AddPackBitsCase(true);
  AddPackBitsCase(false);
  AddSegmentPackBitsCase(true);
  AddSegmentPackBitsCase(false);
}

BANKCHECK_REGISTER_CASES(RegisterFlashInferQuantizationCases);

}  // namespace
}  // namespace bankcheck::corpus::flashinfer_cases
